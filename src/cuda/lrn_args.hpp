// Arguments of the LRN kernels (lrn_kernels.cu), filled by the engine
// (lrn_engine.cpp). A plain struct passed by value.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

namespace fdnn::cuda {

struct LrnArgs {
  static constexpr int kMaxRank = 8;
  enum Operand { kX = 0, kMeans, kY, kDy, kDx, kDmeans, kOperands };

  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;  // of every operand
  bool compute_double = false;
  bool cross = true;      // cross-channel (dim 1) or divisive (dims 2..rank-1)
  bool backward = false;
  int rank = 4;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kOperands][kMaxRank] = {};
  void *ptr[kOperands] = {};  // nullptr: absent (means, dmeans)
  int behind = 2, ahead = 2;
  double k = 2, a = 1e-4 / 5, beta = 0.75, two_a_beta = 0;
  double blend_alpha = 1, blend_beta = 0;
  int64_t count = 0;  // elements
  // Cross-channel: positions (elements of one channel) and channel chunks.
  int64_t positions = 0;
  int chunk = 32;
  // Divisive backward: scratch of `count` compute-type values.
  void *scratch = nullptr;
};

// Bytes of scratch a launch needs (divisive backward), 0 otherwise.
size_t lrn_scratch_bytes(const LrnArgs &a);
// Enqueues the kernels on `stream`.
void launch_lrn(const LrnArgs &a, void *stream);

}  // namespace fdnn::cuda
