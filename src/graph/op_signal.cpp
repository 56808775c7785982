#include "graph/op_signal.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const SignalOp &op, bool with_values) {
  os << "signal(mode=" << op.mode << ",flag=" << op.flag << ",x=" << op.x << ",y=" << op.y;
  if (with_values) os << ",value=" << op.value;
  os << ')';
}

}  // namespace fdnn::graph
