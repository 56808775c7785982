// A tensor of the internal operation model. The legacy descriptors and the
// backend API's CUDNN_BACKEND_TENSOR_DESCRIPTOR both translate to this.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fdnn::graph {

using Uid = int64_t;
constexpr Uid kNoTensor = -1;

struct Tensor {
  Uid uid = kNoTensor;
  // Scalar lane type (vector types such as INT8x4 are expanded into an extra
  // innermost dimension of extent 4 by whoever builds the tensor).
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims;     // logical extents, outermost first
  // In elements. Legacy descriptors accept negative and zero strides, so
  // engines must use signed offset arithmetic (span() assumes non-negative).
  std::vector<int64_t> strides;
  bool is_virtual = false;       // produced and consumed inside one graph only
  // Pass-by-value scalar (backend API CUDNN_ATTR_TENSOR_IS_BY_VALUE, or the
  // constant of cudnnSetTensor): its value travels with the graph, not in the
  // variant pack.
  bool by_value = false;
  double value = 0.0;
  // A view: this tensor has no storage of its own but reads the memory of
  // tensor `view_of` (same data type) through its own dims and strides. The
  // backend's RESHAPE makes these; the graph resolves the view's pointer (or
  // workspace offset) from the viewed tensor's, and orders ops by it.
  Uid view_of = kNoTensor;

  bool is_view() const { return view_of != kNoTensor; }
  int rank() const { return static_cast<int>(dims.size()); }
  int64_t element_count() const;
  // Largest element offset + 1: the number of elements the strides can reach.
  int64_t span() const;
  // True when the tensor occupies exactly element_count() contiguous elements
  // in row-major order of dims (no gaps, no overlaps).
  bool is_packed_row_major() const;
  // Human-readable "f32:2x3x4:12,4,1"; used in messages and verbose lines.
  std::string to_string() const;
};

}  // namespace fdnn::graph
