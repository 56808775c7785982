// Pieces the CPU's counter-based random engines (dropout, RNG) share: 32
// Bernoulli bits from 8 Philox4x32-10 blocks computed in lockstep (so the
// compiler vectorises the rounds; the same bits as one block at a time), and
// a walker over a tensor's elements in logical row-major order.
#pragma once

#include <cstdint>
#include <vector>

#include <immintrin.h>

#include "cpu/cpu_features.hpp"
#include "graph/tensor.hpp"

namespace fdnn::cpu {

// Bits of elements 32*word .. 32*word+31 (element j in bit j): Philox blocks
// (counter = 8*word + l, offset; key = seed) for l = 0..7, each block's four
// 32-bit outputs giving four consecutive elements; keep(u) decides one bit.
template <class Keep>
inline uint32_t philox_bits32(uint64_t seed, uint64_t offset, uint64_t word, Keep keep) {
  constexpr int kLanes = 8;
  uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t group = word * kLanes + static_cast<uint64_t>(l);
    c0[l] = static_cast<uint32_t>(group);
    c1[l] = static_cast<uint32_t>(group >> 32);
    c2[l] = static_cast<uint32_t>(offset);
    c3[l] = static_cast<uint32_t>(offset >> 32);
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0[l];
      const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2[l];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = static_cast<uint32_t>(p1);
      c3[l] = static_cast<uint32_t>(p0);
      c0[l] = n0;
      c2[l] = n2;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  uint32_t bits = 0;
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t nibble = (keep(c0[l]) ? 1u : 0u) | (keep(c1[l]) ? 2u : 0u) | (keep(c2[l]) ? 4u : 0u) |
                            (keep(c3[l]) ? 8u : 0u);
    bits |= nibble << (4 * l);
  }
  return bits;
}

// ---- Whole mask words at once, in SIMD registers ------------------------------------
//
// keep_words(seed, offset, w0, w1, threshold, out): out[w - w0] = the word
// philox_bits32(seed, offset, w, keeps-threshold) gives (keep = u >= threshold,
// philox::keeps), for w in [w0, w1), bit for bit. The Philox lanes live in
// vector registers (one block per 32-bit lane: 16 with AVX-512, 8 with AVX2;
// the 32x32->64 products from two vpmuludq on the even and odd lanes), and
// the keep bits of a lane's four outputs are interleaved with pdep.
// Words whose counters cross a 2^32 boundary inside a vector go through
// philox_bits32 (counter carry into the high word).

// GCC 12's AVX-512 intrinsics start from a deliberately undefined register
// (_mm512_undefined_*), which -Wmaybe-uninitialized reports at every use: a
// false positive of the header, silenced for these functions only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace philox_simd {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

inline uint32_t keep_word_scalar(uint64_t seed, uint64_t offset, uint64_t word, uint64_t threshold) {
  return philox_bits32(seed, offset, word, [threshold](uint32_t u) { return static_cast<uint64_t>(u) >= threshold; });
}

// 8 lanes (one word) per step.
inline void keep_words_avx2(uint64_t seed, uint64_t offset, uint64_t w0, uint64_t w1, uint64_t threshold,
                            uint32_t *out) {
  if (threshold > 0xFFFFFFFFull) {  // p = 1 drops everything
    for (uint64_t w = w0; w < w1; ++w) out[w - w0] = 0;
    return;
  }
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i sign = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  // u >= t  <=>  !(t > u), compared as signed after flipping the sign bits.
  const __m256i thr = _mm256_xor_si256(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(threshold))), sign);
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kM0)), m1 = _mm256_set1_epi32(static_cast<int>(kM1));
  const __m256i c2i = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(offset)));
  const __m256i c3i = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(offset >> 32)));
  __m256i k0[10], k1[10];
  uint32_t a = static_cast<uint32_t>(seed), b = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r, a += kW0, b += kW1) {
    k0[r] = _mm256_set1_epi32(static_cast<int>(a));
    k1[r] = _mm256_set1_epi32(static_cast<int>(b));
  }
  for (uint64_t w = w0; w < w1; ++w) {
    const uint64_t g = w * 8;
    const uint32_t glo = static_cast<uint32_t>(g);
    if (glo > 0xFFFFFFFFu - 7u) {
      out[w - w0] = keep_word_scalar(seed, offset, w, threshold);
      continue;
    }
    __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(glo)), iota);
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(g >> 32)));
    __m256i c2 = c2i, c3 = c3i;
    for (int r = 0; r < 10; ++r) {
      // p0 = M0 * c0, p1 = M1 * c2 (64-bit products; even lanes, then odd).
      const __m256i e0 = _mm256_mul_epu32(c0, m0), o0 = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
      const __m256i e1 = _mm256_mul_epu32(c2, m1), o1 = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
      const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);
      const __m256i lo0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);
      const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);
      const __m256i lo1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);
      const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0[r]);
      const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1[r]);
      c1 = lo1;
      c3 = lo0;
      c0 = n0;
      c2 = n2;
    }
    auto keep8 = [&](__m256i v) {
      const __m256i below = _mm256_cmpgt_epi32(thr, _mm256_xor_si256(v, sign));
      return static_cast<uint32_t>(~_mm256_movemask_ps(_mm256_castsi256_ps(below)) & 0xFF);
    };
    out[w - w0] = _pdep_u32(keep8(c0), 0x11111111u) | _pdep_u32(keep8(c1), 0x22222222u) |
                  _pdep_u32(keep8(c2), 0x44444444u) | _pdep_u32(keep8(c3), 0x88888888u);
  }
}

#define FDNN_PHILOX_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,bmi2")))

