// Row kernels of cpu.normalization's channels-innermost (cols mode) float
// paths, one per storage type of x / y (float, bfloat16, half): the type
// conversion happens in registers inside the loop instead of a staging pass
// through a buffer, so each element is touched once.
//
//  - welford_row: folds one row into per-column running (mean, m2) of
//    x - shift by Welford's update. Every column of a row has seen the same
//    number of rows, so 1 / count is one scalar per row and the update needs
//    no division. One sweep over x (the memory stays busy, unlike a two-pass
//    tile), and robust for data far from zero: no E[x^2] - E[x]^2
//    cancellation, and with a shift near the data (the caller's first row)
//    the running mean is small, so its rounding is small against the
//    deviations (a float mean near 1000 would round by 3e-5 per update).
//  - affine_row: y = a * x + b with per-column a, b; float outputs can be
//    streamed past the caches (non-temporal stores, no read for ownership).
//  - chan_stats / chan_grad (float, AVX-512, W = 16..128 channels a pixel):
//    a tile's per-channel (mean, m2) by the corrected two-pass algorithm, or
//    the backward's sum g and sum g (x - mean), with the accumulators in
//    registers (Welford's row kernel loads and stores mean and m2 for every
//    element: bound by its instructions when x comes from L3).
//  - bwd_row: the backward's dx = c1 g + c2 (x - mean) + c3 along a row.
//
// AVX2 copies are the baseline (the library is built for x86-64-v3); AVX-512
// copies (target attributes) are chosen at run time through avx512_usable().
// The 16-bit conversions match num::float_to_bf16 / float_to_half bit for bit
// (round to nearest even, NaN kept quiet), as convert_simd.hpp's do.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <type_traits>

#include "core/env_words.hpp"
#include "core/numeric.hpp"
#include "cpu/convert_simd.hpp"
#include "cpu/cpu_features.hpp"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define FDNN_NORM_KERNELS_X86 1
#endif

