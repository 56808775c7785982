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

// The activation descriptor of fused ops (NULL without them: ops == 0).
const cudnnActivationStruct *activation_for(int ops, const cudnnActivationStruct *d);

// The descriptors of a forward call, checked in cuDNN's order: x, y, z (with
// the ADD_ACTIVATION ops only), scale/bias, mean/variance (only where
// mean_var_name is given: the generic API has a descriptor of its own), the
// activation (with fused ops only).
NormDescs forward_descs(int ops, const cudnnTensorStruct *x, const cudnnTensorStruct *y,
                        const cudnnTensorStruct *z, const cudnnTensorStruct *scale_bias,
                        const char *scale_bias_name, const cudnnTensorStruct *mean_var, const char *mean_var_name,
                        const cudnnActivationStruct *activation);
// The descriptors of a backward call, likewise: x, y (fused ops only), dy,
// dx, dz (ADD_ACTIVATION only), dscale/dbias, mean/variance (where named),
// the activation.
NormDescs backward_descs(int ops, const cudnnTensorStruct *x, const cudnnTensorStruct *y,
                         const cudnnTensorStruct *dy, const cudnnTensorStruct *dz, const cudnnTensorStruct *dx,
                         const cudnnTensorStruct *scale_bias, const char *scale_bias_name,
                         const cudnnTensorStruct *mean_var, const char *mean_var_name,
                         const cudnnActivationStruct *activation);

// Checks the reserve space (and a workspace the caller offers), binds the
// pointers and runs the graph. A workspace that is NULL or too small is
// replaced by the handle's scratch, as cuDNN falls back to the plain call.
void run_normalization(cudnnContext &h, const char *fn, const NormProblem &p, const NormPointers &ptr);

// The pointers of each phase's call, as the batch-norm and generic entry
// points both take them.
NormPointers inference_pointers(const void *x, const void *z, void *y, const void *scale, const void *bias,
                                const void *estimated_mean, const void *estimated_variance);
NormPointers training_pointers(const void *x, const void *z, void *y, const void *scale, const void *bias,
                               void *running_mean, void *running_variance, void *save_mean,
                               void *save_inv_variance, void *workspace, size_t workspace_bytes, void *reserve,
                               size_t reserve_bytes);
NormPointers backward_pointers(const void *x, const void *dy, void *dx, void *dz, const void *scale, void *dscale,
                               void *dbias, const void *saved_mean, const void *saved_inv_variance,
                               void *workspace, size_t workspace_bytes, void *reserve, size_t reserve_bytes);


}  // namespace fdnn::api
