// Division by a run-time constant with a multiply-high and a shift, for the
// index arithmetic of kernels (a 32-bit integer division is ~20 instructions
// on the GPU, this is 3). Valid for dividends below 2^31, which the launch
// code guarantees by splitting larger index spaces.
#pragma once

#include <cstdint>

#include "core/numeric.hpp"  // FDNN_HD

namespace fdnn::cuda {
FDNN_HD inline uint32_t umulhi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}
}  // namespace fdnn::cuda

namespace fdnn::cuda {

struct FastDivmod {
  uint32_t divisor = 1;
  uint32_t multiplier = 0;
  uint32_t shift = 0;

  FastDivmod() = default;
  // d >= 1. For d == 1 the quotient is the dividend (multiplier unused).
  explicit FastDivmod(uint32_t d) : divisor(d) {
    if (d == 1) return;
    uint32_t log2_ceil = 0;
    while ((uint64_t{1} << log2_ceil) < d) ++log2_ceil;
    const uint32_t p = 31 + log2_ceil;
    multiplier = static_cast<uint32_t>(((uint64_t{1} << p) + d - 1) / d);
    shift = p - 32;
  }

  FDNN_HD uint32_t div(uint32_t n) const { return divisor == 1 ? n : umulhi(n, multiplier) >> shift; }
  // Returns the quotient, stores the remainder.
  FDNN_HD uint32_t divmod(uint32_t n, uint32_t &rem) const {
    const uint32_t q = div(n);
    rem = n - q * divisor;
    return q;
  }
};

}  // namespace fdnn::cuda
