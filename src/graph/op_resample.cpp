#include "graph/op_resample.hpp"

#include <ostream>

namespace fdnn::graph {

namespace {

void describe_list(std::ostream &os, const char *name, const std::vector<int64_t> &v) {
  os << ',' << name << '=';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "x" : "") << v[i];
}

}  // namespace

void describe(std::ostream &os, const ResampleOp &op, bool with_values) {
  os << "resample(mode=" << op.mode << ",pad=" << op.padding_mode << ",nan=" << op.nan_propagation
     << ",ct=" << op.compute_type << (op.backward ? ",bwd" : ",fwd") << (op.deterministic ? ",det" : "");
  describe_list(os, "win", op.window);
  describe_list(os, "pre", op.pre_padding);
  describe_list(os, "post", op.post_padding);
  describe_list(os, "str", op.strides);
  os << ",x=" << op.x << ",y=" << op.y << ",dy=" << op.dy << ",dx=" << op.dx << ",idx=" << op.index;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
