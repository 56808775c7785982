// Tile transposition for layout changes (NCHW <-> NHWC and the like):
// dst[i1 * dst_row + i0] = src[i0 * src_row + i1] for i0 < t0, i1 < t1, on
// raw elements of 1, 2, 4 or 8 bytes. The source rows are read as whole runs
// and 8x8 (4x4 for doubles) register transposes write whole runs of the
// destination, instead of one scattered element per access.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace fdnn::cpu {

template <class E>
inline void transpose_scalar(const char *src, int64_t src_row, int64_t t0, int64_t t1, char *dst, int64_t dst_row,
                             int64_t from0, int64_t from1) {
  const E *s = reinterpret_cast<const E *>(src);
  E *d = reinterpret_cast<E *>(dst);
  for (int64_t i0 = 0; i0 < t0; ++i0)
    for (int64_t i1 = (i0 < from0 ? from1 : 0); i1 < t1; ++i1) d[i1 * dst_row + i0] = s[i0 * src_row + i1];
}

#if defined(__AVX__)
// 8x8 block of 32-bit elements.
inline void transpose8x8_32(const float *s, int64_t src_row, float *d, int64_t dst_row) {
  __m256 r0 = _mm256_loadu_ps(s + 0 * src_row), r1 = _mm256_loadu_ps(s + 1 * src_row);
  __m256 r2 = _mm256_loadu_ps(s + 2 * src_row), r3 = _mm256_loadu_ps(s + 3 * src_row);
  __m256 r4 = _mm256_loadu_ps(s + 4 * src_row), r5 = _mm256_loadu_ps(s + 5 * src_row);
  __m256 r6 = _mm256_loadu_ps(s + 6 * src_row), r7 = _mm256_loadu_ps(s + 7 * src_row);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 c[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                       _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                       _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                       _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(d + k * dst_row, c[k]);
}

// 4x4 block of 64-bit elements.
inline void transpose4x4_64(const double *s, int64_t src_row, double *d, int64_t dst_row) {
  __m256d r0 = _mm256_loadu_pd(s + 0 * src_row), r1 = _mm256_loadu_pd(s + 1 * src_row);
  __m256d r2 = _mm256_loadu_pd(s + 2 * src_row), r3 = _mm256_loadu_pd(s + 3 * src_row);
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(d + 0 * dst_row, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(d + 1 * dst_row, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(d + 2 * dst_row, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(d + 3 * dst_row, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// 8x8 block of 16-bit elements.
inline void transpose8x8_16(const uint16_t *s, int64_t src_row, uint16_t *d, int64_t dst_row) {
  __m128i r[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + k * src_row));
  __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
  __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
  __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
  __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
  __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
  __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
  __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
  __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
  __m128i c[8] = {_mm_unpacklo_epi64(b0, b4), _mm_unpackhi_epi64(b0, b4), _mm_unpacklo_epi64(b1, b5),
                  _mm_unpackhi_epi64(b1, b5), _mm_unpacklo_epi64(b2, b6), _mm_unpackhi_epi64(b2, b6),
                  _mm_unpacklo_epi64(b3, b7), _mm_unpackhi_epi64(b3, b7)};
  for (int k = 0; k < 8; ++k) _mm_storeu_si128(reinterpret_cast<__m128i *>(d + k * dst_row), c[k]);
}
#endif

// dst[i1 * dst_row + i0] = src[i0 * src_row + i1] (strides in elements).
inline void transpose_tile(size_t elem_size, const char *src, int64_t src_row, int64_t t0, int64_t t1, char *dst,
                           int64_t dst_row) {
#if defined(__AVX__)
  // Full blocks with registers, then the ragged edges element by element.
  int64_t B = elem_size == 8 ? 4 : 8;
  if (elem_size == 2 || elem_size == 4 || elem_size == 8) {
    const int64_t f0 = t0 / B * B, f1 = t1 / B * B;
    for (int64_t i0 = 0; i0 < f0; i0 += B)
      for (int64_t i1 = 0; i1 < f1; i1 += B) {
        const int64_t so = (i0 * src_row + i1) * static_cast<int64_t>(elem_size);
        const int64_t d_o = (i1 * dst_row + i0) * static_cast<int64_t>(elem_size);
        if (elem_size == 4)
          transpose8x8_32(reinterpret_cast<const float *>(src + so), src_row, reinterpret_cast<float *>(dst + d_o),
                          dst_row);
        else if (elem_size == 8)
          transpose4x4_64(reinterpret_cast<const double *>(src + so), src_row, reinterpret_cast<double *>(dst + d_o),
                          dst_row);
        else
          transpose8x8_16(reinterpret_cast<const uint16_t *>(src + so), src_row,
                          reinterpret_cast<uint16_t *>(dst + d_o), dst_row);
      }
    // Edges: rows i0 < f0 from column f1 on, and all of rows i0 >= f0.
    switch (elem_size) {
      case 2: transpose_scalar<uint16_t>(src, src_row, t0, t1, dst, dst_row, f0, f1); break;
      case 4: transpose_scalar<uint32_t>(src, src_row, t0, t1, dst, dst_row, f0, f1); break;
      default: transpose_scalar<uint64_t>(src, src_row, t0, t1, dst, dst_row, f0, f1); break;
    }
    return;
  }
#endif
  switch (elem_size) {
    case 1: transpose_scalar<uint8_t>(src, src_row, t0, t1, dst, dst_row, 0, 0); break;
    case 2: transpose_scalar<uint16_t>(src, src_row, t0, t1, dst, dst_row, 0, 0); break;
    case 4: transpose_scalar<uint32_t>(src, src_row, t0, t1, dst, dst_row, 0, 0); break;
    default: transpose_scalar<uint64_t>(src, src_row, t0, t1, dst, dst_row, 0, 0); break;
  }
}

}  // namespace fdnn::cpu
