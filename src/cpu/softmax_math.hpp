// Row kernels of the fast CPU softmax engine: plain loops over contiguous
// rows of the compute type that the compiler vectorises (partial sums in
// kLanes independent accumulators, exp from vec_math.hpp for float).
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

#include "cpu/vec_math.hpp"

namespace fdnn::cpu::softmax {

constexpr int kLanes = 16;
constexpr int64_t kChunk = 2048;  // elements per online step: 8 KiB of float, L1-resident

FDNN_VM_INLINE float exp_of(float x) { return vm::exp(x); }
FDNN_VM_INLINE double exp_of(double x) { return std::exp(x); }

// Maximum of a; a NaN is skipped here but poisons the sum of exponentials,
// so every result of its row is NaN.
template <class C>
FDNN_VM_INLINE C row_max(const C *a, int64_t n) {
  C m[kLanes];
  for (int l = 0; l < kLanes; ++l) m[l] = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) m[l] = a[i + l] > m[l] ? a[i + l] : m[l];
  C r = -std::numeric_limits<C>::infinity();
  for (; i < n; ++i) r = a[i] > r ? a[i] : r;
  for (int l = 0; l < kLanes; ++l) r = m[l] > r ? m[l] : r;
  return r;
}

// out[i] = exp(a[i] - shift); returns the sum.
template <class C>
FDNN_VM_INLINE C exp_shift_sum(const C *a, int64_t n, C shift, C *out) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const C e = exp_of(a[i + l] - shift);
      out[i + l] = e;
      s[l] += e;
    }
  C r = 0;
  for (; i < n; ++i) {
    const C e = exp_of(a[i] - shift);
    out[i] = e;
    r += e;
  }
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

// Sum of exp(a[i] - shift), nothing stored.
template <class C>
FDNN_VM_INLINE C exp_shift_sum_only(const C *a, int64_t n, C shift) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += exp_of(a[i + l] - shift);
  C r = 0;
  for (; i < n; ++i) r += exp_of(a[i] - shift);
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
FDNN_VM_INLINE C row_dot(const C *a, const C *b, int64_t n) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l] * b[i + l];
  C r = 0;
  for (; i < n; ++i) r += a[i] * b[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
FDNN_VM_INLINE C row_sum(const C *a, int64_t n) {
  C s[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) s[l] += a[i + l];
  C r = 0;
  for (; i < n; ++i) r += a[i];
  for (int l = 0; l < kLanes; ++l) r += s[l];
  return r;
}

template <class C>
FDNN_VM_INLINE void scale_row(C *r, int64_t n, C f) {
  for (int64_t i = 0; i < n; ++i) r[i] *= f;
}

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

// Forward: r = softmax / log-softmax of a times alpha.
template <class C>
FDNN_VM_INLINE void forward_row_impl(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha) {
  if (algo == CUDNN_SOFTMAX_FAST) {  // no shift: large inputs overflow, as in cuDNN
    const C sum = exp_shift_sum(a, n, C(0), r);
    scale_row(r, n, alpha / sum);
    return;
  }
  if (n <= kChunk) {  // one chunk: no rescaling
    const C mx = row_max(a, n);
    Online<C> st;
    const C shift = st.advance(mx);
    if (algo == CUDNN_SOFTMAX_LOG) {
      const C sum = exp_shift_sum_only(a, n, shift);
      const C total = shift + std::log(sum);
      for (int64_t i = 0; i < n; ++i) r[i] = alpha * (a[i] - total);
      return;
    }
    const C sum = exp_shift_sum(a, n, shift, r);
    scale_row(r, n, mx == -std::numeric_limits<C>::infinity() ? std::numeric_limits<C>::quiet_NaN() : alpha / sum);
    return;
  }
  Online<C> st;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  C shifts_small[16];
  C *shifts = shifts_small;
  std::unique_ptr<C[]> shifts_big;
  if (chunks > 16) {
    shifts_big.reset(new C[static_cast<size_t>(chunks)]);
    shifts = shifts_big.get();
  }
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t c0 = k * kChunk, len = std::min(kChunk, n - c0);
    const C shift = st.advance(row_max(a + c0, len));
    shifts[k] = st.max;  // -inf: the chunk's exponentials (shift 0) are zeros
    if (algo == CUDNN_SOFTMAX_LOG) st.sum += exp_shift_sum_only(a + c0, len, shift);
    else st.sum += exp_shift_sum(a + c0, len, shift, r + c0);
  }
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C total = st.shift() + std::log(st.sum);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (a[i] - total);
    return;
  }
  const bool all_neg_inf = st.max == -std::numeric_limits<C>::infinity();
  for (int64_t k = 0; k < chunks; ++k) {
    const int64_t c0 = k * kChunk, len = std::min(kChunk, n - c0);
    // Chunks seen before the first finite maximum hold zeros (or NaN).
    C f = shifts[k] == -std::numeric_limits<C>::infinity() ? C(0) : exp_of(shifts[k] - st.max) * (alpha / st.sum);
    if (all_neg_inf || st.sum != st.sum) f = std::numeric_limits<C>::quiet_NaN();
    scale_row(r + c0, len, f);
  }
}

// Backward from y (a) and dy (b), times alpha.
template <class C>
FDNN_VM_INLINE void backward_row_impl(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r,
                                      C alpha) {
  if (algo == CUDNN_SOFTMAX_LOG) {
    const C s = row_sum(dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (dy[i] - exp_of(y[i]) * s);
  } else {
    const C s = row_dot(y, dy, n);
    for (int64_t i = 0; i < n; ++i) r[i] = alpha * (y[i] * (dy[i] - s));
  }
}

// The entry points: the kernels above compiled for AVX-512 where the CPU
// has it (float: 16 lanes of exp), else for the library's AVX2 baseline.
template <class C>
FDNN_VM_AVX512 void forward_row_avx512(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha) {
  forward_row_impl(algo, a, n, r, alpha);
}
template <class C>
void forward_row_avx2(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha) {
  forward_row_impl(algo, a, n, r, alpha);
}
template <class C>
FDNN_VM_AVX512 void backward_row_avx512(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r,
                                        C alpha) {
  backward_row_impl(algo, y, dy, n, r, alpha);
}
template <class C>
void backward_row_avx2(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r, C alpha) {
  backward_row_impl(algo, y, dy, n, r, alpha);
}

template <class C>
void forward_row(cudnnSoftmaxAlgorithm_t algo, const C *a, int64_t n, C *r, C alpha = C(1)) {
  if (vm::has_avx512()) forward_row_avx512(algo, a, n, r, alpha);
  else forward_row_avx2(algo, a, n, r, alpha);
}
template <class C>
void backward_row(cudnnSoftmaxAlgorithm_t algo, const C *y, const C *dy, int64_t n, C *r, C alpha = C(1)) {
  if (vm::has_avx512()) backward_row_avx512(algo, y, dy, n, r, alpha);
  else backward_row_avx2(algo, y, dy, n, r, alpha);
}

}  // namespace fdnn::cpu::softmax
