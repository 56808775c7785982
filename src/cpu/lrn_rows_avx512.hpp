// The AVX-512 paths of cpu.lrn for cross-channel LRN with the channels
// contiguous (NHWC-like), forward and backward, FLOAT, HALF and BFLOAT16
// data.
//
// The generic channel-rows path of lrn_cross_fast.hpp runs a group of pixels
// through array passes (squares, window sums, power, result, store; seven
// for the backward), each over the whole group; at 64 channels those
// passes, not the memory, set its speed (the forward ran at 0.36 of
// oneDNN's lrn_jit on a 2-vCPU Zen 5, the backward at about a quarter).
// Here each pixel's C channels go through one pass of 16-lane vectors with
// every intermediate in registers (rows_forward_pixel, rows_backward_pixel):
//  - the window sums of x^2 over channels c - behind .. c + ahead for
//    vector i come from the squares of vectors i - 1, i, i + 1, moved across
//    lanes with valignd (rows_shifted); for windows of 4 or more, from pair
//    sums s[c - 1] + s[c] first, which halves the moves and adds;
//  - S = k + a sum; beta 0.75: S^-3/4 and 1 / S from q = S^-1/4 (two
//    reciprocal-square-root estimates and one Newton step, rows_pow075);
//    beta 1: one division;
//  - forward: y = x S^-beta;
//  - backward: r = dy x S^-beta / S, and dx = dy S^-beta - 2 a beta x
//    (sum of r over c - ahead .. c + behind) needs r of vector i + 1, so dx
//    runs one vector behind.
// Other betas take the same pixel loop through padded rows in memory and
// the vm:: power of Math::negpow (rows_*_pixel_staged). The window
// width N (1..16, cuDNN's range) is a template parameter, so every lane move
// has an immediate count. The next pixels' inputs are prefetched about
// 2 KiB ahead (each pixel's rows are short: the hardware streamers see many
// short streams), dense layouts step pixels by one stride instead of
// walking the outer dims, and float outputs of 8 MiB and more written with
// beta = 0 take non-temporal stores (whole, 64-byte-aligned vectors).
//
// CPUs without AVX-512 (or FREEDNN_CPU_NO_AVX512=1) keep the generic path.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "cpu/lrn_cross_fast.hpp"
#include "cpu/cpu_features.hpp"

