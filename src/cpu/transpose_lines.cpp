#include "cpu/transpose_lines.hpp"

#include <cstdlib>
#include <cstring>

#include "core/env_words.hpp"
#include "cpu/cpu_features.hpp"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start some shuffles from a deliberately
// undefined register (_mm512_undefined_*), which -Wuninitialized reports
// at every use: a false positive of the header, silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define FDNN_LINE_TRANSPOSE_X86 1
#define FDNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma")))
#endif

namespace fdnn::cpu {

#if defined(FDNN_LINE_TRANSPOSE_X86)
namespace {

// Bytes ahead of the current block that each of its B source rows is
// prefetched, into L2 (prefetcht1): the rows of one block lie far apart
// (one per channel, or per pixel), more streams than the hardware
// prefetchers keep track of; the more rows a block reads, the worse (NCHW
// -> NHWC 64 x C x 56 x 56, 2 threads, paired with a streaming copy, four
// lines ahead into L1: f64 0.87-0.91, f32 0.84-0.91, f16 0.59-0.60, int8
// 0.51-0.52). Into L2 instead, alternating processes, two rounds: f16 512
// bytes ahead 0.82-0.85 (256: 0.78-0.85, 1024: 0.77-0.82, prefetcht2:
// 0.80-0.83), int8 256 bytes 0.68-0.70 (512: 0.48-0.66), f32 / f64 and NHWC
// -> NCHW unchanged within the rounds' spread.
constexpr int64_t prefetch_bytes(int element_bytes) { return element_bytes == 1 ? 256 : 512; }

// Streamed narrow column ranges (at most kNarrowBytes of each source row, as
// in the long-run items of NHWC -> NCHW, see pointwise_strided.cpp) are
// walked down the rows (transpose_narrow_pairs): the source lines
// kPrefetchRows rows ahead are requested while this band is transposed, one
// or two lines per row, 1 KB or more apart, which the hardware prefetchers
// do not follow (32, 64 or 128 rows ahead measured alike; without it the
// stand-alone loop ran at 0.75x).
constexpr int64_t kNarrowBytes = 128;
constexpr int64_t kPrefetchRows = 64;

template <bool kStream>
FDNN_AVX512 inline void store_line(char *d, __m512i v) {
  if constexpr (kStream) _mm512_stream_si512(reinterpret_cast<__m512i *>(d), v);
  else _mm512_storeu_si512(d, v);
}

// 16 x 16 of 32-bit elements: rows s + k * sr (k < 16) become the lines
// d + j * dr (j < 16). Strides in bytes.
template <bool kStream>
FDNN_AVX512 inline void block_32(const char *s, int64_t sr, char *d, int64_t dr) {
  __m512 r[16], t[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(s + k * sr);
  // Pairs of rows interleaved, then pairs of pairs: r[4k + j] holds, in each
  // 128-bit lane L, column 4L + j of rows 4k .. 4k + 3.
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    const __m512 a = t[4 * k], b = t[4 * k + 1], c = t[4 * k + 2], e = t[4 * k + 3];
    r[4 * k] = _mm512_shuffle_ps(a, c, _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * k + 1] = _mm512_shuffle_ps(a, c, _MM_SHUFFLE(3, 2, 3, 2));
    r[4 * k + 2] = _mm512_shuffle_ps(b, e, _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * k + 3] = _mm512_shuffle_ps(b, e, _MM_SHUFFLE(3, 2, 3, 2));
  }
  // Gather the 128-bit lanes: even lanes then odd lanes, twice.
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 4; ++j) {
      const __m512 a = r[8 * k + j], b = r[8 * k + 4 + j];
      t[8 * k + j] = _mm512_shuffle_f32x4(a, b, 0x88);
      t[8 * k + 4 + j] = _mm512_shuffle_f32x4(a, b, 0xDD);
    }
  for (int j = 0; j < 4; ++j) {
    const __m512 a = t[j], b = t[8 + j], c = t[4 + j], e = t[12 + j];
    store_line<kStream>(d + j * dr, _mm512_castps_si512(_mm512_shuffle_f32x4(a, b, 0x88)));
    store_line<kStream>(d + (4 + j) * dr, _mm512_castps_si512(_mm512_shuffle_f32x4(c, e, 0x88)));
    store_line<kStream>(d + (8 + j) * dr, _mm512_castps_si512(_mm512_shuffle_f32x4(a, b, 0xDD)));
    store_line<kStream>(d + (12 + j) * dr, _mm512_castps_si512(_mm512_shuffle_f32x4(c, e, 0xDD)));
  }
}

// 8 x 8 of 64-bit elements.
template <bool kStream>
FDNN_AVX512 inline void block_64(const char *s, int64_t sr, char *d, int64_t dr) {
  __m512d r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(s + k * sr);
  // t[2k + h], lane L: elements 2L + h of rows 2k and 2k + 1.
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
  }
  for (int h = 0; h < 2; ++h) {
    const __m512d u0 = _mm512_shuffle_f64x2(t[h], t[2 + h], 0x88), u1 = _mm512_shuffle_f64x2(t[h], t[2 + h], 0xDD);
    const __m512d v0 = _mm512_shuffle_f64x2(t[4 + h], t[6 + h], 0x88),
                  v1 = _mm512_shuffle_f64x2(t[4 + h], t[6 + h], 0xDD);
    store_line<kStream>(d + (0 + h) * dr, _mm512_castpd_si512(_mm512_shuffle_f64x2(u0, v0, 0x88)));
    store_line<kStream>(d + (4 + h) * dr, _mm512_castpd_si512(_mm512_shuffle_f64x2(u0, v0, 0xDD)));
    store_line<kStream>(d + (2 + h) * dr, _mm512_castpd_si512(_mm512_shuffle_f64x2(u1, v1, 0x88)));
    store_line<kStream>(d + (6 + h) * dr, _mm512_castpd_si512(_mm512_shuffle_f64x2(u1, v1, 0xDD)));
  }
}

