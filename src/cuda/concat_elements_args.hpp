// Arguments of the element-wise concatenation kernel (cuda.concat.elements
// <-> concat_elements.cu): one input copied into its slice of y.
#pragma once

#include <cstdint>

namespace fdnn::cuda {

constexpr int kConcatMaxDims = 12;

struct ConcatCopyArgs {
  int rank = 0;
  int64_t dims[kConcatMaxDims] = {};      // the input's
  int64_t x_strides[kConcatMaxDims] = {};
  int64_t y_strides[kConcatMaxDims] = {};
  int64_t count = 0;     // the input's elements
  int64_t y_offset = 0;  // elements: where the input's slice of y starts
  int x_type = 0, y_type = 0;  // cudnnDataType_t, any type of cuda/element_access.cuh
  const void *x = nullptr;
  void *y = nullptr;
};

// Enqueues the copy of a.x into its slice of a.y on `stream`.
void launch_concat_copy(const ConcatCopyArgs &a, void *stream);

}  // namespace fdnn::cuda
