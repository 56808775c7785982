// Arguments of the CUDA matmul kernel (host engine <-> matmul_kernels.cu).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

constexpr int kMatmulMaxBatchDims = 6;

struct MatmulArgs {
  // One type for a, b and c; DOUBLE computes in double, the rest in float.
  int dtype_a = CUDNN_DATA_FLOAT, dtype_b = CUDNN_DATA_FLOAT, dtype_c = CUDNN_DATA_FLOAT;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
  // Batch dims of c, outermost first, and the matching strides of a and b
  // (0 where they broadcast).
  int batch_dims = 0;
  int64_t batch_extent[kMatmulMaxBatchDims] = {};
  int64_t a_bs[kMatmulMaxBatchDims] = {}, b_bs[kMatmulMaxBatchDims] = {}, c_bs[kMatmulMaxBatchDims] = {};
  int64_t batches = 1;
  const void *a = nullptr, *b = nullptr;
  void *c = nullptr;
  double alpha = 1, beta = 0;
};

void launch_matmul(const MatmulArgs &a, void *stream);

}  // namespace fdnn::cuda
