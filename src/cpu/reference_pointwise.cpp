// cpu.reference.pointwise: the obviously-correct pointwise engine. One loop
// over every element of y with the full index arithmetic, every value in
// double, any data type (sub-byte ones included). Tests and the bench check
// the fast engines against it; FREEDNN_ENGINE=cpu.reference pins it.
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/pointwise_support.hpp"

namespace fdnn::cpu {
namespace {

double apply_mode(cudnnPointwiseMode_t mode, double a, double b, double c, const pw::Params<double> &p) {
  double r = 0;
  if (!pw::visit_mode(mode, [&](auto op) { r = decltype(op)::template apply<double>(a, b, c, p); }))
    fail(CUDNN_STATUS_NOT_SUPPORTED, "pointwise mode ", static_cast<int>(mode), " is not implemented");
  return r;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    const PointwiseOperands ops = pointwise_operands(g);
    const graph::Tensor &y = g.tensor(op.y);
    const int rank = y.rank();

    const graph::Tensor *in[3] = {};
    const void *in_data[3] = {};
    for (int j = 0; j + 1 < ops.count; ++j) {
      in[j] = &g.tensor(ops.uid[j + 1]);
      if (!in[j]->by_value) in_data[j] = pack.get(ops.uid[j + 1]);
    }
    void *y_data = pack.get(op.y);
    const pw::Params<double> params = make_params<double>(op);

    std::vector<int64_t> index(rank, 0);
    const int64_t count = y.element_count();
    for (int64_t linear = 0; linear < count; ++linear) {
      // Full multi-index of this element of y.
      int64_t rest = linear;
      for (int d = rank - 1; d >= 0; --d) {
        index[d] = rest % y.dims[d];
        rest /= y.dims[d];
      }
      double v[3] = {0, 0, 0};
      for (int j = 0; j + 1 < ops.count; ++j) {
        if (in[j]->by_value) {
          v[j] = in[j]->value;
          continue;
        }
        int64_t off = 0;
        for (int d = 0; d < rank; ++d) off += (in[j]->dims[d] == 1 ? 0 : index[d]) * in[j]->strides[d];
        v[j] = load_lane(in[j]->dtype, in_data[j], off);
      }
      double r;
      if (op.mode == CUDNN_POINTWISE_GEN_INDEX) {
        const int64_t axis = op.axis;
        if (axis < 0 || axis >= rank) fail(CUDNN_STATUS_BAD_PARAM, "GEN_INDEX axis ", axis, " is outside rank ", rank);
        r = static_cast<double>(index[axis]);
      } else {
        r = apply_mode(op.mode, op.alpha1 * v[0], op.alpha2 * v[1], v[2], params);
      }
      int64_t y_off = 0;
      for (int d = 0; d < rank; ++d) y_off += index[d] * y.strides[d];
      double out = op.blend.alpha * r;
      if (op.blend.beta != 0.0) out += op.blend.beta * load_lane(y.dtype, y_data, y_off);
      store_lane(y.dtype, y_data, y_off, out);
    }
  }
};

class ReferencePointwiseEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.pointwise"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_pointwise(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferencePointwiseEngine;
FDNN_REGISTER_ENGINE(ReferencePointwiseEngine)