namespace fdnn::cpu::normk {

enum class Io { f32, bf16, f16 };

template <Io T>
using Elem = std::conditional_t<T == Io::f32, float, uint16_t>;

template <Io T>
inline float to_f(Elem<T> v) {
  if constexpr (T == Io::f32) return v;
  else if constexpr (T == Io::bf16) return num::bf16_to_float(v);
  else return num::half_to_float(v);
}
template <Io T>
inline Elem<T> from_f(float v) {
  if constexpr (T == Io::f32) return v;
  else if constexpr (T == Io::bf16) return num::float_to_bf16(v);
  else return num::float_to_half(v);
}

// Software prefetch distance (bytes ahead of the element being read): on
// the development machine (a virtualised Xeon) the hardware prefetchers
// alone left one core's reads of x at 60-75% of a plain sum's rate.
constexpr int kPrefetchBytes = 1536;

inline void prefetch_ahead(const void *p) {
#if defined(FDNN_NORM_KERNELS_X86)
  _mm_prefetch(static_cast<const char *>(p) + kPrefetchBytes, _MM_HINT_T0);
#else
  (void)p;
#endif
}

using WelfordFn = void (*)(const char *src, const float *shift, int64_t n, float *mean, float *m2, float rn);
using AffineFn = void (*)(const char *src, char *dst, int64_t n, const float *a, const float *b, bool stream);
// A tile's per-channel backward sums (chan_grad), one row of dx (bwd_row),
// a tile's per-channel (mean, m2) into mean_out[2c], m2_out[2c] (chan_stats).
using ChanGradFn = void (*)(const float *const *grows, const float *const *xrows, int64_t nrows, int64_t fold,
                            const float *mu, double *sg_out, double *sgx_out);
using BwdRowFn = void (*)(const float *g, const float *x, float *dx, int64_t n, const float *c1, const float *c2,
                          const float *mu, const float *c3, float alpha, bool stream);
using ChanStatsFn = void (*)(const float *const *rows, int64_t nrows, int64_t fold, double *mean_out, double *m2_out);

// ---- Scalar tails (and the whole row where no vector path exists) ------------

template <Io T>
inline void welford_tail(const Elem<T> *s, const float *k, int64_t i, int64_t n, float *mean, float *m2, float rn) {
  for (; i < n; ++i) {
    const float x = to_f<T>(s[i]) - k[i];
    const float d = x - mean[i];
    const float m = mean[i] + d * rn;
    mean[i] = m;
    m2[i] += d * (x - m);
  }
}
template <Io T>
inline void affine_tail(const Elem<T> *s, Elem<T> *d, int64_t i, int64_t n, const float *a, const float *b) {
  for (; i < n; ++i) d[i] = from_f<T>(a[i] * to_f<T>(s[i]) + b[i]);
}

#if defined(FDNN_NORM_KERNELS_X86)
// ---- AVX2 -----------------------------------------------------------------------

template <Io T>
inline __m256 load8(const Elem<T> *p) {
  if constexpr (T == Io::f32) return _mm256_loadu_ps(p);
  else if constexpr (T == Io::bf16) return simd::load_bf16x8(p);
  else return simd::load_half8(p);
}
template <Io T>
inline void store8(Elem<T> *p, __m256 v) {
  if constexpr (T == Io::f32) _mm256_storeu_ps(p, v);
  else if constexpr (T == Io::bf16) simd::store_bf16x8(p, v);
  else simd::store_half8(p, v);
}

template <Io T>
void welford_row_avx2(const char *src, const float *k, int64_t n, float *mean, float *m2, float rn) {
  const Elem<T> *s = reinterpret_cast<const Elem<T> *>(src);
  const __m256 r = _mm256_set1_ps(rn);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    prefetch_ahead(s + i);
    const __m256 x0 = _mm256_sub_ps(load8<T>(s + i), _mm256_loadu_ps(k + i));
    const __m256 x1 = _mm256_sub_ps(load8<T>(s + i + 8), _mm256_loadu_ps(k + i + 8));
    const __m256 d0 = _mm256_sub_ps(x0, _mm256_loadu_ps(mean + i));
    const __m256 d1 = _mm256_sub_ps(x1, _mm256_loadu_ps(mean + i + 8));
    const __m256 m0 = _mm256_fmadd_ps(d0, r, _mm256_loadu_ps(mean + i));
    const __m256 m1 = _mm256_fmadd_ps(d1, r, _mm256_loadu_ps(mean + i + 8));
    _mm256_storeu_ps(mean + i, m0);
    _mm256_storeu_ps(mean + i + 8, m1);
    _mm256_storeu_ps(m2 + i, _mm256_fmadd_ps(d0, _mm256_sub_ps(x0, m0), _mm256_loadu_ps(m2 + i)));
    _mm256_storeu_ps(m2 + i + 8, _mm256_fmadd_ps(d1, _mm256_sub_ps(x1, m1), _mm256_loadu_ps(m2 + i + 8)));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_sub_ps(load8<T>(s + i), _mm256_loadu_ps(k + i));
    const __m256 d = _mm256_sub_ps(x, _mm256_loadu_ps(mean + i));
    const __m256 m = _mm256_fmadd_ps(d, r, _mm256_loadu_ps(mean + i));
    _mm256_storeu_ps(mean + i, m);
    _mm256_storeu_ps(m2 + i, _mm256_fmadd_ps(d, _mm256_sub_ps(x, m), _mm256_loadu_ps(m2 + i)));
  }
  welford_tail<T>(s, k, i, n, mean, m2, rn);
}

