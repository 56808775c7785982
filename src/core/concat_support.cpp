#include "core/concat_support.hpp"

#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

std::vector<const graph::Tensor *> concat_inputs(const graph::Graph &g, const graph::ConcatOp &op) {
  std::vector<const graph::Tensor *> v;
  for (graph::Uid u : op.inputs) v.push_back(&g.tensor(u));
  return v;
}

Support check_single_concat(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::ConcatOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a concat operation");
  const graph::Tensor *y = g.find_tensor(op->y);
  if (y == nullptr || y->by_value) return Support::no("y is missing or by-value");
  if (y->strides.size() != y->dims.size()) return Support::no("strides do not match dims");
  if (op->axis < 0 || op->axis >= y->rank()) return Support::no(cat("axis ", op->axis, " is outside y's rank"));
  if (has_overlapping_elements(*y)) return Support::no("y has overlapping elements");
  int64_t along = 0;
  for (graph::Uid u : op->inputs) {
    const graph::Tensor *t = g.find_tensor(u);
    if (t == nullptr || t->by_value) return Support::no(cat("input ", u, " is missing or by-value"));
    if (t->rank() != y->rank() || t->strides.size() != t->dims.size())
      return Support::no(cat("input ", u, " does not have y's rank"));
    for (int d = 0; d < y->rank(); ++d)
      if (d != op->axis && t->dims[d] != y->dims[d])
        return Support::no(cat("input ", u, " dimension ", d, " differs from y's"));
    along += t->dims[static_cast<size_t>(op->axis)];
  }
  if (along != y->dims[static_cast<size_t>(op->axis)]) return Support::no("the inputs do not fill y's axis");
  return Support::yes();
}

}  // namespace fdnn
