// Softmax forward and backward (cudnnSoftmaxForward/Backward).
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Softmax over the dimensions in `axes` (the reduction set; every other
// dimension indexes independent rows). x, y, dy and dx all have the same dims.
//   forward,  ACCURATE: y = exp(x - max) / sum(exp(x - max))
//             FAST:     y = exp(x) / sum(exp(x))   (no max: may overflow, as in cuDNN)
//             LOG:      y = (x - max) - log(sum(exp(x - max)))
//   backward, FAST/ACCURATE: dx = y * (dy - sum(dy * y))
//             LOG:           dx = dy - exp(y) * sum(dy)
// The result is blended into y (forward) or dx (backward) with `blend`.
struct SoftmaxOp {
  static constexpr const char *kKind = "softmax";
  bool backward = false;
  cudnnSoftmaxAlgorithm_t algorithm = CUDNN_SOFTMAX_ACCURATE;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  std::vector<int> axes;  // reduced dimensions, ascending
  // forward: x -> y; backward: y, dy -> dx.
  Uid x = kNoTensor, y = kNoTensor, dy = kNoTensor, dx = kNoTensor;
  Blend blend;

  // The tensor written: y (forward) or dx (backward).
  Uid output() const { return backward ? dx : y; }
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const SoftmaxOp &op, bool with_values);

}  // namespace fdnn::graph
