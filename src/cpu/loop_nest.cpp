#include "cpu/loop_nest.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace fdnn::cpu {

bool make_loop_nest(const std::vector<int64_t> &dims, const std::vector<std::vector<int64_t>> &strides,
                    LoopNest &out) {
  const int nops = static_cast<int>(strides.size());
  out = LoopNest{};
  out.operands = nops;

  std::vector<int> keep;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d)
    if (dims[d] != 1) keep.push_back(d);
  if (static_cast<int>(keep.size()) > kMaxNestRank) return false;

  // Outermost first: larger |stride| of operand 0, then of the others; the
  // stable sort keeps the logical order among equals.
  std::stable_sort(keep.begin(), keep.end(), [&](int a, int b) {
    for (int k = 0; k < nops; ++k) {
      int64_t sa = std::llabs(strides[k][a]), sb = std::llabs(strides[k][b]);
      if (sa != sb) return sa > sb;
    }
    return false;
  });

  for (int d : keep) {
    const int r = out.rank;
    // Merge into the previous (outer) dimension when every operand's outer
    // stride equals its inner stride times the inner extent.
    if (r > 0) {
      bool mergeable = true;
      for (int k = 0; k < nops && mergeable; ++k)
        mergeable = out.strides[k][r - 1] == strides[k][d] * dims[d];
      if (mergeable) {
        out.dims[r - 1] *= dims[d];
        for (int k = 0; k < nops; ++k) out.strides[k][r - 1] = strides[k][d];
        continue;
      }
    }
    out.dims[r] = dims[d];
    for (int k = 0; k < nops; ++k) out.strides[k][r] = strides[k][d];
    ++out.rank;
  }
  return true;
}

OuterCursor::OuterCursor(const LoopNest &nest, int count, int64_t linear) : nest_(nest), count_(count) {
  for (int d = count - 1; d >= 0; --d) {
    index_[d] = linear % nest.dims[d];
    linear /= nest.dims[d];
  }
  for (int k = 0; k < nest.operands; ++k) {
    int64_t off = 0;
    for (int d = 0; d < count; ++d) off += index_[d] * nest.strides[k][d];
    offset_[k] = off;
  }
}

void OuterCursor::next() {
  for (int d = count_ - 1; d >= 0; --d) {
    if (++index_[d] < nest_.dims[d]) {
      for (int k = 0; k < nest_.operands; ++k) offset_[k] += nest_.strides[k][d];
      return;
    }
    index_[d] = 0;
    for (int k = 0; k < nest_.operands; ++k) offset_[k] -= (nest_.dims[d] - 1) * nest_.strides[k][d];
  }
}

}  // namespace fdnn::cpu
