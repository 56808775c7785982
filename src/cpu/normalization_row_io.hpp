// Row helpers of the CPU normalization engines for layer / RMS norm
// (cpu.normalization.rows) and instance norm (cpu.normalization.instance):
// a contiguous run of a data tensor converted to and from the compute type
// C (float for FLOAT, HALF, BFLOAT16 data; double for DOUBLE), with the
// alpha / beta blend on store, and a vectorisable sum.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <type_traits>

#include "cpu/convert_simd.hpp"
#include "cpu/dtype_io.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define FDNN_NORM_ROW_AVX2 1
#endif

namespace fdnn::cpu::normrow {

// out[0, n) = the n elements at base + off, in C.
template <cudnnDataType_t DT, class C>
inline void load_row(const void *base, int64_t off, int64_t n, C *out) {
  using S = Storage<DT>;
  const auto *p = static_cast<const typename S::type *>(base) + off;
  int64_t i = 0;
  if constexpr (std::is_same_v<C, float> && DT == CUDNN_DATA_HALF) i = simd::half_to_float(p, static_cast<int>(n), out);
  if constexpr (std::is_same_v<C, float> && DT == CUDNN_DATA_BFLOAT16)
    i = simd::bf16_to_float(p, static_cast<int>(n), out);
  for (; i < n; ++i) {
    if constexpr (std::is_same_v<C, double>)
      out[i] = S::to_double(p[i]);
    else
      out[i] = S::to_float(p[i]);
  }
}

// The row itself where it already is contiguous C (FLOAT data, float
// compute; DOUBLE data, double compute), else `buf` filled by load_row.
template <cudnnDataType_t DT, class C>
inline const C *row_view(const void *base, int64_t off, int64_t n, C *buf) {
  if constexpr (std::is_same_v<typename Storage<DT>::type, C>) {
    (void)n, (void)buf;
    return static_cast<const C *>(base) + off;
  } else {
    load_row<DT>(base, off, n, buf);
    return buf;
  }
}

// d = alpha * r + beta * d over the n elements at base + off (beta == 0:
// d is not read).
template <cudnnDataType_t DT, class C>
inline void store_row(void *base, int64_t off, int64_t n, const C *r, C alpha, C beta) {
  using S = Storage<DT>;
  auto *d = static_cast<typename S::type *>(base) + off;
  int64_t i = 0;
  if constexpr (std::is_same_v<C, float> && (DT == CUDNN_DATA_HALF || DT == CUDNN_DATA_BFLOAT16)) {
    constexpr bool bf = DT == CUDNN_DATA_BFLOAT16;
    i = beta == 0 ? simd::store_16bit<bf, false>(d, r, static_cast<int>(n), alpha, beta)
                  : simd::store_16bit<bf, true>(d, r, static_cast<int>(n), alpha, beta);
  }
  if constexpr (std::is_same_v<typename S::type, C>) {
    if (beta == C(0)) {
      if (alpha == C(1)) {
        for (; i < n; ++i) d[i] = r[i];
      } else {
        for (; i < n; ++i) d[i] = alpha * r[i];
      }
      return;
    }
  }
  for (; i < n; ++i) {
    C v = alpha * r[i];
    if (beta != C(0)) {
      if constexpr (std::is_same_v<C, double>)
        v += beta * S::to_double(d[i]);
      else
        v += beta * S::to_float(d[i]);
    }
    if constexpr (std::is_same_v<C, double>)
      d[i] = S::from_double(v);
    else
      d[i] = S::from_float(v);
  }
}

// Sum of term(i) over [0, n): kLanes independent accumulators in C (so the
// loop vectorises without reassociating one sum), folded in double.
constexpr int kLanes = 16;
template <class C, class F>
inline double lane_sum(int64_t n, F &&term) {
  C acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += term(i + l);
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(term(i));
  for (int l = 0; l < kLanes; ++l) s += static_cast<double>(acc[l]);
  return s;
}

#if defined(FDNN_NORM_ROW_AVX2)
constexpr int kPrefetchBytes = 1536;

inline double hsum_double(__m256 v) {
  alignas(32) float f[8];
  _mm256_store_ps(f, v);
  double s = 0;
  for (float e : f) s += static_cast<double>(e);
  return s;
}
#endif

// Sum of a row (float lanes, four vectors in flight, folded in double).
template <class C>
inline double row_sum(const C *x, int64_t n) {
  int64_t i = 0;
  double s = 0;
#if defined(FDNN_NORM_ROW_AVX2)
  if constexpr (std::is_same_v<C, float>) {
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 32 <= n; i += 32) {
      // The first read of a row comes from memory: software prefetch ahead
      // (the hardware prefetchers alone left reads at 60-75% of a plain sum's
      // rate on the development machine, see normalization_kernels.hpp).
      _mm_prefetch(reinterpret_cast<const char *>(x + i) + kPrefetchBytes, _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(x + i) + kPrefetchBytes + 64, _MM_HINT_T0);
      a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
      a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + i + 8));
      a2 = _mm256_add_ps(a2, _mm256_loadu_ps(x + i + 16));
      a3 = _mm256_add_ps(a3, _mm256_loadu_ps(x + i + 24));
    }
    s = hsum_double(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  }
