// Structural checks and shared geometry of normalization graphs (one
// graph::NormalizationOp), used by every device's engines. What is reduced,
// how many statistics sets there are, the layout of the activation mask and
// the fused activation's formulas are decided here once.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "core/numeric.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one NormalizationOp whose tensors exist and fit:
// x, y, z, dy, dx, mask of x's dims; statistics, scale and bias of x's rank
// with each extent x's or 1; the tensors the phase needs present. RMS norm
// (no mean, no running statistics, no fused activation) is accepted only
// when `allow_rms`: engines written before it existed keep refusing it.
Support check_single_normalization(const graph::Graph &g, bool allow_rms = false);

// The statistics-defining tensor: mean, else inv_variance / variance, else
// scale (see graph/op_normalization.hpp).
const graph::Tensor &normalization_stats_tensor(const graph::Graph &g, const graph::NormalizationOp &op);

// The statistics' dims: those of the saved / given / running statistics when
// the op has any; otherwise what the mode implies, since scale may broadcast
// further than the statistics: layer and RMS norm keep dim 0 only
// ([N,1,1,1]), instance norm dims 0 and 1 ([N,C,1,1]), batch norm the
// scale's (or dscale's) shape ([1,C,1,1] spatial, [1,C,H,W] per-activation).
std::vector<int64_t> normalization_stats_dims(const graph::Graph &g, const graph::NormalizationOp &op);

struct NormShape {
  std::vector<int64_t> dims;   // x's
  std::vector<bool> reduced;   // per dim of x
  int64_t groups = 1;          // statistics sets
  int64_t count = 1;           // reduced elements per set (M)
};
NormShape normalization_shape(const graph::Graph &g, const graph::NormalizationOp &op);

// t's strides over x's dims: 0 where t has extent 1 (broadcast).
std::vector<int64_t> broadcast_strides(const graph::Tensor &t);

// Strides of the activation mask for an x: packed, in x's own memory order
// (dimensions sorted by x's strides, largest outermost), so that for a
// packed x the mask byte of an element sits at the element's own offset.
std::vector<int64_t> normalization_mask_strides(const graph::Tensor &x);

// Double precision for DOUBLE compute type (double data), else float.
inline bool normalization_computes_in_double(const graph::NormalizationOp &op) {
  return op.compute_type == CUDNN_DATA_DOUBLE;
}

// Unbiased-variance factor M/(M-1) for the running variance. For M == 1 it
// is infinite, so the running variance becomes NaN, as cuDNN 9.19's does.
inline double unbias_factor(int64_t m) { return static_cast<double>(m) / static_cast<double>(m - 1); }

// The fused activations: identity, relu and clipped relu (relu_upper_clip).
inline bool normalization_activation_known(cudnnPointwiseMode_t m) {
  return m == CUDNN_POINTWISE_IDENTITY || m == CUDNN_POINTWISE_RELU_FWD;
}

namespace norm {

// Activation of the pre-activation value v (identity when !on).
template <class T>
FDNN_HD inline T activate(T v, bool relu, T clip) {
  if (!relu) return v;
  if (v != v) return v;  // NaN propagates
  if (v <= T(0)) return T(0);
  return v > clip ? clip : v;
}

// Whether the activation's derivative at v is 1 (else 0).
template <class T>
FDNN_HD inline bool passes(T v, bool relu, T clip) {
  if (!relu) return true;
  return v > T(0) && v < clip;
}

}  // namespace norm
}  // namespace fdnn
