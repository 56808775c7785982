#include "core/matmul_support.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace fdnn {

Support check_single_matmul(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no("not a single operation");
  const auto *op = std::get_if<graph::MatmulOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a matmul");
  const graph::Tensor &a = g.tensor(op->a), &b = g.tensor(op->b), &c = g.tensor(op->c);
  const int r = c.rank();
  if (r < 2 || a.rank() != r || b.rank() != r) return Support::no("a, b and c need the same rank, at least 2");
  if (a.dims[r - 2] != c.dims[r - 2] || b.dims[r - 1] != c.dims[r - 1] || a.dims[r - 1] != b.dims[r - 2])
    return Support::no(cat("shapes do not multiply: a ", a.to_string(), ", b ", b.to_string(), ", c ", c.to_string()));
  for (int i = 0; i < r - 2; ++i)
    if (!batch_extent_divides(a.dims[i], c.dims[i]) || !batch_extent_divides(b.dims[i], c.dims[i]))
      return Support::no(cat("batch dimension ", i, " of a (", a.dims[i], ") or b (", b.dims[i],
                             ") does not divide c's (", c.dims[i], ")"));
  return Support::yes();
}

bool batch_extent_divides(int64_t operand, int64_t c) { return operand >= 1 && c % operand == 0; }

bool matmul_batch_extents_valid(int64_t a, int64_t b, int64_t c) {
  return a >= 1 && b >= 1 && (a % b == 0 || b % a == 0) && c == std::max(a, b);
}

bool matmul_batches_plain(const graph::Graph &g) {
  const auto &op = std::get<graph::MatmulOp>(g.ops().front());
  return matmul_batches_plain(g, op);
}

bool matmul_batches_plain(const graph::Graph &g, const graph::MatmulOp &op) {
  const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b), &c = g.tensor(op.c);
  for (int i = 0; i < c.rank() - 2; ++i)
    if ((a.dims[i] != 1 && a.dims[i] != c.dims[i]) || (b.dims[i] != 1 && b.dims[i] != c.dims[i])) return false;
  return true;
}

MatmulGeometry matmul_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::MatmulOp>(g.ops().front());
  return matmul_geometry(g.tensor(op.a), g.tensor(op.b), g.tensor(op.c));
}

MatmulGeometry matmul_geometry(const graph::Tensor &a, const graph::Tensor &b, const graph::Tensor &c) {
  const int r = c.rank();
  MatmulGeometry geo;
  geo.m = c.dims[r - 2];
  geo.n = c.dims[r - 1];
  geo.k = a.dims[r - 1];
  geo.a_rs = a.strides[r - 2], geo.a_cs = a.strides[r - 1];
  geo.b_rs = b.strides[r - 2], geo.b_cs = b.strides[r - 1];
  geo.c_rs = c.strides[r - 2], geo.c_cs = c.strides[r - 1];
  int64_t batches = 1;
  for (int i = 0; i < r - 2; ++i) batches *= c.dims[i];
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rest = bi, ao = 0, bo = 0, co = 0;
    for (int i = r - 3; i >= 0; --i) {
      const int64_t idx = rest % c.dims[i];
      rest /= c.dims[i];
      // Batch index idx of c reads index idx / (c / operand) of an operand
      // whose extent divides c's (0 for extent 1).
      if (a.dims[i] != 1) ao += idx / (c.dims[i] / a.dims[i]) * a.strides[i];
      if (b.dims[i] != 1) bo += idx / (c.dims[i] / b.dims[i]) * b.strides[i];
      co += idx * c.strides[i];
    }
    geo.a_offsets.push_back(ao);
    geo.b_offsets.push_back(bo);
    geo.c_offsets.push_back(co);
  }
  return geo;
}

}  // namespace fdnn
