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
#include "core/op_support.hpp"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {
namespace {

// The shared structural checks, then what the CUDA kernels can do.
Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_pointwise(g); !s) return s;
  const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
  const graph::Tensor &y = g.tensor(op.y);
  if (y.rank() > kMaxRank) return Support::no(cat("rank ", y.rank(), " is above ", kMaxRank));
  if (!element_type_supported(y.dtype))
    return Support::no(cat("data type ", type_info(y.dtype).enum_name, " of y has no CUDA kernels"));
  if (has_overlapping_elements(y)) return Support::no("y has a zero stride (overlapping output)");
  if (op.mode == CUDNN_POINTWISE_GEN_INDEX && (op.axis < 0 || op.axis >= y.rank()))
    return Support::no(cat("GEN_INDEX axis ", op.axis, " is outside rank ", y.rank()));
  for (int j = 0; j < pw::arity(op.mode); ++j) {
    const graph::Tensor &t = g.tensor(pointwise_input(op, j));
    if (!t.by_value && !element_type_supported(t.dtype))
      return Support::no(cat("data type ", type_info(t.dtype).enum_name, " of ", pointwise_input_name(j),
                             " has no CUDA kernels"));
  }
  return Support::yes();
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    arity_ = pw::arity(op.mode);
    needs_double_ = pointwise_computes_in_double(g, op);
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
      const graph::Tensor &t = g.tensor(pointwise_input(op, j));
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
      const graph::Tensor &t = g.tensor(pointwise_input(op, j));
      OperandArgs &in = a.in[j];
      in.dtype = t.dtype;
      in.by_value = t.by_value;
      in.value = t.value;
      if (!t.by_value) {
        in.ptr = pack.get(t.uid);
        check_arg(in.ptr != nullptr, "no device pointer for ", pointwise_input_name(j), " (uid ", t.uid, ")");
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
    a.params.bwd_from_output = op.bwd_from_output;
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
