// The legacy pooling descriptor behind cudnnPoolingDescriptor_t, and the
// rules of cuDNN 9 for its output-dimension queries.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <array>
#include <cstdint>

struct cudnnTensorStruct;

struct cudnnPoolingStruct {
  static constexpr uint32_t kAlive = 0x504f4f4c;  // "POOL"
  // cuDNN keeps six entries per array (CUDNN_DIM_MAX - 2 spatial dimensions):
  // SetPoolingNd takes 1..6 dimensions and GetPoolingNd copies up to six.
  static constexpr int kMaxSpatial = 6;
  uint32_t magic = kAlive;
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  // 0 until set. Entries at and beyond nb_dims keep stale values of earlier
  // Set calls, which the Get calls report exactly as cuDNN does.
  int nb_dims = 0;
  std::array<int, kMaxSpatial> window{};
  std::array<int, kMaxSpatial> padding{};  // any value: cuDNN checks neither sign nor size
  std::array<int, kMaxSpatial> stride{};
};

namespace fdnn {

// Throws BAD_PARAM unless d is a live pooling descriptor.
const cudnnPoolingStruct &checked_pooling(const cudnnPoolingStruct *d, const char *name);

// The output extent of one spatial dimension, 1 + (in + 2*pad - window) /
// stride; throws BAD_PARAM (naming the dimension) when in + 2*pad < window.
int pooling_output_extent(const cudnnPoolingStruct &p, int spatial_dim, int input_extent);

}  // namespace fdnn
