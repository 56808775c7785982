// Resampling: pooling (max, average) and the backend resample operations, forward and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the resample family fills in its fields.
struct ResampleOp {
  static constexpr const char *kKind = "resample";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const ResampleOp &op, bool with_values);

}  // namespace fdnn::graph
