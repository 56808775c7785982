// The AVX-512 row kernel of cpu.pooling for forward pooling of float data
// with channels innermost in x and y (NHWC and the like), channels in 16s.
//
// One output row (n, channel block, od, oh) at a time: for each output
// column the window's cells are folded into up to four 16-lane
// accumulators (64 channels) that stay in registers for the whole window,
// then scaled once (alpha, times the average's divisor) and stored: plain,
// blended with beta y, or non-temporal (beta = 0 and a y far larger than
// the caches, 64-byte-aligned vectors) so that y costs no read of its old
// lines. The fold is a template parameter (sum; max as max(v, acc), which
// keeps acc when v is NaN, as FoldMax; max propagating the first NaN, as
// FoldMaxNan), so no loop tests the mode.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fdnn::cpu::pool_rows {

#define FDNN_POOL_FWD_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

enum class FwdFold { sum, max, max_nan };
enum class FwdOut { store, blend, stream };

// One output row. x: the block's first channel at input row 0 column 0 of
// this (n, od); rows [h0, h1) of every depth in [d0, d1) (stride xd) are the
// window's rows; w0[ow], w1[ow]: each output's input columns; the scale:
// (scale_dh * inv_w[ow]) * alpha (average), alpha (inv_w null, max). y: the
// row's first output.
template <FwdFold F, FwdOut M>
FDNN_POOL_FWD_AVX512 inline void nhwc_forward_row(const float *x, int64_t xd, int64_t xh, int64_t xw, int64_t d0,
                                                  int64_t d1, int64_t h0, int64_t h1, const int64_t *w0,
                                                  const int64_t *w1, float scale_dh, const float *inv_w, float alpha,
                                                  float *y, int64_t yw, int64_t OW, int64_t cb, float beta) {
  const __m512 init = F == FwdFold::sum ? _mm512_setzero_ps() : _mm512_set1_ps(std::numeric_limits<float>::lowest());
  const __m512 be = _mm512_set1_ps(beta);
  for (int64_t ow = 0; ow < OW; ++ow) {
    const __m512 sc = _mm512_set1_ps(inv_w ? (scale_dh * inv_w[ow]) * alpha : alpha);
    const int64_t a = w0[ow], b = w1[ow];
    float *q = y + ow * yw;
    for (int64_t c = 0; c < cb; c += 64) {
      const int nv = static_cast<int>(std::min<int64_t>(4, (cb - c) / 16));
      __m512 acc[4] = {init, init, init, init};
      for (int64_t id = d0; id < d1; ++id)
        for (int64_t ih = h0; ih < h1; ++ih) {
          const float *p = x + id * xd + ih * xh + a * xw + c;
          for (int64_t iw = a; iw < b; ++iw, p += xw) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
              if (j >= nv) break;
              const __m512 v = _mm512_loadu_ps(p + 16 * j);
              if constexpr (F == FwdFold::sum) {
                acc[j] = _mm512_add_ps(acc[j], v);
              } else if constexpr (F == FwdFold::max) {
                acc[j] = _mm512_max_ps(v, acc[j]);  // NaN in v: acc
              } else {
                // v where (v > acc or v is NaN) and acc is not NaN.
                const __mmask16 ord = _mm512_cmp_ps_mask(acc[j], acc[j], _CMP_ORD_Q);
                const __mmask16 take =
                    ord & (_mm512_cmp_ps_mask(v, acc[j], _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
                acc[j] = _mm512_mask_mov_ps(acc[j], take, v);
              }
            }
          }
        }
      for (int j = 0; j < nv; ++j) {
        float *o = q + c + 16 * j;
        const __m512 r = _mm512_mul_ps(acc[j], sc);
        if constexpr (M == FwdOut::blend) {
          _mm512_storeu_ps(o, _mm512_fmadd_ps(be, _mm512_loadu_ps(o), r));
        } else if constexpr (M == FwdOut::stream) {
          if ((reinterpret_cast<uintptr_t>(o) & 63) == 0) _mm512_stream_ps(o, r);
          else _mm512_storeu_ps(o, r);
        } else {
          _mm512_storeu_ps(o, r);
        }
      }
    }
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#undef FDNN_POOL_FWD_AVX512

}  // namespace fdnn::cpu::pool_rows
