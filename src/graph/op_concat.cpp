#include "graph/op_concat.hpp"

#include <ostream>

namespace fdnn::graph {

int64_t concat_view_offset(const ConcatOp &op, const std::vector<const Tensor *> &inputs, const Tensor &y, size_t k) {
  int64_t start = 0;
  for (size_t j = 0; j < k; ++j) start += inputs[j]->dims[static_cast<size_t>(op.axis)];
  return start * y.strides[static_cast<size_t>(op.axis)];
}

Tensor concat_view(const Tensor &input, const Tensor &y) {
  Tensor v = y;
  v.dims = input.dims;
  v.is_virtual = false;
  v.by_value = false;
  return v;
}

void describe(std::ostream &os, const ConcatOp &op, bool) {
  os << "concat(axis=" << op.axis << ",in=";
  for (size_t i = 0; i < op.inputs.size(); ++i) os << (i ? ":" : "") << op.inputs[i];
  os << ",y=" << op.y << ",inplace=" << op.in_place_index << ')';
}

}  // namespace fdnn::graph
