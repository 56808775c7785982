// The tensors an op reads and writes, by uid: what the backend API's
// dataflow checks and the op-by-op graph engine need to know of each op kind.
#pragma once

#include <vector>

#include "graph/op.hpp"

namespace fdnn::graph {

struct OpIo {
  std::vector<Uid> inputs, outputs;
};

// Throws NOT_SUPPORTED for op kinds whose inputs and outputs are not listed
// here yet.
OpIo op_io(const Op &op);

}  // namespace fdnn::graph
