// Operations of the internal model. Each legacy call and each backend
// operation descriptor becomes one or more of these; engines execute them.
#pragma once

#include <cudnn_graph.h>

#include <string>
#include <variant>

#include "graph/tensor.hpp"

namespace fdnn::graph {

// Legacy output blending: y = alpha * result + beta * y_prior. With beta == 0
// the prior content of y is never read (NaN in y must not survive). The
// backend API always uses {1, 0}.
struct Blend {
  double alpha = 1.0;
  double beta = 0.0;
};

// Element-wise operation with numpy-style broadcasting of inputs to y's dims
// (an input dimension of extent 1 broadcasts).
//   binary modes:  y = op(alpha1 * x, alpha2 * b)
//   unary modes:   y = op(alpha1 * x)
//   BINARY_SELECT: y = t ? x : b
struct PointwiseOp {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_propagation = CUDNN_PROPAGATE_NAN;
  Uid x = kNoTensor, b = kNoTensor, t = kNoTensor, y = kNoTensor;
  double alpha1 = 1.0, alpha2 = 1.0;
  // Mode parameters (backend API attributes of CUDNN_BACKEND_POINTWISE_DESCRIPTOR).
  double relu_lower_clip = 0.0;
  double relu_upper_clip = 1e300;  // "no clipping"
  double relu_lower_clip_slope = 0.0;
  double elu_alpha = 1.0;
  double softplus_beta = 1.0;
  double swish_beta = 1.0;
  int64_t axis = -1;  // GEN_INDEX
  Blend blend;
};

// Reduces x to y's dims (every dimension where y has extent 1 and x does not
// is reduced). Optional indices (legacy MIN/MAX/AMAX) are int32 flat indices
// within the reduced slice, as cuDNN defines them.
struct ReductionOp {
  cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  Uid x = kNoTensor, y = kNoTensor, indices = kNoTensor;
  Blend blend;
};

using Op = std::variant<PointwiseOp, ReductionOp>;

// Short name for messages ("pointwise", "reduction").
const char *op_kind_name(const Op &op);

}  // namespace fdnn::graph
