// Arguments of the CUDA kernels, shared by the engines (host C++) and the
// kernel files (.cu). Plain structs passed by value to kernels.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

#include "core/pointwise_math.hpp"
#include "cuda/fast_divmod.hpp"
#include "cuda/strided_layout.hpp"

namespace fdnn::cuda {

// Types the kernels read and write (through element_access.cuh).
inline bool element_type_supported(cudnnDataType_t dtype) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_UINT32:
    case CUDNN_DATA_INT64:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2:
    case CUDNN_DATA_FP8_E8M0:
    case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_FP4_E2M1:
    case CUDNN_DATA_INT4:
    case CUDNN_DATA_UINT4: return true;
    default: return false;
  }
}

// Every type load_element / store_element handle: the above, and
// FAST_FLOAT_FOR_FP8 (float storage), which the engines built on
// element_type_supported() do not offer.
inline bool element_access_type(cudnnDataType_t dtype) {
  return dtype == CUDNN_DATA_FAST_FLOAT_FOR_FP8 || element_type_supported(dtype);
}

// One tensor operand of an element-wise kernel.
struct OperandArgs {
  const void *ptr = nullptr;  // nullptr when by_value or absent
  int dtype = CUDNN_DATA_FLOAT;
  bool by_value = false;
  double value = 0.0;  // the constant of a by-value operand
  int64_t base = 0;    // element offset added to every access (launch splitting)
};

// An element-wise operation y = blend_alpha * op(alpha1 * x, alpha2 * b, t)
// + blend_beta * y over `layout` (operand 0 = y, 1 = x, 2 = b, 3 = t).
struct PointwiseArgs {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;
  bool compute_double = false;
  StridedLayout layout;
  void *y = nullptr;
  int y_dtype = CUDNN_DATA_FLOAT;
  int64_t y_base = 0;
  OperandArgs in[3];  // x, b, t
  double alpha1 = 1.0, alpha2 = 1.0, blend_alpha = 1.0, blend_beta = 0.0;
  pw::Params<double> params;
  int gen_index_axis = -1;  // GEN_INDEX: the layout dim whose coordinate is written
};

// A reduction of x to y (cudnnReduceTensor, backend reductions), split by the
// engine into kept dims (one output each) and reduced dims, both in layout
// order (sorted by x's strides, merged where possible).
struct ReductionArgs {
  cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  bool compute_double = false;
  bool propagate_nan = false;
  bool with_index = false;
  // Column shape: the innermost kept dim is x's contiguous one and threads of
  // a warp take neighbouring outputs; otherwise (row shape) a warp takes one
  // output and its lanes walk the reduced elements.
  bool columns = false;
  int kept_rank = 0, red_rank = 0;
  int64_t kept_extent[kMaxRank] = {}, kept_x[kMaxRank] = {}, kept_y[kMaxRank] = {}, kept_idx[kMaxRank] = {};
  int64_t red_extent[kMaxRank] = {}, red_x[kMaxRank] = {}, red_flat[kMaxRank] = {};
  int64_t outputs = 1;  // M: product of the kept extents
  int64_t slice = 1;    // K: product of the reduced extents
  int64_t splits = 1;   // S: parts of each slice reduced by different warps/blocks
  int lanes_per_output = 32;  // rows: a power of two, smaller for short slices
  const void *x = nullptr;
  int x_dtype = CUDNN_DATA_FLOAT;
  void *y = nullptr;
  int y_dtype = CUDNN_DATA_FLOAT;
  void *indices = nullptr;  // 32-bit indices of y's shape, or nullptr
  double alpha = 1.0, beta = 0.0;
  void *workspace = nullptr;  // reduction_workspace_size() bytes when splits > 1
};

// Bytes of partial results a reduction with these arguments needs (0 when
// splits == 1).
size_t reduction_workspace_size(const ReductionArgs &a);

// Launches the reduction on `stream`; throws fdnn::Error on launch failure.
void launch_reduction(const ReductionArgs &args, void *stream);

// Launches the element-wise work on `stream` (a cudaStream_t). Picks the
// vectorised, tiled-transpose or generic kernel. Throws fdnn::Error on launch
// failure.
void launch_pointwise(const PointwiseArgs &args, void *stream);

}  // namespace fdnn::cuda