namespace fdnn::cpu::lrn_fast {

#define FDNN_LRN_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))
// The per-vector helpers: always inlined into the pixel loops.
#define FDNN_LRN_AVX512_INLINE __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"), always_inline))

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

FDNN_LRN_AVX512_INLINE inline __mmask16 rows_lane_mask(int64_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
}

// Sum of p[0..N): a pairwise tree, so the adds are not one serial chain.
template <int N>
FDNN_LRN_AVX512_INLINE inline __m512 rows_window(const float *p) {
  if constexpr (N == 1) {
    return _mm512_loadu_ps(p);
  } else {
    constexpr int H = N / 2;
    return _mm512_add_ps(rows_window<H>(p), rows_window<N - H>(p + H));
  }
}

// inv = 1 / v and p = v^-0.75 of 16 lanes.
struct InvPow {
  __m512 inv, p;
};

// Lanes of v^-0.75 that the reciprocal-square-root formula does not cover
// (v not a normal float below 3e38): std::pow, as pow_m075_avx512 does.
// Out of line and by value, so that the hot loop keeps its vectors in
// registers.
FDNN_LRN_AVX512 __attribute__((noinline, cold)) inline InvPow rows_pow_fix(__m512 v, __mmask16 bad, InvPow ip) {
  alignas(64) float vv[16], iv[16], pv[16];
  _mm512_store_ps(vv, v);
  _mm512_store_ps(iv, ip.inv);
  _mm512_store_ps(pv, ip.p);
  for (int j = 0; j < 16; ++j)
    if ((bad >> j) & 1) pow_lane(vv[j], iv + j, pv + j);
  return {_mm512_load_ps(iv), _mm512_load_ps(pv)};
}

// 1 / v and v^-0.75 on the live lanes `live`, from q = v^-1/4: q0 =
// v^-1/2 (v^-1/2)^-1/2 from two reciprocal-square-root estimates (about
// 13 bits), one Newton step for q^-4 = v (q' = q (5/4 - v q^4 / 4), v q^4
// formed as (v q^2) q^2 so that nothing leaves the normal range), then
// 1 / v = (q^2)^2 and v^-3/4 = q^2 q (finite and accurate up to the
// largest float). Lanes whose v is not a positive normal float go through
// std::pow.
FDNN_LRN_AVX512_INLINE inline InvPow rows_pow075(__m512 v, __mmask16 live) {
  const __m512 r0 = _mm512_rsqrt14_ps(v);
  __m512 q = _mm512_mul_ps(r0, _mm512_rsqrt14_ps(r0));
  __m512 q2 = _mm512_mul_ps(q, q);
  const __m512 e = _mm512_mul_ps(_mm512_mul_ps(v, q2), q2);
  q = _mm512_mul_ps(q, _mm512_fnmadd_ps(_mm512_set1_ps(0.25f), e, _mm512_set1_ps(1.25f)));
  q2 = _mm512_mul_ps(q, q);
  const InvPow ip{_mm512_mul_ps(q2, q2), _mm512_mul_ps(q2, q)};
  // NaN, zero, infinity, subnormal or negative (vfpclassps classes 0x01 .. 0x80).
  const __mmask16 bad = _mm512_mask_fpclass_ps_mask(live, v, 0xFF);
  if (__builtin_expect(bad != 0, 0)) return rows_pow_fix(v, bad, ip);
  return ip;
}

// Lanes of `cur` moved by J channels (J > 0: channel c + J from cur and
// next; J < 0: channel c + J from prev and cur), for |J| < 16.
template <int J>
FDNN_LRN_AVX512_INLINE inline __m512 rows_shifted(__m512 prev, __m512 cur, __m512 next) {
  if constexpr (J == 0) {
    return cur;
  } else if constexpr (J > 0) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(next), _mm512_castps_si512(cur), J));
  } else {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(cur), _mm512_castps_si512(prev), 16 + J));
  }
}

// Sum over J in [Lo, Hi] of rows_shifted<J>: a pairwise tree.
template <int Lo, int Hi>
FDNN_LRN_AVX512_INLINE inline __m512 rows_window_regs(__m512 prev, __m512 cur, __m512 next) {
  if constexpr (Lo == Hi) {
    return rows_shifted<Lo>(prev, cur, next);
  } else {
    constexpr int Mid = Lo + (Hi - Lo) / 2;
    return _mm512_add_ps(rows_window_regs<Lo, Mid>(prev, cur, next), rows_window_regs<Mid + 1, Hi>(prev, cur, next));
  }
}

// How the result reaches the output row.
enum class RowsOut { store, blend, stream };

// Per-thread rows of one pixel (floats) for the staged power (padded
// squares, padded r, P, the sums, 1 / S) and for converted inputs and
// results (xb, dyb, res: 16-bit data, or inputs that overlap the output).
struct RowsScratch {
  std::vector<float> buf;
  float *sq, *r, *p, *s, *inv, *xb, *dyb, *res;
  RowsScratch(int64_t C, int64_t n) {
    const int64_t padded = C + n + 32, plain = C + 32;
    buf.assign(static_cast<size_t>(2 * padded + 6 * plain), 0.0f);
    sq = buf.data();
    r = sq + padded;
    p = r + padded;
    s = p + plain;
    inv = s + plain;
    xb = inv + plain;
    dyb = xb + plain;
    res = dyb + plain;
  }
};

// Pair sums t[c] = s[c - 1] + s[c] of vector cur (prev: the vector before).
FDNN_LRN_AVX512_INLINE inline __m512 rows_pair(__m512 prev, __m512 cur) {
  return _mm512_add_ps(cur, rows_shifted<-1>(prev, cur, cur));
}

