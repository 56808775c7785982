// Element-wise operations: the tensor ops, activations, backend pointwise.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Element-wise operation with numpy-style broadcasting of inputs to y's dims
// (an input dimension of extent 1 broadcasts).
//   binary modes:  y = op(alpha1 * x, alpha2 * b)
//   unary modes:   y = op(alpha1 * x)
//   BINARY_SELECT: y = t ? x : b
struct PointwiseOp {
  static constexpr const char *kKind = "pointwise";
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
  // SIGMOID_BWD, TANH_BWD, ELU_BWD only: x holds the forward output y rather
  // than the forward input (the legacy cudnnActivationBackward's formulas,
  // see pw::Params::bwd_from_output).
  bool bwd_from_output = false;
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const PointwiseOp &op, bool with_values);
// The same structure as describe(os, op, false), appended as raw bytes
// (graph/structural_key.hpp says why).
void append_structural_key(std::string &key, const PointwiseOp &op);

}  // namespace fdnn::graph