template <Io T>
void affine_row_avx2(const char *src, char *dst, int64_t n, const float *a, const float *b, bool stream) {
  const Elem<T> *s = reinterpret_cast<const Elem<T> *>(src);
  Elem<T> *d = reinterpret_cast<Elem<T> *>(dst);
  int64_t i = 0;
  if constexpr (T == Io::f32) {
    if (stream && reinterpret_cast<uintptr_t>(d) % sizeof(float) == 0) {
      const int64_t head = static_cast<int64_t>(((32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31) / sizeof(float));
      affine_tail<T>(s, d, 0, head < n ? head : n, a, b);
      i = head < n ? head : n;
      for (; i + 16 <= n; i += 16) {
        prefetch_ahead(s + i);
        _mm256_stream_ps(d + i, _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(s + i), _mm256_loadu_ps(b + i)));
        _mm256_stream_ps(d + i + 8, _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(s + i + 8),
                                                    _mm256_loadu_ps(b + i + 8)));
      }
      affine_tail<T>(s, d, i, n, a, b);
      return;
    }
  }
  for (; i + 16 <= n; i += 16) {
    prefetch_ahead(s + i);
    store8<T>(d + i, _mm256_fmadd_ps(_mm256_loadu_ps(a + i), load8<T>(s + i), _mm256_loadu_ps(b + i)));
    store8<T>(d + i + 8, _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), load8<T>(s + i + 8), _mm256_loadu_ps(b + i + 8)));
  }
  for (; i + 8 <= n; i += 8) store8<T>(d + i, _mm256_fmadd_ps(_mm256_loadu_ps(a + i), load8<T>(s + i), _mm256_loadu_ps(b + i)));
  affine_tail<T>(s, d, i, n, a, b);
}

// ---- AVX-512 ----------------------------------------------------------------------

// GCC 12's AVX-512 intrinsics start from a deliberately undefined register,
// which -Wmaybe-uninitialized reports at every use (a false positive of the
// header, as in philox_lanes.hpp): silenced for these functions only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define FDNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

template <Io T>
FDNN_AVX512 inline __m512 load16(const Elem<T> *p) {
  if constexpr (T == Io::f32) {
    return _mm512_loadu_ps(p);
  } else if constexpr (T == Io::bf16) {
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
  } else {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
  }
}
// num::float_to_bf16 on 16 lanes: RNE by adding 0x7fff + the lowest kept
// bit; NaN: the top half with the quiet bit set.
FDNN_AVX512 inline __m256i to_bf16x16(__m512 v) {
  const __m512i f = _mm512_castps_si512(v);
  const __m512i hi = _mm512_srli_epi32(f, 16);
  const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(f, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  r = _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(r);
}
// to_bf16x16 in one instruction on CPUs with AVX512_BF16 (callers check
// avx512_bf16_usable()): VCVTNEPS2BF16 rounds to nearest even and quiets
// NaNs as num::float_to_bf16 does, but flushes denormal inputs to zero; a
// register holding one (rare) takes the integer rounding, so the bits are
// always num::float_to_bf16's.
#define FDNN_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))
FDNN_AVX512_BF16 inline __m256i to_bf16x16_native(__m512 v) {
  if (_mm512_fpclass_ps_mask(v, 0x20) != 0) return to_bf16x16(v);  // 0x20: the denormal class
  return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v));
}

template <Io T>
FDNN_AVX512 inline void store16(Elem<T> *p, __m512 v) {
  if constexpr (T == Io::f32) _mm512_storeu_ps(p, v);
  else if constexpr (T == Io::bf16) _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), to_bf16x16(v));
  else _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