// 16 x 16 of 16-bit elements in 256-bit registers: rows s + k * sr become
// out[j] (column j of the 16 rows).
FDNN_AVX512 inline void block16_16(const char *s, int64_t sr, __m256i out[16]) {
  __m256i c[2][8];
  for (int h = 0; h < 2; ++h) {  // rows 0-7, then rows 8-15: 8x8 within each 128-bit lane
    __m256i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + (8 * h + k) * sr));
    const __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]), a1 = _mm256_unpackhi_epi16(r[0], r[1]);
    const __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]), a3 = _mm256_unpackhi_epi16(r[2], r[3]);
    const __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]), a5 = _mm256_unpackhi_epi16(r[4], r[5]);
    const __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]), a7 = _mm256_unpackhi_epi16(r[6], r[7]);
    const __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
    const __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
    const __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
    const __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
    // c[h][k], lane L: column 8L + k of rows 8h .. 8h + 7.
    c[h][0] = _mm256_unpacklo_epi64(b0, b4), c[h][1] = _mm256_unpackhi_epi64(b0, b4);
    c[h][2] = _mm256_unpacklo_epi64(b1, b5), c[h][3] = _mm256_unpackhi_epi64(b1, b5);
    c[h][4] = _mm256_unpacklo_epi64(b2, b6), c[h][5] = _mm256_unpackhi_epi64(b2, b6);
    c[h][6] = _mm256_unpacklo_epi64(b3, b7), c[h][7] = _mm256_unpackhi_epi64(b3, b7);
  }
  for (int k = 0; k < 8; ++k) {
    out[k] = _mm256_permute2x128_si256(c[0][k], c[1][k], 0x20);
    out[8 + k] = _mm256_permute2x128_si256(c[0][k], c[1][k], 0x31);
  }
}

