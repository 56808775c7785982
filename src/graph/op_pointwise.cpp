#include "graph/op_pointwise.hpp"

#include <ostream>

namespace fdnn::graph {

void describe(std::ostream &os, const PointwiseOp &p, bool with_values) {
  os << "pw(mode=" << p.mode << ",ct=" << p.compute_type << ",nan=" << p.nan_propagation << ",x=" << p.x
     << ",b=" << p.b << ",t=" << p.t << ",y=" << p.y << ",axis=" << p.axis;
  if (p.bwd_from_output) os << ",bwd_from_y";
  if (with_values)
    os << ",a1=" << p.alpha1 << ",a2=" << p.alpha2 << ",clip=" << p.relu_lower_clip << '/' << p.relu_upper_clip
       << '/' << p.relu_lower_clip_slope << ",elu=" << p.elu_alpha << ",sp=" << p.softplus_beta
       << ",sw=" << p.swish_beta;
  describe_blend(os, p.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