template <Io T>
FDNN_AVX512 void welford_row_avx512(const char *src, const float *k, int64_t n, float *mean, float *m2, float rn) {
  const Elem<T> *s = reinterpret_cast<const Elem<T> *>(src);
  const __m512 r = _mm512_set1_ps(rn);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    prefetch_ahead(s + i);
    if constexpr (T == Io::f32) prefetch_ahead(s + i + 16);
    const __m512 x0 = _mm512_sub_ps(load16<T>(s + i), _mm512_loadu_ps(k + i));
    const __m512 x1 = _mm512_sub_ps(load16<T>(s + i + 16), _mm512_loadu_ps(k + i + 16));
    const __m512 p0 = _mm512_loadu_ps(mean + i), p1 = _mm512_loadu_ps(mean + i + 16);
    const __m512 d0 = _mm512_sub_ps(x0, p0), d1 = _mm512_sub_ps(x1, p1);
    const __m512 m0 = _mm512_fmadd_ps(d0, r, p0), m1 = _mm512_fmadd_ps(d1, r, p1);
    _mm512_storeu_ps(mean + i, m0);
    _mm512_storeu_ps(mean + i + 16, m1);
    _mm512_storeu_ps(m2 + i, _mm512_fmadd_ps(d0, _mm512_sub_ps(x0, m0), _mm512_loadu_ps(m2 + i)));
    _mm512_storeu_ps(m2 + i + 16, _mm512_fmadd_ps(d1, _mm512_sub_ps(x1, m1), _mm512_loadu_ps(m2 + i + 16)));
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_sub_ps(load16<T>(s + i), _mm512_loadu_ps(k + i)), p = _mm512_loadu_ps(mean + i);
    const __m512 d = _mm512_sub_ps(x, p);
    const __m512 m = _mm512_fmadd_ps(d, r, p);
    _mm512_storeu_ps(mean + i, m);
    _mm512_storeu_ps(m2 + i, _mm512_fmadd_ps(d, _mm512_sub_ps(x, m), _mm512_loadu_ps(m2 + i)));
  }
  welford_tail<T>(s, k, i, n, mean, m2, rn);
}

template <Io T>
FDNN_AVX512 void affine_row_avx512(const char *src, char *dst, int64_t n, const float *a, const float *b, bool stream) {
  const Elem<T> *s = reinterpret_cast<const Elem<T> *>(src);
  Elem<T> *d = reinterpret_cast<Elem<T> *>(dst);
  int64_t i = 0;
  if constexpr (T == Io::f32) {
    if (stream && reinterpret_cast<uintptr_t>(d) % sizeof(float) == 0) {
      const int64_t head = static_cast<int64_t>(((64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63) / sizeof(float));
      i = head < n ? head : n;
      affine_tail<T>(s, d, 0, i, a, b);
      for (; i + 16 <= n; i += 16) {
        prefetch_ahead(s + i);
        _mm512_stream_ps(d + i, _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(s + i), _mm512_loadu_ps(b + i)));
      }
      affine_tail<T>(s, d, i, n, a, b);
      return;
    }
  }
  for (; i + 32 <= n; i += 32) {
    prefetch_ahead(s + i);
    if constexpr (T == Io::f32) prefetch_ahead(s + i + 16);
    store16<T>(d + i, _mm512_fmadd_ps(_mm512_loadu_ps(a + i), load16<T>(s + i), _mm512_loadu_ps(b + i)));
    store16<T>(d + i + 16, _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), load16<T>(s + i + 16), _mm512_loadu_ps(b + i + 16)));
  }
  for (; i + 16 <= n; i += 16) store16<T>(d + i, _mm512_fmadd_ps(_mm512_loadu_ps(a + i), load16<T>(s + i), _mm512_loadu_ps(b + i)));
  affine_tail<T>(s, d, i, n, a, b);
}

