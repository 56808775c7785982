#include "graph/op_lrn.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const LrnOp &op, bool with_values) {
  os << "lrn(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
