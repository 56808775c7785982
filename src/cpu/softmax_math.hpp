// Row kernels of the fast CPU softmax engine over contiguous rows of the
// compute type: float in GCC vector types (exp as vec_math.hpp's, AVX-512
// where the CPU has it), double in lane arrays; the kernels themselves are
// in softmax_rows.hpp, compiled twice below.
//
// ACCURATE and LOG forward find the row's maximum and the sum of
// exponentials in one sweep over the row ("online" softmax): the row is
// taken a chunk of kChunk elements at a time, the chunk's maximum is found
// while the chunk is loaded into L1, the running sum is rescaled by one exp
// when the maximum grows, and the chunk's exponentials are summed (and, for
// ACCURATE, kept in the result) from L1. The input is read from memory once
// however long the row is; the result is rescaled by a per-chunk factor at
// the end. No intermediate value overflows: every exponent is x - max <= 0.
//
// Every kernel writes r[i] only after reading a[i] / b[i] of the same index,
// and reads nothing of a row after writing it, so r may be the input itself
// (in-place softmax).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

#include <cudnn_ops.h>
#include <immintrin.h>

#include "cpu/vec_math.hpp"

namespace fdnn::cpu::softmax {

constexpr int kLanes = 16;
constexpr int64_t kChunk = 2048;  // elements per online step: 8 KiB of float, L1-resident

FDNN_VM_INLINE float exp_of(float x) { return vm::exp(x); }
FDNN_VM_INLINE double exp_of(double x) { return std::exp(x); }

// The running state of the online sweep: the maximum so far and the sum of
// exp(x - shift) over the elements so far. The shift is the maximum, or 0
// while the maximum is -inf (all elements so far -inf: their exponentials
// are 0 whatever the shift, and exp(-inf - -inf) would be NaN).
template <class C>
struct Online {
  C max = -std::numeric_limits<C>::infinity();
  C sum = 0;
  FDNN_VM_INLINE C shift() const { return max == -std::numeric_limits<C>::infinity() ? C(0) : max; }
  // Takes a chunk whose maximum is cm; returns the shift for its exponentials.
  FDNN_VM_INLINE C advance(C cm) {
    if (cm > max) {
      const C old = shift();
      max = cm;
      if (sum != C(0)) sum *= exp_of(old - shift());
    }
    return shift();
  }
};

// ---- The two compiled copies of softmax_rows.hpp ---------------------------

typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));
typedef float F16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));

namespace v256 {
using V = F8;
using I = I8;
constexpr int kN = 8;
// p * 2^n for integer-valued n in [-151, 129] as the product of two normal
// powers of two (vm::pow2_split): one rounding, subnormals and inf included.
FDNN_VM_INLINE void scale_pow2(V &p, const V &n) {
  const I k = __builtin_convertvector(n, I);
  const I k1 = k >> 1, k2 = k - k1;
  p = p * (V)((k1 + 127) << 23) * (V)((k2 + 127) << 23);  // vector casts keep the bits
}
// max / min with x second: the instruction returns its second operand
// where one of them is NaN.
FDNN_VM_INLINE V clamp_keep_nan(const V &x, const V &lo, const V &hi) {
  return (V)_mm256_min_ps((__m256)hi, _mm256_max_ps((__m256)lo, (__m256)x));
}
// A non-temporal store of one vector at an address aligned to its size.
FDNN_VM_INLINE void stream_store(float *p, const V &v) { _mm256_stream_ps(p, (__m256)v); }
#include "cpu/softmax_rows.hpp"
}  // namespace v256

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=512")
namespace v512 {
using V = F16;
using I = I16;
constexpr int kN = 16;
// scalef rounds the exact p * 2^n once, as the two products above do.
FDNN_VM_INLINE void scale_pow2(V &p, const V &n) {
  p = (V)_mm512_mask_scalef_ps((__m512)p, 0xffff, (__m512)p, (__m512)n);
}
FDNN_VM_INLINE V clamp_keep_nan(const V &x, const V &lo, const V &hi) {
  // The masked forms: the plain ones trip GCC 12's -Wuninitialized.
  const __m512 m = _mm512_mask_max_ps((__m512)x, 0xffff, (__m512)lo, (__m512)x);
  return (V)_mm512_mask_min_ps(m, 0xffff, (__m512)hi, m);
}
FDNN_VM_INLINE void stream_store(float *p, const V &v) { _mm512_stream_ps(p, (__m512)v); }
#include "cpu/softmax_rows.hpp"
}  // namespace v512
#pragma GCC pop_options

// ---- Entry points: the AVX-512 copy where the CPU has it --------------------

template <class C>
void forward_row(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha = C(1)) {
  if (vm::has_avx512()) v512::forward_row(algo, a, n, r, alpha);
  else v256::forward_row(algo, a, n, r, alpha);
}
template <class C>
void backward_row(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r, C alpha = C(1)) {
  if (vm::has_avx512()) v512::backward_row(algo, y, dy, n, r, alpha);
  else v256::backward_row(algo, y, dy, n, r, alpha);
}

// kN rows at once (16 with AVX-512, else 8: lanes()), row l's element i
// at a[i * as + l]: softmax_rows.hpp's lanes kernels.
inline int lanes() { return vm::has_avx512() ? v512::kN : v256::kN; }
inline void forward_lanes(cudnnSoftmaxAlgorithm_t algo, const float *a, int64_t n, int64_t as, float *r, int64_t rs,
                          float alpha) {
  if (vm::has_avx512()) v512::forward_lanes(algo, a, n, as, r, rs, alpha);
  else v256::forward_lanes(algo, a, n, as, r, rs, alpha);
}
inline void backward_lanes(cudnnSoftmaxAlgorithm_t algo, const float *y, int64_t ys, const float *dy, int64_t ds,
                           int64_t n, float *r, int64_t rs, float alpha) {
  if (vm::has_avx512()) v512::backward_lanes(algo, y, ys, dy, ds, n, r, rs, alpha);
  else v256::backward_lanes(algo, y, ys, dy, ds, n, r, rs, alpha);
}

// ACCURATE backward of a float row, written with streaming stores (the
// caller fences after its rows): for outputs far larger than the caches.
inline void backward_accurate_stream(const float *y, const float *dy, int64_t n, float *r, float alpha) {
  if (vm::has_avx512()) v512::backward_accurate_stream(y, dy, n, r, alpha);
  else v256::backward_accurate_stream(y, dy, n, r, alpha);
}

}  // namespace fdnn::cpu::softmax
