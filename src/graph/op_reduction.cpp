#include "graph/op_reduction.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const ReductionOp &r, bool with_values) {
  os << "red(mode=" << r.mode << ",ct=" << r.compute_type << ",nan=" << r.nan_propagation << ",x=" << r.x
     << ",y=" << r.y << ",idx=" << r.indices;
  describe_blend(os, r.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
