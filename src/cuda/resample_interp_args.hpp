// Arguments of the CUDA kernels of cuda.resample.interp (NEAREST / BILINEAR
// upsampling) and cuda.resample.maxindex (max pooling with an index tensor):
// the problem normalised to N, C, D, H, W (missing spatial dimensions have
// extent 1 and sample position 0).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

struct ResampleKernelArgs {
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t is[5] = {}, os[5] = {};  // strides of x/dx and y/dy
  int64_t xs[5] = {};              // strides of the index tensor (maxindex)
  // Upsampling: output o samples (o * scale + offset) / denominator (exact,
  // the engine keeps every value inside 63 bits); dimensions without a
  // sample axis have scale 0, offset 0, denominator 1.
  int64_t scale[3] = {0, 0, 0}, offset[3] = {0, 0, 0}, denominator[3] = {1, 1, 1};
  // Max pooling: window, pre-padding and strides.
  int64_t win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, str[3] = {1, 1, 1};
  bool bilinear = true, backward = false, propagate_nan = false;
  bool channels_inner = false;  // threads step along C first
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT, index_type = CUDNN_DATA_INT32;
  double alpha = 1, beta = 0;
  const void *x = nullptr, *dy = nullptr;
  void *y = nullptr, *dx = nullptr;
  void *index = nullptr;  // written by the forward pass, read by the backward one
};

// Upsampling, forward or backward, on `stream` (a cudaStream_t).
void launch_resample_interp(const ResampleKernelArgs &a, void *stream);
// Max pooling with an index tensor, forward or backward.
void launch_resample_maxindex(const ResampleKernelArgs &a, void *stream);

}  // namespace fdnn::cuda
