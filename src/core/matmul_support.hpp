// Structural checks of a matmul graph shared by the engines, and the batch
// geometry they iterate over.
#pragma once

#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// A single MatmulOp with consistent shapes: a [..., M, K], b [..., K, N],
// c [..., M, N], equal ranks >= 2, batch dims of a and b equal to c's or 1.
Support check_single_matmul(const graph::Graph &g);

struct MatmulGeometry {
  int64_t m = 0, n = 0, k = 0;
  // Per batch index of c (row-major over c's batch dims): element offsets.
  std::vector<int64_t> a_offsets, b_offsets, c_offsets;
  // Strides of the matrices' rows and columns.
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
};

MatmulGeometry matmul_geometry(const graph::Graph &g);

}  // namespace fdnn
