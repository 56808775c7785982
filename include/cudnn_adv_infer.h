/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_adv_infer.h: recurrent networks (descriptors, weights, forward pass), sequence
 * data descriptors and multi-head attention (forward pass), plus the RNN API of
 * cuDNN 6/7 that the 8.x releases still carried.
 */

#ifndef CUDNN_ADV_INFER_H_
#define CUDNN_ADV_INFER_H_

#include "cudnn_ops_infer.h"

/* Version of this sub-library (always the same as the API level in cudnn_version.h). */
#define CUDNN_ADV_INFER_MAJOR CUDNN_MAJOR
#define CUDNN_ADV_INFER_MINOR CUDNN_MINOR
#define CUDNN_ADV_INFER_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* The API functions have default visibility even when the including code (or the library
 * itself) is compiled with -fvisibility=hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------------------------
 * Sub-library version checks (8.x per-library name and the cuDNN 9 name).
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnAdvInferVersionCheck(void);

cudnnStatus_t CUDNNWINAPI
cudnnAdvVersionCheck(void);

/* ---------------------------------------------------------------------------------------
 * RNN configuration enums. cudnnRNNAlgo_t lives in cudnn_ops_infer.h.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_FWD_MODE_INFERENCE = 0,
    CUDNN_FWD_MODE_TRAINING  = 1,
} cudnnForwardMode_t;

typedef enum {
    CUDNN_RNN_RELU = 0,
    CUDNN_RNN_TANH = 1,
    CUDNN_LSTM     = 2,
    CUDNN_GRU      = 3,
} cudnnRNNMode_t;

typedef enum {
    CUDNN_RNN_NO_BIAS         = 0,
    CUDNN_RNN_SINGLE_INP_BIAS = 1,
    CUDNN_RNN_DOUBLE_BIAS     = 2,
    CUDNN_RNN_SINGLE_REC_BIAS = 3,
} cudnnRNNBiasMode_t;

typedef enum {
    CUDNN_UNIDIRECTIONAL = 0,
    CUDNN_BIDIRECTIONAL  = 1,
} cudnnDirectionMode_t;

typedef enum {
    CUDNN_LINEAR_INPUT = 0,
    CUDNN_SKIP_INPUT   = 1,
} cudnnRNNInputMode_t;

typedef enum {
    CUDNN_RNN_CLIP_NONE   = 0,
    CUDNN_RNN_CLIP_MINMAX = 1,
} cudnnRNNClipMode_t;

typedef enum {
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED   = 0,
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED     = 1,
    CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2,
} cudnnRNNDataLayout_t;

/* Bit flags for the auxFlags argument of cudnnSetRNNDescriptor_v8() (and the padding
 * mode of the older cudnnSetRNNPaddingMode(), which is an unsigned as well). */
typedef unsigned cudnnRNNPaddingMode_t;

#define CUDNN_RNN_PADDED_IO_DISABLED 0
#define CUDNN_RNN_PADDED_IO_ENABLED (1U << 0)

struct cudnnRNNStruct;
typedef struct cudnnRNNStruct *cudnnRNNDescriptor_t;

struct cudnnPersistentRNNPlan;
typedef struct cudnnPersistentRNNPlan *cudnnPersistentRNNPlan_t;

struct cudnnRNNDataStruct;
typedef struct cudnnRNNDataStruct *cudnnRNNDataDescriptor_t;

