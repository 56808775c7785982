// Batch-norm "finalize": from per-channel statistics to the equivalent
// per-channel scale and bias, the saved statistics and the running-statistics
// update, expressed as pointwise ops of the internal model. Used by the
// fused-ops API (CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING / _INFERENCE)
// and meant for the backend BN_FINALIZE operation.
//
// Training (from sums over M = accumulation count elements per channel):
//   mean     = sum / M
//   var      = sq_sum / M - mean^2            (biased)
//   inv_std  = 1 / sqrt(var + epsilon)
//   running_mean' = running_mean + f * (mean - running_mean)
//   running_var'  = running_var  + f * (var * M / (M - 1) - running_var)
// Inference (from given mean and variance, e.g. the running statistics):
//   inv_std  = 1 / sqrt(var + epsilon)
// Both:
//   eq_scale = scale * inv_std
//   eq_bias  = bias - mean * eq_scale
#pragma once

#include <cudnn_graph.h>

#include "graph/graph.hpp"

namespace fdnn::graph {

struct BnFinalizeIo {
  bool training = true;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  // Inputs. Every per-channel tensor has the same dims (1 x C x 1 ...);
  // scalars (count, epsilon, exp_avg_factor) are tensors of that rank with
  // all extents 1, typically by-value.
  Uid sum = kNoTensor, sq_sum = kNoTensor;    // training
  Uid mean = kNoTensor, variance = kNoTensor;  // inference
  Uid scale = kNoTensor, bias = kNoTensor;     // needed for eq_scale / eq_bias
  Uid count = kNoTensor, epsilon = kNoTensor, exp_avg_factor = kNoTensor;
  // Running statistics (training): previous values in, updated values out;
  // in and out may be bound to the same memory (the update is element-wise).
  Uid prev_running_mean = kNoTensor, prev_running_var = kNoTensor;
  Uid next_running_mean = kNoTensor, next_running_var = kNoTensor;
  // Outputs (each optional).
  Uid eq_scale = kNoTensor, eq_bias = kNoTensor;
  Uid saved_mean = kNoTensor, saved_inv_std = kNoTensor;
};

// Appends the ops (and the virtual intermediates they need, with fresh uids)
// to g. Every uid in io must already be a tensor of g. Outputs that are
// kNoTensor are not computed. Throws BAD_PARAM when an output lacks its
// inputs (eq_scale without scale, eq_bias without bias or scale, a running
// update without the factor or the previous value).
void append_bn_finalize(Graph &g, const BnFinalizeIo &io);

}  // namespace fdnn::graph
