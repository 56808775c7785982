// Spatial transformer: grid generator and bilinear sampler, forward and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// The 2-d affine spatial transformer (Jaderberg et al.), with cuDNN's
// conventions. Output pixel (h, w) of an H x W output has normalised
// coordinates xt = -1 + 2w/(W-1), yt = -1 + 2h/(H-1) (-1 when the extent
// is 1); the grid holds (gx, gy) = theta[n] * (xt, yt, 1). The sampler reads
// x (Hi x Wi) at ix = (gx + 1)(Wi - 1)/2, iy = (gy + 1)(Hi - 1)/2 with
// bilinear weights; corners outside x read 0.
//
//   grid_forward:     grid[N,H,W,2]   = theta[N,2,3] applied to the output coordinates
//   grid_backward:    dtheta[N,2,3]   = sum over (h, w) of dgrid (x) (xt, yt, 1)
//   sampler_forward:  y[N,C,H,W]      = blend(alpha * sample(x, grid), beta * y)
//   sampler_backward: dx[N,C,Hi,Wi]   = blend(alpha * scatter(dy, grid), beta * dx)
//                     dgrid[N,H,W,2]  = blend(grid_alpha * d sample / d grid . dy, grid_beta * dgrid)
// theta, grid and their gradients are packed; x, y, dx, dy may have any strides.
struct SpatialTransformOp {
  static constexpr const char *kKind = "spatial_transform";
  enum class Stage { grid_forward, grid_backward, sampler_forward, sampler_backward };
  Stage stage = Stage::grid_forward;
  cudnnResampleMode_t sampler = CUDNN_RESAMPLE_BILINEAR;
  // grid_*: theta (dtheta) and grid (dgrid). sampler_forward: x, grid, y.
  // sampler_backward: x, grid, dy, dx, dgrid.
  Uid theta = kNoTensor, grid = kNoTensor, x = kNoTensor, y = kNoTensor;
  Uid dy = kNoTensor, dx = kNoTensor, dgrid = kNoTensor;
  Blend blend;       // y (forward) or dx (backward)
  Blend grid_blend;  // dgrid (sampler backward)
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const SpatialTransformOp &op, bool with_values);

}  // namespace fdnn::graph
