#include "graph/op_convolution.hpp"

#include <ostream>

namespace fdnn::graph {

namespace {

const char *direction_name(ConvDirection d) {
  switch (d) {
    case ConvDirection::forward: return "fwd";
    case ConvDirection::backward_data: return "bwd_data";
    case ConvDirection::backward_filter: return "bwd_filter";
  }
  return "?";
}

void list(std::ostream &os, const char *name, const std::vector<int64_t> &v) {
  os << ',' << name << '=';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "x" : "") << v[i];
}

}  // namespace

void describe(std::ostream &os, const ConvolutionOp &op, bool with_values) {
  os << "conv(" << direction_name(op.direction) << ",mode=" << op.mode << ",ct=" << op.compute_type
     << ",math=" << op.math_type << ",algo=" << op.algo << ",x=" << op.x << ",w=" << op.w << ",y=" << op.y;
  list(os, "pre", op.pre_padding);
  list(os, "post", op.post_padding);
  list(os, "stride", op.stride);
  list(os, "dil", op.dilation);
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
