// cpu.reference.concat: the obviously-correct concatenation. For each input,
// each element in logical order: its multi-index, shifted along the axis by
// the extents of the inputs before it, addresses y; values pass as double.
#include <memory>
#include <variant>
#include <vector>

#include "core/concat_support.hpp"
#include "core/engine.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConcatOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    void *yd = pack.get(op.y);
    int64_t start = 0;  // along the axis
    for (graph::Uid u : op.inputs) {
      const graph::Tensor &x = g.tensor(u);
      const void *xd = pack.get(u);
      const int64_t n = x.element_count();
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, xo = 0, yo = 0;
        for (int d = x.rank() - 1; d >= 0; --d) {
          const int64_t idx = rest % x.dims[d];
          rest /= x.dims[d];
          xo += idx * x.strides[d];
          yo += (idx + (d == op.axis ? start : 0)) * y.strides[d];
        }
        store_lane(y.dtype, yd, yo, load_lane(x.dtype, xd, xo));
      }
      start += x.dims[static_cast<size_t>(op.axis)];
    }
  }
};

class ReferenceConcatEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.concat"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_concat(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceConcatEngine;
FDNN_REGISTER_ENGINE(ReferenceConcatEngine)
