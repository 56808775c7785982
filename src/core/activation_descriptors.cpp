#include "core/activation_descriptors.hpp"

#include "core/error.hpp"

namespace fdnn {

bool activation_backward_reads_output(cudnnActivationMode_t mode) {
  switch (mode) {
    case CUDNN_ACTIVATION_SIGMOID:
    case CUDNN_ACTIVATION_TANH:
    case CUDNN_ACTIVATION_ELU: return true;
    default: return false;
  }
}

void set_activation(graph::PointwiseOp &op, const cudnnActivationStruct &d, bool backward) {
  op.nan_propagation = d.nan_propagation;
  op.relu_lower_clip = 0.0;
  op.relu_lower_clip_slope = 0.0;
  op.relu_upper_clip = 1e300;  // RELU ignores coef (frameworks pass 0)
  op.bwd_from_output = backward && activation_backward_reads_output(d.mode);
  switch (d.mode) {
    case CUDNN_ACTIVATION_SIGMOID: op.mode = backward ? CUDNN_POINTWISE_SIGMOID_BWD : CUDNN_POINTWISE_SIGMOID_FWD; break;
    case CUDNN_ACTIVATION_RELU: op.mode = backward ? CUDNN_POINTWISE_RELU_BWD : CUDNN_POINTWISE_RELU_FWD; break;
    case CUDNN_ACTIVATION_TANH: op.mode = backward ? CUDNN_POINTWISE_TANH_BWD : CUDNN_POINTWISE_TANH_FWD; break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      op.mode = backward ? CUDNN_POINTWISE_RELU_BWD : CUDNN_POINTWISE_RELU_FWD;
      op.relu_upper_clip = d.coef;
      break;
    case CUDNN_ACTIVATION_ELU:
      op.mode = backward ? CUDNN_POINTWISE_ELU_BWD : CUDNN_POINTWISE_ELU_FWD;
      op.elu_alpha = d.coef;
      break;
    case CUDNN_ACTIVATION_SWISH:
      op.mode = backward ? CUDNN_POINTWISE_SWISH_BWD : CUDNN_POINTWISE_SWISH_FWD;
      op.swish_beta = d.swish_beta;
      break;
    case CUDNN_ACTIVATION_IDENTITY: op.mode = CUDNN_POINTWISE_IDENTITY; break;  // backward: dx = dy
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "activation mode ", static_cast<int>(d.mode), " is not supported");
  }
}

}  // namespace fdnn
