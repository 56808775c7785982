// Philox4x32-10, the counter-based random generator of Salmon et al. (SC'11),
// as used by the dropout family and (later) the backend RNG operation: every
// random word depends only on (key, counter), so any element of any call can
// be computed independently, on any device, in any order. The CPU and CUDA
// engines share this code (FDNN_HD), which is why both produce the same masks.
//
// Element mapping shared by every engine: element i (logical row-major index)
// of the call with offset k under seed s reads word i % 4 of
// philox(key = {lo32(s), hi32(s)}, counter = {lo32(i/4), hi32(i/4), lo32(k), hi32(k)}).
#pragma once

#include <cstdint>

#include "core/numeric.hpp"  // FDNN_HD

namespace fdnn::philox {

struct Word4 {
  uint32_t v[4];
};

FDNN_HD inline uint32_t mul_hi_lo(uint32_t a, uint32_t b, uint32_t *hi) {
#if defined(__CUDA_ARCH__)
  // The high and low halves as two products, which ptxas fuses into one
  // IMAD.WIDE.U32. The 64-bit product shifted down compiled to the same
  // IMAD.WIDE plus an add of a zero register to its high half (sm_90a): a
  // third of a round's instructions.
  *hi = __umulhi(a, b);
  return a * b;
#else
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
#endif
}

// One Philox4x32-10 block: 4 random 32-bit words for a 128-bit counter.
FDNN_HD inline Word4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, hi1;
    const uint32_t lo0 = mul_hi_lo(kM0, c0, &hi0);
    const uint32_t lo1 = mul_hi_lo(kM1, c2, &hi1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += kW0;
    k1 += kW1;
  }
  return Word4{{c0, c1, c2, c3}};
}

// The 4 words of element group `group` (elements 4*group .. 4*group+3) of
// the stream (seed, offset).
FDNN_HD inline Word4 stream_block(uint64_t seed, uint64_t offset, uint64_t group) {
  return philox4x32_10(static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32),
                       static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32),
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Bernoulli decisions: an element is dropped when its word is below
// `threshold` = round(p * 2^32) (0 keeps everything, 2^32 drops everything).
FDNN_HD inline uint64_t drop_threshold(double p) {
  if (!(p > 0.0)) return 0;
  if (p >= 1.0) return uint64_t{1} << 32;
  return static_cast<uint64_t>(p * 4294967296.0 + 0.5);
}

// The same test as word >= threshold in 64 bits, with a 32-bit compare per
// element: thresholds past 2^32 - 1 (p = 1) keep nothing, and that test is
// the same for every element of a call (hoisted out of the loops on GPUs).
FDNN_HD inline bool keeps(uint32_t word, uint64_t threshold) {
  return threshold <= 0xFFFFFFFFu && word >= static_cast<uint32_t>(threshold);
}

// Keep bits of the 4 elements of a group, element j in bit j.
FDNN_HD inline uint32_t keep_nibble(uint64_t seed, uint64_t offset, uint64_t group, uint64_t threshold) {
  const Word4 w = stream_block(seed, offset, group);
  return (keeps(w.v[0], threshold) ? 1u : 0u) | (keeps(w.v[1], threshold) ? 2u : 0u) |
         (keeps(w.v[2], threshold) ? 4u : 0u) | (keeps(w.v[3], threshold) ? 8u : 0u);
}

// Keep bits of the 32 elements of mask word `word` (elements 32*word ..),
// element 32*word + j in bit j.
FDNN_HD inline uint32_t keep_word(uint64_t seed, uint64_t offset, uint64_t word, uint64_t threshold) {
  uint32_t bits = 0;
  for (int g = 0; g < 8; ++g) bits |= keep_nibble(seed, offset, word * 8 + static_cast<uint64_t>(g), threshold) << (4 * g);
  return bits;
}

}  // namespace fdnn::philox
