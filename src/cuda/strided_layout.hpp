// The iteration space of an element-wise kernel: the output's dims with one
// stride per operand (an input's broadcast dims get stride 0), with dims of
// extent 1 dropped, optionally reordered so the output is walked in memory
// order, and adjacent dims merged wherever every operand allows it. A packed
// same-layout operation collapses to one dim; NCHW + per-channel bias to three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fdnn::cuda {

constexpr int kMaxRank = 8;      // CUDNN_DIM_MAX
constexpr int kMaxOperands = 4;  // y, x, b, t

struct StridedLayout {
  int rank = 0;      // >= 1 after make_layout (a scalar is one dim of extent 1)
  int operands = 0;  // operand 0 is the output
  int64_t extent[kMaxRank] = {};
  int64_t stride[kMaxOperands][kMaxRank] = {};

  int64_t element_count() const;
  std::string to_string() const;
};

// dims: the output's logical dims; strides[k]: operand k's strides over those
// dims (0 where the operand broadcasts). With reorder, dims are sorted by
// decreasing output stride first (harmless for element-wise work, where the
// visiting order does not matter).
StridedLayout make_layout(const std::vector<int64_t> &dims, const std::vector<std::vector<int64_t>> &strides,
                          bool reorder);

// Strides of `tensor_dims`/`tensor_strides` seen over `out_dims`: the stride,
// or 0 where the tensor's extent is 1 (broadcast). Ranks must match.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t> &out_dims, const std::vector<int64_t> &tensor_dims,
                                       const std::vector<int64_t> &tensor_strides);

}  // namespace fdnn::cuda
