// The legacy LRN descriptor (cudnnLRNDescriptor_t), shared by the
// cross-channel LRN and the divisive normalization calls.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <cstdint>

struct cudnnLRNStruct {
  static constexpr uint32_t kAlive = 0x4c524e44;  // "LRND"
  uint32_t magic = kAlive;
  // cuDNN's defaults at creation.
  unsigned n = 5;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 2.0;
};
