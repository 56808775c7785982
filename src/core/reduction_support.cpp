#include "core/reduction_support.hpp"

namespace fdnn {

bool reduction_is_grouped(const graph::Tensor &x, const graph::Tensor &y) {
  for (size_t d = 0; d < x.dims.size() && d < y.dims.size(); ++d)
    if (y.dims[d] != x.dims[d] && y.dims[d] != 1) return true;
  return false;
}

void split_grouped_reduction(graph::Tensor &x, graph::Tensor &y, graph::Tensor *idx) {
  if (!reduction_is_grouped(x, y)) return;
  graph::Tensor nx = x, ny = y;
  nx.dims.clear(), nx.strides.clear(), ny.dims.clear(), ny.strides.clear();
  graph::Tensor ni;
  if (idx) ni = *idx, ni.dims.clear(), ni.strides.clear();
  for (size_t d = 0; d < x.dims.size(); ++d) {
    const int64_t xe = x.dims[d], ye = y.dims[d];
    nx.dims.push_back(ye == xe || ye == 1 ? xe : ye);
    ny.dims.push_back(ye);
    ny.strides.push_back(y.strides[d]);
    if (idx) ni.dims.push_back(ye), ni.strides.push_back(idx->strides[d]);
    if (ye == xe || ye == 1) {
      nx.strides.push_back(x.strides[d]);
      continue;
    }
    // (ye, g): the group index within a y position varies fastest.
    const int64_t g = xe / ye;
    nx.strides.push_back(x.strides[d] * g);
    nx.dims.push_back(g);
    nx.strides.push_back(x.strides[d]);
    ny.dims.push_back(1);
    ny.strides.push_back(y.strides[d]);
    if (idx) ni.dims.push_back(1), ni.strides.push_back(idx->strides[d]);
  }
  x = nx, y = ny;
  if (idx) *idx = ni;
}

}  // namespace fdnn