// Sum over J in [Lo, Hi] of s[c + J] from the pair sums t (vectors tp, tc,
// tn) and, for an odd count, one s term at Lo: about half the shifts and
// adds of rows_window_regs for windows of 4 or more.
template <int Lo, int Hi>
FDNN_LRN_AVX512_INLINE inline __m512 rows_window_pairs(__m512 tp, __m512 tc, __m512 tn, __m512 sp, __m512 sc, __m512 sn) {
  if constexpr (Hi == Lo) {
    return rows_shifted<Lo>(sp, sc, sn);
  } else if constexpr (Hi == Lo + 1) {
    return rows_shifted<Hi>(tp, tc, tn);
  } else {
    return _mm512_add_ps(rows_shifted<Hi>(tp, tc, tn), rows_window_pairs<Lo, Hi - 2>(tp, tc, tn, sp, sc, sn));
  }
}

// The window sums of x^2 over channels c - behind .. c + ahead, a vector
// at a time: feed vector i + 1 of x (zeros past C), get vector i's sums.
// Keeps the squares (and, for windows of 4 or more, their pair sums) of
// vectors i - 1 .. i + 1.
template <int N>
struct RowsSquareWindows {
  static constexpr int B = (N - 1) / 2, A = N - 1 - B;  // graph::lrn_look_behind / ahead
  static constexpr bool kPairs = N >= 4;                 // sums from pair sums (rows_window_pairs)
  __m512 sq_p, sq_c, tq_p, tq_c;
  FDNN_LRN_AVX512_INLINE explicit RowsSquareWindows(__m512 x0) {
    const __m512 zero = _mm512_setzero_ps();
    sq_p = zero;
    sq_c = _mm512_mul_ps(x0, x0);
    tq_p = zero;
    tq_c = kPairs ? rows_pair(zero, sq_c) : zero;
  }
  FDNN_LRN_AVX512_INLINE __m512 next(__m512 x_n) {
    const __m512 sq_n = _mm512_mul_ps(x_n, x_n);
    __m512 tq_n = _mm512_setzero_ps(), ssum;
    if constexpr (kPairs) {
      tq_n = rows_pair(sq_c, sq_n);
      ssum = rows_window_pairs<-B, A>(tq_p, tq_c, tq_n, sq_p, sq_c, sq_n);
    } else {
      ssum = rows_window_regs<-B, A>(sq_p, sq_c, sq_n);
    }
    sq_p = sq_c;
    sq_c = sq_n;
    tq_p = tq_c;
    tq_c = tq_n;
    return ssum;
  }
};

// Writes res (16 lanes at `at`, live lanes mk) as RowsOut M says.
template <RowsOut M>
FDNN_LRN_AVX512_INLINE inline void rows_put(float *at, __mmask16 mk, __m512 res, __m512 be) {
  if constexpr (M == RowsOut::store) {
    _mm512_mask_storeu_ps(at, mk, res);
  } else if constexpr (M == RowsOut::blend) {
    _mm512_mask_storeu_ps(at, mk, _mm512_fmadd_ps(be, _mm512_maskz_loadu_ps(mk, at), res));
  } else {
    _mm512_stream_ps(at, res);  // whole, aligned vectors only (see RowsRunner)
  }
}

// The broadcast constants of the pixel kernels, made once per run (locals
// of the caller, so that the compiler keeps them in registers across the
// pixel loop instead of reloading them after every output store).
struct RowsConst {
  __m512 kv, av, tab, al, be;
};

FDNN_LRN_AVX512_INLINE inline RowsConst rows_const(const Math &m, float alpha, float beta) {
  return {_mm512_set1_ps(m.k), _mm512_set1_ps(m.a), _mm512_set1_ps(m.two_a_beta), _mm512_set1_ps(alpha),
          _mm512_set1_ps(beta)};
}

// alpha (dy P - 2 a beta x rs), dyp = dy P.
FDNN_LRN_AVX512_INLINE inline __m512 rows_dx(__m512 rs, __m512 xv, __m512 dyp, __m512 tab, __m512 al) {
  return _mm512_mul_ps(al, _mm512_fnmadd_ps(_mm512_mul_ps(tab, xv), rs, dyp));
}

