// Checks of a single concatenation graph (graph/op_concat.hpp) shared by the
// engines of every device.
#pragma once

#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one ConcatOp whose inputs and output exist, are
// real (not by-value) tensors of one rank, agree on every dim but the axis,
// and fill the output's axis exactly; the output must not overlap itself.
Support check_single_concat(const graph::Graph &g);

// The input tensors of a checked concat, in order.
std::vector<const graph::Tensor *> concat_inputs(const graph::Graph &g, const graph::ConcatOp &op);

}  // namespace fdnn
