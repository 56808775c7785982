#include "core/matmul_support.hpp"

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
    if ((a.dims[i] != c.dims[i] && a.dims[i] != 1) || (b.dims[i] != c.dims[i] && b.dims[i] != 1))
      return Support::no(cat("batch dimension ", i, " of a or b neither matches c nor broadcasts"));
  return Support::yes();
}

MatmulGeometry matmul_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::MatmulOp>(g.ops().front());
  const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b), &c = g.tensor(op.c);
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
      if (a.dims[i] != 1) ao += idx * a.strides[i];
      if (b.dims[i] != 1) bo += idx * b.strides[i];
      co += idx * c.strides[i];
    }
    geo.a_offsets.push_back(ao);
    geo.b_offsets.push_back(bo);
    geo.c_offsets.push_back(co);
  }
  return geo;
}

}  // namespace fdnn
