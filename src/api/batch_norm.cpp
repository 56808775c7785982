// Batch normalization: cudnnBatchNormalizationForwardInference / Training /
// Backward, their Ex variants with fused add and activation, and the Ex
// size queries. Each call is one graph::NormalizationOp (batch norm over
// N and, per channel, the spatial dims; see api/normalization_common.hpp).
// SPATIAL_PERSISTENT computes what SPATIAL computes.
#include <cudnn_ops.h>

#include "api/guard.hpp"
#include "api/normalization_common.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// Checks the mode and the ops (0 for the calls without them).
NormSpec batch_norm_spec(NormPhase phase, int mode, int ops) {
  NormSpec s;
  s.phase = phase;
  s.per_activation = batch_norm_per_activation(mode);
  check_norm_ops(ops, "bnOps");
  s.ops = ops;
  return s;
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = batch_norm_spec(NormPhase::inference, mode, CUDNN_BATCHNORM_OPS_BN);
    s.epsilon = epsilon;
    const NormDescs d = forward_descs(CUDNN_BATCHNORM_OPS_BN, xDesc, yDesc, nullptr, bnScaleBiasMeanVarDesc,
                                      "bnScaleBiasMeanVarDesc", nullptr, nullptr, nullptr);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {x, "x"}, {y, "y"},
                        {bnScale, "bnScale"}, {bnBias, "bnBias"}, {estimatedMean, "estimatedMean"},
                        {estimatedVariance, "estimatedVariance"}})
      check_not_null(p, n);
    s.alpha = alpha;
    s.beta = beta;
    run_normalization(h, fn, build_normalization(s, d),
                      inference_pointers(x, nullptr, y, bnScale, bnBias, estimatedMean, estimatedVariance));
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t zDesc, const void *zData,
    const cudnnTensorDescriptor_t yDesc, void *yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScaleData, const void *bnBiasData, double exponentialAverageFactor, void *resultRunningMeanData,
    void *resultRunningVarianceData, double epsilon, void *saveMean, void *saveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = batch_norm_spec(NormPhase::training, mode, bnOps);
    s.epsilon = epsilon;
    s.exp_avg_factor = exponentialAverageFactor;
    const NormDescs d = forward_descs(bnOps, xDesc, yDesc, zDesc, bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc",
                                      nullptr, nullptr, activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {xData, "xData"},
                        {yData, "yData"}, {bnScaleData, "bnScaleData"}, {bnBiasData, "bnBiasData"}})
      check_not_null(p, n);
    if (bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) check_not_null(zData, "zData");
    s.running_mean = resultRunningMeanData != nullptr;
    s.running_var = resultRunningVarianceData != nullptr;
    s.saved_stats = pair_given(saveMean, saveInvVariance, "saveMean", "saveInvVariance");
    s.alpha = alpha;
    s.beta = beta;
    run_normalization(h, fn, build_normalization(s, d),
                      training_pointers(xData, zData, yData, bnScaleData, bnBiasData, resultRunningMeanData,
                                        resultRunningVarianceData, saveMean, saveInvVariance, workspace,
                                        workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes));
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance) {
  return cudnnBatchNormalizationForwardTrainingEx(
      handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha, beta, xDesc, x, nullptr, nullptr, yDesc, y,
      bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor, resultRunningMean, resultRunningVariance,
      epsilon, resultSaveMean, resultSaveInvVariance, nullptr, nullptr, 0, nullptr, 0);
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void *xData, const cudnnTensorDescriptor_t yDesc, const void *yData,
    const cudnnTensorDescriptor_t dyDesc, const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void *bnScaleData, const void *bnBiasData, void *dBnScaleData, void *dBnBiasData, double epsilon,
    const void *savedMean, const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc,
    void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = batch_norm_spec(NormPhase::backward, mode, bnOps);
    s.epsilon = epsilon;
    const NormDescs d = backward_descs(bnOps, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dBnScaleBiasDesc,
                                       "dBnScaleBiasDesc", nullptr, nullptr, activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alphaDataDiff, "alphaDataDiff"},
                        {betaDataDiff, "betaDataDiff"}, {alphaParamDiff, "alphaParamDiff"},
                        {betaParamDiff, "betaParamDiff"}, {xData, "xData"}, {dyData, "dyData"}, {dxData, "dxData"},
                        {bnScaleData, "bnScaleData"}, {dBnScaleData, "dBnScaleData"}, {dBnBiasData, "dBnBiasData"}})
      check_not_null(p, n);
    if (bnOps == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) check_not_null(dzData, "dzData");
    s.saved_stats = pair_given(savedMean, savedInvVariance, "savedMean", "savedInvVariance");
    s.alpha = alphaDataDiff;
    s.beta = betaDataDiff;
    s.alpha_param = alphaParamDiff;
    s.beta_param = betaParamDiff;
    run_normalization(h, fn, build_normalization(s, d),
                      backward_pointers(xData, dyData, dxData, dzData, bnScaleData, dBnScaleData, dBnBiasData,
                                        savedMean, savedInvVariance, workspace, workSpaceSizeInBytes, reserveSpace,
                                        reserveSpaceSizeInBytes));
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult,
    void *dBnBiasResult, double epsilon, const void *savedMean, const void *savedInvVariance) {
  return cudnnBatchNormalizationBackwardEx(handle, mode, CUDNN_BATCHNORM_OPS_BN, alphaDataDiff, betaDataDiff,
                                           alphaParamDiff, betaParamDiff, xDesc, x, nullptr, nullptr, dyDesc, dy,
                                           nullptr, nullptr, dxDesc, dx, dBnScaleBiasDesc, bnScale, nullptr,
                                           dBnScaleResult, dBnBiasResult, epsilon, savedMean, savedInvVariance,
                                           nullptr, nullptr, 0, nullptr, 0);
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const cudnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = batch_norm_spec(NormPhase::training, mode, bnOps);
    s.running_mean = s.running_var = s.saved_stats = true;
    const NormDescs d = forward_descs(bnOps, xDesc, yDesc, zDesc, bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc",
                                      nullptr, nullptr, activationDesc);
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = plan_for(h, build_normalization(s, d).g)->workspace_size();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = batch_norm_spec(NormPhase::backward, mode, bnOps);
    s.saved_stats = true;
    const NormDescs d = backward_descs(bnOps, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dBnScaleBiasDesc,
                                       "dBnScaleBiasDesc", nullptr, nullptr, activationDesc);
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = plan_for(h, build_normalization(s, d).g)->workspace_size();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    batch_norm_spec(NormPhase::training, mode, bnOps);
    activation_for(bnOps, activationDesc);
    const cudnnTensorStruct &x = checked_tensor(xDesc, "xDesc");
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = normalization_reserve_bytes(bnOps, x);
  });
}

}  // extern "C"
