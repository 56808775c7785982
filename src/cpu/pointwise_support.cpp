#include "cpu/pointwise_support.hpp"

#include <limits>
#include <variant>

#include "core/error.hpp"

namespace fdnn::cpu {

namespace {

graph::Uid input_uid(const graph::PointwiseOp &op, int j) { return j == 0 ? op.x : (j == 1 ? op.b : op.t); }
const char *input_name(int j) { return j == 0 ? "x" : (j == 1 ? "b" : "t"); }

}  // namespace

Support check_single_pointwise(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::PointwiseOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a pointwise operation");
  const int arity = pw::arity(op->mode);
  if (arity < 0) return Support::no(cat("pointwise mode ", static_cast<int>(op->mode), " is not implemented"));
  const graph::Tensor *y = g.find_tensor(op->y);
  if (y == nullptr) return Support::no("y is missing");
  if (y->by_value) return Support::no("y is a by-value scalar");
  if (y->strides.size() != y->dims.size()) return Support::no("y has as many strides as dims");
  for (int j = 0; j < arity; ++j) {
    const graph::Tensor *t = g.find_tensor(input_uid(*op, j));
    if (t == nullptr) return Support::no(cat("input ", input_name(j), " is missing"));
    if (t->by_value) continue;
    if (t->dims.size() != y->dims.size() || t->strides.size() != t->dims.size())
      return Support::no(cat("input ", input_name(j), " has rank ", t->dims.size(), ", y has ", y->dims.size()));
    for (size_t d = 0; d < y->dims.size(); ++d)
      if (t->dims[d] != y->dims[d] && t->dims[d] != 1)
        return Support::no(cat("input ", input_name(j), " dim ", d, " = ", t->dims[d], " does not broadcast to ",
                               y->dims[d]));
  }
  return Support::yes();
}

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
  for (int j = 0; j < pw::arity(op.mode); ++j) add(input_uid(op, j));
  return r;
}

std::vector<int64_t> broadcast_strides(const graph::Tensor &t, const graph::Tensor &y) {
  std::vector<int64_t> s(y.dims.size(), 0);
  if (t.by_value) return s;
  for (size_t d = 0; d < y.dims.size(); ++d) s[d] = t.dims[d] == 1 ? 0 : t.strides[d];
  return s;
}

bool has_overlapping_output(const graph::Tensor &y) {
  for (size_t d = 0; d < y.dims.size(); ++d)
    if (y.dims[d] > 1 && y.strides[d] == 0) return true;
  return false;
}

bool needs_double_compute(const graph::Graph &g, const graph::PointwiseOp &op) {
  switch (op.compute_type) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT64: return true;
    default: break;
  }
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE || t.dtype == CUDNN_DATA_INT64) return true;
  return false;
}

}  // namespace fdnn::cpu
