#include "cuda/strided_layout.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace fdnn::cuda {

int64_t StridedLayout::element_count() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= extent[i];
  return n;
}

std::string StridedLayout::to_string() const {
  std::ostringstream os;
  for (int i = 0; i < rank; ++i) {
    os << (i ? " " : "") << extent[i] << ":";
    for (int k = 0; k < operands; ++k) os << (k ? "," : "") << stride[k][i];
  }
  return os.str();
}

std::vector<int64_t> broadcast_strides(const std::vector<int64_t> &out_dims, const std::vector<int64_t> &tensor_dims,
                                       const std::vector<int64_t> &tensor_strides) {
  std::vector<int64_t> s(out_dims.size(), 0);
  for (size_t i = 0; i < out_dims.size(); ++i) s[i] = tensor_dims[i] == 1 ? 0 : tensor_strides[i];
  return s;
}

StridedLayout make_layout(const std::vector<int64_t> &dims, const std::vector<std::vector<int64_t>> &strides,
                          bool reorder) {
  StridedLayout l;
  l.operands = static_cast<int>(strides.size());
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i)
    if (dims[i] != 1) order.push_back(i);
  if (reorder) {
    // Outermost = largest output stride; ties broken by the inputs' strides so
    // that the merge below finds contiguous runs.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      for (const auto &s : strides)
        if (s[a] != s[b]) return s[a] > s[b];
      return false;
    });
  }
  for (int d : order) {
    const int r = l.rank;
    // Merge d into the previous (outer) dim when, for every operand, the outer
    // stride equals inner stride * inner extent.
    if (r > 0) {
      bool mergeable = true;
      for (int k = 0; k < l.operands && mergeable; ++k)
        mergeable = l.stride[k][r - 1] == strides[k][d] * dims[d];
      if (mergeable) {
        l.extent[r - 1] *= dims[d];
        for (int k = 0; k < l.operands; ++k) l.stride[k][r - 1] = strides[k][d];
        continue;
      }
    }
    l.extent[r] = dims[d];
    for (int k = 0; k < l.operands; ++k) l.stride[k][r] = strides[k][d];
    ++l.rank;
  }
  if (l.rank == 0) {  // a single element
    l.rank = 1;
    l.extent[0] = 1;
  }
  return l;
}

}  // namespace fdnn::cuda
