// Dropout forward and backward, with its counter-based random generator state.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Dropout with a Philox4x32-10 mask (core/philox.hpp):
//   forward:  mask[i] = philox(seed, offset, i) >= round(p * 2^32)
//             y[i] = keep ? x[i] * scale : 0,   mask written to `mask`
//   backward: y[i] = mask[i] ? x[i] * scale : 0 (x is dy, y is dx), mask read
// with scale = 1 / (1 - p) (0 when p == 1). Element i is the logical
// row-major index over each tensor's own dims (x and y have the same element
// count, not necessarily the same dims, as cuDNN allows).
//
// `mask` is a UINT32 tensor of ceil(n / 32) words: element i in bit i % 32
// of word i / 32 (the legacy reserve space). `seed` and `offset` are INT64
// scalars in memory (the legacy states buffer, or the backend RNG
// operation's seed and offset tensors); with advance_offset the forward op
// adds 1 to the offset after reading it, so the next call draws a new mask.
// The backend RNG operation (Bernoulli) maps onto a forward op whose mask is
// the output of interest.
struct DropoutOp {
  static constexpr const char *kKind = "dropout";
  enum class Direction { forward, backward };
  Direction direction = Direction::forward;
  Uid x = kNoTensor, y = kNoTensor, mask = kNoTensor;
  Uid seed = kNoTensor, offset = kNoTensor;  // forward only
  bool advance_offset = true;
  double probability = 0.0;  // a runtime value, not structural
  Blend blend;               // legacy dropout always uses {1, 0}
};

// Mask words for n elements.
inline int64_t dropout_mask_words(int64_t n) { return (n + 31) / 32; }

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const DropoutOp &op, bool with_values);

}  // namespace fdnn::graph
