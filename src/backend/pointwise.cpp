// CUDNN_BACKEND_POINTWISE_DESCRIPTOR (the mode and its parameters) and
// CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR (the node): a graph::PointwiseOp.
#include "backend/operation.hpp"
#include "backend/tensor_descriptor.hpp"
#include "core/error.hpp"
#include "core/pointwise_math.hpp"

namespace fdnn::backend {

namespace {

class PointwiseDescriptor : public Descriptor {
 public:
  PointwiseDescriptor()
      : Descriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE},
                       {CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE},
                       {CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION},
                       {CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                       {CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64},
                   }) {}
  // The op template: mode and parameters, tensors still unset.
  graph::PointwiseOp op;

 protected:
  bool readable_before_finalize() const override { return true; }
  void do_finalize() override {
    require(CUDNN_ATTR_POINTWISE_MODE, "the pointwise mode");
    op = graph::PointwiseOp{};
    op.mode = scalar<cudnnPointwiseMode_t>(CUDNN_ATTR_POINTWISE_MODE, CUDNN_POINTWISE_ADD);
    check_supported(pw::arity(op.mode) >= 0, "pointwise mode ", static_cast<int>(op.mode),
                    " is not a cudnnPointwiseMode_t FreeDNN knows");
    op.compute_type = scalar<cudnnDataType_t>(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT);
    op.nan_propagation = scalar<cudnnNanPropagation_t>(CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_NOT_PROPAGATE_NAN);
    const auto dbl = [&](cudnnBackendAttributeName_t n, double fallback) {
      return has(n) ? as_double(value(n)) : fallback;
    };
    op.relu_lower_clip = dbl(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, op.relu_lower_clip);
    op.relu_upper_clip = dbl(CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, op.relu_upper_clip);
    op.relu_lower_clip_slope = dbl(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, op.relu_lower_clip_slope);
    op.elu_alpha = dbl(CUDNN_ATTR_POINTWISE_ELU_ALPHA, op.elu_alpha);
    op.softplus_beta = dbl(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, op.softplus_beta);
    op.swish_beta = dbl(CUDNN_ATTR_POINTWISE_SWISH_BETA, op.swish_beta);
    op.axis = scalar<int64_t>(CUDNN_ATTR_POINTWISE_AXIS, op.axis);
  }
  void copy_state_from(const Descriptor &other) override {
    op = static_cast<const PointwiseDescriptor &>(other).op;
  }
};

class PointwiseOperation : public OperationDescriptor {
 public:
  PointwiseOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, 1, true, CUDNN_TYPE_DOUBLE},
                                {CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, 1, true, CUDNN_TYPE_DOUBLE},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    require(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, "the pointwise descriptor (PW_DESCRIPTOR)");
    const auto pw_desc = finalized_descriptors(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
                                               CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "PW_DESCRIPTOR");
    graph::PointwiseOp p = static_cast<const PointwiseDescriptor *>(pw_desc.front())->op;
    const int arity = pw::arity(p.mode);
    // The *_BWD modes (200..299) read the forward input and dy, write dx.
    const bool backward = p.mode >= CUDNN_POINTWISE_RELU_BWD && p.mode < CUDNN_POINTWISE_CMP_EQ;
    if (backward) {
      // dx = f'(x) * dy: the formulas take the forward input as their first
      // operand and dy as the second.
      p.x = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, "XDESC (the forward input)", true);
      p.b = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, "DYDESC", true);
      p.y = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, "DXDESC", true);
    } else {
      p.x = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, "XDESC", true);
      p.y = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, "YDESC", true);
      if (arity >= 2) p.b = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, "BDESC", true);
      else check_arg(!has(CUDNN_ATTR_OPERATION_POINTWISE_BDESC), "BDESC must not be set for a one-input mode");
      if (arity == 3) p.t = use_tensor(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, "TDESC", true);
    }
    if (has(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1)) p.alpha1 = as_double(value(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1));
    if (has(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2)) p.alpha2 = as_double(value(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2));
    // Every input has y's rank. That its dims broadcast to y's is checked
    // when an engine is asked (Engine::accepts): NVIDIA's cuDNN finalizes
    // the operation and its graph without it.
    const graph::Tensor &y = tensors_[backward ? 2 : 1];
    for (const graph::Tensor &t : tensors_)
      check_arg(t.rank() == y.rank(), "tensor ", t.uid, " has rank ", t.rank(), " but the output has rank ",
                y.rank());
    op_ = p;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, PointwiseDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, PointwiseOperation)

}  // namespace fdnn::backend