#endif
  return s + lane_sum<C>(n - i, [&](int64_t j) { return x[i + j]; });
}

// Sums of (x - m)^2 and of x - m over n elements, float lanes folded in
// double: element i as a float by one(i), elements i..i+7 by eight(i) (the
// AVX2 sweep, 16 a step).
template <class Eight, class One>
inline void deviation_sums(int64_t n, float m, Eight &&eight, One &&one, double &q, double &c) {
  int64_t i = 0;
  q = 0, c = 0;
#if defined(FDNN_NORM_ROW_AVX2)
  const __m256 vm = _mm256_set1_ps(m);
  __m256 q0 = _mm256_setzero_ps(), q1 = q0, c0 = q0, c1 = q0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(eight(i), vm), d1 = _mm256_sub_ps(eight(i + 8), vm);
    q0 = _mm256_fmadd_ps(d0, d0, q0);
    q1 = _mm256_fmadd_ps(d1, d1, q1);
    c0 = _mm256_add_ps(c0, d0);
    c1 = _mm256_add_ps(c1, d1);
  }
  q = hsum_double(_mm256_add_ps(q0, q1));
  c = hsum_double(_mm256_add_ps(c0, c1));
#else
  (void)eight;
#endif
  for (; i < n; ++i) {
    const double d = static_cast<double>(one(i) - m);
    q += d * d;
    c += d;
  }
}

// Sums of (x - m)^2 and of x - m over a row (the corrected two-pass
// variance's second pass), float lanes folded in double (double rows: in
// double).
template <class C>
inline void row_deviations(const C *x, int64_t n, C m, double &q, double &c) {
  if constexpr (std::is_same_v<C, float>) {
#if defined(FDNN_NORM_ROW_AVX2)
    const auto eight = [x](int64_t i) { return _mm256_loadu_ps(x + i); };
#else
    const auto eight = [](int64_t) { return 0; };
#endif
    deviation_sums(n, m, eight, [x](int64_t i) { return x[i]; }, q, c);
  } else {
    q = 0, c = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(x[i] - m);
      q += d * d;
      c += d;
    }
  }
}

// row_deviations over a 16-bit row (HALF, BFLOAT16), converted in
// registers: the statistics of a 16-bit row in one sweep over its storage,
// with no float copy of the row. It is the row's one read from memory:
// prefetched ahead (see row_sum).
template <cudnnDataType_t DT>
inline void row_deviations_16bit(const uint16_t *x, int64_t n, float m, double &q, double &c) {
  using S = Storage<DT>;
#if defined(FDNN_NORM_ROW_AVX2)
  const auto eight = [x](int64_t i) {
    if (i % 16 == 0) _mm_prefetch(reinterpret_cast<const char *>(x + i) + kPrefetchBytes, _MM_HINT_T0);
    if constexpr (DT == CUDNN_DATA_HALF) return simd::load_half8(x + i);
    else return simd::load_bf16x8(x + i);
  };
#else
  const auto eight = [](int64_t) { return 0; };
#endif
  deviation_sums(n, m, eight, [x](int64_t i) { return S::to_float(x[i]); }, q, c);
}

}  // namespace fdnn::cpu::normrow
