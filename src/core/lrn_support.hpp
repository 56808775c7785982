// Structural checks shared by every device's LRN engines (graph::LrnOp):
// what a well-formed op is and in which precision it is computed.
#pragma once

#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one LrnOp whose tensors exist with x's dims and
// rank 3 to 8, whose window is 1..16, with the operands its kind and
// direction need, and outputs that do not overlap themselves.
Support check_single_lrn(const graph::Graph &g);

// Compute in double when the compute type or any tensor is DOUBLE.
bool lrn_computes_in_double(const graph::Graph &g, const graph::LrnOp &op);

// The uids of the op's tensors that are present: inputs first (x, means,
// dy), then outputs (y forward, dx, dmeans).
std::vector<graph::Uid> lrn_inputs(const graph::LrnOp &op);
std::vector<graph::Uid> lrn_outputs(const graph::LrnOp &op);

// alpha / n^d: the factor of the sum of squares.
double lrn_alpha_over_size(const graph::LrnOp &op, int rank);

}  // namespace fdnn
