// Checks of a single signal graph (graph/op_signal.hpp) shared by every
// device's engines.
#pragma once

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one SignalOp in mode SET or WAIT with a flag of
// one INT64 in memory, a pass-through x in memory and a y that is absent,
// x itself, or of x's type, dims and strides (the pass-through is a byte
// copy of x's span).
Support check_single_signal(const graph::Graph &g);

}  // namespace fdnn
