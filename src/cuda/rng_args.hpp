// Arguments of the CUDA RNG kernel (host engine <-> rng_kernels.cu).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

constexpr int kRngMaxRank = 8;

struct RngArgs {
  void *y = nullptr;
  int elem_bytes = 4;   // 1, 2, 4 or 8: y is written as raw bit patterns
  uint64_t one = 0;     // the bits of 1 in y's type (0 is all zero bits)
  bool packed = false;  // y packed row-major and 4-element aligned: vector stores
  int64_t n = 0;
  int rank = 0;
  int64_t dims[kRngMaxRank] = {};
  int64_t strides[kRngMaxRank] = {};
  // Seed and offset: device scalars when the pointer is set (INT32 when the
  // flag says so), else the values.
  const void *seed_ptr = nullptr;
  bool seed_int32 = false;
  uint64_t seed_value = 0;
  const void *offset_ptr = nullptr;
  bool offset_int32 = false;
  uint64_t offset_value = 0;
  uint64_t threshold = 0;  // rng::bernoulli_threshold(p)
  // UNIFORM and NORMAL draws (computed in double, rounded to y's type, which
  // is FLOAT, DOUBLE, HALF or BFLOAT16): y = p0 + p1 * draw, with
  // (p0, p1) = (min, max - min) for UNIFORM, (mean, sd) for NORMAL.
  int distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  int dtype = CUDNN_DATA_FLOAT;
  double p0 = 0, p1 = 1;
};

void launch_rng(const RngArgs &a, void *stream);

}  // namespace fdnn::cuda