// 16 lanes (two words) per step; an odd last word goes through the AVX2 path.
FDNN_PHILOX_AVX512 inline void keep_words_avx512(uint64_t seed, uint64_t offset, uint64_t w0, uint64_t w1,
                                                 uint64_t threshold, uint32_t *out) {
  if (threshold > 0xFFFFFFFFull) {
    for (uint64_t w = w0; w < w1; ++w) out[w - w0] = 0;
    return;
  }
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i thr = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(threshold)));
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kM0)), m1 = _mm512_set1_epi32(static_cast<int>(kM1));
  const __m512i c2i = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(offset)));
  const __m512i c3i = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(offset >> 32)));
  // Lane i of the high (low) halves: even i from the even products' dword
  // i + 1 (i), odd i from the odd products' dword i (i - 1); 16 + j selects
  // the second source.
  const __m512i hi_idx = _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
  const __m512i lo_idx = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
  __m512i k0[10], k1[10];
  uint32_t a = static_cast<uint32_t>(seed), b = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r, a += kW0, b += kW1) {
    k0[r] = _mm512_set1_epi32(static_cast<int>(a));
    k1[r] = _mm512_set1_epi32(static_cast<int>(b));
  }
  uint64_t w = w0;
  for (; w + 2 <= w1; w += 2) {
    const uint64_t g = w * 8;
    const uint32_t glo = static_cast<uint32_t>(g);
    if (glo > 0xFFFFFFFFu - 15u) {
      out[w - w0] = keep_word_scalar(seed, offset, w, threshold);
      out[w + 1 - w0] = keep_word_scalar(seed, offset, w + 1, threshold);
      continue;
    }
    __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(glo)), iota);
    __m512i c1 = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(g >> 32)));
    __m512i c2 = c2i, c3 = c3i;
    for (int r = 0; r < 10; ++r) {
      // Odd lanes moved down by a shuffle and the halves of the products put
      // back in lane order by one two-source permute each (port 5), leaving
      // port 0 to the multiplies.
      const __m512i e0 = _mm512_mul_epu32(c0, m0), o0 = _mm512_mul_epu32(_mm512_shuffle_epi32(c0, _MM_PERM_DDBB), m0);
      const __m512i e1 = _mm512_mul_epu32(c2, m1), o1 = _mm512_mul_epu32(_mm512_shuffle_epi32(c2, _MM_PERM_DDBB), m1);
      const __m512i hi0 = _mm512_permutex2var_epi32(e0, hi_idx, o0), lo0 = _mm512_permutex2var_epi32(e0, lo_idx, o0);
      const __m512i hi1 = _mm512_permutex2var_epi32(e1, hi_idx, o1), lo1 = _mm512_permutex2var_epi32(e1, lo_idx, o1);
      const __m512i n0 = _mm512_ternarylogic_epi32(hi1, c1, k0[r], 0x96);  // three-way xor
      const __m512i n2 = _mm512_ternarylogic_epi32(hi0, c3, k1[r], 0x96);
      c1 = lo1;
      c3 = lo0;
      c0 = n0;
      c2 = n2;
    }
    const uint64_t bits = _pdep_u64(_mm512_cmpge_epu32_mask(c0, thr), 0x1111111111111111ull) |
                          _pdep_u64(_mm512_cmpge_epu32_mask(c1, thr), 0x2222222222222222ull) |
                          _pdep_u64(_mm512_cmpge_epu32_mask(c2, thr), 0x4444444444444444ull) |
                          _pdep_u64(_mm512_cmpge_epu32_mask(c3, thr), 0x8888888888888888ull);
    out[w - w0] = static_cast<uint32_t>(bits);
    out[w + 1 - w0] = static_cast<uint32_t>(bits >> 32);
  }
  if (w < w1) keep_words_avx2(seed, offset, w, w1, threshold, out + (w - w0));
}

#undef FDNN_PHILOX_AVX512

}  // namespace philox_simd

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

inline void keep_words(uint64_t seed, uint64_t offset, uint64_t w0, uint64_t w1, uint64_t threshold,
                       uint32_t *out) {
  if (avx512_usable()) philox_simd::keep_words_avx512(seed, offset, w0, w1, threshold, out);
  else philox_simd::keep_words_avx2(seed, offset, w0, w1, threshold, out);
}

// Element offsets of a tensor in logical row-major order from a start index.
class RowMajorWalker {
 public:
  RowMajorWalker(const graph::Tensor &t, int64_t linear) : t_(t), index_(t.dims.size(), 0) {
    for (int d = t.rank() - 1; d >= 0; --d) {
      index_[d] = linear % t.dims[d];
      linear /= t.dims[d];
      offset_ += index_[d] * t.strides[d];
    }
  }
  int64_t offset() const { return offset_; }
  void next() {
    for (int d = t_.rank() - 1; d >= 0; --d) {
      offset_ += t_.strides[d];
      if (++index_[d] < t_.dims[d]) return;
      offset_ -= index_[d] * t_.strides[d];
      index_[d] = 0;
    }
  }

 private:
  const graph::Tensor &t_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
};

// Writes value(j) for j < count to y's elements from logical index `base`
// on: contiguous when there is no walker (y packed), else at the walker's
// offsets, which it advances (the RNG engines' output loops).
template <class T, class F>
inline void write_run(T *yd, RowMajorWalker *walker, int64_t base, int64_t count, F &&value) {
  if (walker == nullptr) {
    for (int64_t j = 0; j < count; ++j) yd[base + j] = value(j);
    return;
  }
  for (int64_t j = 0; j < count; ++j) {
    yd[walker->offset()] = value(j);
    walker->next();
  }
}

}  // namespace fdnn::cpu
