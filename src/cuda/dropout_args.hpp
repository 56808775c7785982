// Arguments of the CUDA dropout kernels (host engine <-> dropout_kernels.cu).
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

constexpr int kDropoutMaxRank = 8;

// A tensor walked in logical row-major order.
struct DropoutOperand {
  void *ptr = nullptr;
  int rank = 0;
  int64_t dims[kDropoutMaxRank] = {};
  int64_t strides[kDropoutMaxRank] = {};
};

struct DropoutArgs {
  int dtype = CUDNN_DATA_FLOAT;  // x and y
  bool forward = true;
  bool packed = false;           // x and y both packed row-major: element i at i
  int64_t n = 0;
  DropoutOperand x, y;
  uint32_t *mask = nullptr;      // ceil(n / 32) words
  const uint64_t *seed = nullptr;  // forward: device scalars
  uint64_t *offset = nullptr;
  bool advance_offset = true;
  uint64_t threshold = 0;        // philox::drop_threshold(p)
  float scale_f = 1.0f;          // dropout_scale_float(p)
  double scale_d = 1.0;          // dropout_scale_double(p)
};

void launch_dropout(const DropoutArgs &a, void *stream);

}  // namespace fdnn::cuda