/* ---------------------------------------------------------------------------------------
 * RNN descriptor (v8 interface), clipping, dynamic persistent kernels, buffer sizes
 * and access to individual weight matrices / bias vectors inside the weight space.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *rnnDesc);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                         cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                         cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
                         cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize,
                         int32_t hiddenSize, int32_t projSize, int32_t numLayers,
                         cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags);

cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo,
                         cudnnRNNMode_t *cellMode, cudnnRNNBiasMode_t *biasMode,
                         cudnnDirectionMode_t *dirMode, cudnnRNNInputMode_t *inputMode,
                         cudnnDataType_t *dataType, cudnnDataType_t *mathPrec,
                         cudnnMathType_t *mathType, int32_t *inputSize, int32_t *hiddenSize,
                         int32_t *projSize, int32_t *numLayers,
                         cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags);

cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v9(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode, double lclip,
                   double rclip);

cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v9(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode, double *lclip,
                   double *rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                   cudnnNanPropagation_t clipNanOpt, double lclip, double rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                   cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip);

cudnnStatus_t CUDNNWINAPI
cudnnBuildRNNDynamic(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch);

cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                          cudnnForwardMode_t fMode, cudnnRNNDataDescriptor_t xDesc,
                          size_t *workSpaceSize, size_t *reserveSpaceSize);

cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                           size_t *weightSpaceSize);

cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                        size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID,
                        cudnnTensorDescriptor_t mDesc, void **mAddr, cudnnTensorDescriptor_t bDesc,
                        void **bAddr);

/* ---------------------------------------------------------------------------------------
 * RNN data descriptors (variable-length batches) and the v8 forward pass.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *RNNDataDesc);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t RNNDataDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t RNNDataDesc, cudnnDataType_t dataType,
                          cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                          int vectorSize, const int seqLengthArray[], void *paddingFill);

cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t RNNDataDesc, cudnnDataType_t *dataType,
                          cudnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize,
                          int *vectorSize, int arrayLengthRequested, int seqLengthArray[],
                          void *paddingFill);

cudnnStatus_t CUDNNWINAPI
cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
                cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc,
                const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx, void *cy,
                size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                void *workSpace, size_t reserveSpaceSize, void *reserveSpace);

/* ---------------------------------------------------------------------------------------
 * Legacy RNN API (cuDNN 6/7 style; deprecated in 8.0 and gone from cuDNN 9).
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v6(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                         const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                         cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction,
                         cudnnRNNMode_t mode, cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor_v6(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *hiddenSize,
                         int *numLayers, cudnnDropoutDescriptor_t *dropoutDesc,
                         cudnnRNNInputMode_t *inputMode, cudnnDirectionMode_t *direction,
                         cudnnRNNMode_t *cellMode, cudnnRNNAlgo_t *algo, cudnnDataType_t *mathPrec);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt, double lclip, double rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNProjectionLayers(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int recProjSize,
                            int outProjSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNProjectionLayers(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *recProjSize,
                            int *outProjSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreatePersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc, const int minibatch,
                             const cudnnDataType_t dataType, cudnnPersistentRNNPlan_t *plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyPersistentRNNPlan(cudnnPersistentRNNPlan_t plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetPersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWorkspaceSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                         const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                         size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNParamsSize(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                      const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
                      cudnnDataType_t dataType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerMatrixParams(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                const int pseudoLayer, const cudnnTensorDescriptor_t xDesc,
                                const cudnnFilterDescriptor_t wDesc, const void *w,
                                const int linLayerID, cudnnFilterDescriptor_t linLayerMatDesc,
                                void **linLayerMat);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerBiasParams(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                              const int pseudoLayer, const cudnnTensorDescriptor_t xDesc,
                              const cudnnFilterDescriptor_t wDesc, const void *w,
                              const int linLayerID, cudnnFilterDescriptor_t linLayerBiasDesc,
                              void **linLayerBias);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInference(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                         const int seqLength, const cudnnTensorDescriptor_t *xDesc, const void *x,
                         const cudnnTensorDescriptor_t hxDesc, const void *hx,
                         const cudnnTensorDescriptor_t cxDesc, const void *cx,
                         const cudnnFilterDescriptor_t wDesc, const void *w,
                         const cudnnTensorDescriptor_t *yDesc, void *y,
                         const cudnnTensorDescriptor_t hyDesc, void *hy,
                         const cudnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                         size_t workspaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t paddingMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t *paddingMode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInferenceEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
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
                           const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace,
                           size_t workspaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetRNNAlgorithmDescriptor(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                               cudnnAlgorithmDescriptor_t algoDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardInferenceAlgorithmMaxCount(
    cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardInferenceAlgorithmEx(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                        const int seqLength, const cudnnTensorDescriptor_t *xDesc,
                                        const void *x, const cudnnTensorDescriptor_t hxDesc,
                                        const void *hx, const cudnnTensorDescriptor_t cxDesc,
                                        const void *cx, const cudnnFilterDescriptor_t wDesc,
                                        const void *w, const cudnnTensorDescriptor_t *yDesc,
                                        void *y, const cudnnTensorDescriptor_t hyDesc, void *hy,
                                        const cudnnTensorDescriptor_t cyDesc, void *cy,
                                        const float findIntensity, const int requestedAlgoCount,
                                        int *returnedAlgoCount,
                                        cudnnAlgorithmPerformance_t *perfResults, void *workspace,
                                        size_t workspaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardTrainingAlgorithmMaxCount(cudnnHandle_t handle,
                                            const cudnnRNNDescriptor_t rnnDesc, int *count);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                                         int *count);

/* ---------------------------------------------------------------------------------------
 * Sequence data descriptors: up to CUDNN_SEQDATA_DIM_COUNT axes (time, batch, beam,
 * vector) in any order.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_SEQDATA_TIME_DIM  = 0,
    CUDNN_SEQDATA_BATCH_DIM = 1,
    CUDNN_SEQDATA_BEAM_DIM  = 2,
    CUDNN_SEQDATA_VECT_DIM  = 3,
} cudnnSeqDataAxis_t;

#define CUDNN_SEQDATA_DIM_COUNT 4

struct cudnnSeqDataStruct;
typedef struct cudnnSeqDataStruct *cudnnSeqDataDescriptor_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateSeqDataDescriptor(cudnnSeqDataDescriptor_t *seqDataDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroySeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetSeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType,
                          int nbDims, const int dimA[], const cudnnSeqDataAxis_t axes[],
                          size_t seqLengthArraySize, const int seqLengthArray[], void *paddingFill);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetSeqDataDescriptor(const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType,
                          int *nbDims, int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[],
                          size_t *seqLengthArraySize, size_t seqLengthSizeRequested,
                          int seqLengthArray[], void *paddingFill);

/* ---------------------------------------------------------------------------------------
 * Multi-head attention. attnMode is a bitwise OR of one CUDNN_ATTN_QUERYMAP_* and one
 * CUDNN_ATTN_*_PROJ_BIASES value; weights are addressed by cudnnMultiHeadAttnWeightKind_t.
 * ------------------------------------------------------------------------------------- */
