// The geometry of one row-wise normalization problem for the CUDA kernels of
// cuda/normalization_rows.cu (cuda.normalization.rows: layer norm, RMS norm
// and NCHW instance norm), built by cuda/normalization_rows_engine.cpp.
//
// Every statistics set is one contiguous row of `width` elements of x (and
// of y, dy, dx, laid out as x's rows, each with its own row offsets). Set k
// is the row-major index over at most two kept dims (outer kd[0], inner
// kd[1]); its row starts at k0 * x_stride[0] + k1 * x_stride[1] in x
// (out_stride, grad_stride in y / dx, dy). Scale / bias are per position in the
// row (layer, RMS: laid out as the row) or per channel (instance norm:
// channel k % channels).
//
// Column form (instance norm with channels innermost, NHWC): set k = n * C + c
// is not a row but a column: its positions lie col_stride elements apart,
// starting at n * x_stride[0] + c (x_stride[1] == 1), so neighbouring
// channels are neighbouring elements. The kernels then give a warp's lanes 32
// neighbouring channels (coalesced loads) and its blockDim.y warps the
// positions; tiles of (n, 32 channels) are walked grid-stride.
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
  // The kept dims' strides of y (forward) or dx (backward), and of dy: each
  // tensor's rows lie as x's (same strides on the reduced dims), its own
  // row offsets (rows form; the column form has x's strides throughout).
  int64_t out_stride[2] = {0, 0}, grad_stride[2] = {0, 0};
  int64_t stat_stride[kRowsStats][2] = {};
  bool per_channel = false;   // instance norm: parameters per channel
  int64_t channels = 1;       // instance norm: C
  int64_t param_stride[kRowsParams] = {};  // per channel: the channel stride
  bool columns = false;       // column form (see above); per_channel too
  int64_t col_stride = 1;     // column form: elements between a set's positions
  // Column form: the positions of every set are cut into `segments` runs of
  // seg_len, each a work item of its own (so that few tiles still fill the
  // GPU); per-segment partial sums meet in the workspace, added in segment
  // order.
  int64_t segments = 1, seg_len = 1;
  bool rms = false, backward = false, training = true;
  bool param_grads = false;   // backward writes dscale and / or dbias
  bool stats_given = false;   // inference, or backward with saved statistics
  bool var_given = false;     // inference reads variance (else inv_variance)
  double epsilon = 0, factor = 1, unbias = 1;
  double alpha = 1, beta = 0, alpha_p = 1, beta_p = 0;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;  // x's
  // y's (dx's) and dy's: x's, or mixed: each FLOAT, HALF or BFLOAT16 with
  // float compute (rows form; column form with dy in x's type).
  cudnnDataType_t out_type = CUDNN_DATA_FLOAT, grad_type = CUDNN_DATA_FLOAT;
  // Double compute: DOUBLE data, or any DOUBLE operand (then rows form, dy
  // in x's type; each data tensor FLOAT, DOUBLE, HALF or BFLOAT16).
  bool compute_double = false;
  // The statistics' and parameters' type (all one): FLOAT, or DOUBLE (double
  // compute; FLOAT with double compute only for DOUBLE data throughout).
  cudnnDataType_t side_type = CUDNN_DATA_FLOAT;
  int threads = 256;          // per block (power of two, 32 ... 1024; columns: 32 * blockDim.y)
  int blocks = 1;             // grid (rows are walked grid-stride)
  const void *x = nullptr, *dy = nullptr;
  void *y = nullptr, *dx = nullptr;
  void *stat[kRowsStats] = {};
  void *param[kRowsParams] = {};
};

// Workspace bytes (backward parameter partials; the column form's
// per-segment partial sums).
size_t normalization_rows_workspace_bytes(const RowsArgs &a);
// Runs the operation on `stream`.
void launch_normalization_rows(const RowsArgs &a, void *workspace, void *stream);

}  // namespace fdnn::cuda
