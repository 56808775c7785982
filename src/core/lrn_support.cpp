#include "core/lrn_support.hpp"

#include <cmath>
#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

std::vector<graph::Uid> lrn_inputs(const graph::LrnOp &op) {
  std::vector<graph::Uid> v{op.x};
  if (op.means != graph::kNoTensor) v.push_back(op.means);
  if (op.backward) v.push_back(op.dy);
  return v;
}

std::vector<graph::Uid> lrn_outputs(const graph::LrnOp &op) {
  if (!op.backward) return {op.y};
  std::vector<graph::Uid> v{op.dx};
  if (op.dmeans != graph::kNoTensor) v.push_back(op.dmeans);
  return v;
}

double lrn_alpha_over_size(const graph::LrnOp &op, int rank) {
  const int d = op.kind == graph::LrnKind::cross_channel ? 1 : rank - 2;
  return op.alpha / std::pow(static_cast<double>(op.n), d);
}

Support check_single_lrn(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::LrnOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not an LRN operation");
  if (op->n < 1 || op->n > 16) return Support::no(cat("window width ", op->n, " is outside 1..16"));
  if (op->kind == graph::LrnKind::cross_channel && op->means != graph::kNoTensor)
    return Support::no("cross-channel LRN takes no means");
  if (op->kind == graph::LrnKind::divisive && op->x != graph::kNoTensor && g.find_tensor(op->x) != nullptr &&
      (g.find_tensor(op->x)->rank() < 3 || g.find_tensor(op->x)->rank() > 5))
    return Support::no("divisive normalization takes 1 to 3 spatial dims");
  if (!op->backward && (op->dx != graph::kNoTensor || op->dy != graph::kNoTensor || op->dmeans != graph::kNoTensor))
    return Support::no("forward LRN takes no dy, dx or dmeans");
  if (op->backward && (op->dx == graph::kNoTensor || op->dy == graph::kNoTensor))
    return Support::no("backward LRN needs dy and dx");
  if (op->backward && op->y != graph::kNoTensor) return Support::no("backward LRN takes no y (it recomputes it)");
  if (!op->backward && op->y == graph::kNoTensor) return Support::no("forward LRN needs y");
  if (op->kind == graph::LrnKind::cross_channel && op->dmeans != graph::kNoTensor)
    return Support::no("cross-channel LRN has no dmeans");
  const graph::Tensor *x = g.find_tensor(op->x);
  if (x == nullptr) return Support::no("x is missing");
  if (x->rank() < 3 || x->rank() > 8) return Support::no(cat("rank ", x->rank(), " is outside 3..8"));
  std::vector<graph::Uid> all = lrn_inputs(*op);
  for (graph::Uid u : lrn_outputs(*op)) all.push_back(u);
  for (graph::Uid u : all) {
    const graph::Tensor *t = g.find_tensor(u);
    if (t == nullptr) return Support::no(cat("tensor ", u, " is missing"));
    if (t->by_value) return Support::no("LRN tensors cannot be by-value scalars");
    if (t->dims != x->dims || t->strides.size() != t->dims.size())
      return Support::no(cat("tensor ", t->to_string(), " does not have x's dims ", x->to_string()));
  }
  for (graph::Uid u : lrn_outputs(*op))
    if (has_overlapping_elements(g.tensor(u))) return Support::no("an output has overlapping elements");
  return Support::yes();
}

bool lrn_computes_in_double(const graph::Graph &g, const graph::LrnOp &op) {
  if (op.compute_type == CUDNN_DATA_DOUBLE) return true;
  for (const graph::Tensor &t : g.tensors())
    if (t.dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

}  // namespace fdnn
