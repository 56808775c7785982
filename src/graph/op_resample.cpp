#include "graph/op_resample.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const ResampleOp &op, bool with_values) {
  os << "resample(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
