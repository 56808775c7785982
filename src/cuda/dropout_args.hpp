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

// A dense tensor whose memory order is a permutation of its logical order
// (NHWC, NDHWC, ...), x and y alike, seen after dropping extent-1 dims and
// merging dims contiguous in both orders: the logical innermost dim A, the
// dim B of memory stride 1 (B != A), and up to 6 other ("batch") dims. Logical
// index of (batch, b, a) = batch_logical + b * b_logical + a; memory offset =
// batch_stride + b + a * a_stride.
constexpr int kDropoutTileBatchRank = kDropoutMaxRank - 2;
struct DropoutTiled {
  bool on = false;
  int batch_rank = 0;
  int64_t a_extent = 0, a_stride = 0;
  int64_t b_extent = 0, b_logical = 0;
  int64_t batch_extent[kDropoutTileBatchRank] = {};
  int64_t batch_logical[kDropoutTileBatchRank] = {};
  int64_t batch_stride[kDropoutTileBatchRank] = {};
};

struct DropoutArgs {
  int dtype = CUDNN_DATA_FLOAT;  // x and y
  bool forward = true;
  bool packed = false;           // x and y both packed row-major: element i at i
  int64_t n = 0;
  DropoutOperand x, y;
  DropoutTiled tiled;            // filled when x and y are the same permuted dense layout
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
