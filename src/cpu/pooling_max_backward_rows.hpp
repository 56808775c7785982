// The AVX-512 path of cpu.pooling for max pooling backward of float data
// with channels innermost in x, dy and dx (NHWC), 2-d windows, channels in
// 16s.
//
// The generic lane path (backward_max_lanes in pooling.cpp) scatters dy
// into a gradient plane of a whole (image, channel block), which at 112x112
// pixels and 64 channels is 3 MiB, zeroed, read and written again through
// the scatter, then blended into dx: more traffic than the problem itself.
// Here dx is gathered, one row at a time, and written once:
//  - argmax_row: for output row oh, each window's first maximum as the
//    input cell number ih * W + iw per channel (int32 lanes; -1 when no
//    cell beats the lowest float, as the generic paths), 16 channels a
//    vector; the rows of the windows covering the current dx row are kept
//    in a ring of ceil(kh / sh) + 1 rows, each made once per thread range;
//  - dx_row: for each dx pixel, the <= ceil(kh/sh) x ceil(kw/sw) windows
//    covering it add their dy where their argmax is this cell (a compare
//    mask and a masked add per window), in window order (oh, ow) ascending
//    as the scatter of the generic path adds them; then alpha (and beta dx)
//    and one store per vector, non-temporal where the caller asks for it
//    (beta = 0, a large dx) and the vector is 64-byte aligned.
// Ties: the first maximum in window order (row-major), with propagation the
// first NaN (kept), exactly the rule of backward_max_lanes.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace fdnn::cpu::pool_rows {

#define FDNN_POOL_BWD_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// One (image, channel block) plane in 2-d: pointers at the block's first
// channel of pixel (0, 0), strides in elements.
struct MaxBwdPlane {
  int64_t H, W, OH, OW;          // input and output extents
  int64_t kh, kw, sh, sw, ph, pw;  // window, stride, padding
  int64_t cb;                     // channels in the block (a multiple of 16)
  int64_t xh, xw, gh, gw, dh, dw;  // strides of x, dy and dx (rows, columns)
};

// Outputs o along one dimension whose window [o s - p, o s - p + k) holds i:
// [lo, hi).
inline void covering_outputs(int64_t i, int64_t k, int64_t s, int64_t p, int64_t out, int64_t &lo, int64_t &hi) {
  const int64_t last = i + p, first = last - k + 1;  // window starts o * s in [first, last]
  lo = first <= 0 ? 0 : (first + s - 1) / s;
  hi = std::min(out, last / s + 1);
  if (hi < lo) hi = lo;
}

// at[ow * cb + c]: the first maximum's cell of window (oh, ow), channel c.
// kFull: the block is a multiple of 64 channels (four vectors every step).
template <bool kProp, bool kFull>
FDNN_POOL_BWD_AVX512 inline void argmax_row(const float *x, const MaxBwdPlane &P, int64_t oh, int32_t *at) {
  const __m512 lowest = _mm512_set1_ps(std::numeric_limits<float>::lowest());
  const __m512i none = _mm512_set1_epi32(-1);
  const int64_t hs = oh * P.sh - P.ph, h0 = std::max<int64_t>(hs, 0), h1 = std::min(hs + P.kh, P.H);
  for (int64_t ow = 0; ow < P.OW; ++ow) {
    const int64_t ws = ow * P.sw - P.pw, w0 = std::max<int64_t>(ws, 0), w1 = std::min(ws + P.kw, P.W);
    int32_t *a = at + ow * P.cb;
    for (int64_t c = 0; c < P.cb; c += 64) {
      // Up to four vectors of 16 channels at once (their x lines share the window walk).
      const int nv = kFull ? 4 : static_cast<int>(std::min<int64_t>(4, (P.cb - c) / 16));
      __m512 best[4] = {lowest, lowest, lowest, lowest};
      __m512i idx[4] = {none, none, none, none};
      for (int64_t ih = h0; ih < h1; ++ih)
        for (int64_t iw = w0; iw < w1; ++iw) {
          const float *p = x + ih * P.xh + iw * P.xw + c;
          const __m512i cell = _mm512_set1_epi32(static_cast<int32_t>(ih * P.W + iw));
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) {
            if (j >= nv) break;
            const __m512 v = _mm512_loadu_ps(p + 16 * j);
            __mmask16 take;
            if constexpr (kProp) {
              // The first NaN is kept; before it, the first maximum.
              const __mmask16 ord = _mm512_cmp_ps_mask(best[j], best[j], _CMP_ORD_Q);
              take = ord & (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v, best[j], _CMP_GT_OQ));
            } else {
              take = _mm512_cmp_ps_mask(v, best[j], _CMP_GT_OQ);
            }
            best[j] = _mm512_mask_mov_ps(best[j], take, v);
            idx[j] = _mm512_mask_mov_epi32(idx[j], take, cell);
          }
        }
      for (int j = 0; j < nv; ++j) _mm512_storeu_si512(a + c + 16 * j, idx[j]);
    }
  }
}

// How dx_row writes: plain stores, blended with beta dx, or non-temporal.
enum class BwdOut { store, blend, stream };