// 32 x 32 of 16-bit elements in 512-bit registers: within each 128-bit lane
// the rows of each group of 8 are transposed (unpacks of 16-, 32-, 64-bit
// pieces), then the lanes of the four groups are exchanged (a 4 x 4 lane
// transpose). 160 shuffles and 32 loads per block against 288 shuffles and
// 64 loads for the four 16 x 16 quarters below (block_16_quarters). f16
// 64x256x56x56 NHWC -> NCHW, 2 threads, bench processes alternating with the
// quarters: 0.57 / 0.54 of a paired streaming copy against 0.47 / 0.52.
template <bool kStream>
FDNN_AVX512 inline void block_16(const char *s, int64_t sr, char *d, int64_t dr) {
  __m512i c[4][8];
  for (int g = 0; g < 4; ++g) {  // rows 8g .. 8g + 7
    __m512i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_si512(s + (8 * g + k) * sr);
    const __m512i a0 = _mm512_unpacklo_epi16(r[0], r[1]), a1 = _mm512_unpackhi_epi16(r[0], r[1]);
    const __m512i a2 = _mm512_unpacklo_epi16(r[2], r[3]), a3 = _mm512_unpackhi_epi16(r[2], r[3]);
    const __m512i a4 = _mm512_unpacklo_epi16(r[4], r[5]), a5 = _mm512_unpackhi_epi16(r[4], r[5]);
    const __m512i a6 = _mm512_unpacklo_epi16(r[6], r[7]), a7 = _mm512_unpackhi_epi16(r[6], r[7]);
    const __m512i b0 = _mm512_unpacklo_epi32(a0, a2), b1 = _mm512_unpackhi_epi32(a0, a2);
    const __m512i b2 = _mm512_unpacklo_epi32(a1, a3), b3 = _mm512_unpackhi_epi32(a1, a3);
    const __m512i b4 = _mm512_unpacklo_epi32(a4, a6), b5 = _mm512_unpackhi_epi32(a4, a6);
    const __m512i b6 = _mm512_unpacklo_epi32(a5, a7), b7 = _mm512_unpackhi_epi32(a5, a7);
    // c[g][k], lane L: column 8L + k of rows 8g .. 8g + 7.
    c[g][0] = _mm512_unpacklo_epi64(b0, b4), c[g][1] = _mm512_unpackhi_epi64(b0, b4);
    c[g][2] = _mm512_unpacklo_epi64(b1, b5), c[g][3] = _mm512_unpackhi_epi64(b1, b5);
    c[g][4] = _mm512_unpacklo_epi64(b2, b6), c[g][5] = _mm512_unpackhi_epi64(b2, b6);
    c[g][6] = _mm512_unpacklo_epi64(b3, b7), c[g][7] = _mm512_unpackhi_epi64(b3, b7);
  }
  // Line 8L + k = lane L of c[0][k], c[1][k], c[2][k], c[3][k].
  for (int k = 0; k < 8; ++k) {
    const __m512i t0 = _mm512_shuffle_i64x2(c[0][k], c[1][k], 0x88), t1 = _mm512_shuffle_i64x2(c[0][k], c[1][k], 0xDD);
    const __m512i t2 = _mm512_shuffle_i64x2(c[2][k], c[3][k], 0x88), t3 = _mm512_shuffle_i64x2(c[2][k], c[3][k], 0xDD);
    store_line<kStream>(d + k * dr, _mm512_shuffle_i64x2(t0, t2, 0x88));
    store_line<kStream>(d + (16 + k) * dr, _mm512_shuffle_i64x2(t0, t2, 0xDD));
    store_line<kStream>(d + (8 + k) * dr, _mm512_shuffle_i64x2(t1, t3, 0x88));
    store_line<kStream>(d + (24 + k) * dr, _mm512_shuffle_i64x2(t1, t3, 0xDD));
  }
}

// The same from four 16 x 16 quarters in 256-bit registers, whose half lines
// are joined into whole lines before the store (FREEDNN_CPU_LINE_ITEMS=q16,
// to compare).
template <bool kStream>
FDNN_AVX512 inline void block_16_quarters(const char *s, int64_t sr, char *d, int64_t dr) {
  for (int cq = 0; cq < 2; ++cq) {  // source columns 16 cq .. 16 cq + 15 = destination lines
    __m256i lo[16], hi[16];
    block16_16(s + cq * 32, sr, lo);            // source rows 0-15
    block16_16(s + 16 * sr + cq * 32, sr, hi);  // source rows 16-31
    for (int j = 0; j < 16; ++j)
      store_line<kStream>(d + (16 * cq + j) * dr, _mm512_inserti64x4(_mm512_castsi256_si512(lo[j]), hi[j], 1));
  }
}

// 16 x 16 bytes: four rounds of interleaving row i with row i + 8 turn the
// rows into the columns (out[j] = column j).
FDNN_AVX512 inline void block16_8(const char *s, int64_t sr, __m128i out[16]) {
  __m128i a[16], b[16];
  for (int k = 0; k < 16; ++k) a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + k * sr));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 8; ++i) {
      b[2 * i] = _mm_unpacklo_epi8(a[i], a[i + 8]);
      b[2 * i + 1] = _mm_unpackhi_epi8(a[i], a[i + 8]);
    }
    for (int i = 0; i < 8; ++i) {
      a[2 * i] = _mm_unpacklo_epi8(b[i], b[i + 8]);
      a[2 * i + 1] = _mm_unpackhi_epi8(b[i], b[i + 8]);
    }
  }
  for (int k = 0; k < 16; ++k) out[k] = a[k];
}

