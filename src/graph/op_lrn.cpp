#include "graph/op_lrn.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const LrnOp &op, bool with_values) {
  os << "lrn(" << (op.kind == LrnKind::cross_channel ? "cross" : "divisive") << (op.backward ? ",bwd" : ",fwd")
     << ",n=" << op.n << ",ct=" << op.compute_type;
  if (with_values) os << ",alpha=" << op.alpha << ",beta=" << op.beta << ",k=" << op.k;
  os << ",x=" << op.x << ",means=" << op.means << ",y=" << op.y << ",dy=" << op.dy << ",dx=" << op.dx
     << ",dmeans=" << op.dmeans;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
