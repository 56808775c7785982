// Arguments of the LRN kernels (lrn_kernels.cu), filled by the engine
// (lrn_engine.cpp). A plain struct passed by value.
#pragma once

#include <cudnn_graph.h>

#include <cstddef>
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
  // The same in float and pow_kind(beta) (lrn_device.cuh), set by launch_lrn
  // for the float-compute kernels: float kernel parameters feed the
  // arithmetic directly, where the double ones were converted again inside
  // each branch of the power (two slow conversions per element).
  float kf = 2, af = 1e-4f / 5, betaf = 0.75f, two_a_beta_f = 0, blend_alpha_f = 1, blend_beta_f = 0;
  int kind = 1;
  int64_t count = 0;  // elements
  // Cross-channel: positions (elements of one channel) and channel chunks.
  int64_t positions = 0;
  int chunk = 32;
  // Divisive backward: scratch of `count` compute-type values.
  void *scratch = nullptr;
  // NHWC register kernels: position p of operand k starts at p *
  // row_stride[k] (set by their launch where every operand's positions are
  // evenly spaced, as in packed NHWC), else position_offsets decomposes p.
  bool linear_rows = false;
  int64_t row_stride[kOperands] = {};
};

// FREEDNN_LRN_TUNE, comma-separated words, for measurements (the defaults
// are the fast paths): "old" (NHWC: shared-memory row kernels), "r2" (NHWC:
// two sets of rows per warp and step), "nopf" (NHWC register kernels of
// 16-bit data on a grid covering every row once instead of a persistent
// one), "old16" / "old32" (16-bit / float data: the paths before the plane
// kernels of lrn_planes.cu and, for 16-bit data, before the persistent NHWC
// grid), "v8" (plane kernels: 8-byte accesses instead of 16), "c16" / "c32"
// / "c64" (plane kernels: channels per thread), "noftz" (the float powers'
// special functions with subnormal handling, lrn_device.cuh), "divrows"
// (NHWC register kernels: every row's offsets by divisions, not
// LrnArgs::row_stride), "noalt" (plane forward: every chunk walked
// upwards), "lb8" / "pf12" (plane forward: 8 blocks per SM / 12 accesses in
// flight; see planes_forward).
struct LrnTune {
  bool old = false, r2 = false, nopf = false, old16 = false, old32 = false, v8 = false, noftz = false,
       divrows = false;
  bool noalt = false, lb8 = false, pf12 = false;
  int chunk = 0;  // 0: chosen from the size
  bool old_paths(size_t type_size) const { return type_size == 2 ? old16 : type_size == 4 && old32; }
};
const LrnTune &lrn_tune();

// Cross-channel LRN along planes (a contiguous innermost dim, NCHW-like),
// float / half / bfloat16 with n = 3 or 5 (lrn_planes.cu): true when it
// launched, false when the problem is not one it takes.
bool launch_lrn_planes(const LrnArgs &a, void *stream);

// Bytes of scratch a launch needs (divisive backward), 0 otherwise.
size_t lrn_scratch_bytes(const LrnArgs &a);
// Enqueues the kernels on `stream`.
void launch_lrn(const LrnArgs &a, void *stream);

}  // namespace fdnn::cuda
