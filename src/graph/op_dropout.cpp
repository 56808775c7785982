#include "graph/op_dropout.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const DropoutOp &op, bool with_values) {
  os << "dropout(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
