// An independent Philox4x32-10 (Salmon et al., SC'11) and the values FreeDNN
// documents for the backend RNG operation (src/graph/op_rng.hpp): element i
// (row-major over y's dims) reads word i % 4 of the block with key = seed and
// counter = {i / 4, offset} (64-bit halves, low word first).
#pragma once

#include <cstdint>

namespace fdnn_test {

// Word `i % 4` of the block of element i.
uint32_t philox_word(uint64_t seed, uint64_t offset, uint64_t i);

// The Bernoulli draw of element i: 1 when its word is below round(p * 2^32).
int bernoulli_draw(uint64_t seed, uint64_t offset, uint64_t i, double p);

// The uniform draw of element i: lo + (hi - lo) * (word + 0.5) / 2^32.
double uniform_draw(uint64_t seed, uint64_t offset, uint64_t i, double lo, double hi);

// The normal draw of element i: Box-Muller on the word pairs (0, 1), (2, 3)
// of its block, cosine for the pair's first element, sine for the second.
double normal_draw(uint64_t seed, uint64_t offset, uint64_t i, double mean, double sd);

}  // namespace fdnn_test
