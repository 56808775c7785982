/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_adv_train.h: RNN and multi-head attention backward passes, and the CTC loss.
 */

#ifndef CUDNN_ADV_TRAIN_H_
#define CUDNN_ADV_TRAIN_H_

#include "cudnn_ops_train.h"
#include "cudnn_adv_infer.h"

/* Version of this sub-library (always the same as the API level in cudnn_version.h). */
#define CUDNN_ADV_TRAIN_MAJOR CUDNN_MAJOR
#define CUDNN_ADV_TRAIN_MINOR CUDNN_MINOR
#define CUDNN_ADV_TRAIN_PATCH CUDNN_PATCHLEVEL

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
cudnnAdvTrainVersionCheck(void);

/* ---------------------------------------------------------------------------------------
 * Whether weight gradients overwrite or accumulate into the output buffer.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_WGRAD_MODE_ADD = 0,
    CUDNN_WGRAD_MODE_SET = 1,
} cudnnWgradMode_t;

/* ---------------------------------------------------------------------------------------
 * RNN backward passes (v8 interface).
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                        const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc,
                        const void *y, const void *dy, cudnnRNNDataDescriptor_t xDesc, void *dx,
                        cudnnTensorDescriptor_t hDesc, const void *hx, const void *dhy, void *dhx,
                        cudnnTensorDescriptor_t cDesc, const void *cx, const void *dcy, void *dcx,
                        size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                        void *workSpace, size_t reserveSpaceSize, void *reserveSpace);

cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                           cudnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                           cudnnRNNDataDescriptor_t xDesc, const void *x,
                           cudnnTensorDescriptor_t hDesc, const void *hx,
                           cudnnRNNDataDescriptor_t yDesc, const void *y, size_t weightSpaceSize,
                           void *dweightSpace, size_t workSpaceSize, void *workSpace,
                           size_t reserveSpaceSize, void *reserveSpace);

/* ---------------------------------------------------------------------------------------
 * Legacy RNN training API (cuDNN 6/7 style; deprecated in 8.0 and gone from cuDNN 9).
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTrainingReserveSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                               const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                               size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTraining(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                        const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x,
                        const cudnnTensorDescriptor_t hxDesc, const void *hx,
                        const cudnnTensorDescriptor_t cxDesc, const void *cx,
                        const cudnnFilterDescriptor_t wDesc, const void *w,
                        const cudnnTensorDescriptor_t *yDesc, void *y,
                        const cudnnTensorDescriptor_t hyDesc, void *hy,
                        const cudnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                        size_t workSpaceSizeInBytes, void *reserveSpace,
                        size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                     const cudnnTensorDescriptor_t *yDesc, const void *y,
                     const cudnnTensorDescriptor_t *dyDesc, const void *dy,
                     const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
                     const cudnnTensorDescriptor_t dcyDesc, const void *dcy,
                     const cudnnFilterDescriptor_t wDesc, const void *w,
                     const cudnnTensorDescriptor_t hxDesc, const void *hx,
                     const cudnnTensorDescriptor_t cxDesc, const void *cx,
                     const cudnnTensorDescriptor_t *dxDesc, void *dx,
                     const cudnnTensorDescriptor_t dhxDesc, void *dhx,
                     const cudnnTensorDescriptor_t dcxDesc, void *dcx, void *workspace,
                     size_t workSpaceSizeInBytes, void *reserveSpace,
                     size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                        const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x,
                        const cudnnTensorDescriptor_t hxDesc, const void *hx,
                        const cudnnTensorDescriptor_t *yDesc, const void *y, const void *workspace,
                        size_t workspaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                        const void *reserveSpace, size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTrainingEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                          const cudnnRNNDataDescriptor_t xDesc, const void *x,
                          const cudnnTensorDescriptor_t hxDesc, const void *hx,
                          const cudnnTensorDescriptor_t cxDesc, const void *cx,
                          const cudnnFilterDescriptor_t wDesc, const void *w,
                          const cudnnRNNDataDescriptor_t yDesc, void *y,
                          const cudnnTensorDescriptor_t hyDesc, void *hy,
                          const cudnnTensorDescriptor_t cyDesc, void *cy,
                          const cudnnRNNDataDescriptor_t kDesc, const void *keys,
                          const cudnnRNNDataDescriptor_t cDesc, void *cAttn,
                          const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
                          const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workspace,
                          size_t workspaceSizeInBytes, void *reserveSpace,
                          size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardDataEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                       const cudnnRNNDataDescriptor_t yDesc, const void *y,
                       const cudnnRNNDataDescriptor_t dyDesc, const void *dy,
                       const cudnnRNNDataDescriptor_t dcDesc, const void *dcAttn,
                       const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
                       const cudnnTensorDescriptor_t dcyDesc, const void *dcy,
                       const cudnnFilterDescriptor_t wDesc, const void *w,
                       const cudnnTensorDescriptor_t hxDesc, const void *hx,
                       const cudnnTensorDescriptor_t cxDesc, const void *cx,
                       const cudnnRNNDataDescriptor_t dxDesc, void *dx,
                       const cudnnTensorDescriptor_t dhxDesc, void *dhx,
                       const cudnnTensorDescriptor_t dcxDesc, void *dcx,
                       const cudnnRNNDataDescriptor_t dkDesc, void *dkeys, void *workSpace,
                       size_t workSpaceSizeInBytes, void *reserveSpace,
                       size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeightsEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                          const cudnnRNNDataDescriptor_t xDesc, const void *x,
                          const cudnnTensorDescriptor_t hxDesc, const void *hx,
                          const cudnnRNNDataDescriptor_t yDesc, const void *y, void *workSpace,
                          size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc,
                          void *dw, void *reserveSpace, size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardTrainingAlgorithmEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                       const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                                       const void *x, const cudnnTensorDescriptor_t hxDesc,
                                       const void *hx, const cudnnTensorDescriptor_t cxDesc,
                                       const void *cx, const cudnnFilterDescriptor_t wDesc,
                                       const void *w, const cudnnTensorDescriptor_t *yDesc, void *y,
                                       const cudnnTensorDescriptor_t hyDesc, void *hy,
                                       const cudnnTensorDescriptor_t cyDesc, void *cy,
                                       const float findIntensity, const int requestedAlgoCount,
                                       int *returnedAlgoCount,
                                       cudnnAlgorithmPerformance_t *perfResults, void *workspace,
                                       size_t workspaceSizeInBytes, void *reserveSpace,
                                       size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardDataAlgorithmEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                    const int seqLength, const cudnnTensorDescriptor_t *yDesc,
                                    const void *y, const cudnnTensorDescriptor_t *dyDesc,
                                    const void *dy, const cudnnTensorDescriptor_t dhyDesc,
                                    const void *dhy, const cudnnTensorDescriptor_t dcyDesc,
                                    const void *dcy, const cudnnFilterDescriptor_t wDesc,
                                    const void *w, const cudnnTensorDescriptor_t hxDesc,
                                    const void *hx, const cudnnTensorDescriptor_t cxDesc,
                                    const void *cx, const cudnnTensorDescriptor_t *dxDesc, void *dx,
                                    const cudnnTensorDescriptor_t dhxDesc, void *dhx,
                                    const cudnnTensorDescriptor_t dcxDesc, void *dcx,
                                    const float findIntensity, const int requestedAlgoCount,
                                    int *returnedAlgoCount,
                                    cudnnAlgorithmPerformance_t *perfResults, void *workspace,
                                    size_t workSpaceSizeInBytes, void *reserveSpace,
                                    size_t reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardWeightsAlgorithmMaxCount(cudnnHandle_t handle,
                                            const cudnnRNNDescriptor_t rnnDesc, int *count);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardWeightsAlgorithmEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                       const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                                       const void *x, const cudnnTensorDescriptor_t hxDesc,
                                       const void *hx, const cudnnTensorDescriptor_t *yDesc,
                                       const void *y, const float findIntensity,
                                       const int requestedAlgoCount, int *returnedAlgoCount,
                                       cudnnAlgorithmPerformance_t *perfResults,
                                       const void *workspace, size_t workspaceSizeInBytes,
                                       const cudnnFilterDescriptor_t dwDesc, void *dw,
                                       const void *reserveSpace, size_t reserveSpaceSizeInBytes);

/* ---------------------------------------------------------------------------------------
 * Multi-head attention gradients.
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardData(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                               const int loWinIdx[], const int hiWinIdx[],
                               const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[],
                               const cudnnSeqDataDescriptor_t doDesc, const void *dout,
                               const cudnnSeqDataDescriptor_t dqDesc, void *dqueries,
                               const void *queries, const cudnnSeqDataDescriptor_t dkDesc,
                               void *dkeys, const void *keys, const cudnnSeqDataDescriptor_t dvDesc,
                               void *dvalues, const void *values, size_t weightSizeInBytes,
                               const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
                               size_t reserveSpaceSizeInBytes, void *reserveSpace);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardWeights(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                  cudnnWgradMode_t addGrad, const cudnnSeqDataDescriptor_t qDesc,
                                  const void *queries, const cudnnSeqDataDescriptor_t kDesc,
                                  const void *keys, const cudnnSeqDataDescriptor_t vDesc,
                                  const void *values, const cudnnSeqDataDescriptor_t doDesc,
                                  const void *dout, size_t weightSizeInBytes, const void *weights,
                                  void *dweights, size_t workSpaceSizeInBytes, void *workSpace,
                                  size_t reserveSpaceSizeInBytes, void *reserveSpace);

/* ---------------------------------------------------------------------------------------
 * Connectionist temporal classification loss. The _v8/_v9 descriptor setters add
 * normalization, NaN and out-of-bound-gradient options and a label-length limit.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_LOSS_NORMALIZATION_NONE    = 0,
    CUDNN_LOSS_NORMALIZATION_SOFTMAX = 1,
} cudnnLossNormalizationMode_t;

cudnnStatus_t CUDNNWINAPI
cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t *ctcLossDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                            cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                             cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode,
                             int maxLabelLength);

cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                             cudnnLossNormalizationMode_t normMode, cudnnCTCGradMode_t ctcGradMode,
                             int maxLabelLength);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                            cudnnLossNormalizationMode_t *normMode,
                            cudnnNanPropagation_t *gradMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                             cudnnLossNormalizationMode_t *normMode,
                             cudnnNanPropagation_t *gradMode, int *maxLabelLength);

cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                             cudnnLossNormalizationMode_t *normMode,
                             cudnnCTCGradMode_t *ctcGradMode, int *maxLabelLength);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc);

cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs,
             const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[],
             void *costs, const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
             cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace,
             size_t workSpaceSizeInBytes);

cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                const cudnnTensorDescriptor_t probsDesc, const void *probs, const int labels[],
                const int labelLengths[], const int inputLengths[], void *costs,
                const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
                size_t workSpaceSizeInBytes, void *workspace);

cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                             const cudnnTensorDescriptor_t gradientsDesc, const int *labels,
                             const int *labelLengths, const int *inputLengths,
                             cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                             size_t *sizeInBytes);

cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                cudnnCTCLossDescriptor_t ctcLossDesc,
                                const cudnnTensorDescriptor_t probsDesc,
                                const cudnnTensorDescriptor_t gradientsDesc, size_t *sizeInBytes);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_ADV_TRAIN_H_ */
