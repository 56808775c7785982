// Validation and graph building shared by the batch-norm entry points
// (batch_norm.cpp) and the generic normalization API (normalization.cpp).
// Both describe the same NormalizationOp; the batch-norm calls are the
// generic ones with one descriptor for scale, bias and statistics.
#pragma once

#include <cudnn_ops.h>

#include <cstddef>

#include "core/activation_descriptors.hpp"
#include "core/handle.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

namespace fdnn::api {

enum class NormPhase { inference, training, backward };

// The descriptors of one call (NULL where the call or its ops have none).
struct NormDescs {
  const cudnnTensorStruct *x = nullptr, *y = nullptr, *z = nullptr;
  const cudnnTensorStruct *dy = nullptr, *dx = nullptr, *dz = nullptr;
  const cudnnTensorStruct *scale_bias = nullptr;  // scale, bias (and their gradients)
  const cudnnTensorStruct *mean_var = nullptr;    // mean, variance, saved and running stats
  const cudnnActivationStruct *activation = nullptr;
  const char *scale_bias_name = "bnScaleBiasMeanVarDesc";  // for messages
};

struct NormSpec {
  NormPhase phase = NormPhase::training;
  bool per_activation = false;  // else per channel (spatial)
  int ops = 0;                  // cudnnNormOps_t / cudnnBatchNormOps_t value (same numbering)
  double epsilon = 0.0;
  double exp_avg_factor = 1.0;
  // Training: running mean / variance given (each on its own: cuDNN 9.19
  // updates the one it is given).
  bool running_mean = false, running_var = false;
  bool saved_stats = false;     // training: output; backward: input
  // Blending factors as the caller passed them (read in x's scaling type);
  // NULL reads as 1 / 0 (size queries).
  const void *alpha = nullptr, *beta = nullptr;
  const void *alpha_param = nullptr, *beta_param = nullptr;
};

// The validated problem; every tensor uid is in `op`.
struct NormProblem {
  graph::Graph g;
  graph::NormalizationOp op;
  size_t reserve_bytes = 0;  // what the activation mask needs (0 without activation)
};

// Checks the mode / ops values, the descriptors and epsilon with cuDNN's
// statuses, and builds the graph. `fn` names the entry point in messages.
NormProblem build_normalization(const NormSpec &spec, const NormDescs &d);

// Reserve-space bytes for a training forward / backward with these ops.
size_t normalization_reserve_bytes(int ops, const cudnnTensorStruct &x);

// Checks the mode value of the legacy enums; returns per_activation.
bool batch_norm_per_activation(int mode);
bool norm_per_activation(int mode);
void check_norm_ops(int ops, const char *name);

// Both pointers NULL or both non-NULL (BAD_PARAM otherwise); returns whether given.
bool pair_given(const void *a, const void *b, const char *na, const char *nb);

// The data of one call, by role (NULL where absent).
struct NormPointers {
  const void *x = nullptr, *z = nullptr, *scale = nullptr, *bias = nullptr, *dy = nullptr;
  void *y = nullptr, *dx = nullptr, *dz = nullptr, *dscale = nullptr, *dbias = nullptr;
  const void *mean = nullptr, *variance = nullptr;  // inference: estimated; backward: saved (inv variance)
  void *save_mean = nullptr, *save_inv_variance = nullptr;
  void *running_mean = nullptr, *running_variance = nullptr;
  void *workspace = nullptr;
  size_t workspace_bytes = 0;
  void *reserve = nullptr;
  size_t reserve_bytes = 0;
};

// Checks the reserve space (and a workspace the caller offers), binds the
// pointers and runs the graph. A workspace that is NULL or too small is
// replaced by the handle's scratch, as cuDNN falls back to the plain call.
void run_normalization(cudnnContext &h, const char *fn, const NormProblem &p, const NormPointers &ptr);


}  // namespace fdnn::api
