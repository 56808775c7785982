// Structural checks of a matmul graph shared by the engines, and the batch
// geometry they iterate over.
#pragma once

#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// A single MatmulOp with consistent shapes: a [..., M, K], b [..., K, N],
// c [..., M, N], equal ranks >= 2, each batch extent of a and b dividing c's.
Support check_single_matmul(const graph::Graph &g);

// The batch broadcast rule of the matmul operation: an operand's batch extent
// must divide c's (equal, 1, or a divisor), and batch index i of c reads the
// operand's index i / (c / operand). An extent of 1 repeats one matrix; a
// proper divisor repeats each matrix over a run of consecutive c batches:
// grouped-query attention's K/V heads [b, h_kv, ..] against Q's [b, h, ..]
// (query head i uses K/V head i / (h / h_kv)), as cudnn-frontend builds it.
bool batch_extent_divides(int64_t operand, int64_t c);

// The operation's rule at finalize, as cuDNN 9 applies it (probed against
// NVIDIA's libcudnn 9.19, BAD_PARAM otherwise): in each batch dim one of a's
// and b's extents divides the other, and c's extent is the larger of the two.
bool matmul_batch_extents_valid(int64_t a, int64_t b, int64_t c);

// True when every batch extent of a and b is c's or 1 (no proper-divisor
// broadcast): engines whose kernels only repeat extent-1 operands need it.
bool matmul_batches_plain(const graph::Graph &g);
bool matmul_batches_plain(const graph::Graph &g, const graph::MatmulOp &op);

struct MatmulGeometry {
  int64_t m = 0, n = 0, k = 0;
  // Per batch index of c (row-major over c's batch dims): element offsets.
  std::vector<int64_t> a_offsets, b_offsets, c_offsets;
  // Strides of the matrices' rows and columns.
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, c_rs = 0, c_cs = 0;
};

MatmulGeometry matmul_geometry(const graph::Graph &g);
// The same for operands described by a, b and c (engines that stage an
// operand in another layout pass its staged description).
MatmulGeometry matmul_geometry(const graph::Tensor &a, const graph::Tensor &b, const graph::Tensor &c);

}  // namespace fdnn
