#include "graph/op_spatial_transform.hpp"

#include <ostream>

namespace fdnn::graph {

namespace {
const char *stage_name(SpatialTransformOp::Stage s) {
  switch (s) {
    case SpatialTransformOp::Stage::grid_forward: return "grid_fwd";
    case SpatialTransformOp::Stage::grid_backward: return "grid_bwd";
    case SpatialTransformOp::Stage::sampler_forward: return "sampler_fwd";
    case SpatialTransformOp::Stage::sampler_backward: return "sampler_bwd";
  }
  return "?";
}
}  // namespace

void describe(std::ostream &os, const SpatialTransformOp &op, bool with_values) {
  os << "spatial_transform(" << stage_name(op.stage) << ",sampler=" << op.sampler << ",theta=" << op.theta
     << ",grid=" << op.grid << ",x=" << op.x << ",y=" << op.y << ",dy=" << op.dy << ",dx=" << op.dx
     << ",dgrid=" << op.dgrid;
  describe_blend(os, op.blend, with_values);
  os << ",grid";
  describe_blend(os, op.grid_blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
