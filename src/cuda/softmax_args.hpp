// Arguments of the CUDA softmax kernels (softmax_kernels.cu), filled by the
// engine (softmax_engine.cpp) from the graph's geometry.
#pragma once

#include <cudnn_graph.h>
#include <cudnn_ops.h>

#include <cstdint>

#include "cuda/strided_layout.hpp"

namespace fdnn::cuda {

struct SoftmaxArgs {
  bool backward = false;
  int algorithm = CUDNN_SOFTMAX_ACCURATE;
  int dtype = CUDNN_DATA_FLOAT;  // every tensor's (the API guarantees one type)
  bool compute_double = false;
  // Rows: kept dims; row elements: reduced dims (outermost first). Operand
  // order: forward x, y; backward y, dy, dx (the last is written).
  int kept_rank = 0, red_rank = 0;
  int64_t kept_extent[kMaxRank] = {}, red_extent[kMaxRank] = {};
  int64_t kept_stride[3][kMaxRank] = {}, red_stride[3][kMaxRank] = {};
  int64_t rows = 1, row_len = 1;
  bool contiguous = false;  // reduced elements: one stride-1 run in every operand
  const void *in0 = nullptr, *in1 = nullptr;
  void *out = nullptr;
  double alpha = 1.0, beta = 0.0;
};

void launch_softmax(const SoftmaxArgs &a, void *stream);

}  // namespace fdnn::cuda