// dx row ih from the argmax rows ring[oh % R] of the windows covering it and
// dy. ow_lo / ow_hi: the covering output columns of each input column.
template <BwdOut M, bool kFull>
FDNN_POOL_BWD_AVX512 inline void dx_row(const float *dy, float *dx, const MaxBwdPlane &P, int64_t ih, int64_t oh_lo,
                                        int64_t oh_hi, const int32_t *const *ring, int64_t R, const int64_t *ow_lo,
                                        const int64_t *ow_hi, float alpha, float beta) {
  const __m512 al = _mm512_set1_ps(alpha), be = _mm512_set1_ps(beta), zero = _mm512_setzero_ps();
  for (int64_t iw = 0; iw < P.W; ++iw) {
    const __m512i cell = _mm512_set1_epi32(static_cast<int32_t>(ih * P.W + iw));
    float *q = dx + ih * P.dh + iw * P.dw;
    const int64_t w_lo = ow_lo[iw], w_hi = ow_hi[iw];
    for (int64_t c = 0; c < P.cb; c += 64) {
      const int nv = kFull ? 4 : static_cast<int>(std::min<int64_t>(4, (P.cb - c) / 16));
      __m512 acc[4] = {zero, zero, zero, zero};
      for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
        const int32_t *arow = ring[oh % R];
        const float *grow = dy + oh * P.gh;
        for (int64_t ow = w_lo; ow < w_hi; ++ow) {
          const int32_t *a = arow + ow * P.cb + c;
          const float *g = grow + ow * P.gw + c;
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) {
            if (j >= nv) break;
            const __mmask16 hit = _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a + 16 * j), cell);
            acc[j] = _mm512_mask_add_ps(acc[j], hit, acc[j], _mm512_loadu_ps(g + 16 * j));
          }
        }
      }
      for (int j = 0; j < nv; ++j) {
        float *o = q + c + 16 * j;
        const __m512 r = _mm512_mul_ps(al, acc[j]);
        if constexpr (M == BwdOut::blend) {
          _mm512_storeu_ps(o, _mm512_fmadd_ps(be, _mm512_loadu_ps(o), r));
        } else if constexpr (M == BwdOut::stream) {
          if ((reinterpret_cast<uintptr_t>(o) & 63) == 0) _mm512_stream_ps(o, r);
          else _mm512_storeu_ps(o, r);
        } else {
          _mm512_storeu_ps(o, r);
        }
      }
    }
  }
}

// Per-thread state: the ring of argmax rows and the column ranges.
struct MaxBwdScratch {
  int64_t R = 0;
  std::vector<int32_t> rows;
  std::vector<int32_t *> ring;
  std::vector<int64_t> ow_lo, ow_hi;
  explicit MaxBwdScratch(const MaxBwdPlane &P) {
    R = (P.kh + P.sh - 1) / P.sh + 1;
    rows.resize(static_cast<size_t>(R * P.OW * P.cb));
    ring.resize(static_cast<size_t>(R));
    for (int64_t r = 0; r < R; ++r) ring[static_cast<size_t>(r)] = rows.data() + r * P.OW * P.cb;
    ow_lo.resize(static_cast<size_t>(P.W));
    ow_hi.resize(static_cast<size_t>(P.W));
    for (int64_t iw = 0; iw < P.W; ++iw)
      covering_outputs(iw, P.kw, P.sw, P.pw, P.OW, ow_lo[static_cast<size_t>(iw)], ow_hi[static_cast<size_t>(iw)]);
  }
};

// dx rows [ih0, ih1) of one plane. `made` (from the previous call on the
// same plane, else 0 with made_hi 0): the argmax rows [made_lo, made_hi) in
// the ring; updated.
template <bool kProp, bool kFull>
FDNN_POOL_BWD_AVX512 inline void max_backward_rows_t(const float *x, const float *dy, float *dx, const MaxBwdPlane &P,
                                                     int64_t ih0, int64_t ih1, MaxBwdScratch &S, int64_t &made_lo,
                                                     int64_t &made_hi, float alpha, float beta, bool stream) {
  for (int64_t ih = ih0; ih < ih1; ++ih) {
    int64_t lo, hi;
    covering_outputs(ih, P.kh, P.sh, P.ph, P.OH, lo, hi);
    if (lo >= made_hi || lo < made_lo) made_lo = made_hi = lo;  // nothing reusable
    for (int64_t oh = made_hi; oh < hi; ++oh)
      argmax_row<kProp, kFull>(x, P, oh, S.ring[static_cast<size_t>(oh % S.R)]);
    made_hi = std::max(made_hi, hi);
    made_lo = std::max(made_lo, made_hi - S.R);
    const int32_t *const *ring = S.ring.data();
    if (beta != 0.0f)
      dx_row<BwdOut::blend, kFull>(dy, dx, P, ih, lo, hi, ring, S.R, S.ow_lo.data(), S.ow_hi.data(), alpha, beta);
    else if (stream)
      dx_row<BwdOut::stream, kFull>(dy, dx, P, ih, lo, hi, ring, S.R, S.ow_lo.data(), S.ow_hi.data(), alpha, beta);
    else
      dx_row<BwdOut::store, kFull>(dy, dx, P, ih, lo, hi, ring, S.R, S.ow_lo.data(), S.ow_hi.data(), alpha, beta);
  }
}

template <bool kProp>
inline void max_backward_rows(const float *x, const float *dy, float *dx, const MaxBwdPlane &P, int64_t ih0,
                              int64_t ih1, MaxBwdScratch &S, int64_t &made_lo, int64_t &made_hi, float alpha,
                              float beta, bool stream) {
  if (P.cb % 64 == 0)
    max_backward_rows_t<kProp, true>(x, dy, dx, P, ih0, ih1, S, made_lo, made_hi, alpha, beta, stream);
  else
    max_backward_rows_t<kProp, false>(x, dy, dx, P, ih0, ih1, S, made_lo, made_hi, alpha, beta, stream);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#undef FDNN_POOL_BWD_AVX512

}  // namespace fdnn::cpu::pool_rows
