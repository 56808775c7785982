// Vectorised MIN / MAX / AMAX folds for the fast reduction engine. Compilers
// do not vectorise the NaN-aware selects of reduction_support.hpp, and these
// modes would run several times slower than sums; here the comparisons use
// AVX min/max (whose NaN behaviour is exact and known) plus a NaN mask.
// Results are in the accumulator representation of red::Min/Max/Amax, so
// they combine with M::combine like any other partial result.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "cpu/reduction_support.hpp"

namespace fdnn::cpu::red {

enum class MinMaxKind { min, max, amax };

template <class M>
struct MinMaxTraits {
  static constexpr bool is_minmax = false;
};
template <class C, bool P>
struct MinMaxTraits<Min<C, P>> {
  static constexpr bool is_minmax = true;
  static constexpr MinMaxKind kind = MinMaxKind::min;
  static constexpr bool propagate = P;
};
template <class C, bool P>
struct MinMaxTraits<Max<C, P>> {
  static constexpr bool is_minmax = true;
  static constexpr MinMaxKind kind = MinMaxKind::max;
  static constexpr bool propagate = P;
};
template <class C, bool P>
struct MinMaxTraits<Amax<C, P>> {
  static constexpr bool is_minmax = true;
  static constexpr MinMaxKind kind = MinMaxKind::amax;
  static constexpr bool propagate = P;
};

#if defined(__AVX__)
template <class C>
struct Simd;
template <>
struct Simd<float> {
  using V = __m256;
  static constexpr int W = 8;
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static V set1(float v) { return _mm256_set1_ps(v); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }  // a > b ? a : b
  static V min(V a, V b) { return _mm256_min_ps(a, b); }  // a < b ? a : b
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static V unord(V a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static V ord(V a) { return _mm256_cmp_ps(a, a, _CMP_ORD_Q); }
  static V or_(V a, V b) { return _mm256_or_ps(a, b); }
  static V zero() { return _mm256_setzero_ps(); }
  static V blend(V a, V b, V mask) { return _mm256_blendv_ps(a, b, mask); }  // mask ? b : a
  static bool any(V mask) { return _mm256_movemask_ps(mask) != 0; }
};
template <>
struct Simd<double> {
  using V = __m256d;
  static constexpr int W = 4;
  static V load(const double *p) { return _mm256_loadu_pd(p); }
  static void store(double *p, V v) { _mm256_storeu_pd(p, v); }
  static V set1(double v) { return _mm256_set1_pd(v); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
  static V unord(V a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
  static V ord(V a) { return _mm256_cmp_pd(a, a, _CMP_ORD_Q); }
  static V or_(V a, V b) { return _mm256_or_pd(a, b); }
  static V zero() { return _mm256_setzero_pd(); }
  static V blend(V a, V b, V mask) { return _mm256_blendv_pd(a, b, mask); }
  static bool any(V mask) { return _mm256_movemask_pd(mask) != 0; }
};
#endif

// Folds v[0..n) into one accumulator value of M (see the file comment).
template <class M, class C>
C fold_minmax(const C *v, int n) {
  using T = MinMaxTraits<M>;
  constexpr bool P = T::propagate;
  constexpr bool is_min = T::kind == MinMaxKind::min;
  // A numeric start; NaNs are tracked apart (P: any NaN; !P: any number).
  C r = is_min ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
  bool flag = false;
  int i = 0;
#if defined(__AVX__)
  using S = Simd<C>;
  typename S::V m = S::set1(r), f = S::zero();
  for (; i + S::W <= n; i += S::W) {
    typename S::V x = S::load(v + i);
    if constexpr (T::kind == MinMaxKind::amax) x = S::abs(x);
    m = is_min ? S::min(x, m) : S::max(x, m);  // a NaN x leaves m unchanged
    f = S::or_(f, P ? S::unord(x) : S::ord(x));
  }
  alignas(32) C lanes[S::W];
  S::store(lanes, m);
  for (int k = 0; k < S::W; ++k) r = is_min ? (lanes[k] < r ? lanes[k] : r) : (lanes[k] > r ? lanes[k] : r);
  flag = S::any(f);
#endif
  for (; i < n; ++i) {
    C x = v[i];
    if constexpr (T::kind == MinMaxKind::amax) x = std::fabs(x);
    if (x == x) {
      r = is_min ? (x < r ? x : r) : (x > r ? x : r);
      if (!P) flag = true;
    } else if (P) {
      flag = true;
    }
  }
  if (P ? flag : !flag) return std::numeric_limits<C>::quiet_NaN();
  return r;
}

// acc[j] = M::acc(acc[j], v[j]) for j < n, vectorised.
template <class M, class C>
void accumulate_minmax(C *acc, const C *v, int n) {
  using T = MinMaxTraits<M>;
  constexpr bool P = T::propagate;
  constexpr bool is_min = T::kind == MinMaxKind::min;
  int j = 0;
#if defined(__AVX__)
  using S = Simd<C>;
  for (; j + S::W <= n; j += S::W) {
    typename S::V a = S::load(acc + j), x = S::load(v + j);
    if constexpr (T::kind == MinMaxKind::amax) x = S::abs(x);
    const typename S::V nan_x = S::unord(x);
    typename S::V r;
    if constexpr (P) {
      r = is_min ? S::min(x, a) : S::max(x, a);  // NaN a stays
      r = S::blend(r, x, nan_x);                 // NaN x wins
    } else {
      r = is_min ? S::min(a, x) : S::max(a, x);  // NaN a is replaced by x
      r = S::blend(r, a, nan_x);                 // NaN x never wins
    }
    S::store(acc + j, r);
  }
#endif
  for (; j < n; ++j) acc[j] = M::acc(acc[j], v[j], P);
}

}  // namespace fdnn::cpu::red
