// The iteration space of an element-wise operation over several strided
// operands, simplified for fast loops: extent-1 dimensions dropped, the
// dimensions ordered by the first operand's strides (largest outermost) and
// neighbouring dimensions merged where every operand steps through them as
// through one dimension. NCHW tensors that are all packed collapse to one
// dimension; an NCHW -> NHWC copy becomes [N, H*W, C] with x strides
// [CHW, 1, HW], which the engines then tile.
#pragma once

#include <cstdint>
#include <vector>

namespace fdnn::cpu {

constexpr int kMaxNestRank = 16;
constexpr int kMaxNestOperands = 4;

struct LoopNest {
  int rank = 0;
  int operands = 0;
  int64_t dims[kMaxNestRank] = {};
  int64_t strides[kMaxNestOperands][kMaxNestRank] = {};  // in elements

  int64_t element_count() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= dims[d];
    return n;
  }
};

// dims: the common logical extents; strides[k]: operand k's strides (0 on
// broadcast dimensions). Operand 0 decides the order. Returns false when the
// rank is beyond kMaxNestRank after dropping extent-1 dimensions.
bool make_loop_nest(const std::vector<int64_t> &dims, const std::vector<std::vector<int64_t>> &strides,
                    LoopNest &out);

// Walks the multi-index of dimensions [0, count) of a nest in row-major
// order starting at a linear position, keeping each operand's element
// offset up to date. Used to visit the "outer" dimensions of a nest.
class OuterCursor {
 public:
  OuterCursor(const LoopNest &nest, int count, int64_t linear);
  const int64_t *offsets() const { return offset_; }
  int64_t offset(int k) const { return offset_[k]; }
  void next();

 private:
  const LoopNest &nest_;
  int count_;
  int64_t index_[kMaxNestRank] = {};
  int64_t offset_[kMaxNestOperands] = {};
};

}  // namespace fdnn::cpu
