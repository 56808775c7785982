// The legacy spatial transformer descriptor.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <array>
#include <cstdint>

struct cudnnSpatialTransformerStruct {
  static constexpr uint32_t kAlive = 0x53505446;  // "SPTF"
  uint32_t magic = kAlive;
  bool is_set = false;
  cudnnSamplerType_t sampler = CUDNN_SAMPLER_BILINEAR;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  // As given; like cuDNN, Set accepts any rank and extent and the compute
  // calls reject what they cannot run (only 4-d N, C, H, W of the output).
  int nb_dims = 0;
  std::array<int, CUDNN_DIM_MAX> dims{};
};