// dx of one pixel for beta 0.75 or 1, everything in registers: vector i's
// window sums of x^2 need vectors i - 1 .. i + 1 of the squares (valignd
// across them), and its dx the r of vectors i - 1 .. i + 1, so dx runs one
// vector behind. Lanes past C load as zeros and their r is forced to zero,
// so that no window reads anything but channels and zeros. Exact aliasing
// (dx == dy or x) is safe: vector i + 1 of the inputs is loaded before
// vector i - 1 of dx is written.
template <int N, RowsOut M, bool kBetaOne>
FDNN_LRN_AVX512_INLINE inline void rows_backward_pixel(int64_t C, const float *x, const float *dy, float *out,
                                                       const RowsConst &k) {
  constexpr int B = (N - 1) / 2, A = N - 1 - B;  // graph::lrn_look_behind / ahead
  constexpr bool kPairs = N >= 4;                 // window sums from pair sums (rows_window_pairs)
  const __m512 zero = _mm512_setzero_ps(), kv = k.kv, av = k.av, tab = k.tab, al = k.al, be = k.be;
  const int64_t V = (C + 15) / 16;
  __mmask16 mk_c = rows_lane_mask(C), mk_p = 0;
  __m512 x_c = _mm512_maskz_loadu_ps(mk_c, x), dy_c = _mm512_maskz_loadu_ps(mk_c, dy);
  RowsSquareWindows<N> sums(x_c);
  __m512 x_p = zero, dyp_p = zero, r_pp = zero, r_p = zero, tr_pp = zero, tr_p = zero;
#pragma GCC unroll 4
  for (int64_t i = 0; i < V; ++i) {
    const int64_t cn = (i + 1) * 16;
    const __mmask16 mk_n = cn < C ? rows_lane_mask(C - cn) : static_cast<__mmask16>(0);
    const __m512 x_n = _mm512_maskz_loadu_ps(mk_n, x + cn), dy_n = _mm512_maskz_loadu_ps(mk_n, dy + cn);
    const __m512 ssum = sums.next(x_n);
    const __m512 v = _mm512_fmadd_ps(av, ssum, kv);
    InvPow ip;
    if constexpr (kBetaOne) {
      ip.inv = _mm512_div_ps(_mm512_set1_ps(1.0f), v);
      ip.p = ip.inv;
    } else {
      ip = rows_pow075(v, mk_c);
    }
    const __m512 dyp = _mm512_mul_ps(dy_c, ip.p);  // dy S^-beta: in r and in dx
    const __m512 r_c = _mm512_maskz_mul_ps(mk_c, _mm512_mul_ps(dyp, x_c), ip.inv);
    __m512 tr_c = zero;
    if constexpr (kPairs) tr_c = rows_pair(r_p, r_c);
    if (i > 0) {
      __m512 rs;
      if constexpr (kPairs) rs = rows_window_pairs<-A, B>(tr_pp, tr_p, tr_c, r_pp, r_p, r_c);
      else rs = rows_window_regs<-A, B>(r_pp, r_p, r_c);
      rows_put<M>(out + (i - 1) * 16, mk_p, rows_dx(rs, x_p, dyp_p, tab, al), be);
    }
    x_p = x_c;
    x_c = x_n;
    dy_c = dy_n;
    dyp_p = dyp;
    r_pp = r_p;
    r_p = r_c;
    tr_pp = tr_p;
    tr_p = tr_c;
    mk_p = mk_c;
    mk_c = mk_n;
  }
  __m512 rs;
  if constexpr (kPairs) rs = rows_window_pairs<-A, B>(tr_pp, tr_p, rows_pair(r_p, zero), r_pp, r_p, zero);
  else rs = rows_window_regs<-A, B>(r_pp, r_p, zero);
  rows_put<M>(out + (V - 1) * 16, mk_p, rows_dx(rs, x_p, dyp_p, tab, al), be);
}

