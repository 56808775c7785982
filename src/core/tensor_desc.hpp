// The legacy tensor and filter descriptors behind cudnnTensorDescriptor_t and
// cudnnFilterDescriptor_t, their cuDNN-exact setters, and their translation
// into graph tensors.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "graph/tensor.hpp"

// What the public Get calls report is kept in `dims`/`strides`; what cuDNN
// keeps internally (and therefore what shows through after a failed Set, or
// when a later call reinterprets old values) is kept in `stored_dims`/`span`.
struct cudnnTensorStruct {
  static constexpr uint32_t kAlive = 0x54454e53;  // "TENS"
  uint32_t magic = kAlive;
  bool is_set = false;  // true only after a Set* call succeeded completely
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;  // as given (Nd calls without a format: NCHW)
  int nb_dims = 0;
  // Logical extents as cudnnGetTensorNdDescriptor reports them (the full C for
  // NCHW_VECT_C). Entries at and beyond nb_dims are stale values of earlier
  // calls, exactly as cuDNN keeps them.
  std::array<int, CUDNN_DIM_MAX> dims{};
  // Strides as cuDNN reports them: in elements of dtype; for NCHW_VECT_C the
  // strides step over whole vectors of `vect_count` lanes.
  std::array<int, CUDNN_DIM_MAX> strides{};
  // Lanes per element: 4 or 32 for NCHW_VECT_C (even with a scalar type) and
  // for vector types (INT8x4, ...) in the other formats, else 1.
  int vect_count = 1;
  // The dimension the lanes belong to: 1 (C) for NCHW_VECT_C; -1 when each
  // element is a whole vector (vector type with NCHW/NHWC strides), so the
  // lanes form an extra innermost dimension.
  int vect_dim = -1;

  // cuDNN's internal representation: for NCHW_VECT_C, stored_dims[1] counts
  // vectors (C / lanes).
  std::array<int, CUDNN_DIM_MAX> stored_dims{};
  // Elements the strides reach, 1 + sum((dim-1)*|stride|), as computed by the
  // last Set that got that far; cudnnGetTensorSizeInBytes multiplies it by the
  // element size.
  int64_t span = 0;
};

struct cudnnFilterStruct {
  static constexpr uint32_t kAlive = 0x46494c54;  // "FILT"
  uint32_t magic = kAlive;
  bool is_set = false;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;  // NCHW = KCRS, NHWC = KRSC, NCHW_VECT_C
  int nb_dims = 0;
  // Logical K, C, spatial... as cudnnGetFilterNdDescriptor reports them (for
  // NCHW_VECT_C: the stored vector count times the lanes, so a C that was not
  // a multiple of the lanes comes back rounded down).
  std::array<int, CUDNN_DIM_MAX> dims{};
  // Element strides of dims (K, C, spatial...) derived from the format,
  // packed; for NCHW_VECT_C they step over whole vectors like tensors'.
  std::array<int64_t, CUDNN_DIM_MAX> strides{};
  int vect_count = 1;  // as for tensors
  int vect_dim = -1;   // as for tensors

  // cuDNN's internal representation (C / lanes for NCHW_VECT_C, rounded down).
  std::array<int, CUDNN_DIM_MAX> stored_dims{};
};

namespace fdnn {

// --- Argument checks shared by the C entry points and the engines ---------

// Throws BAD_PARAM unless d is a live, set descriptor; `name` is the
// argument name for the message ("xDesc").
const cudnnTensorStruct &checked_tensor(const cudnnTensorStruct *d, const char *name);
const cudnnFilterStruct &checked_filter(const cudnnFilterStruct *d, const char *name);

// Throws BAD_PARAM unless d is non-NULL and not destroyed (set or not).
cudnnTensorStruct &live_tensor(cudnnTensorStruct *d, const char *name);
cudnnFilterStruct &live_filter(cudnnFilterStruct *d, const char *name);

// --- Legacy descriptor rules (cuDNN 9's exact behaviour) ------------------
// Each setter validates like cuDNN, throws fdnn::Error with cuDNN's status on
// failure and, like cuDNN, may leave the descriptor partly updated when the
// failure is found after the first writes (is_set is then false).

// Data types a legacy tensor (filter) descriptor accepts.
bool is_legacy_tensor_type(cudnnDataType_t t);
bool is_legacy_filter_type(cudnnDataType_t t);
// Bytes of one element as the legacy size queries count them (INT8x4: 4,
// INT8x32: 32).
int legacy_element_bytes(cudnnDataType_t t);

void set_tensor_4d(cudnnTensorStruct &d, cudnnTensorFormat_t format, cudnnDataType_t dtype, int n, int c, int h,
                   int w);
void set_tensor_4d_ex(cudnnTensorStruct &d, cudnnDataType_t dtype, int n, int c, int h, int w, int ns, int cs,
                      int hs, int ws);
void set_tensor_nd(cudnnTensorStruct &d, cudnnDataType_t dtype, int nb_dims, const int dims[], const int strides[]);
void set_tensor_nd_ex(cudnnTensorStruct &d, cudnnTensorFormat_t format, cudnnDataType_t dtype, int nb_dims,
                      const int dims[]);
// cudnnGetTensorSizeInBytes.
size_t tensor_size_bytes(const cudnnTensorStruct &d);

// cudnnDeriveBNTensorDescriptor (mode is a cudnnBatchNormMode_t value).
void derive_bn_tensor(cudnnTensorStruct &derived, const cudnnTensorStruct &x, int mode);

void set_filter_4d(cudnnFilterStruct &d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int k, int c, int h,
                   int w);
void set_filter_nd(cudnnFilterStruct &d, cudnnDataType_t dtype, cudnnTensorFormat_t format, int nb_dims,
                   const int dims[]);
// cudnnGetFilterSizeInBytes.
size_t filter_size_bytes(const cudnnFilterStruct &d);

// --- Translation into the graph model --------------------------------------

// A descriptor as a graph tensor of scalar lanes. Lanes become an extra
// innermost dimension: INT8x4 NCHW_VECT_C [N,C,H,W] becomes INT8
// [N,C/4,H,W,4]; INT8x4 NCHW [N,C,H,W] (each element a whole vector) becomes
// INT8 [N,C,H,W,4]. Use split_vector_dim() on the other tensors of the same op
// so that all of them have the same logical dims.
graph::Tensor to_graph_tensor(const cudnnTensorStruct &d);
// A filter as a graph tensor with dims K, C, spatial... (plus lanes, as above).
graph::Tensor to_graph_tensor(const cudnnFilterStruct &d);

// Splits dimension `dim` of a non-vector tensor into (dims[dim]/v at `dim`,
// v appended innermost), matching to_graph_tensor's view of a vector tensor.
void split_vector_dim(graph::Tensor &t, int dim, int v);

}  // namespace fdnn