#define CUDNN_ATTN_QUERYMAP_ALL_TO_ONE 0
#define CUDNN_ATTN_QUERYMAP_ONE_TO_ONE (1U << 0)
#define CUDNN_ATTN_DISABLE_PROJ_BIASES 0
#define CUDNN_ATTN_ENABLE_PROJ_BIASES (1U << 1)

struct cudnnAttnStruct;
typedef struct cudnnAttnStruct *cudnnAttnDescriptor_t;

typedef enum {
    CUDNN_MH_ATTN_Q_WEIGHTS = 0,
    CUDNN_MH_ATTN_K_WEIGHTS = 1,
    CUDNN_MH_ATTN_V_WEIGHTS = 2,
    CUDNN_MH_ATTN_O_WEIGHTS = 3,
    CUDNN_MH_ATTN_Q_BIASES  = 4,
    CUDNN_MH_ATTN_K_BIASES  = 5,
    CUDNN_MH_ATTN_V_BIASES  = 6,
    CUDNN_MH_ATTN_O_BIASES  = 7,
} cudnnMultiHeadAttnWeightKind_t;

#define CUDNN_ATTN_WKIND_COUNT 8

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateAttnDescriptor(cudnnAttnDescriptor_t *attnDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t attnDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads,
                       double smScaler, cudnnDataType_t dataType, cudnnDataType_t computePrec,
                       cudnnMathType_t mathType, cudnnDropoutDescriptor_t attnDropoutDesc,
                       cudnnDropoutDescriptor_t postDropoutDesc, int qSize, int kSize, int vSize,
                       int qProjSize, int kProjSize, int vProjSize, int oProjSize,
                       int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize, int maxBeamSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads,
                       double *smScaler, cudnnDataType_t *dataType, cudnnDataType_t *computePrec,
                       cudnnMathType_t *mathType, cudnnDropoutDescriptor_t *attnDropoutDesc,
                       cudnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize,
                       int *vSize, int *qProjSize, int *kProjSize, int *vProjSize, int *oProjSize,
                       int *qoMaxSeqLength, int *kvMaxSeqLength, int *maxBatchSize,
                       int *maxBeamSize);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnBuffers(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                             size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                             size_t *reserveSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnWeights(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                             cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes,
                             const void *weights, cudnnTensorDescriptor_t wDesc, void **wAddr);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnForward(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx,
                          const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[],
                          const int devSeqLengthsKV[], const cudnnSeqDataDescriptor_t qDesc,
                          const void *queries, const void *residuals,
                          const cudnnSeqDataDescriptor_t kDesc, const void *keys,
                          const cudnnSeqDataDescriptor_t vDesc, const void *values,
                          const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes,
                          const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
                          size_t reserveSpaceSizeInBytes, void *reserveSpace);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_ADV_INFER_H_ */