// dx of one pixel for other betas: the window sums go through the padded
// rows of w (see the top of this file) and the power through Math::negpow.
template <int N, RowsOut M>
FDNN_LRN_AVX512_INLINE inline void rows_backward_pixel_staged(const Math &m, int64_t C, const float *x, const float *dy,
                                                              float *out, const RowsConst &k, const RowsScratch &w) {
  float *sq = w.sq + m.behind;
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 mk = rows_lane_mask(C - c);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + c);
    _mm512_mask_storeu_ps(sq + c, mk, _mm512_mul_ps(xv, xv));
  }
  for (int64_t c = 0; c < C; c += 16) _mm512_storeu_ps(w.s + c, rows_window<N>(w.sq + c));
  m.negpow(w.s, w.inv, w.p, C);
  float *rr = w.r + m.ahead;
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 mk = rows_lane_mask(C - c);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + c), dyv = _mm512_maskz_loadu_ps(mk, dy + c);
    const __m512 pi = _mm512_mul_ps(_mm512_loadu_ps(w.p + c), _mm512_loadu_ps(w.inv + c));
    _mm512_mask_storeu_ps(rr + c, mk, _mm512_mul_ps(_mm512_mul_ps(dyv, xv), pi));
  }
  const __m512 tab = k.tab, al = k.al, be = k.be;
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 mk = rows_lane_mask(C - c);
    const __m512 rs = rows_window<N>(w.r + c);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + c), dyv = _mm512_maskz_loadu_ps(mk, dy + c);
    const __m512 dp = _mm512_mul_ps(dyv, _mm512_loadu_ps(w.p + c));
    rows_put<M>(out + c, mk, _mm512_mul_ps(al, _mm512_fnmadd_ps(_mm512_mul_ps(tab, xv), rs, dp)), be);
  }
}

// y of one pixel for beta 0.75 or 1, everything in registers: vector i's
// window sums of x^2 need the squares of vectors i - 1 .. i + 1. Lanes
// past C load as zeros. Exact aliasing (y == x) is safe: vector i + 1 of x
// is loaded before vector i of y is written.
template <int N, RowsOut M, bool kBetaOne>
FDNN_LRN_AVX512_INLINE inline void rows_forward_pixel(int64_t C, const float *x, float *out, const RowsConst &k) {
  const __m512 kv = k.kv, av = k.av, al = k.al, be = k.be;
  const int64_t V = (C + 15) / 16;
  __mmask16 mk_c = rows_lane_mask(C);
  __m512 x_c = _mm512_maskz_loadu_ps(mk_c, x);
  RowsSquareWindows<N> sums(x_c);
#pragma GCC unroll 4
  for (int64_t i = 0; i < V; ++i) {
    const int64_t cn = (i + 1) * 16;
    const __mmask16 mk_n = cn < C ? rows_lane_mask(C - cn) : static_cast<__mmask16>(0);
    const __m512 x_n = _mm512_maskz_loadu_ps(mk_n, x + cn);
    const __m512 ssum = sums.next(x_n);
    const __m512 v = _mm512_fmadd_ps(av, ssum, kv);
    __m512 p;
    if constexpr (kBetaOne) p = _mm512_div_ps(_mm512_set1_ps(1.0f), v);
    else p = rows_pow075(v, mk_c).p;
    rows_put<M>(out + i * 16, mk_c, _mm512_mul_ps(al, _mm512_mul_ps(x_c, p)), be);
    x_c = x_n;
    mk_c = mk_n;
  }
}

