// Structural checks of spatial transformer graphs shared by every device's
// engines (shapes, types and packing of theta, grid, x, y and gradients).
#pragma once

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Types of the spatial transformer's tensors: FLOAT, DOUBLE, HALF.
bool is_spatial_transform_type(cudnnDataType_t t);

// Support::yes() when g is one SpatialTransformOp of a known stage whose
// tensors have the shapes of the op's comment: theta [N,2,3] and grid
// [N,H,W,2] packed, x/dx [N,C,Hi,Wi] and y/dy [N,C,H,W] strided, without
// overlapping outputs, all of one type.
Support check_single_spatial_transform(const graph::Graph &g);

// Computation in double when the tensors are DOUBLE, else in float.
bool spatial_transform_computes_in_double(const graph::Graph &g);

}  // namespace fdnn
