// What every device's softmax engines share: which graphs are one well-formed
// SoftmaxOp, the iteration geometry (independent rows x reduced elements),
// and the compute precision rule.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one SoftmaxOp with its tensors present, real
// (not by value), of one rank and dims, axes valid, and an output without
// overlapping elements.
Support check_single_softmax(const graph::Graph &g);

// The op's tensors in a fixed order: forward {x, y}, backward {y, dy, dx}.
// The last one is the output.
std::vector<graph::Uid> softmax_operands(const graph::SoftmaxOp &op);

// Rows (the kept dims) times row elements (the reduced dims), with dims of
// extent 1 dropped and neighbouring dims merged where every operand allows.
struct SoftmaxGeometry {
  int operands = 0;
  std::vector<graph::Uid> uid;
  std::vector<cudnnDataType_t> dtype;
  std::vector<int64_t> kept_dims, red_dims;                 // outermost first
  std::vector<std::vector<int64_t>> kept_strides, red_strides;  // [operand][dim]
  int64_t rows = 1, row_len = 1;
  // The reduced elements of a row are one run of stride 1 in every operand.
  bool contiguous_rows() const;
};
SoftmaxGeometry softmax_geometry(const graph::Graph &g);

// Compute in double for DOUBLE compute or tensors, else in float.
bool softmax_computes_in_double(const graph::Graph &g, const graph::SoftmaxOp &op);

}  // namespace fdnn