// y of one pixel for other betas: the window sums through the padded
// squares of w and the power through Math::negpow.
template <int N, RowsOut M>
FDNN_LRN_AVX512_INLINE inline void rows_forward_pixel_staged(const Math &m, int64_t C, const float *x, float *out,
                                                             const RowsConst &k, const RowsScratch &w) {
  float *sq = w.sq + m.behind;
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 mk = rows_lane_mask(C - c);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + c);
    _mm512_mask_storeu_ps(sq + c, mk, _mm512_mul_ps(xv, xv));
  }
  for (int64_t c = 0; c < C; c += 16) _mm512_storeu_ps(w.s + c, rows_window<N>(w.sq + c));
  m.negpow(w.s, w.inv, w.p, C);
  const __m512 al = k.al, be = k.be;
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 mk = rows_lane_mask(C - c);
    const __m512 xv = _mm512_maskz_loadu_ps(mk, x + c);
    rows_put<M>(out + c, mk, _mm512_mul_ps(al, _mm512_mul_ps(xv, _mm512_loadu_ps(w.p + c))), be);
  }
}

// One pixel with the output mode chosen at run time.
// dy == nullptr: the forward.
template <int N, RowsOut M>
FDNN_LRN_AVX512_INLINE inline void rows_pixel_any(const Math &m, int64_t C, const float *x, const float *dy, float *out,
                                                  const RowsConst &k, const RowsScratch &w) {
  if (dy == nullptr) {
    if (m.beta_075) rows_forward_pixel<N, M, false>(C, x, out, k);
    else if (m.beta_one) rows_forward_pixel<N, M, true>(C, x, out, k);
    else rows_forward_pixel_staged<N, M>(m, C, x, out, k, w);
  } else if (m.beta_075) {
    rows_backward_pixel<N, M, false>(C, x, dy, out, k);
  } else if (m.beta_one) {
    rows_backward_pixel<N, M, true>(C, x, dy, out, k);
  } else {
    rows_backward_pixel_staged<N, M>(m, C, x, dy, out, k, w);
  }
}

