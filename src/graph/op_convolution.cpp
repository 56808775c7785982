#include "graph/op_convolution.hpp"

#include <ostream>

#include "graph/structural_key.hpp"

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

void append_structural_key(std::string &key, const ConvolutionOp &op) {
  key += "\x01conv";
  key_put(key, {static_cast<int64_t>(op.direction), static_cast<int64_t>(op.mode), static_cast<int64_t>(op.compute_type),
                static_cast<int64_t>(op.math_type), static_cast<int64_t>(op.algo), op.x, op.w, op.y,
                static_cast<int64_t>(op.blend.beta == 0.0)});
  for (const std::vector<int64_t> *list : {&op.pre_padding, &op.post_padding, &op.stride, &op.dilation}) {
    key_put(key, static_cast<int64_t>(list->size()));
    for (int64_t v : *list) key_put(key, v);
  }
}

}  // namespace fdnn::graph
