// cuda.pointwise: the CUDA engine for a single PointwiseOp (cudnnAddTensor,
// cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor, cudnnTransformTensor and
// backend pointwise graphs). Same semantics as the CPU engines: the formulas
// of core/pointwise_math.hpp, the conversions of core/numeric.hpp, and the
// CPU's choice of compute precision (cpu/pointwise_support.cpp).
//
// The plan fixes the iteration space (strided_layout.hpp); each execution
// reads alpha, beta and by-value scalars from the graph and launches on the
// handle's stream without synchronising.
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {
namespace {

graph::Uid input_uid(const graph::PointwiseOp &op, int j) { return j == 0 ? op.x : (j == 1 ? op.b : op.t); }
const char *input_name(int j) { return j == 0 ? "x" : (j == 1 ? "b" : "t"); }

Support check_graph(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::PointwiseOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a pointwise operation");
  const int arity = pw::arity(op->mode);
  if (arity < 0) return Support::no(cat("pointwise mode ", static_cast<int>(op->mode), " is not implemented"));
  const graph::Tensor *y = g.find_tensor(op->y);
  if (y == nullptr) return Support::no("y is missing");
  if (y->by_value) return Support::no("y is a by-value scalar");
  if (y->strides.size() != y->dims.size()) return Support::no("y needs as many strides as dims");
  if (y->rank() > kMaxRank) return Support::no(cat("rank ", y->rank(), " is above ", kMaxRank));
  if (!element_type_supported(y->dtype))
    return Support::no(cat("data type ", type_info(y->dtype).enum_name, " of y has no CUDA kernels"));
  for (int d = 0; d < y->rank(); ++d)
    if (y->dims[d] > 1 && y->strides[d] == 0) return Support::no("y has a zero stride (overlapping output)");
  if (op->mode == CUDNN_POINTWISE_GEN_INDEX && (op->axis < 0 || op->axis >= y->rank()))
    return Support::no(cat("GEN_INDEX axis ", op->axis, " is outside rank ", y->rank()));
  for (int j = 0; j < arity; ++j) {
    const graph::Tensor *t = g.find_tensor(input_uid(*op, j));
    if (t == nullptr) return Support::no(cat("input ", input_name(j), " is missing"));
    if (!t->by_value && !element_type_supported(t->dtype))
      return Support::no(cat("data type ", type_info(t->dtype).enum_name, " of ", input_name(j), " has no CUDA kernels"));
    if (t->by_value) continue;
    if (t->dims.size() != y->dims.size() || t->strides.size() != t->dims.size())
      return Support::no(cat("input ", input_name(j), " has rank ", t->dims.size(), ", y has ", y->dims.size()));
    for (size_t d = 0; d < y->dims.size(); ++d)
      if (t->dims[d] != y->dims[d] && t->dims[d] != 1)
        return Support::no(cat("input ", input_name(j), " dim ", d, " = ", t->dims[d], " does not broadcast to ",
                               y->dims[d]));
  }
  return Support::yes();
}

// The CPU engines compute in double for DOUBLE and integer compute types and
// when a tensor is DOUBLE or INT64 (cpu::needs_double_compute); so do we.
bool needs_double(const graph::Graph &g, const graph::PointwiseOp &op) {
  switch (op.compute_type) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT64: return true;
    default: break;
  }
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE || t.dtype == CUDNN_DATA_INT64) return true;
  return false;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    arity_ = pw::arity(op.mode);
    needs_double_ = needs_double(g, op);
    if (op.mode == CUDNN_POINTWISE_GEN_INDEX) {
      // The axis must keep its meaning: no dropping, reordering or merging.
      layout_.rank = y.rank();
      layout_.operands = 1;
      for (int d = 0; d < y.rank(); ++d) {
        layout_.extent[d] = y.dims[d];
        layout_.stride[0][d] = y.strides[d];
      }
      if (layout_.rank == 0) {
        layout_.rank = 1;
        layout_.extent[0] = 1;
      }
      return;
    }
    std::vector<std::vector<int64_t>> strides{y.strides};
    for (int j = 0; j < arity_; ++j) {
      const graph::Tensor &t = g.tensor(input_uid(op, j));
      strides.push_back(t.by_value ? std::vector<int64_t>(y.dims.size(), 0) : broadcast_strides(y.dims, t.dims, t.strides));
    }
    layout_ = make_layout(y.dims, strides, /*reorder=*/true);
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    PointwiseArgs a;
    a.mode = op.mode;
    a.layout = layout_;
    a.y = pack.get(op.y);
    a.y_dtype = y.dtype;
    check_arg(a.y != nullptr || layout_.element_count() == 0, "no device pointer for y (uid ", op.y, ")");
    for (int j = 0; j < arity_; ++j) {
      const graph::Tensor &t = g.tensor(input_uid(op, j));
      OperandArgs &in = a.in[j];
      in.dtype = t.dtype;
      in.by_value = t.by_value;
      in.value = t.value;
      if (!t.by_value) {
        in.ptr = pack.get(t.uid);
        check_arg(in.ptr != nullptr, "no device pointer for ", input_name(j), " (uid ", t.uid, ")");
      }
    }
    a.alpha1 = op.alpha1;
    a.alpha2 = op.alpha2;
    a.blend_alpha = op.blend.alpha;
    a.blend_beta = op.blend.beta;
    a.params.relu_lower_clip = op.relu_lower_clip;
    a.params.relu_upper_clip = op.relu_upper_clip;
    a.params.relu_lower_clip_slope = op.relu_lower_clip_slope;
    a.params.elu_alpha = op.elu_alpha;
    a.params.softplus_beta = op.softplus_beta;
    a.params.swish_beta = op.swish_beta;
    a.params.propagate_nan = op.nan_propagation != CUDNN_NOT_PROPAGATE_NAN;
    a.gen_index_axis = static_cast<int>(op.axis);
    // A constant fill (cudnnSetTensor) is rounded once from double, as the
    // CPU engine's fill does.
    const bool fill = op.mode == CUDNN_POINTWISE_IDENTITY && arity_ == 1 && a.in[0].by_value && op.blend.beta == 0.0;
    a.compute_double = needs_double_ || fill;
    launch_pointwise(a, ctx.stream);
  }

 private:
  StridedLayout layout_;
  int arity_ = 0;
  bool needs_double_ = false;
};

class CudaPointwiseEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.pointwise"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaPointwiseEngine;
FDNN_REGISTER_ENGINE(CudaPointwiseEngine)