// One pixel's 16-bit row as floats, 16 lanes per store: the pixel loop then
// reads each 64-byte vector back with one load, which the store buffer
// forwards; load_row's 8-lane (32-byte) stores cannot be forwarded to a
// 64-byte load, and that stall made the half / bfloat16 path 1.8x slower
// than float. The values are load_row's (exact conversions).
template <class ST>
FDNN_LRN_AVX512_INLINE inline void rows_load_16bit(const typename ST::type *s, int64_t C, float *out) {
  int64_t i = 0;
  for (; i + 16 <= C; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    if constexpr (kIsBf16<ST>) _mm512_storeu_ps(out + i, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
    else _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  if (i < C) load_row<ST>(s + i, C - i, out + i);
}

template <class ST>
struct RowsRunner {
  using T = typename ST::type;
  const Shape &s;
  const graph::Tensor &xt;
  const Math &m;
  Arg x, dy, out;  // dy.data == nullptr: the forward
  bool direct;  // float inputs read in place (no overlap with the output)
  float alpha, beta;
  bool stream;  // float output, beta 0, large: non-temporal stores where aligned
  int64_t group;
  bool linear;       // pixel q at q * step[j] in operand j (x, out, dy)
  int64_t step[3];

  int64_t items() const { return (s.outer + group - 1) / group; }

  // One pixel: x, dy (backward) and the output at element offsets xo, dyo,
  // oo. k: the constants with this call's alpha and beta, k1 with 1 and 0
  // (16-bit results, blended by store_row).
  template <int N>
  FDNN_LRN_AVX512_INLINE void pixel(int64_t xo, int64_t dyo, int64_t oo, const RowsConst &k, const RowsConst &k1,
                                    const RowsScratch &w) const {
    const int64_t C = s.channels;
    const bool bwd = dy.data != nullptr;
    const T *xs = reinterpret_cast<const T *>(x.data) + xo;
    const T *dys = bwd ? reinterpret_cast<const T *>(dy.data) + dyo : nullptr;
    T *os = reinterpret_cast<T *>(out.data) + oo;
    if constexpr (kIsFloat<ST>) {
      (void)k1;
      const float *xr = xs, *dyr = dys;
      if (!direct) {
        load_row<ST>(xs, C, w.xb);
        xr = w.xb;
        if (bwd) {
          load_row<ST>(dys, C, w.dyb);
          dyr = w.dyb;
        }
      }
      if (beta != 0.0f) rows_pixel_any<N, RowsOut::blend>(m, C, xr, dyr, os, k, w);
      else if (stream && (reinterpret_cast<uintptr_t>(os) & 63) == 0)
        rows_pixel_any<N, RowsOut::stream>(m, C, xr, dyr, os, k, w);
      else rows_pixel_any<N, RowsOut::store>(m, C, xr, dyr, os, k, w);
    } else {
      rows_load_16bit<ST>(xs, C, w.xb);
      if (bwd) rows_load_16bit<ST>(dys, C, w.dyb);
      rows_pixel_any<N, RowsOut::store>(m, C, w.xb, bwd ? w.dyb : nullptr, w.res, k1, w);
      store_row<ST>(os, w.res, C, alpha, beta);
    }
  }

  void prefetch_pixel(int64_t xo, int64_t dyo) const {
    const int64_t esize = static_cast<int64_t>(sizeof(T)), bytes = s.channels * esize;
    const char *xp = x.data + xo * esize;
    for (int64_t b = 0; b < bytes; b += 64) _mm_prefetch(xp + b, _MM_HINT_T0);
    if (dy.data == nullptr) return;
    const char *dp = dy.data + dyo * esize;
    for (int64_t b = 0; b < bytes; b += 64) _mm_prefetch(dp + b, _MM_HINT_T0);
  }

  // Pixels [begin * group, end * group), the inputs prefetched about 2 KiB
  // (whole pixels, at least one) ahead. Pixels a fixed stride apart in every
  // operand (linear) step by that stride; others walk the outer dims.
  template <int N>
  FDNN_LRN_AVX512 void run(int64_t begin, int64_t end) const {
    RowsScratch w(s.channels, N);
    const RowsConst k = rows_const(m, alpha, beta), k1 = rows_const(m, 1.0f, 0.0f);
    const int64_t inputs = dy.data != nullptr ? 2 : 1;
    const int64_t ahead = std::clamp<int64_t>(2048 / (inputs * s.channels * static_cast<int64_t>(sizeof(T))), 1, 32);
    const int64_t first = begin * group, last = std::min(end * group, s.outer);
    if (linear) {
      for (int64_t q = first; q < std::min(last, first + ahead); ++q) prefetch_pixel(q * step[0], q * step[2]);
      for (int64_t q = first; q < last; ++q) {
        if (q + ahead < last) prefetch_pixel((q + ahead) * step[0], (q + ahead) * step[2]);
        pixel<N>(q * step[0], q * step[2], q * step[1], k, k1, w);
      }
    } else {
      const Arg args[3] = {x, out, dy};
      const int nargs = dy.data != nullptr ? 3 : 2;
      OuterWalker walk(s, xt, args, nargs, first), pre(s, xt, args, nargs, first);
      int64_t pre_at = first;
      for (; pre_at < std::min(last, first + ahead); ++pre_at, pre.next())
        prefetch_pixel(pre.offset(0), nargs == 3 ? pre.offset(2) : 0);
      for (int64_t q = first; q < last; ++q, walk.next()) {
        if (pre_at < last) {
          prefetch_pixel(pre.offset(0), nargs == 3 ? pre.offset(2) : 0);
          pre.next();
          ++pre_at;
        }
        pixel<N>(walk.offset(0), nargs == 3 ? walk.offset(2) : 0, walk.offset(1), k, k1, w);
      }
    }
    if (stream) _mm_sfence();
  }

  void run_items(int64_t begin, int64_t end) const {
    switch (m.n) {
#define FDNN_LRN_ROWS(NN) \
  case NN: run<NN>(begin, end); return;
      FDNN_LRN_ROWS(1) FDNN_LRN_ROWS(2) FDNN_LRN_ROWS(3) FDNN_LRN_ROWS(4) FDNN_LRN_ROWS(5) FDNN_LRN_ROWS(6)
      FDNN_LRN_ROWS(7) FDNN_LRN_ROWS(8) FDNN_LRN_ROWS(9) FDNN_LRN_ROWS(10) FDNN_LRN_ROWS(11) FDNN_LRN_ROWS(12)
      FDNN_LRN_ROWS(13) FDNN_LRN_ROWS(14) FDNN_LRN_ROWS(15) FDNN_LRN_ROWS(16)
#undef FDNN_LRN_ROWS
      default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.lrn: window width ", m.n, " outside 1..16");
    }
  }
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Outputs at least this large (bytes) that beta = 0 does not read are
// written with non-temporal stores: they would only evict the inputs.
constexpr int64_t kRowsStreamBytes = int64_t(8) << 20;

template <class ST>
bool run_rows_typed(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op, const VariantPack &pack) {
  const graph::Tensor &xt = g.tensor(op.x);
  const size_t es = sizeof(typename ST::type);
  const Operands o = operands_of(g, op, pack, es);
  if (o.shape.layout != Layout::channel_rows) return false;
  const Math m = make_math(op, xt.rank());
  if (m.n < 1 || m.n > 16) return false;
  const Shape &shape = o.shape;
  const Arg x = o.x, out = o.out, dy = o.dy;
  const int64_t C = shape.channels;
  const bool stream = kIsFloat<ST> && o.beta == 0.0f && C % 16 == 0 && streaming_stores_allowed() &&
                      shape.outer * C * static_cast<int64_t>(es) >= kRowsStreamBytes;
  // Items of about 16 KiB of x each.
  const int64_t group = std::max<int64_t>(1, 4096 / C);
  RowsRunner<ST> r{shape, xt, m, x, dy, out, kIsFloat<ST> && !o.alias, o.alpha, o.beta, stream, group, true, {0, 0, 0}};
  // Linear: the outer dims (extent 1 ignored) nest with no gaps in every operand.
  const Arg ops[3] = {x, out, dy};
  const int nops = op.backward ? 3 : 2;
  for (int j = 0; j < nops; ++j) {
    int64_t extent = 1;
    bool found = false;
    for (int i = static_cast<int>(shape.outer_dims.size()) - 1; i >= 0; --i) {
      const int d = shape.outer_dims[static_cast<size_t>(i)];
      if (xt.dims[d] == 1) continue;
      if (!found) {
        r.step[j] = ops[j].stride(d);
        found = true;
      } else if (ops[j].stride(d) != r.step[j] * extent) {
        r.linear = false;
      }
      extent *= xt.dims[d];
    }
  }
  run_items(ctx, r.items(), group * C, [&](int64_t b, int64_t e) { r.run_items(b, e); });
  return true;
}

// FREEDNN_CPU_LRN_ROWS_FORWARD=0 keeps the forward on the generic
// channel-rows path (for comparisons); read once.
inline bool rows_forward_switched_off() {
  static const bool off = [] {
    const char *v = std::getenv("FREEDNN_CPU_LRN_ROWS_FORWARD");
    return v != nullptr && v[0] == '0' && v[1] == '\0';
  }();
  return off;
}

// Runs cross-channel LRN (forward or backward) on the AVX-512 channel-rows
// path and returns true, or returns false when it does not apply.
inline bool run_rows_avx512(const ExecContext &ctx, const graph::Graph &g, const graph::LrnOp &op,
                            const VariantPack &pack) {
  if (op.kind != graph::LrnKind::cross_channel || !vm::has_avx512()) return false;
  if (!op.backward && rows_forward_switched_off()) return false;
  switch (g.tensor(op.x).dtype) {
    case CUDNN_DATA_FLOAT: return run_rows_typed<Storage<CUDNN_DATA_FLOAT>>(ctx, g, op, pack);
    case CUDNN_DATA_HALF: return run_rows_typed<Storage<CUDNN_DATA_HALF>>(ctx, g, op, pack);
    case CUDNN_DATA_BFLOAT16: return run_rows_typed<Storage<CUDNN_DATA_BFLOAT16>>(ctx, g, op, pack);
    default: return false;
  }
}

#undef FDNN_LRN_AVX512
#undef FDNN_LRN_AVX512_INLINE

}  // namespace fdnn::cpu::lrn_fast
