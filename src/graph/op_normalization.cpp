#include "graph/op_normalization.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const NormalizationOp &op, bool with_values) {
  os << "normalization(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
