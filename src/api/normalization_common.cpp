#include "api/normalization_common.hpp"

#include <cmath>

#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"

namespace fdnn::api {

namespace {

const char *type_name(cudnnDataType_t t) { return type_info(t).enum_name; }

bool is_norm_io_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

// A data tensor (y, z, dy, dx, dz) must match x in dims and type.
void check_like_x(const cudnnTensorStruct &x, const cudnnTensorStruct *t, const char *name) {
  check_arg(t->nb_dims == x.nb_dims, name, " has ", t->nb_dims, " dimensions but xDesc has ", x.nb_dims);
  for (int i = 0; i < x.nb_dims; ++i)
    check_arg(t->dims[i] == x.dims[i], name, " dim ", i, " = ", t->dims[i], " but xDesc's is ", x.dims[i]);
  check_arg(t->dtype == x.dtype, name, " is ", type_name(t->dtype), " but xDesc is ", type_name(x.dtype));
  check_supported(t->vect_count == 1, name, ": vectorized layouts are not supported");
}

// scale/bias and statistics descriptors: 1xCx1x1(x1) per channel, 1xCxHxW(xD)
// per activation; FLOAT for FLOAT/HALF/BFLOAT16 data, DOUBLE for DOUBLE.
void check_param_desc(const cudnnTensorStruct &x, const cudnnTensorStruct &p, bool per_activation, const char *name) {
  check_arg(p.nb_dims == x.nb_dims, name, " has ", p.nb_dims, " dimensions but xDesc has ", x.nb_dims);
  for (int i = 0; i < x.nb_dims; ++i) {
    const int want = i == 0 ? 1 : (i == 1 || per_activation ? x.dims[i] : 1);
    check_arg(p.dims[i] == want, name, " dim ", i, " = ", p.dims[i], " but ", want, " is expected (",
              per_activation ? "1xCxHxW" : "1xCx1x1", " for this mode)");
  }
  const cudnnDataType_t want = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check_arg(p.dtype == want, name, " is ", type_name(p.dtype), " but ", type_name(want), " is expected for ",
            type_name(x.dtype), " data");
}

graph::Uid add(graph::Graph &g, const cudnnTensorStruct &d) { return g.add_tensor_auto(to_graph_tensor(d)); }

}  // namespace

bool batch_norm_per_activation(int mode) {
  check_arg(mode == CUDNN_BATCHNORM_PER_ACTIVATION || mode == CUDNN_BATCHNORM_SPATIAL ||
                mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
            "mode = ", mode, ": expected CUDNN_BATCHNORM_PER_ACTIVATION, _SPATIAL or _SPATIAL_PERSISTENT");
  return mode == CUDNN_BATCHNORM_PER_ACTIVATION;
}

bool norm_per_activation(int mode) {
  // cuDNN 9.19 answers NOT_SUPPORTED for an unknown cudnnNormMode_t.
  check_supported(mode == CUDNN_NORM_PER_ACTIVATION || mode == CUDNN_NORM_PER_CHANNEL, "mode = ", mode,
            ": expected CUDNN_NORM_PER_ACTIVATION or CUDNN_NORM_PER_CHANNEL");
  return mode == CUDNN_NORM_PER_ACTIVATION;
}

void check_norm_ops(int ops, const char *name) {
  check_arg(ops >= 0 && ops <= 2, name, " = ", ops, ": expected NORM (0), NORM_ACTIVATION (1) or NORM_ADD_ACTIVATION (2)");
}

bool pair_given(const void *a, const void *b, const char *na, const char *nb) {
  check_arg((a == nullptr) == (b == nullptr), na, " and ", nb, " must both be NULL or both be given");
  return a != nullptr;
}

size_t normalization_reserve_bytes(int ops, const cudnnTensorStruct &x) {
  if (ops == 0) return 0;
  size_t n = 1;
  for (int i = 0; i < x.nb_dims; ++i) n *= static_cast<size_t>(x.dims[i]);
  return n;  // one mask byte per element
}

NormProblem build_normalization(const NormSpec &s, const NormDescs &d) {
  check_norm_ops(s.ops, "normOps");
  const cudnnTensorStruct &x = *d.x;
  check_arg(x.nb_dims == 4 || x.nb_dims == 5, "xDesc has ", x.nb_dims, " dimensions: only 4 and 5 are supported");
  check_supported(is_norm_io_type(x.dtype), "xDesc data type ", type_name(x.dtype),
                  " is not supported (FLOAT, DOUBLE, HALF or BFLOAT16)");
  check_supported(x.vect_count == 1, "xDesc: vectorized layouts are not supported");
  const bool backward = s.phase == NormPhase::backward;
  const bool with_act = s.ops != 0, with_add = s.ops == 2;
  if (backward) {
    check_like_x(x, d.dy, "dyDesc");
    check_like_x(x, d.dx, "dxDesc");
    if (with_add) {
      check_arg(d.dz != nullptr, "dzDesc is NULL but NORM_ADD_ACTIVATION writes dz");
      check_like_x(x, d.dz, "dzDesc");
    }
  } else {
    check_like_x(x, d.y, "yDesc");
    if (with_add) {
      check_arg(d.z != nullptr, "zDesc is NULL but NORM_ADD_ACTIVATION reads z");
      check_like_x(x, d.z, "zDesc");
    }
  }
  check_param_desc(x, *d.scale_bias, s.per_activation, d.scale_bias_name);
  if (d.mean_var != nullptr && d.mean_var != d.scale_bias)
    check_param_desc(x, *d.mean_var, s.per_activation, "normMeanVarDesc");
  check_arg(s.epsilon >= CUDNN_BN_MIN_EPSILON, "epsilon = ", s.epsilon, " is below CUDNN_BN_MIN_EPSILON (",
            CUDNN_BN_MIN_EPSILON, ")");

  graph::NormalizationOp op;
  op.mode = CUDNN_BATCH_NORM;
  op.backward = backward;
  op.phase = s.phase == NormPhase::inference ? CUDNN_NORM_FWD_INFERENCE : CUDNN_NORM_FWD_TRAINING;
  op.compute_type = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  op.epsilon = s.epsilon;
  op.exp_avg_factor = s.exp_avg_factor;
  if (with_act) {
    check_arg(d.activation != nullptr, "activationDesc is NULL but the ops include an activation");
    const cudnnActivationStruct &a = *d.activation;
    op.has_activation = true;
    switch (a.mode) {
      case CUDNN_ACTIVATION_IDENTITY: op.activation = CUDNN_POINTWISE_IDENTITY; break;
      case CUDNN_ACTIVATION_RELU: op.activation = CUDNN_POINTWISE_RELU_FWD; break;
      case CUDNN_ACTIVATION_CLIPPED_RELU:
        op.activation = CUDNN_POINTWISE_RELU_FWD;
        op.relu_upper_clip = a.coef;
        break;
      default:
        fail(CUDNN_STATUS_NOT_SUPPORTED, "activation mode ", static_cast<int>(a.mode),
             " is not supported with normalization (RELU, CLIPPED_RELU or IDENTITY)");
    }
  }
  const cudnnDataType_t scaling_type = x.dtype;
  op.blend.alpha = s.alpha ? read_scaling(s.alpha, scaling_type) : 1.0;
  op.blend.beta = s.beta ? read_scaling(s.beta, scaling_type) : 0.0;
  op.param_blend.alpha = s.alpha_param ? read_scaling(s.alpha_param, scaling_type) : 1.0;
  op.param_blend.beta = s.beta_param ? read_scaling(s.beta_param, scaling_type) : 0.0;

  NormProblem p;
  graph::Graph &g = p.g;
  const cudnnTensorStruct &sb = *d.scale_bias;
  const cudnnTensorStruct &mv = d.mean_var ? *d.mean_var : sb;
  op.x = add(g, x);
  op.scale = add(g, sb);
  if (backward) {
    op.dy = add(g, *d.dy);
    op.dx = add(g, *d.dx);
    if (with_add) op.dz = add(g, *d.dz);
    op.dscale = add(g, sb);
    op.dbias = add(g, sb);
    if (s.saved_stats) {
      op.mean = add(g, mv);
      op.inv_variance = add(g, mv);
    }
  } else {
    op.y = add(g, *d.y);
    op.bias = add(g, sb);
    if (with_add) op.z = add(g, *d.z);
    if (s.phase == NormPhase::inference) {
      op.mean = add(g, mv);
      op.variance = add(g, mv);
    } else {
      if (s.saved_stats) {
        op.mean = add(g, mv);
        op.inv_variance = add(g, mv);
      }
      if (s.running_mean) op.running_mean_in = op.running_mean_out = add(g, mv);
      if (s.running_var) op.running_var_in = op.running_var_out = add(g, mv);
    }
  }
  if (with_act && s.phase != NormPhase::inference) {
    graph::Tensor m = to_graph_tensor(x);
    m.dtype = CUDNN_DATA_UINT8;
    m.strides = normalization_mask_strides(m);
    op.mask = g.add_tensor_auto(m);
    p.reserve_bytes = normalization_reserve_bytes(s.ops, x);
  }
  g.add_op(op);
  p.op = op;
  return p;
}

void run_normalization(cudnnContext &h, const char *fn, const NormProblem &p, const NormPointers &ptr) {
  const graph::NormalizationOp &op = p.op;
  if (op.mask != graph::kNoTensor) {
    check_arg(ptr.reserve != nullptr, "reserveSpace is NULL but the activation needs ", p.reserve_bytes,
              " bytes of it (cudnnGet*TrainingReserveSpaceSize)");
    check_arg(ptr.reserve_bytes >= p.reserve_bytes, "reserveSpaceSizeInBytes = ", ptr.reserve_bytes, " but ",
              p.reserve_bytes, " bytes are needed");
  }
  VariantPack pack;
  auto bind = [&](graph::Uid u, const void *q) {
    if (u != graph::kNoTensor) pack.set(u, q);
  };
  bind(op.x, ptr.x);
  bind(op.y, ptr.y);
  bind(op.z, ptr.z);
  bind(op.scale, ptr.scale);
  bind(op.bias, ptr.bias);
  bind(op.dy, ptr.dy);
  bind(op.dx, ptr.dx);
  bind(op.dz, ptr.dz);
  bind(op.dscale, ptr.dscale);
  bind(op.dbias, ptr.dbias);
  bind(op.variance, ptr.variance);
  if (op.backward) {
    bind(op.mean, ptr.mean);
    bind(op.inv_variance, ptr.variance);
  } else if (op.phase == CUDNN_NORM_FWD_INFERENCE) {
    bind(op.mean, ptr.mean);
  } else {
    bind(op.mean, ptr.save_mean);
    bind(op.inv_variance, ptr.save_inv_variance);
  }
  bind(op.running_mean_in, ptr.running_mean);
  bind(op.running_var_in, ptr.running_variance);
  bind(op.mask, ptr.reserve);
  const size_t ws = plan_for(h, p.g)->workspace_size();
  if (ws > 0 && ptr.workspace != nullptr && ptr.workspace_bytes >= ws) {
    pack.workspace = ptr.workspace;
    pack.workspace_size = ptr.workspace_bytes;
  }
  run_graph(h, fn, p.g, pack);
}

const cudnnActivationStruct *activation_for(int ops, const cudnnActivationStruct *d) {
  if (ops == 0) return nullptr;
  return &live_descriptor(const_cast<cudnnActivationStruct *>(d), "activationDesc", "activation");
}

namespace {
const cudnnTensorStruct *optional_tensor(const cudnnTensorStruct *d, bool needed, const char *name) {
  return needed ? &checked_tensor(d, name) : nullptr;
}

// What forward and backward calls check after their data tensors.
void add_param_descs(NormDescs &d, int ops, const cudnnTensorStruct *scale_bias, const char *scale_bias_name,
                     const cudnnTensorStruct *mean_var, const char *mean_var_name,
                     const cudnnActivationStruct *activation) {
  d.scale_bias = &checked_tensor(scale_bias, scale_bias_name);
  d.scale_bias_name = scale_bias_name;
  if (mean_var_name != nullptr) d.mean_var = &checked_tensor(mean_var, mean_var_name);
  d.activation = activation_for(ops, activation);
}

void bind_scratch(NormPointers &p, void *workspace, size_t workspace_bytes, void *reserve, size_t reserve_bytes) {
  p.workspace = workspace;
  p.workspace_bytes = workspace_bytes;
  p.reserve = reserve;
  p.reserve_bytes = reserve_bytes;
}
}  // namespace

NormDescs forward_descs(int ops, const cudnnTensorStruct *x, const cudnnTensorStruct *y,
                        const cudnnTensorStruct *z, const cudnnTensorStruct *scale_bias,
                        const char *scale_bias_name, const cudnnTensorStruct *mean_var, const char *mean_var_name,
                        const cudnnActivationStruct *activation) {
  NormDescs d;
  d.x = &checked_tensor(x, "xDesc");
  d.y = &checked_tensor(y, "yDesc");
  d.z = optional_tensor(z, ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "zDesc");
  add_param_descs(d, ops, scale_bias, scale_bias_name, mean_var, mean_var_name, activation);
  return d;
}

NormDescs backward_descs(int ops, const cudnnTensorStruct *x, const cudnnTensorStruct *y,
                         const cudnnTensorStruct *dy, const cudnnTensorStruct *dz, const cudnnTensorStruct *dx,
                         const cudnnTensorStruct *scale_bias, const char *scale_bias_name,
                         const cudnnTensorStruct *mean_var, const char *mean_var_name,
                         const cudnnActivationStruct *activation) {
  NormDescs d;
  d.x = &checked_tensor(x, "xDesc");
  if (ops != CUDNN_NORM_OPS_NORM) d.y = &checked_tensor(y, "yDesc");
  d.dy = &checked_tensor(dy, "dyDesc");
  d.dx = &checked_tensor(dx, "dxDesc");
  d.dz = optional_tensor(dz, ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "dzDesc");
  add_param_descs(d, ops, scale_bias, scale_bias_name, mean_var, mean_var_name, activation);
  return d;
}

NormPointers inference_pointers(const void *x, const void *z, void *y, const void *scale, const void *bias,
                                const void *estimated_mean, const void *estimated_variance) {
  NormPointers p;
  p.x = x;
  p.z = z;
  p.y = y;
  p.scale = scale;
  p.bias = bias;
  p.mean = estimated_mean;
  p.variance = estimated_variance;
  return p;
}

NormPointers training_pointers(const void *x, const void *z, void *y, const void *scale, const void *bias,
                               void *running_mean, void *running_variance, void *save_mean,
                               void *save_inv_variance, void *workspace, size_t workspace_bytes, void *reserve,
                               size_t reserve_bytes) {
  NormPointers p = inference_pointers(x, z, y, scale, bias, nullptr, nullptr);
  p.running_mean = running_mean;
  p.running_variance = running_variance;
  p.save_mean = save_mean;
  p.save_inv_variance = save_inv_variance;
  bind_scratch(p, workspace, workspace_bytes, reserve, reserve_bytes);
  return p;
}

NormPointers backward_pointers(const void *x, const void *dy, void *dx, void *dz, const void *scale, void *dscale,
                               void *dbias, const void *saved_mean, const void *saved_inv_variance,
                               void *workspace, size_t workspace_bytes, void *reserve, size_t reserve_bytes) {
  NormPointers p;
  p.x = x;
  p.dy = dy;
  p.dx = dx;
  p.dz = dz;
  p.scale = scale;
  p.dscale = dscale;
  p.dbias = dbias;
  p.mean = saved_mean;
  p.variance = saved_inv_variance;
  bind_scratch(p, workspace, workspace_bytes, reserve, reserve_bytes);
  return p;
}

}  // namespace fdnn::api
