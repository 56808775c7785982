#include "core/softmax_support.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

std::vector<graph::Uid> softmax_operands(const graph::SoftmaxOp &op) {
  if (op.backward) return {op.y, op.dy, op.dx};
  return {op.x, op.y};
}

Support check_single_softmax(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::SoftmaxOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a softmax operation");
  if (op->algorithm != CUDNN_SOFTMAX_FAST && op->algorithm != CUDNN_SOFTMAX_ACCURATE &&
      op->algorithm != CUDNN_SOFTMAX_LOG)
    return Support::no(cat("softmax algorithm ", static_cast<int>(op->algorithm), " is unknown"));
  const graph::Tensor *first = nullptr;
  for (graph::Uid uid : softmax_operands(*op)) {
    const graph::Tensor *t = g.find_tensor(uid);
    if (t == nullptr) return Support::no(cat("softmax tensor uid ", uid, " is missing"));
    if (t->by_value) return Support::no("softmax tensors cannot be by-value scalars");
    if (t->strides.size() != t->dims.size()) return Support::no("strides do not match dims");
    if (first == nullptr) first = t;
    else if (t->dims != first->dims) return Support::no("softmax tensors differ in dims");
  }
  if (op->axes.empty()) return Support::no("softmax has no reduction axes");
  for (size_t i = 0; i < op->axes.size(); ++i) {
    if (op->axes[i] < 0 || op->axes[i] >= first->rank()) return Support::no(cat("axis ", op->axes[i], " is outside the rank"));
    if (i > 0 && op->axes[i] <= op->axes[i - 1]) return Support::no("axes must be ascending and distinct");
  }
  if (has_overlapping_elements(g.tensor(op->output()))) return Support::no("output has overlapping elements");
  return Support::yes();
}

bool SoftmaxGeometry::contiguous_rows() const {
  if (red_dims.size() > 1) return false;
  if (red_dims.empty()) return true;
  for (int o = 0; o < operands; ++o)
    if (red_strides[o][0] != 1) return false;
  return true;
}

namespace {

// Drops extent-1 dims and merges dim d into d-1 where every operand has
// stride[d-1] == dims[d] * stride[d].
void simplify(std::vector<int64_t> &dims, std::vector<std::vector<int64_t>> &strides) {
  std::vector<int64_t> nd;
  std::vector<std::vector<int64_t>> ns(strides.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    bool merge = !nd.empty();
    for (size_t o = 0; o < strides.size() && merge; ++o) merge = ns[o].back() == dims[d] * strides[o][d];
    if (merge) {
      nd.back() *= dims[d];
      for (size_t o = 0; o < strides.size(); ++o) ns[o].back() = strides[o][d];
    } else {
      nd.push_back(dims[d]);
      for (size_t o = 0; o < strides.size(); ++o) ns[o].push_back(strides[o][d]);
    }
  }
  dims = nd;
  strides = ns;
}

}  // namespace

SoftmaxGeometry softmax_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
  SoftmaxGeometry G;
  G.uid = softmax_operands(op);
  G.operands = static_cast<int>(G.uid.size());
  G.kept_strides.resize(G.operands);
  G.red_strides.resize(G.operands);
  const graph::Tensor &t0 = g.tensor(G.uid[0]);
  for (int o = 0; o < G.operands; ++o) G.dtype.push_back(g.tensor(G.uid[o]).dtype);
  for (int d = 0; d < t0.rank(); ++d) {
    const bool reduced = std::find(op.axes.begin(), op.axes.end(), d) != op.axes.end();
    (reduced ? G.red_dims : G.kept_dims).push_back(t0.dims[d]);
    for (int o = 0; o < G.operands; ++o)
      (reduced ? G.red_strides : G.kept_strides)[o].push_back(g.tensor(G.uid[o]).strides[d]);
  }
  simplify(G.kept_dims, G.kept_strides);
  simplify(G.red_dims, G.red_strides);
  for (int64_t d : G.kept_dims) G.rows *= d;
  for (int64_t d : G.red_dims) G.row_len *= d;
  return G;
}

bool softmax_computes_in_double(const graph::Graph &g, const graph::SoftmaxOp &op) {
  if (op.compute_type == CUDNN_DATA_DOUBLE) return true;
  for (graph::Uid uid : softmax_operands(op))
    if (g.tensor(uid).dtype == CUDNN_DATA_DOUBLE) return true;
  return false;
}

}  // namespace fdnn