// 64 x 64 bytes: sixteen 16 x 16 pieces, joined through a 1 KiB buffer into
// whole lines.
template <bool kStream>
FDNN_AVX512 inline void block_8(const char *s, int64_t sr, char *d, int64_t dr) {
  alignas(64) char lines[16][64];
  for (int cq = 0; cq < 4; ++cq) {  // source columns 16 cq .. 16 cq + 15 = destination lines
    for (int rq = 0; rq < 4; ++rq) {
      __m128i col[16];
      block16_8(s + 16 * rq * sr + 16 * cq, sr, col);
      for (int j = 0; j < 16; ++j) _mm_store_si128(reinterpret_cast<__m128i *>(&lines[j][16 * rq]), col[j]);
    }
    for (int j = 0; j < 16; ++j)
      store_line<kStream>(d + (16 * cq + j) * dr, _mm512_load_si512(reinterpret_cast<const void *>(lines[j])));
  }
}

template <class E>
void columns_scalar(const char *src, int64_t src_row, int64_t n0, int64_t from1, int64_t n1, char *dst,
                    int64_t dst_row) {
  for (int64_t i1 = from1; i1 < n1; ++i1)
    for (int64_t i0 = 0; i0 < n0; ++i0) {
      E v;
      std::memcpy(&v, src + (i0 * src_row + i1) * static_cast<int64_t>(sizeof(E)), sizeof(E));
      std::memcpy(dst + (i1 * dst_row + i0) * static_cast<int64_t>(sizeof(E)), &v, sizeof(E));
    }
}

// FREEDNN_CPU_LINE_ITEMS=q16: 16-bit blocks from 256-bit quarters (the
// earlier kernel, to compare).
bool quarters_16() {
  static const bool on = env_has_word("FREEDNN_CPU_LINE_ITEMS", "q16");
  return on;
}

template <int kES, bool kStream>
FDNN_AVX512 inline void one_block(const char *s, int64_t sr, char *d, int64_t dr) {
  if constexpr (kES == 4) block_32<kStream>(s, sr, d, dr);
  else if constexpr (kES == 8) block_64<kStream>(s, sr, d, dr);
  else if constexpr (kES == 2) {
    if (quarters_16()) block_16_quarters<kStream>(s, sr, d, dr);
    else block_16<kStream>(s, sr, d, dr);
  } else block_8<kStream>(s, sr, d, dr);
}

// Narrow column ranges with streaming stores: two bands of B rows at a time,
// each block of both transposed into an L1 buffer, then each destination
// row gets its two lines back to back. Streaming stores of single lines
// spread over many far-apart rows reach about 0.55 of the bandwidth of
// sequential ones on this machine (2 threads, 205 MB), two adjacent lines
// per row as much as sequential ones: 64x256x56x56 f32 NHWC -> NCHW in a
// stand-alone loop, items of 32 channels by 1568 pixels, 1.10x the single
// lines' speed.
template <int kES>
FDNN_AVX512 void transpose_narrow_pairs(const char *src, int64_t sr, int64_t n0, int64_t f1, char *dst, int64_t dr) {
  constexpr int64_t B = 64 / kES;
  alignas(64) char lines[2][B][64];
  const int64_t ahead = (kPrefetchRows + 2 * B - 1) / (2 * B) * (2 * B);  // rows, whole pairs of bands
  int64_t i0 = 0;
  for (; i0 + 2 * B <= n0; i0 += 2 * B) {
    const char *s = src + i0 * sr;
    char *d = dst + i0 * kES;
    if (i0 + ahead + 2 * B <= n0)
      for (int k = 0; k < 2 * B; ++k)
        for (int64_t b = 0; b < f1 * kES; b += 64) _mm_prefetch(s + (ahead + k) * sr + b, _MM_HINT_T0);
    for (int64_t i1 = 0; i1 < f1; i1 += B) {
      one_block<kES, false>(s + i1 * kES, sr, lines[0][0], 64);
      one_block<kES, false>(s + B * sr + i1 * kES, sr, lines[1][0], 64);
      char *db = d + i1 * dr;
      for (int64_t j = 0; j < B; ++j) {
        store_line<true>(db + j * dr, _mm512_load_si512(lines[0][j]));
        store_line<true>(db + j * dr + 64, _mm512_load_si512(lines[1][j]));
      }
    }
  }
  for (; i0 < n0; i0 += B)  // an odd last band
    for (int64_t i1 = 0; i1 < f1; i1 += B) one_block<kES, true>(src + i0 * sr + i1 * kES, sr, dst + i0 * kES + i1 * dr, dr);
}

