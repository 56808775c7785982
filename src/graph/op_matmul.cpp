#include "graph/op_matmul.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const MatmulOp &op, bool with_values) {
  os << "matmul(ct=" << op.compute_type << ",a=" << op.a << ",b=" << op.b << ",c=" << op.c;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
