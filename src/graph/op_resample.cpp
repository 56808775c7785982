#include "graph/op_resample.hpp"

#include <ostream>

namespace fdnn::graph {

namespace {

void describe_list(std::ostream &os, const char *name, const std::vector<int64_t> &v) {
  os << ',' << name << '=';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "x" : "") << v[i];
}

void describe_ratios(std::ostream &os, const char *name, const std::vector<ResampleOp::Ratio> &v) {
  if (v.empty()) return;
  os << ',' << name << '=';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "x" : "") << v[i].num << '/' << v[i].den;
}

}  // namespace

void describe(std::ostream &os, const ResampleOp &op, bool with_values) {
  os << "resample(mode=" << op.mode << ",pad=" << op.padding_mode << ",nan=" << op.nan_propagation
     << ",ct=" << op.compute_type << (op.backward ? ",bwd" : ",fwd") << (op.deterministic ? ",det" : "");
  describe_list(os, "win", op.window);
  describe_list(os, "pre", op.pre_padding);
  describe_list(os, "post", op.post_padding);
  describe_list(os, "str", op.strides);
  // The exact geometry (it differs from the integer one when fractional).
  describe_ratios(os, "winr", op.window_ratio);
  describe_ratios(os, "prer", op.pre_padding_ratio);
  describe_ratios(os, "postr", op.post_padding_ratio);
  describe_ratios(os, "strr", op.strides_ratio);
  os << ",x=" << op.x << ",y=" << op.y << ",dy=" << op.dy << ",dx=" << op.dx << ",idx=" << op.index;
  describe_blend(os, op.blend, with_values);
  os << ')';
}

}  // namespace fdnn::graph
