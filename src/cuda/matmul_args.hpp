// Arguments of the CUDA matmul kernel (host engine <-> matmul_kernels.cu).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

constexpr int kMatmulMaxBatchDims = 6;

// The largest k for which int8 x int8 products summed in int32 cannot
// overflow (k * 128 * 128 < 2^31): the exact sum the CPU's reference gives.
constexpr int64_t kMatmulMaxInt8K = (int64_t{1} << 31) / (128 * 128) - 1;

struct MatmulArgs {
  // The types the engine admits (cuda/matmul_engine.cpp): a and b FLOAT,
  // HALF or BFLOAT16 (each its own) with c FLOAT, HALF or BFLOAT16,
  // computed in float; a and b FP8 (E4M3 or E5M2, each its own) with such a
  // c, also in float; all three DOUBLE, computed in double; a and b INT8
  // with c INT32 or FLOAT, summed exactly in int32 (in double when k could
  // overflow int32); any other mix of element types with run-time typed
  // loads, in double when an operand is DOUBLE, INT32, UINT32 or INT64, else
  // in float.
  int dtype_a = CUDNN_DATA_FLOAT, dtype_b = CUDNN_DATA_FLOAT, dtype_c = CUDNN_DATA_FLOAT;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
  // Batch dims of c, outermost first, and the matching strides of a and b
  // (0 where they broadcast). Batch index i of c reads index i / a_div of a
  // (and i / b_div of b): the operation's divisor broadcast
  // (core/matmul_support.hpp), 1 where the extents are equal.
  int batch_dims = 0;
  int64_t batch_extent[kMatmulMaxBatchDims] = {};
  int64_t a_bs[kMatmulMaxBatchDims] = {}, b_bs[kMatmulMaxBatchDims] = {}, c_bs[kMatmulMaxBatchDims] = {};
  int64_t a_div[kMatmulMaxBatchDims] = {}, b_div[kMatmulMaxBatchDims] = {};
  int64_t batches = 1;
  const void *a = nullptr, *b = nullptr;
  void *c = nullptr;
  double alpha = 1, beta = 0;
};

// Whether launch_matmul has a kernel for these types (see MatmulArgs).
bool matmul_types_supported(cudnnDataType_t a, cudnnDataType_t b, cudnnDataType_t c);

void launch_matmul(const MatmulArgs &a, void *stream);

}  // namespace fdnn::cuda
