#include "graph/op_dropout.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const DropoutOp &op, bool with_values) {
  os << "dropout(" << (op.direction == DropoutOp::Direction::forward ? "fwd" : "bwd") << ",x=" << op.x
     << ",y=" << op.y << ",mask=" << op.mask << ",seed=" << op.seed << ",offset=" << op.offset
     << ",advance=" << op.advance_offset;
  if (with_values) os << ",p=" << op.probability;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
