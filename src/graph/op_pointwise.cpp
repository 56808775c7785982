#include "graph/op_pointwise.hpp"

#include <ostream>

#include "graph/structural_key.hpp"

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

void append_structural_key(std::string &key, const PointwiseOp &p) {
  key += "\x01pw";
  key_put(key, {static_cast<int64_t>(p.mode), static_cast<int64_t>(p.compute_type),
                static_cast<int64_t>(p.nan_propagation), p.x, p.b, p.t, p.y, p.axis,
                static_cast<int64_t>(p.bwd_from_output), static_cast<int64_t>(p.blend.beta == 0.0)});
}

}  // namespace fdnn::graph
