// Dropout forward and backward, with its counter-based random generator state.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the dropout family fills in its fields.
struct DropoutOp {
  static constexpr const char *kKind = "dropout";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const DropoutOp &op, bool with_values);

}  // namespace fdnn::graph
