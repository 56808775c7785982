#include "graph/op_spatial_transform.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const SpatialTransformOp &op, bool with_values) {
  os << "spatial_transform(";
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
