// Checks of a single signal graph (graph/op_signal.hpp), and its
// pass-through copy, shared by every device's engines.
#pragma once

#include <cstddef>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one SignalOp in mode SET or WAIT with a flag of
// one INT64 in memory, a pass-through x in memory and a y that is absent,
// x itself, or of x's type, dims and strides (the pass-through is a byte
// copy of x's span).
Support check_single_signal(const graph::Graph &g);

// The pass-through copy a signal makes (x's span into y), or bytes = 0 when
// there is none: no y, y is x, the same pointer, or an empty x. Null
// pointers for a copy that is needed fail with BAD_PARAM.
struct SignalCopy {
  const void *src = nullptr;
  void *dst = nullptr;
  size_t bytes = 0;
};
SignalCopy signal_pass_through(const graph::Graph &g, const graph::SignalOp &op, const VariantPack &pack);

}  // namespace fdnn
