// Convolution: forward, backward data and backward filter. The legacy calls
// (cudnnConvolutionForward, ...BackwardData, ...BackwardFilter) and the
// backend CONVOLUTION_* operations both become one ConvolutionOp.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

enum class ConvDirection { forward, backward_data, backward_filter };

// Tensors: x [N, C, spatial...], w [K, C/groups, spatial...], y [N, K,
// spatial...], all in logical (NCHW-ordered) dims with their own strides.
//   forward:          y  = conv(x, w)         inputs x, w;  output y
//   backward_data:    dx = conv^T(dy, w)      inputs dy (in y), w; output dx (in x)
//   backward_filter:  dw = corr(x, dy)        inputs x, dy (in y); output dw (in w)
// The group count is x's C divided by w's C.
struct ConvolutionOp {
  static constexpr const char *kKind = "convolution";
  ConvDirection direction = ConvDirection::forward;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;  // CONVOLUTION flips the filter
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  // Per spatial dimension. Backend descriptors allow different pre/post
  // padding; the legacy descriptor has one padding used on both sides.
  std::vector<int64_t> pre_padding, post_padding, stride, dilation;
  Uid x = kNoTensor, w = kNoTensor, y = kNoTensor;
  // The legacy algorithm the caller asked for (a cudnnConvolutionFwdAlgo_t,
  // cudnnConvolutionBwdDataAlgo_t or cudnnConvolutionBwdFilterAlgo_t value
  // according to `direction`), or -1 for "any engine". Structural: an engine
  // supports the graph only when it implements that algorithm.
  int algo = -1;
  Blend blend;

  int spatial_dims() const { return static_cast<int>(stride.size()); }
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const ConvolutionOp &op, bool with_values);
// The same structure as describe(os, op, false), appended as raw bytes: the
// legacy convolution calls build this key on every call, and formatting
// numbers through an ostream cost more than some small convolutions.
void append_structural_key(std::string &key, const ConvolutionOp &op);

}  // namespace fdnn::graph
