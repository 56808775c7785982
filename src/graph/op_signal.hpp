// Signalling (the backend API's OPERATION_SIGNAL): a pass-through of x to y
// ordered with a 64-bit flag in memory.
//   SET:  y = x (when y is given and distinct), then flag = value; every
//         write of y happens before the flag changes.
//   WAIT: wait until flag == value, then y = x.
// x orders the signal after its producer; y (optional) orders the
// operations that read it after the signal.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>

#include "graph/tensor.hpp"

namespace fdnn::graph {

struct SignalOp {
  static constexpr const char *kKind = "signal";
  cudnnSignalMode_t mode = CUDNN_SIGNAL_SET;
  Uid flag = kNoTensor, x = kNoTensor, y = kNoTensor;
  int64_t value = 0;  // runtime value
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const SignalOp &op, bool with_values);

}  // namespace fdnn::graph
