// Resampling: pooling (max, average) and the backend resample operations, forward and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// A sliding-window resampling over the spatial dimensions of x: dimensions
// 2 .. 2 + window.size() - 1 (N and C first, as in the backend API's
// resample operations). Dimensions after the spatial ones (the lanes of
// vector types) are carried through like C.
//
// Output position o of spatial dimension d reads input positions
//   o * strides[d] - pre_padding[d] + k,  k in [0, window[d])
// Positions outside [0, extent) are padding: ignored by MAXPOOL (the legacy
// API's NEG_INF_PAD), zeros counted in the divisor by AVGPOOL_INCLUDE_PADDING,
// left out of the divisor by AVGPOOL_EXCLUDE_PADDING. y's extents are given
// by the caller (the legacy API accepts any), so post_padding only matters to
// the include-padding divisor: positions past extent + post_padding are not
// counted.
//
// Forward: y = alpha * pool(x) + beta * y.
// Backward: dx = alpha * (gradient of pool at x, applied to dy) + beta * dx.
//   Max pooling finds the window's maximum again from x (legacy pooling has no
//   index tensor) or takes it from `index` (backend API, when present).
//
// The index tensor (MAXPOOL only, dims of y / dy, an integer type): the
// zero-based row-major position of the window's first maximum inside the
// whole window (padding positions counted), as the graph guide describes
// cuDNN's "index tensor dump"; -1 (all bits set) where a window has no
// maximum (no input position, or only NaNs that are not propagated).
//
// NEAREST and BILINEAR (upsampling; backend API only) read the exact
// geometry of `*_ratio` (the descriptor's FRACTION values). Output position
// o of spatial dimension d samples the input at
//   s = o * stride - pre_padding + window / 2 - 1/2,
// clamped to [0, extent - 1]. This is what NVIDIA's engine computes for the
// one configuration cuDNN documents (window 2, stride 1/2, pre-padding 1/2,
// post-padding 1: s = o / 2), as measured on a GPU by a third party; the
// padding mode does not change the result (zero and edge-value padding agree)
// because samples are clamped into the input. BILINEAR interpolates linearly
// between floor(s) and floor(s) + 1 (clamped) in every spatial dimension;
// NEAREST takes the input at floor(s) (with window 1, pre-padding 0 that is
// PyTorch's "nearest" with scale 1 / stride). Their backward passes are the
// adjoints: each dy is scattered to the same input positions with the same
// weights. cuDNN has no engine for NEAREST at all and none for backward
// upsampling; FreeDNN runs both with these definitions.
struct ResampleOp {
  static constexpr const char *kKind = "resample";
  cudnnResampleMode_t mode = CUDNN_RESAMPLE_MAXPOOL;
  cudnnPaddingMode_t padding_mode = CUDNN_NEG_INF_PAD;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  bool backward = false;
  // Legacy CUDNN_POOLING_MAX_DETERMINISTIC (same results here: every engine
  // is deterministic).
  bool deterministic = false;
  std::vector<int64_t> window, pre_padding, post_padding, strides;  // per spatial dimension
  // Forward: x -> y. Backward: dy (and x for max pooling, y optional) -> dx.
  Uid x = kNoTensor, y = kNoTensor, dy = kNoTensor, dx = kNoTensor;
  Uid index = kNoTensor;  // optional argmax positions (backend API)
  Blend blend;
  // The geometry as fractions (backend API), one per spatial dimension, with
  // positive denominators; empty for the legacy API. window/strides/paddings
  // above hold the same values when they are integral.
  struct Ratio {
    int64_t num = 0, den = 1;
  };
  std::vector<Ratio> window_ratio, strides_ratio, pre_padding_ratio, post_padding_ratio;

  int spatial_dims() const { return static_cast<int>(window.size()); }
  bool is_max() const { return mode == CUDNN_RESAMPLE_MAXPOOL; }
  bool is_interpolation() const { return mode == CUDNN_RESAMPLE_NEAREST || mode == CUDNN_RESAMPLE_BILINEAR; }
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const ResampleOp &op, bool with_values);

}  // namespace fdnn::graph
