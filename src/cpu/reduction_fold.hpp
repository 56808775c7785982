// Contiguous folds of the fast reduction engine: one run of x (already in
// the compute type, stride 1) folded into one accumulator value, and the
// vectorised max+argmax of a block for reductions with indices.
//
// A single vector accumulator is a dependency chain (one add or max per
// 4-cycle latency), too slow to keep up with memory; these loops keep four
// independent vector accumulators and, where it pays (fold_prefetch_bytes),
// prefetch ahead within the run, because the runs of a reduction are often
// short and far apart (per-channel sums read 64 separate runs of 12 KB),
// where some hardware prefetchers restart at every run and every 4 KB page.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/env_words.hpp"
#include "cpu/reduction_minmax.hpp"
#include "cpu/reduction_support.hpp"

namespace fdnn::cpu::red {

// Prefetch distance in bytes: far enough ahead to cover DRAM latency at this
// thread's share of the bandwidth, short enough to stay inside most runs;
// 0: no software prefetch. Measured per vendor: on the Intel Xeon guest of
// the early sessions the prefetch (with the four accumulators) took the
// per-channel sums from 0.45 to 0.69 of copy; on the AMD EPYC (Zen 5) guest
// the hardware prefetchers do better alone (64x256x56x56 f32, 2 threads,
// five alternating rounds, ms with / without: per-channel sum 8.5-10.1 /
// 6.9-9.2, norm2 of rows 8.3-11.0 / 8.1-8.6, max of rows 7.5-11.0 /
// 7.7-8.6). FREEDNN_CPU_REDUCE_PREFETCH=<bytes> overrides (0 = none).
inline int64_t fold_prefetch_bytes() {
  static const int64_t bytes = [] {
    const long forced = env_long("FREEDNN_CPU_REDUCE_PREFETCH", -1);
    if (forced >= 0) return int64_t{forced};
#if defined(__x86_64__)
    if (__builtin_cpu_is("amd")) return int64_t{0};
#endif
    return int64_t{1024};
  }();
  return bytes;
}

enum class SumKind { none, add, abs, square, mul };

template <class M, class C>
constexpr SumKind sum_kind() {
  if constexpr (std::is_same_v<M, Add<C>> || std::is_same_v<M, Avg<C>>) return SumKind::add;
  else if constexpr (std::is_same_v<M, Norm1<C>>) return SumKind::abs;
  else if constexpr (std::is_same_v<M, Norm2<C>>) return SumKind::square;
  else if constexpr (std::is_same_v<M, Mul<C>>) return SumKind::mul;
  else return SumKind::none;
}

// True when fold_contiguous has a vector loop for mode M.
template <class M, class C>
constexpr bool has_contiguous_fold() {
#if defined(__AVX2__) && defined(__FMA__)
  return sum_kind<M, C>() != SumKind::none || MinMaxTraits<M>::is_minmax;
#else
  return false;
#endif
}

#if defined(__AVX2__) && defined(__FMA__)
namespace detail {

template <class C>
inline typename Simd<C>::V fma(typename Simd<C>::V a, typename Simd<C>::V b, typename Simd<C>::V c) {
  if constexpr (std::is_same_v<C, float>) return _mm256_fmadd_ps(a, b, c);
  else return _mm256_fmadd_pd(a, b, c);
}
template <class C>
inline typename Simd<C>::V add(typename Simd<C>::V a, typename Simd<C>::V b) {
  if constexpr (std::is_same_v<C, float>) return _mm256_add_ps(a, b);
  else return _mm256_add_pd(a, b);
}
template <class C>
inline typename Simd<C>::V mul(typename Simd<C>::V a, typename Simd<C>::V b) {
  if constexpr (std::is_same_v<C, float>) return _mm256_mul_ps(a, b);
  else return _mm256_mul_pd(a, b);
}

template <SumKind K, class C>
inline typename Simd<C>::V step(typename Simd<C>::V acc, typename Simd<C>::V x) {
  using S = Simd<C>;
  if constexpr (K == SumKind::add) return add<C>(acc, x);
  else if constexpr (K == SumKind::abs) return add<C>(acc, S::abs(x));
  else if constexpr (K == SumKind::square) return fma<C>(x, x, acc);
  else return mul<C>(acc, x);
}

template <class C>
inline void prefetch(const C *p) {
  _mm_prefetch(reinterpret_cast<const char *>(p), _MM_HINT_T0);
}

// Calls body(i) for i = 0, U, 2U, ... while i + U <= n and returns the first
// i left over, prefetching fold_prefetch_bytes() ahead (if any): within v, then (when
// next is given) on into next.
template <class C, int U, class Body>
inline int64_t prefetched_loop(const C *v, int64_t n, const C *next, Body &&body) {
  const int64_t bytes = fold_prefetch_bytes();
  if (bytes == 0) {
    int64_t i = 0;
    for (; i + U <= n; i += U) body(i);
    return i;
  }
  const int64_t ahead = bytes / static_cast<int64_t>(sizeof(C));
  int64_t i = 0;
  for (; i + U + ahead <= n; i += U) {
    prefetch(v + i + ahead);
    body(i);
  }
  if (next != nullptr) {
    for (; i + U <= n; i += U) {
      prefetch(i + ahead < n ? v + i + ahead : next + (i + ahead - n));
      body(i);
    }
  }
  for (; i + U <= n; i += U) body(i);
  return i;
}

// Horizontal sum / product / min / max of one vector's lanes (min and max
// on numbers only: callers track NaN apart).
inline __m128 low_half(__m256 v) { return _mm256_castps256_ps128(v); }
inline __m128d low_half(__m256d v) { return _mm256_castpd256_pd128(v); }
template <class C, class Op128>
inline C horizontal(typename Simd<C>::V v, Op128 op) {
  if constexpr (std::is_same_v<C, float>) {
    __m128 h = op(low_half(v), _mm256_extractf128_ps(v, 1));
    h = op(h, _mm_movehl_ps(h, h));
    h = op(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
  } else {
    __m128d h = op(low_half(v), _mm256_extractf128_pd(v, 1));
    h = op(h, _mm_unpackhi_pd(h, h));
    return _mm_cvtsd_f64(h);
  }
}
template <class C>
inline C hadd(typename Simd<C>::V v) {
  return horizontal<C>(v, [](auto a, auto b) {
    if constexpr (std::is_same_v<C, float>) return _mm_add_ps(a, b);
    else return _mm_add_pd(a, b);
  });
}
template <class C>
inline C hmul(typename Simd<C>::V v) {
  return horizontal<C>(v, [](auto a, auto b) {
    if constexpr (std::is_same_v<C, float>) return _mm_mul_ps(a, b);
    else return _mm_mul_pd(a, b);
  });
}
template <class C>
inline C hmin(typename Simd<C>::V v) {
  return horizontal<C>(v, [](auto a, auto b) {
    if constexpr (std::is_same_v<C, float>) return _mm_min_ps(a, b);
    else return _mm_min_pd(a, b);
  });
}
template <class C>
inline C hmax(typename Simd<C>::V v) {
  return horizontal<C>(v, [](auto a, auto b) {
    if constexpr (std::is_same_v<C, float>) return _mm_max_ps(a, b);
    else return _mm_max_pd(a, b);
  });
}

}  // namespace detail
#endif

// Folds v[0..n) (n may be large) into one accumulator value of M; the caller
// checks has_contiguous_fold<M, C>() first. `next`, when given, is the run
// the caller folds next (at least fold_prefetch_bytes() long): the prefetch
// then runs on into it instead of stopping short of this run's end, so a
// sequence of short runs (rows of 4 KB: one page each, where the hardware
// prefetcher restarts) is prefetched as one stream.
template <class M, class C>
C fold_contiguous(const C *v, int64_t n, const C *next = nullptr) {
#if defined(__AVX2__) && defined(__FMA__)
  using S = Simd<C>;
  using V = typename S::V;
  constexpr int W = S::W, U = 4 * S::W;
  int64_t i = 0;
  if constexpr (MinMaxTraits<M>::is_minmax) {
    using T = MinMaxTraits<M>;
    constexpr bool P = T::propagate;
    constexpr bool is_min = T::kind == MinMaxKind::min;
    constexpr bool is_amax = T::kind == MinMaxKind::amax;
    const C start = is_min ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
    V m[4] = {S::set1(start), S::set1(start), S::set1(start), S::set1(start)};
    V f[4] = {S::zero(), S::zero(), S::zero(), S::zero()};
    auto body = [&](int64_t at) {
      for (int k = 0; k < 4; ++k) {
        V x = S::load(v + at + k * W);
        if constexpr (is_amax) x = S::abs(x);
        m[k] = is_min ? S::min(x, m[k]) : S::max(x, m[k]);  // a NaN x leaves m unchanged
        f[k] = S::or_(f[k], P ? S::unord(x) : S::ord(x));
      }
    };
    i = detail::prefetched_loop<C, U>(v, n, next, body);
    V mm = is_min ? S::min(S::min(m[0], m[1]), S::min(m[2], m[3])) : S::max(S::max(m[0], m[1]), S::max(m[2], m[3]));
    V ff = S::or_(S::or_(f[0], f[1]), S::or_(f[2], f[3]));
    C r = is_min ? detail::hmin<C>(mm) : detail::hmax<C>(mm);  // the lanes hold numbers (or +-inf) only
    bool flag = S::any(ff);
    for (; i < n; ++i) {
      C x = v[i];
      if constexpr (is_amax) x = std::fabs(x);
      if (x == x) {
        r = is_min ? (x < r ? x : r) : (x > r ? x : r);
        if (!P) flag = true;
      } else if (P) {
        flag = true;
      }
    }
    if (P ? flag : !flag) return std::numeric_limits<C>::quiet_NaN();
    return r;
  } else {
    constexpr SumKind K = sum_kind<M, C>();
    static_assert(K != SumKind::none, "fold_contiguous: mode without a vector loop");
    const V init = S::set1(M::init(false));
    V a[4] = {init, init, init, init};
    auto body = [&](int64_t at) {
      for (int k = 0; k < 4; ++k) a[k] = detail::step<K, C>(a[k], S::load(v + at + k * W));
    };
    i = detail::prefetched_loop<C, U>(v, n, next, body);
    // The four accumulators and then the lanes pairwise, in vector
    // registers: a scalar chain of 4 x W combines costs as much as a few
    // hundred bytes of memory traffic on every short row.
    C r;
    if constexpr (K == SumKind::mul) r = detail::hmul<C>(detail::mul<C>(detail::mul<C>(a[0], a[1]), detail::mul<C>(a[2], a[3])));
    else r = detail::hadd<C>(detail::add<C>(detail::add<C>(a[0], a[1]), detail::add<C>(a[2], a[3])));
    for (; i < n; ++i) r = M::acc(r, v[i], false);
    return r;
  }
#else
  (void)v;
  (void)n;
  (void)next;
  return C(0);
#endif
}

// For reductions with indices: the winner of v[0..n) (n >= 1) under M's rules
// (reduction_support.hpp: first NaN with PROPAGATE, NaNs skipped unless all
// are NaN without, first on ties). Returns its position in v and sets `key`
// to M::key of it. One vectorised fold finds the winning value, a second
// pass over the (cache-resident) block finds its first position.
template <class M, class C>
int block_argbest(const C *v, int n, bool prop, C &key) {
  using T = MinMaxTraits<M>;
  static_assert(T::is_minmax, "block_argbest: MIN, MAX or AMAX only");
  constexpr bool P = T::propagate;
  C r;
  if constexpr (has_contiguous_fold<M, C>()) r = fold_contiguous<M>(v, n);
  else r = fold_minmax<M>(v, n);
  int j = 0;
  if (r != r) {
    // P: the first NaN; !P: every value is NaN, the first one wins.
    if (P)
      while (j < n && v[j] == v[j]) ++j;
    if (j == n) j = 0;
  } else {
#if defined(__AVX__)
    using S = Simd<C>;
    const typename S::V target = S::set1(r);
    for (; j + S::W <= n; j += S::W) {
      typename S::V x = S::load(v + j);
      if constexpr (T::kind == MinMaxKind::amax) x = S::abs(x);
      typename S::V eq;
      if constexpr (std::is_same_v<C, float>) eq = _mm256_cmp_ps(x, target, _CMP_EQ_OQ);
      else eq = _mm256_cmp_pd(x, target, _CMP_EQ_OQ);
      if (S::any(eq)) break;
    }
#endif
    while (j < n && !(M::key(v[j]) == r)) ++j;
    if (j == n) j = 0;  // unreachable: r is one of the keys
  }
  (void)prop;
  key = M::key(v[j]);
  return j;
}

}  // namespace fdnn::cpu::red
