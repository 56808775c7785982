/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_ops_train.h: backward passes of the layer routines declared in
 * cudnn_ops_infer.h, plus the training-mode forward passes of the normalizations.
 */

#ifndef CUDNN_OPS_TRAIN_H_
#define CUDNN_OPS_TRAIN_H_

#include "cudnn_ops_infer.h"

/* Version of this sub-library (always the same as the API level in cudnn_version.h). */
#define CUDNN_OPS_TRAIN_MAJOR CUDNN_MAJOR
#define CUDNN_OPS_TRAIN_MINOR CUDNN_MINOR
#define CUDNN_OPS_TRAIN_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* The API functions have default visibility even when the including code (or the library
 * itself) is compiled with -fvisibility=hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------------------------
 * Sub-library version check (8.x).
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnOpsTrainVersionCheck(void);

/* ---------------------------------------------------------------------------------------
 * Gradients of softmax, pooling, activation, LRN and divisive normalization.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algorithm,
                     cudnnSoftmaxMode_t mode, const void *alpha,
                     const cudnnTensorDescriptor_t yDesc, const void *yData,
                     const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                     const cudnnTensorDescriptor_t dxDesc, void *dx);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                     const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                     const cudnnTensorDescriptor_t dyDesc, const void *dy,
                     const cudnnTensorDescriptor_t xDesc, const void *xData, const void *beta,
                     const cudnnTensorDescriptor_t dxDesc, void *dx);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                        const void *alpha, const cudnnTensorDescriptor_t yDesc, const void *y,
                        const cudnnTensorDescriptor_t dyDesc, const void *dy,
                        const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                        const cudnnTensorDescriptor_t dxDesc, void *dx);

cudnnStatus_t CUDNNWINAPI
cudnnLRNCrossChannelBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                             cudnnLRNMode_t lrnMode, const void *alpha,
                             const cudnnTensorDescriptor_t yDesc, const void *y,
                             const cudnnTensorDescriptor_t dyDesc, const void *dy,
                             const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                             const cudnnTensorDescriptor_t dxDesc, void *dx);

cudnnStatus_t CUDNNWINAPI
cudnnDivisiveNormalizationBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                   cudnnDivNormMode_t mode, const void *alpha,
                                   const cudnnTensorDescriptor_t xDesc, const void *x,
                                   const void *means, const void *dy, void *temp, void *temp2,
                                   const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx,
                                   void *dMeans);

/* ---------------------------------------------------------------------------------------
 * Batch normalization, training mode: workspace queries, forward and backward.
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardTraining(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                       const void *alpha, const void *beta,
                                       const cudnnTensorDescriptor_t xDesc, const void *x,
                                       const cudnnTensorDescriptor_t yDesc, void *y,
                                       const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                                       const void *bnScale, const void *bnBias,
                                       double exponentialAverageFactor, void *resultRunningMean,
                                       void *resultRunningVariance, double epsilon,
                                       void *resultSaveMean, void *resultSaveInvVariance);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardTrainingEx(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                         cudnnBatchNormOps_t bnOps, const void *alpha,
                                         const void *beta, const cudnnTensorDescriptor_t xDesc,
                                         const void *xData, const cudnnTensorDescriptor_t zDesc,
                                         const void *zData, const cudnnTensorDescriptor_t yDesc,
                                         void *yData,
                                         const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                                         const void *bnScaleData, const void *bnBiasData,
                                         double exponentialAverageFactor,
                                         void *resultRunningMeanData,
                                         void *resultRunningVarianceData, double epsilon,
                                         void *saveMean, void *saveInvVariance,
                                         cudnnActivationDescriptor_t activationDesc,
                                         void *workspace, size_t workspaceSizeInBytes,
                                         void *reserveSpace, size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationBackward(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                const void *alphaDataDiff, const void *betaDataDiff,
                                const void *alphaParamDiff, const void *betaParamDiff,
                                const cudnnTensorDescriptor_t xDesc, const void *x,
                                const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                const cudnnTensorDescriptor_t dxDesc, void *dx,
                                const cudnnTensorDescriptor_t bnScaleBiasDiffDesc,
                                const void *bnScale, void *resultBnScaleDiff,
                                void *resultBnBiasDiff, double epsilon, const void *savedMean,
                                const void *savedInvVariance);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationBackwardEx(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                  cudnnBatchNormOps_t bnOps, const void *alphaDataDiff,
                                  const void *betaDataDiff, const void *alphaParamDiff,
                                  const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc,
                                  const void *xData, const cudnnTensorDescriptor_t yDesc,
                                  const void *yData, const cudnnTensorDescriptor_t dyDesc,
                                  const void *dyData, const cudnnTensorDescriptor_t dzDesc,
                                  void *dzData, const cudnnTensorDescriptor_t dxDesc, void *dxData,
                                  const cudnnTensorDescriptor_t dBnScaleBiasDesc,
                                  const void *bnScaleData, const void *bnBiasData,
                                  void *dBnScaleData, void *dBnBiasData, double epsilon,
                                  const void *savedMean, const void *savedInvVariance,
                                  cudnnActivationDescriptor_t activationDesc, void *workspace,
                                  size_t workSpaceSizeInBytes, void *reserveSpace,
                                  size_t reserveSpaceSizeInBytes);

/* ---------------------------------------------------------------------------------------
 * Generic normalization, training mode.
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t normScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationBackwardWorkspaceSize(cudnnHandle_t handle, cudnnNormMode_t mode,
                                           cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
                                           const cudnnTensorDescriptor_t xDesc,
                                           const cudnnTensorDescriptor_t yDesc,
                                           const cudnnTensorDescriptor_t dyDesc,
                                           const cudnnTensorDescriptor_t dzDesc,
                                           const cudnnTensorDescriptor_t dxDesc,
                                           const cudnnTensorDescriptor_t dNormScaleBiasDesc,
                                           const cudnnActivationDescriptor_t activationDesc,
                                           const cudnnTensorDescriptor_t normMeanVarDesc,
                                           size_t *sizeInBytes, int groupCnt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationTrainingReserveSpaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes, int groupCnt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnNormalizationForwardTraining(cudnnHandle_t handle, cudnnNormMode_t mode,
                                  cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
                                  const void *beta, const cudnnTensorDescriptor_t xDesc,
                                  const void *xData,
                                  const cudnnTensorDescriptor_t normScaleBiasDesc,
                                  const void *normScale, const void *normBias,
                                  double exponentialAverageFactor,
                                  const cudnnTensorDescriptor_t normMeanVarDesc,
                                  void *resultRunningMean, void *resultRunningVariance,
                                  double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
                                  cudnnActivationDescriptor_t activationDesc,
                                  const cudnnTensorDescriptor_t zDesc, const void *zData,
                                  const cudnnTensorDescriptor_t yDesc, void *yData, void *workspace,
                                  size_t workSpaceSizeInBytes, void *reserveSpace,
                                  size_t reserveSpaceSizeInBytes, int groupCnt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnNormalizationBackward(cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps,
                           cudnnNormAlgo_t algo, const void *alphaDataDiff,
                           const void *betaDataDiff, const void *alphaParamDiff,
                           const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc,
                           const void *xData, const cudnnTensorDescriptor_t yDesc,
                           const void *yData, const cudnnTensorDescriptor_t dyDesc,
                           const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
                           const cudnnTensorDescriptor_t dxDesc, void *dxData,
                           const cudnnTensorDescriptor_t dNormScaleBiasDesc,
                           const void *normScaleData, const void *normBiasData,
                           void *dNormScaleData, void *dNormBiasData, double epsilon,
                           const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean,
                           const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc,
                           void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
                           size_t reserveSpaceSizeInBytes, int groupCnt);

/* ---------------------------------------------------------------------------------------
 * Spatial transformer gradients.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfGridGeneratorBackward(cudnnHandle_t handle,
                                    const cudnnSpatialTransformerDescriptor_t stDesc,
                                    const void *dgrid, void *dtheta);

cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfSamplerBackward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                              const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                              const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx,
                              const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc,
                              const void *dy, const void *grid, const void *betaDgrid, void *dgrid);

/* ---------------------------------------------------------------------------------------
 * Dropout gradient.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                     const cudnnTensorDescriptor_t dydesc, const void *dy,
                     const cudnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                     size_t reserveSpaceSizeInBytes);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_OPS_TRAIN_H_ */
