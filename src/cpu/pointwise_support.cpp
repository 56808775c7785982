#include "cpu/pointwise_support.hpp"

#include <limits>
#include <variant>

#include "core/error.hpp"

namespace fdnn::cpu {

PointwiseOperands pointwise_operands(const graph::Graph &g) {
  const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
  PointwiseOperands r;
  auto add = [&](graph::Uid uid) {
    const graph::Tensor &t = g.tensor(uid);
    r.uid[r.count] = uid;
    r.dtype[r.count] = t.dtype;
    r.by_value[r.count] = t.by_value;
    ++r.count;
  };
  add(op.y);
  for (int j = 0; j < pw::arity(op.mode); ++j) add(pointwise_input(op, j));
  return r;
}

std::vector<int64_t> broadcast_strides(const graph::Tensor &t, const graph::Tensor &y) {
  std::vector<int64_t> s(y.dims.size(), 0);
  if (t.by_value) return s;
  for (size_t d = 0; d < y.dims.size(); ++d) s[d] = t.dims[d] == 1 ? 0 : t.strides[d];
  return s;
}

}  // namespace fdnn::cpu
