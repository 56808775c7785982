// Concatenation (the backend API's OPERATION_CONCAT): y is the inputs laid
// one after the other along `axis`; every other dimension is the same in all
// of them. Input k lands in the sub-view of y that starts at the sum of the
// previous inputs' extents along the axis (y's strides, a pointer offset).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "graph/tensor.hpp"

namespace fdnn::graph {

struct ConcatOp {
  static constexpr const char *kKind = "concat";
  int64_t axis = 0;
  std::vector<Uid> inputs;
  Uid y = kNoTensor;
  // The input that already lives in its sub-view of y (cuDNN's
  // INPLACE_INDEX), -1 when none: engines need not copy it.
  int64_t in_place_index = -1;
};

// Elements of y before input k's sub-view starts along the axis, as an
// element offset with y's strides.
int64_t concat_view_offset(const ConcatOp &op, const std::vector<const Tensor *> &inputs, const Tensor &y, size_t k);

// The sub-view of y that input k fills: input k's dims with y's strides
// (uid and type of y; the caller adds the pointer offset).
Tensor concat_view(const Tensor &input, const Tensor &y);

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const ConcatOp &op, bool with_values);

}  // namespace fdnn::graph
