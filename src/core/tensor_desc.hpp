// The legacy tensor and filter descriptors behind cudnnTensorDescriptor_t and
// cudnnFilterDescriptor_t, and their translation into graph tensors.
#pragma once

#include <cudnn_graph.h>

#include <array>
#include <cstdint>

#include "graph/tensor.hpp"

struct cudnnTensorStruct {
  static constexpr uint32_t kAlive = 0x54454e53;  // "TENS"
  uint32_t magic = kAlive;
  bool is_set = false;  // false until a Set* call succeeds
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;  // as given (Nd calls without a format: NCHW)
  int nb_dims = 0;
  std::array<int, CUDNN_DIM_MAX> dims{};
  // Strides as cuDNN reports them: in elements of dtype; for vector types
  // (INT8x4, ...) the C stride steps over whole vectors of `vect_count` lanes.
  std::array<int, CUDNN_DIM_MAX> strides{};
  int vect_count = 1;  // lanes per element (4 or 32 for vector types)
  int vect_dim = 1;    // the vectorised dimension (C)
};

struct cudnnFilterStruct {
  static constexpr uint32_t kAlive = 0x46494c54;  // "FILT"
  uint32_t magic = kAlive;
  bool is_set = false;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;  // NCHW = KCRS, NHWC = KRSC
  int nb_dims = 0;
  std::array<int, CUDNN_DIM_MAX> dims{};     // K, C, spatial...
  std::array<int, CUDNN_DIM_MAX> strides{};  // derived from the format, packed
  int vect_count = 1;
};

namespace fdnn {

// Throws BAD_PARAM unless d is a live, set descriptor; `name` is the
// argument name for the message ("xDesc").
const cudnnTensorStruct &checked_tensor(const cudnnTensorStruct *d, const char *name);
const cudnnFilterStruct &checked_filter(const cudnnFilterStruct *d, const char *name);

// A descriptor as a graph tensor of scalar lanes. A vector type's lanes
// become an extra innermost dimension: INT8x4 [N,C,H,W] becomes INT8
// [N,C/4,H,W,4]. Use split_vector_dim() on the other tensors of the same op
// so that all of them have the same logical dims.
graph::Tensor to_graph_tensor(const cudnnTensorStruct &d);

// Splits dimension `dim` of a non-vector tensor into (dims[dim]/v at `dim`,
// v appended innermost), matching to_graph_tensor's view of a vector tensor.
void split_vector_dim(graph::Tensor &t, int dim, int v);

}  // namespace fdnn
