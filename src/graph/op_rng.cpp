#include "graph/op_rng.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const RngOp &op, bool with_values) {
  os << "rng(dist=" << op.distribution << ",y=" << op.y << ",seed=" << op.seed << ",offset=" << op.offset;
  if (with_values)
    os << ",seed_value=" << op.seed_value << ",p=" << op.probability << ",min=" << op.uniform_min
       << ",max=" << op.uniform_max << ",mean=" << op.normal_mean << ",sd=" << op.normal_sd;
  os << ')';
}

}  // namespace fdnn::graph
