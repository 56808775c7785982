// Local response normalization (cross-channel) and divisive normalization, forward and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the lrn family fills in its fields.
struct LrnOp {
  static constexpr const char *kKind = "lrn";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const LrnOp &op, bool with_values);

}  // namespace fdnn::graph
