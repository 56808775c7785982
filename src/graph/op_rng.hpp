// Random number generation (the backend API's OPERATION_RNG): fills y with
// draws of a distribution from the counter-based Philox4x32-10 generator
// (core/philox.hpp), so that every device produces the same values.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>

#include "graph/tensor.hpp"

namespace fdnn::graph {

// Element mapping (shared by every engine, see core/rng_math.hpp): element i
// of y, i its logical row-major index over y's dims, reads word i % 4 of
//   philox(key = {lo32(seed), hi32(seed)},
//          counter = {lo32(i / 4), hi32(i / 4), lo32(offset), hi32(offset)})
// (philox::stream_block(seed, offset, i / 4)), the stream of dropout.
//   BERNOULLI: y[i] = (word < round(p * 2^32)) ? 1 : 0, so P(y = 1) = p;
//              RNG(p) is 1 exactly where dropout with probability p drops.
//   UNIFORM:   y[i] = min + (max - min) * u, u = (word + 0.5) / 2^32.
//   NORMAL:    Box-Muller on the pairs of words (0, 1) and (2, 3) of the
//              block: with a = u(first word), b = u(second word),
//              r = sqrt(-2 ln a), the first element of the pair gets
//              mean + sd * r * cos(2 pi b), the second mean + sd * r * sin(2 pi b).
// Uniform and normal draws are computed in double and rounded to y's type.
// The seed is a value (seed_value) or an INT64 scalar tensor (seed); the
// offset is an INT64 scalar tensor or 0 when absent. Scalar tensors may be
// by-value (their value travels with the graph as a double, so by-value
// seeds above 2^53 lose their low bits) or in the handle's memory. The op
// never changes the offset: callers advance it between calls.
struct RngOp {
  static constexpr const char *kKind = "rng";
  cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  Uid y = kNoTensor;
  Uid seed = kNoTensor;    // kNoTensor: seed_value is the seed
  Uid offset = kNoTensor;  // kNoTensor: offset 0
  // Runtime values (not structural).
  int64_t seed_value = 0;
  double probability = 0.5;                     // BERNOULLI
  double uniform_min = 0.0, uniform_max = 1.0;  // UNIFORM
  double normal_mean = 0.0, normal_sd = 1.0;    // NORMAL
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const RngOp &op, bool with_values);

}  // namespace fdnn::graph
