#include "core/fused_ops_params.hpp"

#include <cstring>

#include "core/error.hpp"

namespace fdnn::fused {

namespace {

constexpr uint64_t bits(std::initializer_list<int> labels) {
  uint64_t m = 0;
  for (int l : labels) m |= uint64_t{1} << l;
  return m;
}

// Labels each fused-op kind accepts, as cuDNN 9.19's Set calls answer
// (tests/oracle/fused_ops_descriptors.c prints both libraries' answers).
constexpr uint64_t kConstLabels[7] = {
    // SCALE_BIAS_ACTIVATION_CONV_BNSTATS
    bits({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18}),
    // SCALE_BIAS_ACTIVATION_WGRAD
    bits({0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 14, 15}),
    // BN_FINALIZE_STATISTICS_TRAINING
    bits({2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}),
    // BN_FINALIZE_STATISTICS_INFERENCE
    bits({2, 3, 4, 5, 19, 20, 21, 24, 25}),
    // CONV_SCALE_BIAS_ADD_ACTIVATION
    bits({0, 1, 3, 4, 6, 7, 8, 9, 12, 13, 26, 27, 28, 29, 30}),
    // SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK
    bits({0, 1, 2, 3, 4, 5, 6, 12, 13, 26, 27, 28, 29, 30, 31, 32}),
    // DACTIVATION_FORK_DBATCHNORM
    bits({0, 1, 2, 6, 14, 15, 19, 20, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 38}),
};

// Pointer labels 0..23 in bits 0..23, scalar labels 100..103 in bits 32..35.
constexpr uint64_t vbits(std::initializer_list<int> labels) {
  uint64_t m = 0;
  for (int l : labels) m |= uint64_t{1} << (l >= 100 ? l - 100 + 32 : l);
  return m;
}

constexpr uint64_t kVariantLabels[7] = {
    vbits({0, 1, 2, 3, 5, 7, 8, 9, 100}),
    vbits({0, 1, 2, 4, 6, 9, 100}),
    vbits({1, 2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100, 101, 102, 103}),
    vbits({1, 2, 9, 10, 11, 14, 15, 100, 103}),
    vbits({0, 1, 3, 5, 9, 16, 17, 18, 100}),
    vbits({0, 1, 2, 5, 9, 16, 17, 18, 19, 100}),
    vbits({0, 6, 9, 10, 11, 12, 13, 19, 20, 21, 22, 23, 100, 103}),
};

constexpr const char *kConstNames[kConstLabelCount] = {
    "CUDNN_PARAM_XDESC", "CUDNN_PARAM_XDATA_PLACEHOLDER", "CUDNN_PARAM_BN_MODE", "CUDNN_PARAM_BN_EQSCALEBIAS_DESC",
    "CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER", "CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER", "CUDNN_PARAM_ACTIVATION_DESC",
    "CUDNN_PARAM_CONV_DESC", "CUDNN_PARAM_WDESC", "CUDNN_PARAM_WDATA_PLACEHOLDER", "CUDNN_PARAM_DWDESC",
    "CUDNN_PARAM_DWDATA_PLACEHOLDER", "CUDNN_PARAM_YDESC", "CUDNN_PARAM_YDATA_PLACEHOLDER", "CUDNN_PARAM_DYDESC",
    "CUDNN_PARAM_DYDATA_PLACEHOLDER", "CUDNN_PARAM_YSTATS_DESC", "CUDNN_PARAM_YSUM_PLACEHOLDER",
    "CUDNN_PARAM_YSQSUM_PLACEHOLDER", "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC", "CUDNN_PARAM_BN_SCALE_PLACEHOLDER",
    "CUDNN_PARAM_BN_BIAS_PLACEHOLDER", "CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER",
    "CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER", "CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER",
    "CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER", "CUDNN_PARAM_ZDESC", "CUDNN_PARAM_ZDATA_PLACEHOLDER",
    "CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC", "CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER", "CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER",
    "CUDNN_PARAM_ACTIVATION_BITMASK_DESC", "CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER", "CUDNN_PARAM_DXDESC",
    "CUDNN_PARAM_DXDATA_PLACEHOLDER", "CUDNN_PARAM_DZDESC", "CUDNN_PARAM_DZDATA_PLACEHOLDER",
    "CUDNN_PARAM_BN_DSCALE_PLACEHOLDER", "CUDNN_PARAM_BN_DBIAS_PLACEHOLDER",
};

constexpr const char *kPointerNames[kPointerLabelCount] = {
    "CUDNN_PTR_XDATA", "CUDNN_PTR_BN_EQSCALE", "CUDNN_PTR_BN_EQBIAS", "CUDNN_PTR_WDATA", "CUDNN_PTR_DWDATA",
    "CUDNN_PTR_YDATA", "CUDNN_PTR_DYDATA", "CUDNN_PTR_YSUM", "CUDNN_PTR_YSQSUM", "CUDNN_PTR_WORKSPACE",
    "CUDNN_PTR_BN_SCALE", "CUDNN_PTR_BN_BIAS", "CUDNN_PTR_BN_SAVED_MEAN", "CUDNN_PTR_BN_SAVED_INVSTD",
    "CUDNN_PTR_BN_RUNNING_MEAN", "CUDNN_PTR_BN_RUNNING_VAR", "CUDNN_PTR_ZDATA", "CUDNN_PTR_BN_Z_EQSCALE",
    "CUDNN_PTR_BN_Z_EQBIAS", "CUDNN_PTR_ACTIVATION_BITMASK", "CUDNN_PTR_DXDATA", "CUDNN_PTR_DZDATA",
    "CUDNN_PTR_BN_DSCALE", "CUDNN_PTR_BN_DBIAS",
};

constexpr const char *kScalarNames[kScalarLabelCount] = {
    "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES", "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT",
    "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR", "CUDNN_SCALAR_DOUBLE_BN_EPSILON"};

void check_label(bool ok, const char *what, int label, cudnnFusedOps_t ops) {
  check_arg(ok, what, " label ", label, " (", what[0] == 'c' ? const_label_name(label) : variant_label_name(label),
            ") is not a parameter of ", fused_ops_name(ops));
}

}  // namespace

bool valid_fused_ops(int ops) {
  return ops >= CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS && ops <= CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM;
}

const char *fused_ops_name(cudnnFusedOps_t ops) {
  switch (ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: return "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS";
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: return "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD";
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: return "CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING";
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: return "CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE";
    case CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION: return "CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION";
    case CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK: return "CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK";
    case CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM: return "CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM";
  }
  return "an unknown cudnnFusedOps_t";
}

const char *const_label_name(int label) {
  return label >= 0 && label < kConstLabelCount ? kConstNames[label] : "not a cudnnFusedOpsConstParamLabel_t";
}

const char *variant_label_name(int label) {
  if (label >= 0 && label < kPointerLabelCount) return kPointerNames[label];
  if (label >= 100 && label < 100 + kScalarLabelCount) return kScalarNames[label - 100];
  return "not a cudnnFusedOpsVariantParamLabel_t";
}

bool const_label_allowed(cudnnFusedOps_t ops, int label) {
  return valid_fused_ops(ops) && label >= 0 && label < kConstLabelCount && ((kConstLabels[ops] >> label) & 1);
}

bool variant_label_allowed(cudnnFusedOps_t ops, int label) {
  if (!valid_fused_ops(ops)) return false;
  int bit = -1;
  if (label >= 0 && label < kPointerLabelCount) bit = label;
  if (label >= 100 && label < 100 + kScalarLabelCount) bit = label - 100 + 32;
  return bit >= 0 && ((kVariantLabels[ops] >> bit) & 1);
}

ConstKind const_label_kind(cudnnFusedOpsConstParamLabel_t label) {
  switch (label) {
    case CUDNN_PARAM_XDESC:
    case CUDNN_PARAM_BN_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_YDESC:
    case CUDNN_PARAM_DYDESC:
    case CUDNN_PARAM_YSTATS_DESC:
    case CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC:
    case CUDNN_PARAM_ZDESC:
    case CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC:
    case CUDNN_PARAM_ACTIVATION_BITMASK_DESC:
    case CUDNN_PARAM_DXDESC:
    case CUDNN_PARAM_DZDESC: return ConstKind::tensor;
    case CUDNN_PARAM_WDESC:
    case CUDNN_PARAM_DWDESC: return ConstKind::filter;
    case CUDNN_PARAM_CONV_DESC: return ConstKind::convolution;
    case CUDNN_PARAM_ACTIVATION_DESC: return ConstKind::activation;
    case CUDNN_PARAM_BN_MODE: return ConstKind::bn_mode;
    default: return ConstKind::placeholder;
  }
}

void set_const(cudnnFusedOpsConstParamStruct &p, int label, const void *param) {
  check_label(const_label_allowed(p.ops, label), "const-pack", label, p.ops);
  const auto l = static_cast<cudnnFusedOpsConstParamLabel_t>(label);
  switch (const_label_kind(l)) {
    case ConstKind::tensor: {
      auto *d = static_cast<const cudnnTensorStruct *>(param);
      // cuDNN copies a created but never-set descriptor as it is.
      if (d == nullptr) p.tensors[l].reset();
      else p.tensors[l] = live_tensor(const_cast<cudnnTensorStruct *>(d), const_label_name(label));
      break;
    }
    case ConstKind::filter: {
      auto &slot = l == CUDNN_PARAM_WDESC ? p.w : p.dw;
      auto *d = static_cast<const cudnnFilterStruct *>(param);
      if (d == nullptr) slot.reset();
      else slot = live_filter(const_cast<cudnnFilterStruct *>(d), const_label_name(label));
      break;
    }
    case ConstKind::convolution: {
      auto *d = static_cast<const cudnnConvolutionStruct *>(param);
      if (d == nullptr) p.conv.reset();
      else p.conv = live_convolution(const_cast<cudnnConvolutionStruct *>(d), const_label_name(label));
      break;
    }
    case ConstKind::activation: {
      auto *d = static_cast<const cudnnActivationStruct *>(param);
      if (d == nullptr) p.activation.reset();
      else {
        check_arg(d->magic == cudnnActivationStruct::kAlive, const_label_name(label),
                  ": not a live activation descriptor");
        p.activation = *d;
      }
      break;
    }
    case ConstKind::placeholder:
    case ConstKind::bn_mode: {
      int v = 0;
      if (param != nullptr) std::memcpy(&v, param, sizeof v);
      p.values[l] = v;
      break;
    }
  }
}

int get_const(const cudnnFusedOpsConstParamStruct &p, int label, void *param) {
  check_not_null(param, "param");
  // cuDNN 9.19 answers BAD_PARAM to every label of this kind's getter
  // (probed locally); we keep its status.
  check_arg(p.ops != CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION,
            "cudnnGetFusedOpsConstParamPackAttribute does not read CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION packs "
            "(as in cuDNN 9)");
  check_label(const_label_allowed(p.ops, label), "const-pack", label, p.ops);
  const auto l = static_cast<cudnnFusedOpsConstParamLabel_t>(label);
  switch (const_label_kind(l)) {
    case ConstKind::tensor: {
      if (!p.tensors[l]) return 1;
      cudnnTensorStruct &out = live_tensor(static_cast<cudnnTensorStruct *>(param), "param");
      out = *p.tensors[l];
      return 0;
    }
    case ConstKind::filter: {
      const auto &slot = l == CUDNN_PARAM_WDESC ? p.w : p.dw;
      if (!slot) return 1;
      live_filter(static_cast<cudnnFilterStruct *>(param), "param") = *slot;
      return 0;
    }
    case ConstKind::convolution:
      if (!p.conv) return 1;
      live_convolution(static_cast<cudnnConvolutionStruct *>(param), "param") = *p.conv;
      return 0;
    case ConstKind::activation: {
      if (!p.activation) return 1;
      auto *out = static_cast<cudnnActivationStruct *>(param);
      check_arg(out->magic == cudnnActivationStruct::kAlive, "param is not a live activation descriptor");
      *out = *p.activation;
      return 0;
    }
    case ConstKind::placeholder:
    case ConstKind::bn_mode: std::memcpy(param, &p.values[l], sizeof(int)); return 0;
  }
  return 0;
}

void set_variant(cudnnFusedOpsVariantParamStruct &p, int label, void *ptr) {
  check_label(variant_label_allowed(p.ops, label), "variant-pack", label, p.ops);
  if (label < kPointerLabelCount) {
    p.pointers[label] = ptr;
    return;
  }
  // Host scalars are copied (cuDNN 9.19 keeps the value, not the pointer);
  // NULL resets them to 0.
  switch (label) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES:
      p.workspace_bytes = ptr ? *static_cast<const size_t *>(ptr) : 0;
      break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
      p.accumulation_count = ptr ? *static_cast<const int64_t *>(ptr) : 0;
      break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: p.exp_avg_factor = ptr ? *static_cast<const double *>(ptr) : 0.0; break;
    case CUDNN_SCALAR_DOUBLE_BN_EPSILON: p.epsilon = ptr ? *static_cast<const double *>(ptr) : 0.0; break;
  }
}

void get_variant(const cudnnFusedOpsVariantParamStruct &p, int label, void *ptr) {
  check_not_null(ptr, "ptr");
  // cuDNN 9.19's getter answers BAD_PARAM to every label of this kind
  // (probed locally); we keep its status.
  check_arg(p.ops != CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE,
            "cudnnGetFusedOpsVariantParamPackAttribute does not read CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE "
            "packs (as in cuDNN 9)");
  check_label(variant_label_allowed(p.ops, label), "variant-pack", label, p.ops);
  if (label < kPointerLabelCount) {
    *static_cast<void **>(ptr) = p.pointers[label];
    return;
  }
  switch (label) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: *static_cast<size_t *>(ptr) = p.workspace_bytes; break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: *static_cast<int64_t *>(ptr) = p.accumulation_count; break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: *static_cast<double *>(ptr) = p.exp_avg_factor; break;
    case CUDNN_SCALAR_DOUBLE_BN_EPSILON: *static_cast<double *>(ptr) = p.epsilon; break;
  }
}

}  // namespace fdnn::fused
