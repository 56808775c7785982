// Normalization: batch, layer, instance, group and RMS norm, forward (training, inference) and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the normalization family fills in its fields.
struct NormalizationOp {
  static constexpr const char *kKind = "normalization";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const NormalizationOp &op, bool with_values);

}  // namespace fdnn::graph
