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
  uint32_t nb_dims = 0;
  cudnnTensorFormat_t dest_format = CUDNN_TENSOR_NCHW;
  std::array<int32_t, CUDNN_DIM_MAX> pad_before{};
  std::array<int32_t, CUDNN_DIM_MAX> pad_after{};
  std::array<uint32_t, CUDNN_DIM_MAX> fold{};
  cudnnFoldingDirection_t direction = CUDNN_TRANSFORM_FOLD;
};
