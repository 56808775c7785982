// Legacy tensor and filter descriptors as graph tensors for the tensor
// operations (cudnnAddTensor, cudnnOpTensor, cudnnTransformTensor, ...).
//
// Every operand of one operation must be seen over the same logical
// dimensions. A vector type (INT8x4, UINT8x4, INT8x32) packs v channels into
// one element, so channel c lives at element c / v, lane c % v. When any
// operand has lanes, the channel dimension of every operand is split the
// same way: C becomes C / V (V the largest lane count) plus innermost lane
// dimensions (V, or 8 x 4 when INT8x4 meets INT8x32), and each operand gets
// the strides that address its own layout. A scalar NCHW tensor and an
// NCHW_VECT_C tensor can thus be copied into each other element by element.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor_desc.hpp"
#include "graph/tensor.hpp"

namespace fdnn::api {

// One operand in scalar-lane terms: logical dims (C counts channels, not
// vectors) and how channels map to memory.
struct LaneLayout {
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;  // the scalar lane type
  int lanes = 1;                             // channels per element (1, 4, 32)
  std::vector<int64_t> dims;                 // logical, C in channels
  std::vector<int64_t> strides;              // in lanes; strides[1] steps one element (v channels)
};

LaneLayout lane_layout(const cudnnTensorStruct &d);
LaneLayout lane_layout(const cudnnFilterStruct &d);

// Graph tensors of several operands over common dimensions (see the file
// comment). Dimensions of extent 1 broadcast. Throws BAD_PARAM when a C that
// is split is not a multiple of the lane count.
std::vector<graph::Tensor> common_views(const std::vector<LaneLayout> &operands);
// The same for a fixed list (usable inside FDNN_GUARDED, where braced lists
// with commas would split the macro argument).
template <class... L>
std::vector<graph::Tensor> views_of(const L &...operands) {
  return common_views(std::vector<LaneLayout>{operands...});
}

// Shifts the view of an operand so that it starts at logical position
// `start` (per dimension of LaneLayout::dims) and spans `extent`; returns
// the element offset (in lanes) the data pointer must move by. Used by
// padded transforms. Channel starts must be multiples of the lane count.
int64_t sub_view(LaneLayout &l, const std::vector<int64_t> &start, const std::vector<int64_t> &extent);

// Packed row-major strides for dims.
std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims);

}  // namespace fdnn::api
