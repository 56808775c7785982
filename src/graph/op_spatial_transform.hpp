// Spatial transformer: grid generator and bilinear sampler, forward and backward.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// SKELETON: the spatial transform family fills in its fields.
struct SpatialTransformOp {
  static constexpr const char *kKind = "spatial_transform";
  Blend blend;
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const SpatialTransformOp &op, bool with_values);

}  // namespace fdnn::graph
