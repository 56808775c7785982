// The AVX-512 row kernel of cpu.pooling for max pooling forward of float
// data with columns contiguous in x and y (NCHW and the like), window width
// 2 or 3 and column stride 2 (the 2x2/2 and 3x3/2 poolings of most CNNs),
// NaNs not propagated.
//
// forward_line (pooling.cpp) folds the window's input rows into a line in
// memory, splits it into even and odd columns and folds those: four passes
// through memory per output row. Here 16 outputs at a time are made in
// registers: output ow reads columns 2 ow - pad + kw, so for outputs
// 16 j .. 16 j + 15 the columns base .. base + 32 (base = 32 j - pad) are
// loaded from every window row and folded (two vectors and one lane), the
// two vectors are split into even and odd columns with two permutes, and
// max(even, odd[, even moved by one]) is the row of outputs. Columns
// outside the input load as the fold's initial value (masked loads), so
// padding needs no special case.
//
// The fold is max(v, acc) with acc starting at the lowest float: a NaN in
// x never enters acc, whatever the order, as in FoldMax (no propagation).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fdnn::cpu::pool_rows {

#define FDNN_POOL_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

// GCC 12 warns about the unset first operand inside its own masked-max
// intrinsics (a false positive, as in lrn_cross_fast.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// Lanes l of a 16-lane vector whose column first + l lies in [0, width).
FDNN_POOL_AVX512 inline __mmask16 column_mask(int64_t first, int64_t width) {
  const int64_t lo = std::max<int64_t>(0, -first), hi = std::min<int64_t>(16, width - first);
  if (hi <= lo) return 0;
  const uint32_t below_hi = hi >= 16 ? 0xFFFFu : ((1u << hi) - 1u);
  const uint32_t below_lo = (1u << lo) - 1u;
  return static_cast<__mmask16>(below_hi & ~below_lo);
}

// One row of `out_w` outputs: rows[0 .. nrows) are the window's input rows
// (each `width` floats), `pad` the left padding, `win` 2 or 3, stride 2.
// y = alpha * max (+ beta * y where beta != 0).
FDNN_POOL_AVX512 inline void max_row_stride2(const float *const *rows, int nrows, int64_t width, int64_t pad, int win,
                                             float *y, int64_t out_w, float alpha, float beta) {
  const __m512 lowest = _mm512_set1_ps(std::numeric_limits<float>::lowest());
  const __m512i even_idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd_idx = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 al = _mm512_set1_ps(alpha), be = _mm512_set1_ps(beta);
  for (int64_t o = 0; o < out_w; o += 16) {
    const int64_t base = 2 * o - pad;
    const __mmask16 ma = column_mask(base, width), mb = column_mask(base + 16, width);
    const __mmask16 mc = win == 3 ? static_cast<__mmask16>(column_mask(base + 32, width) & 1u) : 0;
    __m512 a = lowest, b = lowest, c = lowest;
    for (int r = 0; r < nrows; ++r) {
      const float *p = rows[r] + base;
      a = _mm512_max_ps(_mm512_mask_loadu_ps(lowest, ma, p), a);
      b = _mm512_max_ps(_mm512_mask_loadu_ps(lowest, mb, p + 16), b);
      if (win == 3) c = _mm512_max_ps(_mm512_mask_loadu_ps(lowest, mc, p + 32), c);
    }
    const __m512 even = _mm512_permutex2var_ps(a, even_idx, b), odd = _mm512_permutex2var_ps(a, odd_idx, b);
    __m512 res = _mm512_max_ps(even, odd);
    if (win == 3) {
      // Column base + 2 k + 2: even moved down one lane, c's first lane last.
      const __m512 next = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(c), _mm512_castps_si512(even), 1));
      res = _mm512_max_ps(res, next);
    }
    const int64_t left = out_w - o;
    const __mmask16 mo = left >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
    res = _mm512_mul_ps(al, res);
    if (beta != 0.0f) res = _mm512_fmadd_ps(be, _mm512_maskz_loadu_ps(mo, y + o), res);
    _mm512_mask_storeu_ps(y + o, mo, res);
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#undef FDNN_POOL_AVX512

}  // namespace fdnn::cpu::pool_rows