// chan_stats: the per-channel (mean, m2) of a tile of float rows, each row
// `fold` pixels of W = 16 * NV channels, contiguous: the corrected two-pass
// algorithm with the accumulators in registers (U copies, alternating
// pixels, for independent chains): the sums (the tile streams in from
// memory or L3 at a plain sum's rate), then (x - mu)^2 and x - mu from the
// tile now in L2. mean_out = mu + sum(x - mu) / P, m2_out = sum (x - mu)^2
// - sum(x - mu)^2 / P, P = nrows * fold, in double.
template <int NV, int U>
FDNN_AVX512 void chan_stats_avx512(const float *const *rows, int64_t nrows, int64_t fold, double *mean_out,
                                   double *m2_out) {
  constexpr int W = 16 * NV;
  __m512 a[U][NV];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) a[u][v] = _mm512_setzero_ps();
  for (int64_t r = 0; r < nrows; ++r) {
    const float *p = rows[r];
    int64_t f = 0;
    for (; f + U <= fold; f += U)
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) a[u][v] = _mm512_add_ps(a[u][v], _mm512_loadu_ps(p + (f + u) * W + 16 * v));
    for (; f < fold; ++f)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) a[0][v] = _mm512_add_ps(a[0][v], _mm512_loadu_ps(p + f * W + 16 * v));
  }
  const int64_t P = nrows * fold;
  const __m512 inv = _mm512_set1_ps(1.0f / static_cast<float>(P));
  __m512 mu[NV], q[U][NV], l[U][NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    __m512 t = a[0][v];
#pragma GCC unroll 8
    for (int u = 1; u < U; ++u) t = _mm512_add_ps(t, a[u][v]);
    mu[v] = _mm512_mul_ps(t, inv);
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) q[u][v] = l[u][v] = _mm512_setzero_ps();
  for (int64_t r = 0; r < nrows; ++r) {
    const float *p = rows[r];
    int64_t f = 0;
    for (; f + U <= fold; f += U)
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(p + (f + u) * W + 16 * v), mu[v]);
          q[u][v] = _mm512_fmadd_ps(d, d, q[u][v]);
          l[u][v] = _mm512_add_ps(l[u][v], d);
        }
    for (; f < fold; ++f)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(p + f * W + 16 * v), mu[v]);
        q[0][v] = _mm512_fmadd_ps(d, d, q[0][v]);
        l[0][v] = _mm512_add_ps(l[0][v], d);
      }
  }
  alignas(64) float mus[W], qs[W], ls[W];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    __m512 qq = q[0][v], ll = l[0][v];
#pragma GCC unroll 8
    for (int u = 1; u < U; ++u) {
      qq = _mm512_add_ps(qq, q[u][v]);
      ll = _mm512_add_ps(ll, l[u][v]);
    }
    _mm512_store_ps(mus + 16 * v, mu[v]);
    _mm512_store_ps(qs + 16 * v, qq);
    _mm512_store_ps(ls + 16 * v, ll);
  }
  const double dp = static_cast<double>(P);
  for (int c = 0; c < W; ++c) {
    const double lin = ls[c];
    mean_out[2 * c] = static_cast<double>(mus[c]) + lin / dp;
    m2_out[2 * c] = static_cast<double>(qs[c]) - lin * lin / dp;
  }
}

// chan_grad: the backward's per-channel sums over a tile of float rows laid
// out as chan_stats': sum g and sum g * (x - mu), mu the channel's mean, the
// accumulators in registers (U copies alternating pixels), into sg_out[2c],
// sgx_out[2c] (double).
template <int NV, int U>
FDNN_AVX512 void chan_grad_avx512(const float *const *grows, const float *const *xrows, int64_t nrows, int64_t fold,
                                  const float *mu_in, double *sg_out, double *sgx_out) {
  constexpr int W = 16 * NV;
  __m512 mu[NV], sg[U][NV], sx[U][NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) mu[v] = _mm512_loadu_ps(mu_in + 16 * v);
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) sg[u][v] = sx[u][v] = _mm512_setzero_ps();
  for (int64_t r = 0; r < nrows; ++r) {
    const float *g = grows[r], *x = xrows[r];
    int64_t f = 0;
    for (; f + U <= fold; f += U)
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          const int64_t o = (f + u) * W + 16 * v;
          const __m512 gv = _mm512_loadu_ps(g + o);
          sg[u][v] = _mm512_add_ps(sg[u][v], gv);
          sx[u][v] = _mm512_fmadd_ps(gv, _mm512_sub_ps(_mm512_loadu_ps(x + o), mu[v]), sx[u][v]);
        }
    for (; f < fold; ++f)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const int64_t o = f * W + 16 * v;
        const __m512 gv = _mm512_loadu_ps(g + o);
        sg[0][v] = _mm512_add_ps(sg[0][v], gv);
        sx[0][v] = _mm512_fmadd_ps(gv, _mm512_sub_ps(_mm512_loadu_ps(x + o), mu[v]), sx[0][v]);
      }
  }
  alignas(64) float a[W], b[W];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    __m512 s0 = sg[0][v], s1 = sx[0][v];
