// Arguments of the CUDA pooling kernels (cuda.pooling): the problem
// normalised to N, C, D, H, W (2-d problems have D = 1, 1-d ones D = H = 1).
#pragma once

#include <cudnn_graph.h>

#include <cstddef>
#include <cstdint>

namespace fdnn::cuda {

struct PoolingArgs {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, post[3] = {0, 0, 0}, str[3] = {1, 1, 1};
  int64_t is[5] = {}, os[5] = {}, xs[5] = {};  // strides of x/dx, y/dy, x (backward)
  bool backward = false, is_max = true, propagate_nan = false, exclude_padding = false;
  bool channels_inner = false;  // threads step along C first (NHWC-like)
  int vec = 1;                  // channels per thread (16-byte accesses when > 1)
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  double alpha = 1, beta = 0;
  const void *x = nullptr, *dy = nullptr;
  void *y = nullptr, *dx = nullptr;
  // Max backward's first-maximum codes (pooling_codes_bytes of the plan's
  // scratch; null: the one-pass kernels).
  void *codes = nullptr;
  size_t codes_size = 0;
};

// Bytes of scratch the two-pass max backward needs for these args (a byte
// per output element), 0 when it does not apply.
size_t pooling_codes_bytes(const PoolingArgs &a);

// Launches the forward or backward kernel on `stream` (a cudaStream_t).
void launch_pooling(const PoolingArgs &a, void *stream);

}  // namespace fdnn::cuda
