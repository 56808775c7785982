// Arguments of the CUDA spatial transformer kernels (host engine <->
// spatial_transform_kernels.cu).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

struct SpatialTransformArgs {
  int stage = 0;  // graph::SpatialTransformOp::Stage as int
  int dtype = CUDNN_DATA_FLOAT;
  int64_t n = 0, c = 0, h = 0, w = 0, hi = 0, wi = 0;
  const void *theta = nullptr;  // grid_forward
  void *dtheta = nullptr;       // grid_backward
  const void *grid = nullptr;   // grid_forward output is `grid_out`
  void *grid_out = nullptr;
  const void *dgrid_in = nullptr;  // grid_backward
  const void *x = nullptr;
  void *y = nullptr;
  const void *dy = nullptr;
  void *dx = nullptr;
  void *dgrid = nullptr;  // sampler_backward output
  int64_t xs[4] = {}, ys[4] = {}, dys[4] = {}, dxs[4] = {};
  double alpha = 1, beta = 0, grid_alpha = 1, grid_beta = 0;
};

void launch_spatial_transform(const SpatialTransformArgs &a, void *stream);

}  // namespace fdnn::cuda
