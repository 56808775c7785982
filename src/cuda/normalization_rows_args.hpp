// The geometry of one row-wise normalization problem for the CUDA kernels of
// cuda/normalization_rows.cu (cuda.normalization.rows: layer norm, RMS norm
// and NCHW instance norm), built by cuda/normalization_rows_engine.cpp.
//
// Every statistics set is one contiguous row of `width` elements of x (and
// of y, dy, dx, which share x's strides). Set k is the row-major index over
// at most two kept dims (outer kd[0], inner kd[1]); its row starts at
// k0 * x_stride[0] + k1 * x_stride[1]. Scale / bias are per position in the
// row (layer, RMS: laid out as the row) or per channel (instance norm:
// channel k % channels).
#pragma once

#include <cudnn_graph.h>

#include <cstddef>
#include <cstdint>

namespace fdnn::cuda {

enum RowsStat { kRMean = 0, kRInv, kRVar, kRRmIn, kRRvIn, kRRmOut, kRRvOut, kRowsStats };
enum RowsParam { kRScale = 0, kRBias, kRDscale, kRDbias, kRowsParams };

struct RowsArgs {
  int64_t rows = 1, width = 1;
  int64_t kd[2] = {1, 1};
  int64_t x_stride[2] = {0, 0};
  int64_t stat_stride[kRowsStats][2] = {};
  bool per_channel = false;   // instance norm: parameters per channel
  int64_t channels = 1;       // instance norm: C
  int64_t param_stride[kRowsParams] = {};  // per channel: the channel stride
  bool rms = false, backward = false, training = true;
  bool param_grads = false;   // backward writes dscale and / or dbias
  bool stats_given = false;   // inference, or backward with saved statistics
  bool var_given = false;     // inference reads variance (else inv_variance)
  double epsilon = 0, factor = 1, unbias = 1;
  double alpha = 1, beta = 0, alpha_p = 1, beta_p = 0;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  int threads = 256;          // per block (power of two, 32 ... 1024)
  int blocks = 1;             // grid (rows are walked grid-stride)
  const void *x = nullptr, *dy = nullptr;
  void *y = nullptr, *dx = nullptr;
  void *stat[kRowsStats] = {};
  void *param[kRowsParams] = {};
};

// Workspace bytes (backward parameter partials).
size_t normalization_rows_workspace_bytes(const RowsArgs &a);
// Runs the operation on `stream`.
void launch_normalization_rows(const RowsArgs &a, void *workspace, void *stream);

}  // namespace fdnn::cuda
