// Softmax forward and backward (cudnnSoftmaxForward/Backward).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the softmax family fills in its fields.
struct SoftmaxOp {
  static constexpr const char *kKind = "softmax";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const SoftmaxOp &op, bool with_values);

}  // namespace fdnn::graph
