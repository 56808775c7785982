// Normalization: batch, layer, instance and RMS norm, forward (training,
// inference) and backward, with the legacy Ex ops' fused add and activation.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "graph/blend.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

// Which dimensions are normalized together follows the statistics tensors'
// shape: every dimension where `mean` (or, when there is none, `scale`) has
// extent 1 and x does not is reduced; the others index one set of statistics.
// Batch norm (spatial) has stats 1xCx1x1, per-activation 1xCxHxW, layer norm
// Nx1x1x1, instance norm NxCx1x1. `scale` and `bias` may be broadcast further
// than the statistics (layer norm: scale 1xCxHxW, stats Nx1x1x1).
//
//   forward:  xhat = (x - mean) * inv_std       (RMS: x * inv_std)
//             v    = scale * xhat + bias [+ z]
//             y    = blend(act(v))              (act: RELU_FWD, ..., or IDENTITY)
//   training: mean and variance (biased, over the reduced elements) are
//             computed; running stats become (1-f)*in + f*stat with the
//             unbiased variance (M/(M-1)); mean and 1/sqrt(var+eps) are saved.
//   RMS norm: no mean (mean = 0 above), var = mean of x^2; optional bias;
//             backward drops the dbias/M term of dx.
//   backward: g = dy * act'(mask) (mask from the forward's reserve tensor),
//             dz = g, dbias = sum g, dscale = sum g*xhat,
//             dx = scale*inv_std/M * (M*g - dbias - xhat*dscale)
//             dx blended by `blend`, dscale/dbias by `param_blend`.
struct NormalizationOp {
  static constexpr const char *kKind = "normalization";
  cudnnBackendNormMode_t mode = CUDNN_BATCH_NORM;
  bool backward = false;
  cudnnBackendNormFwdPhase_t phase = CUDNN_NORM_FWD_TRAINING;  // forward only
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;             // DOUBLE for double data

  Uid x = kNoTensor, y = kNoTensor, z = kNoTensor;
  Uid scale = kNoTensor, bias = kNoTensor;
  // Statistics. Inference reads mean with either `variance` (the legacy
  // estimated variance) or `inv_variance` (1/sqrt(var+eps), backend API).
  // Training writes mean / inv_variance (optional: saved stats); backward
  // reads them when present and recomputes them from x otherwise.
  Uid mean = kNoTensor, inv_variance = kNoTensor, variance = kNoTensor;
  // Training: running statistics in and out (the legacy calls update them in
  // place: the same uid on both sides).
  Uid running_mean_in = kNoTensor, running_var_in = kNoTensor;
  Uid running_mean_out = kNoTensor, running_var_out = kNoTensor;
  // Backward.
  Uid dy = kNoTensor, dx = kNoTensor, dscale = kNoTensor, dbias = kNoTensor, dz = kNoTensor;
  // Activation mask (one byte per element of x, 1 where act' == 1): written
  // by training forward with an activation, read by backward.
  Uid mask = kNoTensor;

  double epsilon = 0.0;
  double exp_avg_factor = 1.0;

  // Fused activation (legacy NORM_ACTIVATION / NORM_ADD_ACTIVATION). Only
  // activations whose derivative is 0 or 1 (identity, relu, clipped relu)
  // are fused, so that a mask carries what backward needs.
  bool has_activation = false;
  cudnnPointwiseMode_t activation = CUDNN_POINTWISE_IDENTITY;
  double relu_upper_clip = 1e300;  // clipped relu's ceiling ("no clipping")

  Blend blend;        // y (forward) or dx (backward)
  Blend param_blend;  // dscale and dbias (backward)
};

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const NormalizationOp &op, bool with_values);
// The same structure as describe(os, op, false), appended as raw bytes
// (graph/structural_key.hpp says why).
void append_structural_key(std::string &key, const NormalizationOp &op);

}  // namespace fdnn::graph
