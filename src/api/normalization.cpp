// The generic normalization API: cudnnNormalizationForwardInference /
// ForwardTraining / Backward and their size queries. Per-channel and
// per-activation modes with the fused NORM_ACTIVATION / NORM_ADD_ACTIVATION
// ops; the same graph::NormalizationOp as the batch-norm calls, with
// separate descriptors for scale/bias and for the statistics.
#include <cudnn_ops.h>

#include "api/guard.hpp"
#include "api/normalization_common.hpp"
#include "core/handle.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

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

// Checks mode, ops, algo and groupCnt in cuDNN's order.
NormSpec generic_spec(NormPhase phase, int mode, int ops, int algo, int group_cnt) {
  NormSpec s;
  s.phase = phase;
  s.per_activation = norm_per_activation(mode);
  check_norm_ops(ops, "normOps");
  check_algo(algo);
  check_group_count(group_cnt);
  s.ops = ops;
  return s;
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
    NormSpec s = generic_spec(NormPhase::inference, mode, normOps, algo, groupCnt);
    s.epsilon = epsilon;
    const NormDescs d = forward_descs(normOps, xDesc, yDesc, zDesc, normScaleBiasDesc, "normScaleBiasDesc",
                                      normMeanVarDesc, "normMeanVarDesc", activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {x, "x"}, {y, "y"},
                        {normScale, "normScale"}, {normBias, "normBias"}, {estimatedMean, "estimatedMean"},
                        {estimatedVariance, "estimatedVariance"}})
      check_not_null(p, n);
    if (normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) check_not_null(z, "z");
    s.alpha = alpha;
    s.beta = beta;
    run_normalization(h, fn, build_normalization(s, d),
                      inference_pointers(x, z, y, normScale, normBias, estimatedMean, estimatedVariance));
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    NormSpec s = generic_spec(NormPhase::training, mode, normOps, algo, groupCnt);
    s.running_mean = s.running_var = s.saved_stats = true;
    const NormDescs d = forward_descs(normOps, xDesc, yDesc, zDesc, normScaleBiasDesc, "normScaleBiasDesc",
                                      normMeanVarDesc, "normMeanVarDesc", activationDesc);
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
    NormSpec s = generic_spec(NormPhase::backward, mode, normOps, algo, groupCnt);
    s.saved_stats = true;
    const NormDescs d = backward_descs(normOps, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dNormScaleBiasDesc,
                                       "dNormScaleBiasDesc", normMeanVarDesc, "normMeanVarDesc", activationDesc);
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
    generic_spec(NormPhase::training, mode, normOps, algo, groupCnt);
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
    NormSpec s = generic_spec(NormPhase::training, mode, normOps, algo, groupCnt);
    s.epsilon = epsilon;
    s.exp_avg_factor = exponentialAverageFactor;
    const NormDescs d = forward_descs(normOps, xDesc, yDesc, zDesc, normScaleBiasDesc, "normScaleBiasDesc",
                                      normMeanVarDesc, "normMeanVarDesc", activationDesc);
    for (auto [p, n] : {std::pair<const void *, const char *>{alpha, "alpha"}, {beta, "beta"}, {xData, "xData"},
                        {yData, "yData"}, {normScale, "normScale"}, {normBias, "normBias"}})
      check_not_null(p, n);
    if (normOps == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION) check_not_null(zData, "zData");
    s.running_mean = resultRunningMean != nullptr;
    s.running_var = resultRunningVariance != nullptr;
    s.saved_stats = pair_given(resultSaveMean, resultSaveInvVariance, "resultSaveMean", "resultSaveInvVariance");
    s.alpha = alpha;
    s.beta = beta;
    run_normalization(h, fn, build_normalization(s, d),
                      training_pointers(xData, zData, yData, normScale, normBias, resultRunningMean,
                                        resultRunningVariance, resultSaveMean, resultSaveInvVariance, workspace,
                                        workSpaceSizeInBytes, reserveSpace, reserveSpaceSizeInBytes));
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
    NormSpec s = generic_spec(NormPhase::backward, mode, normOps, algo, groupCnt);
    s.epsilon = epsilon;
    // normMeanVarDesc is checked only with the saved statistics (below).
    NormDescs d = backward_descs(normOps, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dNormScaleBiasDesc,
                                 "dNormScaleBiasDesc", nullptr, nullptr, activationDesc);
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
    run_normalization(h, fn, build_normalization(s, d),
                      backward_pointers(xData, dyData, dxData, dzData, normScaleData, dNormScaleData, dNormBiasData,
                                        savedMean, savedInvVariance, workSpace, workSpaceSizeInBytes, reserveSpace,
                                        reserveSpaceSizeInBytes));
  });
}

}  // extern "C"
