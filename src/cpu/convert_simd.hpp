// Vectorised conversions between float and the 16-bit float types for the
// fast engines' contiguous loads and stores: F16C for half, integer shifts
// for bfloat16. Each function converts the largest multiple of 8 elements
// of the n given and returns that count; the caller finishes the tail with
// the scalar conversions of dtype_io.hpp, which these match bit for bit
// (round to nearest even, NaN kept quiet with its payload's top bits).
#pragma once

#include <cstdint>

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define FDNN_CPU_CONVERT_SIMD 1
#endif

namespace fdnn::cpu::simd {

#if defined(FDNN_CPU_CONVERT_SIMD)
inline __m256 load_half8(const uint16_t *s) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s)));
}
inline void store_half8(uint16_t *d, __m256 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i *>(d), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
inline __m256 load_bf16x8(const uint16_t *s) {
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(s)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
// num::float_to_bf16 on 8 lanes: RNE by adding 0x7fff + the lowest kept
// bit; NaN: the top half with the quiet bit set.
inline void store_bf16x8(uint16_t *d, __m256 v) {
  const __m256i f = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(f, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(f, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(f, 16), _mm256_set1_epi32(0x40));
  const __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  const __m256i r = _mm256_blendv_epi8(rounded, quiet, is_nan);
  // 32 -> 16 bits (all values < 65536): pack within lanes, then order the quads.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0xD8);
  _mm_storeu_si128(reinterpret_cast<__m128i *>(d), _mm256_castsi256_si128(packed));
}
#endif

// out[i] = half s[i] as float.
inline int half_to_float(const uint16_t *s, int n, float *out) {
  int i = 0;
#if defined(FDNN_CPU_CONVERT_SIMD)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, load_half8(s + i));
#endif
  return i;
}
inline int bf16_to_float(const uint16_t *s, int n, float *out) {
  int i = 0;
#if defined(FDNN_CPU_CONVERT_SIMD)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, load_bf16x8(s + i));
#endif
  return i;
}

// d[i] = alpha * r[i] (kBlend false) or alpha * r[i] + beta * d[i] (true),
// d in half (kBf16 false) or bfloat16 (true).
template <bool kBf16, bool kBlend>
inline int store_16bit(uint16_t *d, const float *r, int n, float alpha, float beta) {
  int i = 0;
#if defined(FDNN_CPU_CONVERT_SIMD)
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_mul_ps(va, _mm256_loadu_ps(r + i));
    if constexpr (kBlend) {
      const __m256 prior = kBf16 ? load_bf16x8(d + i) : load_half8(d + i);
      v = _mm256_fmadd_ps(vb, prior, v);
    }
    if constexpr (kBf16) store_bf16x8(d + i, v);
    else store_half8(d + i, v);
  }
#else
  (void)d, (void)r, (void)n, (void)alpha, (void)beta;
#endif
  return i;
}

}  // namespace fdnn::cpu::simd
