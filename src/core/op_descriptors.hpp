// Legacy descriptors of the tensor operations: what cudnnOpTensor,
// cudnnReduceTensor and cudnnTransformTensorEx are told to do.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <array>
#include <cstdint>

struct cudnnOpTensorStruct {
  static constexpr uint32_t kAlive = 0x4f505445;  // "OPTE"
  uint32_t magic = kAlive;
  bool is_set = false;
  cudnnOpTensorOp_t op = CUDNN_OP_TENSOR_ADD;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
};

struct cudnnReduceTensorStruct {
  static constexpr uint32_t kAlive = 0x52454455;  // "REDU"
  uint32_t magic = kAlive;
  bool is_set = false;
  cudnnReduceTensorOp_t op = CUDNN_REDUCE_TENSOR_ADD;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnNanPropagation_t nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
  cudnnReduceTensorIndices_t indices = CUDNN_REDUCE_TENSOR_NO_INDICES;
  cudnnIndicesType_t indices_type = CUDNN_32BIT_INDICES;
};

struct cudnnTensorTransformStruct {
  static constexpr uint32_t kAlive = 0x5452414e;  // "TRAN"
  uint32_t magic = kAlive;
  bool is_set = false;
  uint32_t nb_dims = 0;  // 2..8
  // Any value up to CUDNN_TENSOR_NCHW_VECT_C is kept as given (cuDNN even
  // keeps negative ones).
  cudnnTensorFormat_t dest_format = CUDNN_TENSOR_NCHW;
  // Per dimension (N, C, spatial...), first nb_dims entries meaningful.
  std::array<int32_t, CUDNN_DIM_MAX> pad_before{};
  std::array<int32_t, CUDNN_DIM_MAX> pad_after{};
  // Per SPATIAL dimension: fold[i] applies to dimension i + 2 (nb_dims - 2
  // entries meaningful), as cuDNN stores and reports them.
  std::array<uint32_t, CUDNN_DIM_MAX> fold{};
  cudnnFoldingDirection_t direction = CUDNN_TRANSFORM_FOLD;  // any non-FOLD value is stored as UNFOLD
};
