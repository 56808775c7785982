// The generic normalization API: cudnnNormalizationForwardInference /
// ForwardTraining / Backward and their size queries. Per-channel and
// per-activation modes with the fused NORM_ACTIVATION / NORM_ADD_ACTIVATION
// ops; the same graph::NormalizationOp as the batch-norm calls, with
// separate descriptors for scale/bias and for the statistics.
#include <cudnn_ops.h>

#include "api/guard.hpp"
#include "api/normalization_common.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

const cudnnActivationStruct *activation_for(int ops, const cudnnActivationStruct *d) {
  if (ops == 0) return nullptr;
  return &live_descriptor(const_cast<cudnnActivationStruct *>(d), "activationDesc", "activation");
}

const cudnnTensorStruct *optional_tensor(const cudnnTensorStruct *d, bool needed, const char *name) {
  return needed ? &checked_tensor(d, name) : nullptr;
}

// cuDNN 9.19 implements groupCnt == 1 only and answers NOT_SUPPORTED for
// every other value, 0 and negative ones included (measured on the GPU).
void check_group_count(int group_cnt) {
  check_supported(group_cnt == 1, "groupCnt = ", group_cnt, ": only 1 (no grouping) is supported");
}

// normAlgo: STANDARD or PERSIST (the same results); other values are
// NOT_SUPPORTED in cuDNN 9.19.
void check_algo(int algo) {
  check_supported(algo == CUDNN_NORM_ALGO_STANDARD || algo == CUDNN_NORM_ALGO_PERSIST, "algo = ", algo,
                  ": expected CUDNN_NORM_ALGO_STANDARD or CUDNN_NORM_ALGO_PERSIST");
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardInference(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const cudnnTensorDescriptor_t zDesc, const void *z, cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s;
    s.phase = NormPhase::inference;
    s.per_activation = norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    s.ops = normOps;
    s.epsilon = epsilon;
    NormDescs d;
    d.x = &checked_tensor(xDesc, "xDesc");
    d.y = &checked_tensor(yDesc, "yDesc");
    d.z = optional_tensor(zDesc, normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "zDesc");
    d.scale_bias = &checked_tensor(normScaleBiasDesc, "normScaleBiasDesc");
    d.scale_bias_name = "normScaleBiasDesc";
    d.mean_var = &checked_tensor(normMeanVarDesc, "normMeanVarDesc");
    d.activation = activation_for(normOps, activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {x, "x"}, {y, "y"},
                        {normScale, "normScale"}, {normBias, "normBias"}, {estimatedMean, "estimatedMean"},
                        {estimatedVariance, "estimatedVariance"}})
      check_not_null(p, n);
    if (normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) check_not_null(z, "z");
    s.alpha = alpha;
    s.beta = beta;
    NormProblem p = build_normalization(s, d);
    NormPointers ptr;
    ptr.x = x;
    ptr.z = z;
    ptr.y = y;
    ptr.scale = normScale;
    ptr.bias = normBias;
    ptr.mean = estimatedMean;
    ptr.variance = estimatedVariance;
    run_normalization(h, fn, p, ptr);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s;
    s.phase = NormPhase::training;
    s.per_activation = norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    s.ops = normOps;
    s.running_mean = s.running_var = s.saved_stats = true;
    NormDescs d;
    d.x = &checked_tensor(xDesc, "xDesc");
    d.y = &checked_tensor(yDesc, "yDesc");
    d.z = optional_tensor(zDesc, normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "zDesc");
    d.scale_bias = &checked_tensor(normScaleBiasDesc, "normScaleBiasDesc");
    d.scale_bias_name = "normScaleBiasDesc";
    d.mean_var = &checked_tensor(normMeanVarDesc, "normMeanVarDesc");
    d.activation = activation_for(normOps, activationDesc);
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = plan_for(h, build_normalization(s, d).g)->workspace_size();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s;
    s.phase = NormPhase::backward;
    s.per_activation = norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    s.ops = normOps;
    s.saved_stats = true;
    NormDescs d;
    d.x = &checked_tensor(xDesc, "xDesc");
    if (normOps != CUDNN_NORM_OPS_NORM) d.y = &checked_tensor(yDesc, "yDesc");
    d.dy = &checked_tensor(dyDesc, "dyDesc");
    d.dx = &checked_tensor(dxDesc, "dxDesc");
    d.dz = optional_tensor(dzDesc, normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "dzDesc");
    d.scale_bias = &checked_tensor(dNormScaleBiasDesc, "dNormScaleBiasDesc");
    d.scale_bias_name = "dNormScaleBiasDesc";
    d.mean_var = &checked_tensor(normMeanVarDesc, "normMeanVarDesc");
    d.activation = activation_for(normOps, activationDesc);
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = plan_for(h, build_normalization(s, d).g)->workspace_size();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationTrainingReserveSpaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    activation_for(normOps, activationDesc);
    const cudnnTensorStruct &x = checked_tensor(xDesc, "xDesc");
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = normalization_reserve_bytes(normOps, x);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s;
    s.phase = NormPhase::training;
    s.per_activation = norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    s.ops = normOps;
    s.epsilon = epsilon;
    s.exp_avg_factor = exponentialAverageFactor;
    NormDescs d;
    d.x = &checked_tensor(xDesc, "xDesc");
    d.y = &checked_tensor(yDesc, "yDesc");
    d.z = optional_tensor(zDesc, normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "zDesc");
    d.scale_bias = &checked_tensor(normScaleBiasDesc, "normScaleBiasDesc");
    d.scale_bias_name = "normScaleBiasDesc";
    d.mean_var = &checked_tensor(normMeanVarDesc, "normMeanVarDesc");
    d.activation = activation_for(normOps, activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {xData, "xData"},
                        {yData, "yData"}, {normScale, "normScale"}, {normBias, "normBias"}})
      check_not_null(p, n);
    if (normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) check_not_null(zData, "zData");
    s.running_mean = resultRunningMean != nullptr;
    s.running_var = resultRunningVariance != nullptr;
    s.saved_stats = pair_given(resultSaveMean, resultSaveInvVariance, "resultSaveMean", "resultSaveInvVariance");
    s.alpha = alpha;
    s.beta = beta;
    NormProblem p = build_normalization(s, d);
    NormPointers ptr;
    ptr.x = xData;
    ptr.z = zData;
    ptr.y = yData;
    ptr.scale = normScale;
    ptr.bias = normBias;
    ptr.running_mean = resultRunningMean;
    ptr.running_variance = resultRunningVariance;
    ptr.save_mean = resultSaveMean;
    ptr.save_inv_variance = resultSaveInvVariance;
    ptr.workspace = workspace;
    ptr.workspace_bytes = workSpaceSizeInBytes;
    ptr.reserve = reserveSpace;
    ptr.reserve_bytes = reserveSpaceSizeInBytes;
    run_normalization(h, fn, p, ptr);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnNormalizationBackward(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData,
    const cudnnTensorDescriptor_t dyDesc, const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData, const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const void *normScaleData, const void *normBiasData, void *dNormScaleData, void *dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean, const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt) {
  const char *fn = __func__;
  (void)yData;
  (void)normBiasData;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s;
    s.phase = NormPhase::backward;
    s.per_activation = norm_per_activation(mode);
    check_norm_ops(normOps, "normOps");
    check_algo(algo);
    check_group_count(groupCnt);
    s.ops = normOps;
    s.epsilon = epsilon;
    NormDescs d;
    d.x = &checked_tensor(xDesc, "xDesc");
    if (normOps != CUDNN_NORM_OPS_NORM) d.y = &checked_tensor(yDesc, "yDesc");
    d.dy = &checked_tensor(dyDesc, "dyDesc");
    d.dx = &checked_tensor(dxDesc, "dxDesc");
    d.dz = optional_tensor(dzDesc, normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION, "dzDesc");
    d.scale_bias = &checked_tensor(dNormScaleBiasDesc, "dNormScaleBiasDesc");
    d.scale_bias_name = "dNormScaleBiasDesc";
    d.activation = activation_for(normOps, activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alphaDataDiff, "alphaDataDiff"},
                        {betaDataDiff, "betaDataDiff"}, {alphaParamDiff, "alphaParamDiff"},
                        {betaParamDiff, "betaParamDiff"}, {xData, "xData"}, {dyData, "dyData"}, {dxData, "dxData"},
                        {normScaleData, "normScaleData"}, {dNormScaleData, "dNormScaleData"},
                        {dNormBiasData, "dNormBiasData"}})
      check_not_null(p, n);
    if (normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) check_not_null(dzData, "dzData");
    s.saved_stats = pair_given(savedMean, savedInvVariance, "savedMean", "savedInvVariance");
    if (s.saved_stats) d.mean_var = &checked_tensor(normMeanVarDesc, "normMeanVarDesc");
    s.alpha = alphaDataDiff;
    s.beta = betaDataDiff;
    s.alpha_param = alphaParamDiff;
    s.beta_param = betaParamDiff;
    NormProblem p = build_normalization(s, d);
    NormPointers ptr;
    ptr.x = xData;
    ptr.dy = dyData;
    ptr.dx = dxData;
    ptr.dz = dzData;
    ptr.scale = normScaleData;
    ptr.dscale = dNormScaleData;
    ptr.dbias = dNormBiasData;
    ptr.mean = savedMean;
    ptr.variance = savedInvVariance;
    ptr.workspace = workSpace;
    ptr.workspace_bytes = workSpaceSizeInBytes;
    ptr.reserve = reserveSpace;
    ptr.reserve_bytes = reserveSpaceSizeInBytes;
    run_normalization(h, fn, p, ptr);
  });
}

}  // extern "C"