#pragma GCC unroll 8
    for (int u = 1; u < U; ++u) {
      s0 = _mm512_add_ps(s0, sg[u][v]);
      s1 = _mm512_add_ps(s1, sx[u][v]);
    }
    _mm512_store_ps(a + 16 * v, s0);
    _mm512_store_ps(b + 16 * v, s1);
  }
  for (int c = 0; c < W; ++c) {
    sg_out[2 * c] = a[c];
    sgx_out[2 * c] = b[c];
  }
}

// dx = alpha * (c1 * g + c2 * (x - mu) + c3) along a row of n floats with
// per-column coefficients; streamed past the caches where `stream`.
FDNN_AVX512 inline void bwd_row_avx512(const float *g, const float *x, float *dx, int64_t n, const float *c1,
                                       const float *c2, const float *mu, const float *c3, float alpha, bool stream) {
  int64_t i = 0;
  const __m512 va = _mm512_set1_ps(alpha);
  const bool scale = alpha != 1.0f;
  auto one = [&](int64_t j) {
    return c1[j] * g[j] + c2[j] * (x[j] - mu[j]) + c3[j];
  };
  if (stream) {
    const int64_t head = static_cast<int64_t>(((64 - (reinterpret_cast<uintptr_t>(dx) & 63)) & 63) / sizeof(float));
    if (reinterpret_cast<uintptr_t>(dx) % sizeof(float) != 0) stream = false;
    else
      for (; i < head && i < n; ++i) dx[i] = scale ? alpha * one(i) : one(i);
  }
  for (; i + 16 <= n; i += 16) {
    prefetch_ahead(g + i);
    prefetch_ahead(x + i);
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(mu + i));
    __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(c1 + i), _mm512_loadu_ps(g + i),
                               _mm512_fmadd_ps(_mm512_loadu_ps(c2 + i), d, _mm512_loadu_ps(c3 + i)));
    if (scale) v = _mm512_mul_ps(va, v);
    if (stream) _mm512_stream_ps(dx + i, v);
    else _mm512_storeu_ps(dx + i, v);
  }
  for (; i < n; ++i) dx[i] = scale ? alpha * one(i) : one(i);
}

// affine_row_avx512 for bfloat16 storage with AVX512_BF16's conversion
// (to_bf16x16_native): NHWC batch norm's bfloat16 forward.
FDNN_AVX512_BF16 inline void affine_row_bf16_native(const char *src, char *dst, int64_t n, const float *a, const float *b,
                                             bool) {
  const uint16_t *s = reinterpret_cast<const uint16_t *>(src);
  uint16_t *d = reinterpret_cast<uint16_t *>(dst);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    prefetch_ahead(s + i);
    const __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), load16<Io::bf16>(s + i), _mm512_loadu_ps(b + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i), to_bf16x16_native(v));
  }
  affine_tail<Io::bf16>(s, d, i, n, a, b);
}
#undef FDNN_AVX512
#undef FDNN_AVX512_BF16
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Whether to_bf16x16_native may run.
inline bool avx512_bf16_usable() {
  static const bool yes = avx512_usable() && __builtin_cpu_supports("avx512bf16");
  return yes;
}

template <Io T>
inline WelfordFn welford_fn() {
  return avx512_usable() ? &welford_row_avx512<T> : &welford_row_avx2<T>;
}
template <Io T>
inline AffineFn affine_fn() {
  if constexpr (T == Io::bf16) {
    static const bool native = avx512_bf16_usable() && !env_has_word("FREEDNN_CPU_NORM_TUNE", "nobf16");
    if (native) return &affine_row_bf16_native;
  }
  return avx512_usable() ? &affine_row_avx512<T> : &affine_row_avx2<T>;
}