// Blocks of B source rows, each band of B rows walked along the rows:
// source lines are read in order (and prefetched ahead), each block writes B
// destination lines. (Walking down the bands of each block column instead,
// so that destination rows get several consecutive lines at once, measured
// the same on NHWC -> NCHW 64x256x56x56 here.)
template <int kES, bool kStream>
FDNN_AVX512 void transpose_blocks(const char *src, int64_t src_row, int64_t n0, int64_t n1, char *dst,
                                  int64_t dst_row) {
  constexpr int64_t B = 64 / kES;
  const int64_t sr = src_row * kES, dr = dst_row * kES;
  const int64_t f1 = n1 / B * B;
  const bool pairs = kStream && f1 * kES <= kNarrowBytes;
  if (pairs) transpose_narrow_pairs<kES>(src, sr, n0, f1, dst, dr);
  for (int64_t i0 = 0; i0 < n0 && !pairs; i0 += B) {
    const char *s = src + i0 * sr;
    char *d = dst + i0 * kES;
    for (int64_t i1 = 0; i1 < f1; i1 += B) {
      const char *sb = s + i1 * kES;
      if (i1 * kES + prefetch_bytes(kES) < f1 * kES)
        for (int k = 0; k < B; ++k) _mm_prefetch(sb + k * sr + prefetch_bytes(kES), _MM_HINT_T1);
      one_block<kES, kStream>(sb, sr, d + i1 * dr, dr);
    }
  }
  if (f1 < n1) {
    if constexpr (kES == 4) columns_scalar<uint32_t>(src, src_row, n0, f1, n1, dst, dst_row);
    else if constexpr (kES == 8) columns_scalar<uint64_t>(src, src_row, n0, f1, n1, dst, dst_row);
    else if constexpr (kES == 2) columns_scalar<uint16_t>(src, src_row, n0, f1, n1, dst, dst_row);
    else columns_scalar<uint8_t>(src, src_row, n0, f1, n1, dst, dst_row);
  }
}

// line_transpose_staged's kernel: each column group of 16, its n0 / 16
// blocks into an L1 buffer, then the group's n0 x 16 floats out as one
// contiguous run of whole lines.
FDNN_AVX512 void transpose_staged(const float *src, int64_t src_row, int64_t n0, int64_t n1, float *dst) {
  constexpr int64_t kMaxRows = 128;
  alignas(64) float buf[16 * kMaxRows];
  const int64_t sr = src_row * 4, f1 = n1 / 16 * 16;
  for (int64_t c = 0; c < f1; c += 16) {
    for (int64_t i0 = 0; i0 < n0; i0 += 16)
      block_32<false>(reinterpret_cast<const char *>(src + i0 * src_row + c), sr, reinterpret_cast<char *>(buf + i0),
                      n0 * 4);
    std::memcpy(dst + c * n0, buf, static_cast<size_t>(16 * n0) * 4);
  }
  for (int64_t c = f1; c < n1; ++c)
    for (int64_t i = 0; i < n0; ++i) dst[c * n0 + i] = src[i * src_row + c];
}

}  // namespace

void line_transpose_staged(const float *src, int64_t src_row, int64_t n0, int64_t n1, float *dst) {
  transpose_staged(src, src_row, n0, n1, dst);
}

bool line_transpose_staged_available(int64_t n0) { return avx512_usable() && n0 % 16 == 0 && n0 <= 128; }

bool line_transpose_available(size_t elem_size) {
  return (elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8) && avx512_usable();
}

void line_transpose(size_t elem_size, const char *src, int64_t src_row, int64_t n0, int64_t n1, char *dst,
                    int64_t dst_row, bool streaming) {
  switch (elem_size) {
    case 1:
      streaming ? transpose_blocks<1, true>(src, src_row, n0, n1, dst, dst_row)
                : transpose_blocks<1, false>(src, src_row, n0, n1, dst, dst_row);
      break;
    case 2:
      streaming ? transpose_blocks<2, true>(src, src_row, n0, n1, dst, dst_row)
                : transpose_blocks<2, false>(src, src_row, n0, n1, dst, dst_row);
      break;
    case 4:
      streaming ? transpose_blocks<4, true>(src, src_row, n0, n1, dst, dst_row)
                : transpose_blocks<4, false>(src, src_row, n0, n1, dst, dst_row);
      break;
    default:
      streaming ? transpose_blocks<8, true>(src, src_row, n0, n1, dst, dst_row)
                : transpose_blocks<8, false>(src, src_row, n0, n1, dst, dst_row);
      break;
  }
}

#else  // not x86-64: the generic tiled path does the work

bool line_transpose_staged_available(int64_t) { return false; }
void line_transpose_staged(const float *, int64_t, int64_t, int64_t, float *) {}
bool line_transpose_available(size_t) { return false; }
void line_transpose(size_t, const char *, int64_t, int64_t, int64_t, char *, int64_t, bool) {}

#endif

}  // namespace fdnn::cpu
