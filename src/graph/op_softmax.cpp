#include "graph/op_softmax.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const SoftmaxOp &op, bool with_values) {
  os << "softmax(" << (op.backward ? "bwd" : "fwd") << ",algo=" << op.algorithm << ",ct=" << op.compute_type
     << ",axes=";
  for (size_t i = 0; i < op.axes.size(); ++i) os << (i ? "/" : "") << op.axes[i];
  os << ",x=" << op.x << ",y=" << op.y << ",dy=" << op.dy << ",dx=" << op.dx;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