#else  // no x86 vector extensions: the scalar loops

template <Io T>
void welford_row_scalar(const char *src, const float *k, int64_t n, float *mean, float *m2, float rn) {
  welford_tail<T>(reinterpret_cast<const Elem<T> *>(src), k, 0, n, mean, m2, rn);
}
template <Io T>
void affine_row_scalar(const char *src, char *dst, int64_t n, const float *a, const float *b, bool) {
  affine_tail<T>(reinterpret_cast<const Elem<T> *>(src), reinterpret_cast<Elem<T> *>(dst), 0, n, a, b);
}
template <Io T>
inline WelfordFn welford_fn() {
  return &welford_row_scalar<T>;
}
template <Io T>
inline AffineFn affine_fn() {
  return &affine_row_scalar<T>;
}
#endif

#if defined(FDNN_NORM_KERNELS_X86)
// The kernel of K (chan_stats_avx512 or chan_grad_avx512, through `pick`)
// for W = 16 * nv channels (nv 1..8) of float data, or null: AVX-512 only
// (32 registers hold the accumulators; U copies of them where they fit).
template <class Fn, class Pick>
inline Fn per_channel_width(int64_t w, Pick pick) {
  if (!avx512_usable() || w % 16 != 0) return nullptr;
  using std::integral_constant;
  switch (w / 16) {
    case 1: return pick(integral_constant<int, 1>{}, integral_constant<int, 8>{});
    case 2: return pick(integral_constant<int, 2>{}, integral_constant<int, 4>{});
    case 3: return pick(integral_constant<int, 3>{}, integral_constant<int, 2>{});
    case 4: return pick(integral_constant<int, 4>{}, integral_constant<int, 2>{});
    case 5: return pick(integral_constant<int, 5>{}, integral_constant<int, 1>{});
    case 6: return pick(integral_constant<int, 6>{}, integral_constant<int, 1>{});
    case 7: return pick(integral_constant<int, 7>{}, integral_constant<int, 1>{});
    case 8: return pick(integral_constant<int, 8>{}, integral_constant<int, 1>{});
    default: return nullptr;
  }
}
inline ChanStatsFn chan_stats_for(int64_t w) {
  return per_channel_width<ChanStatsFn>(w, [](auto nv, auto u) -> ChanStatsFn {
    return &chan_stats_avx512<decltype(nv)::value, decltype(u)::value>;
  });
}
inline ChanGradFn chan_grad_for(int64_t w) {
  return per_channel_width<ChanGradFn>(w, [](auto nv, auto u) -> ChanGradFn {
    return &chan_grad_avx512<decltype(nv)::value, decltype(u)::value>;
  });
}
inline BwdRowFn bwd_row_for() { return avx512_usable() ? &bwd_row_avx512 : nullptr; }
#else
inline ChanStatsFn chan_stats_for(int64_t) { return nullptr; }
inline ChanGradFn chan_grad_for(int64_t) { return nullptr; }
inline BwdRowFn bwd_row_for() { return nullptr; }
#endif

// The kernels for a storage type, or null where there are none (double,
// integer types: the engine's generic loops run them).
inline WelfordFn welford_for(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return welford_fn<Io::f32>();
    case CUDNN_DATA_BFLOAT16: return welford_fn<Io::bf16>();
    case CUDNN_DATA_HALF: return welford_fn<Io::f16>();
    default: return nullptr;
  }
}
inline AffineFn affine_for(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT: return affine_fn<Io::f32>();
    case CUDNN_DATA_BFLOAT16: return affine_fn<Io::bf16>();
    case CUDNN_DATA_HALF: return affine_fn<Io::f16>();
    default: return nullptr;
  }
}

}  // namespace fdnn::cpu::normk
