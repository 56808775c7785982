// The AVX-512 path of cpu.pooling for average pooling backward of float data
// whose columns are contiguous in dy and dx (NCHW, NCDHW), with a stride of
// 1 or 2 along the columns.
//
// The generic gather (backward_line_avg in pooling.cpp) builds each dx row
// through a padded line and separate even / odd arrays, loops that GCC
// vectorizes only in part (the final interleave of the two halves stays
// scalar), and ran compute-bound: 32x64x112x112 3x3/2 on 2 threads 10-14
// ms against oneDNN's 7 ms, where the bytes (dy once, dx once) take about
// 3 ms. Here one dx row is:
//  - t[ow] = (sum over the dy rows whose windows hold this row of f_r *
//    dy_r[ow]) * inv_w[ow], 16 columns a vector, into a buffer with zeros
//    on both sides (t of a window that does not exist is 0);
//  - stride 1: dx[iw] = sum over kw of t[iw + pad - kw];
//    stride 2: the even columns 2m and the odd ones 2m + 1 are each a sum of
//    shifted runs of t (the window columns kw of matching parity), two
//    vectors of 16 then interleaved into 32 columns of dx by two permutes;
//  - alpha (and beta dx), one store per 16 columns, non-temporal where the
//    caller asks for it (beta = 0, a large dx) and the vector is 64-byte
//    aligned.
// Sums run in the order of the generic path (dy rows as listed, then window
// columns in ascending kw), so results differ from it only by the fused
// multiply-add of the first step.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace fdnn::cpu::pool_rows {

#define FDNN_POOL_AVG_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The column geometry of one dx row.
struct AvgBwdColumns {
  int64_t W = 0, OW = 0;             // input and output columns
  int64_t win = 1, stride = 1, pad = 0;
};

// Floats of zeros kept before t in the row buffer: the furthest a window
// column reads to the left of column 0 is (win - 1) / stride; a whole
// number of vectors, so that t's stores are aligned in a 64-byte aligned
// buffer (LineVector).
inline int64_t avg_row_lead(const AvgBwdColumns &c) { return (c.win + 15) / 16 * 16 + 16; }
// Floats of the row buffer: the lead, t, and zeros to the right for the
// vectors that run past the last window (at most W / 2 + 32 + pad).
inline int64_t avg_row_buffer(const AvgBwdColumns &c) {
  return avg_row_lead(c) + (c.OW > c.W ? c.OW : c.W) + c.W + c.pad + c.win + 64;
}

enum class AvgOut { store, blend, stream };

template <AvgOut M>
FDNN_POOL_AVG_AVX512 inline void avg_put(float *q, __m512 v, __mmask16 m, __m512 alpha, __m512 beta) {
  __m512 r = _mm512_mul_ps(alpha, v);
  if constexpr (M == AvgOut::blend) r = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(m, q), r);
  if constexpr (M == AvgOut::stream) {
    if (m == 0xFFFF && (reinterpret_cast<uintptr_t>(q) & 63) == 0) {
      _mm512_stream_ps(q, r);
      return;
    }
  }
  _mm512_mask_storeu_ps(q, m, r);
}

inline __mmask16 avg_mask(int64_t left) { return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u); }

// One dx row: g[r] (r < rows) are the dy rows whose windows hold it, each
// weighted by f[r] (its depth and height divisors); inv_w the width
// divisors; buf a row buffer of avg_row_buffer(c) floats whose entries
// outside [lead, lead + OW) are zero (this function writes only those).
template <AvgOut M>
FDNN_POOL_AVG_AVX512 void avg_backward_row(const AvgBwdColumns &c, const float *const *g, const float *f, int rows,
                                           const float *inv_w, float *buf, float *dx, float alpha_s, float beta_s) {
  float *t = buf + avg_row_lead(c);
  for (int64_t o = 0; o < c.OW; o += 16) {
    const __mmask16 m = avg_mask(c.OW - o);
    __m512 acc = _mm512_setzero_ps();
    for (int r = 0; r < rows; ++r) acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, g[r] + o), _mm512_set1_ps(f[r]), acc);
    _mm512_mask_storeu_ps(t + o, m, _mm512_mul_ps(acc, _mm512_maskz_loadu_ps(m, inv_w + o)));
  }
  const __m512 alpha = _mm512_set1_ps(alpha_s), beta = _mm512_set1_ps(beta_s);
  if (c.stride == 1) {
    for (int64_t i = 0; i < c.W; i += 16) {
      __m512 v = _mm512_setzero_ps();
      for (int64_t kw = 0; kw < c.win; ++kw) v = _mm512_add_ps(v, _mm512_loadu_ps(t + i + c.pad - kw));
      avg_put<M>(dx + i, v, avg_mask(c.W - i), alpha, beta);
    }
    return;
  }
  // Stride 2: column 2m of dx collects the window columns kw of the parity
  // of pad, from t[m + (pad - kw) / 2]; column 2m + 1 the others, from
  // t[m + (pad + 1 - kw) / 2] (both numerators even, so the halves are exact).
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  for (int64_t i = 0; i < c.W; i += 32) {
    const float *tm = t + i / 2;
    __m512 even = _mm512_setzero_ps(), odd = _mm512_setzero_ps();
    for (int64_t kw = 0; kw < c.win; ++kw) {
      if (((kw ^ c.pad) & 1) == 0) even = _mm512_add_ps(even, _mm512_loadu_ps(tm + (c.pad - kw) / 2));
      else odd = _mm512_add_ps(odd, _mm512_loadu_ps(tm + (c.pad + 1 - kw) / 2));
    }
    avg_put<M>(dx + i, _mm512_permutex2var_ps(even, lo, odd), avg_mask(c.W - i), alpha, beta);
    if (i + 16 < c.W)
      avg_put<M>(dx + i + 16, _mm512_permutex2var_ps(even, hi, odd), avg_mask(c.W - i - 16), alpha, beta);
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace fdnn::cpu::pool_rows
