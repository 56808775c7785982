// The values of the RNG operation (graph/op_rng.hpp), shared by the CPU and
// CUDA engines (FDNN_HD) so that both devices draw the same numbers: element
// i reads word i % 4 of philox::stream_block(seed, offset, i / 4).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox.hpp"

namespace fdnn::rng {

// Bernoulli threshold: a word below it draws 1. round(p * 2^32), clamped
// (p <= 0 never draws 1, p >= 1 always does).
FDNN_HD inline uint64_t bernoulli_threshold(double p) { return philox::drop_threshold(p); }

FDNN_HD inline bool bernoulli_one(uint32_t word, uint64_t threshold) { return static_cast<uint64_t>(word) < threshold; }

// The Bernoulli draws of elements 4*group .. 4*group+3, element j in bit j.
FDNN_HD inline uint32_t bernoulli_nibble(uint64_t seed, uint64_t offset, uint64_t group, uint64_t threshold) {
  const philox::Word4 w = philox::stream_block(seed, offset, group);
  return (bernoulli_one(w.v[0], threshold) ? 1u : 0u) | (bernoulli_one(w.v[1], threshold) ? 2u : 0u) |
         (bernoulli_one(w.v[2], threshold) ? 4u : 0u) | (bernoulli_one(w.v[3], threshold) ? 8u : 0u);
}

// A word as a uniform draw in (0, 1): (word + 0.5) / 2^32.
FDNN_HD inline double uniform01(uint32_t word) { return (static_cast<double>(word) + 0.5) * (1.0 / 4294967296.0); }

// The standard normal draws of the pair of words (first, first + 1) of a
// block, first 0 or 2 (Box-Muller: the pair's first element takes the
// cosine, the second the sine). Engines that fill whole blocks call this
// once per pair (one logarithm for two values).
FDNN_HD inline void standard_normal_pair(const philox::Word4 &w, int first, double *first_value,
                                         double *second_value) {
  const double a = uniform01(w.v[first]), b = uniform01(w.v[first + 1]);
  const double r = sqrt(-2.0 * log(a)), angle = 6.283185307179586476925 * b;
  *first_value = r * cos(angle);
  *second_value = r * sin(angle);
}

// The standard normal draw of word j of a block (see standard_normal_pair).
FDNN_HD inline double standard_normal(const philox::Word4 &w, int j) {
  double c = 0, s = 0;
  standard_normal_pair(w, j & ~1, &c, &s);
  return (j & 1) ? s : c;
}

}  // namespace fdnn::rng
