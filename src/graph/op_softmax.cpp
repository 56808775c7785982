#include "graph/op_softmax.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const SoftmaxOp &op, bool with_values) {
  os << "softmax(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
