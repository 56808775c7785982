/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_ops_infer.h: tensor and filter descriptors, element-wise and reduction
 * operations, and the forward (inference) passes of the classic layer routines:
 * softmax, pooling, activation, LRN, batch and generic normalization, spatial
 * transformer and dropout. Also the 8.x algorithm-descriptor objects.
 */

#ifndef CUDNN_OPS_INFER_H_
#define CUDNN_OPS_INFER_H_

#include "cudnn_graph.h"

/* Version of this sub-library (always the same as the API level in cudnn_version.h). */
#define CUDNN_OPS_INFER_MAJOR CUDNN_MAJOR
#define CUDNN_OPS_INFER_MINOR CUDNN_MINOR
#define CUDNN_OPS_INFER_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* The API functions have default visibility even when the including code (or the library
 * itself) is compiled with -fvisibility=hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------------------------
 * Opaque descriptor handles of the legacy API.
 * ------------------------------------------------------------------------------------- */
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnPoolingStruct *cudnnPoolingDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnLRNStruct *cudnnLRNDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;
typedef struct cudnnSpatialTransformerStruct *cudnnSpatialTransformerDescriptor_t;
typedef struct cudnnOpTensorStruct *cudnnOpTensorDescriptor_t;
typedef struct cudnnReduceTensorStruct *cudnnReduceTensorDescriptor_t;
typedef struct cudnnCTCLossStruct *cudnnCTCLossDescriptor_t;
typedef struct cudnnTensorTransformStruct *cudnnTensorTransformDescriptor_t;
typedef struct cudnnDropoutStruct *cudnnDropoutDescriptor_t;
typedef struct cudnnAlgorithmStruct *cudnnAlgorithmDescriptor_t;
typedef struct cudnnAlgorithmPerformanceStruct *cudnnAlgorithmPerformance_t;

/* ---------------------------------------------------------------------------------------
 * Reproducibility flag and the algorithm enumerations of convolution, RNN and CTC
 * (declared here because cudnnAlgorithm_t below refers to all of them).
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_NON_DETERMINISTIC = 0,
    CUDNN_DETERMINISTIC     = 1,
} cudnnDeterminism_t;

typedef enum {
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM         = 0,
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    CUDNN_CONVOLUTION_FWD_ALGO_GEMM                  = 2,
    CUDNN_CONVOLUTION_FWD_ALGO_DIRECT                = 3,
    CUDNN_CONVOLUTION_FWD_ALGO_FFT                   = 4,
    CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING            = 5,
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD              = 6,
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED     = 7,
    CUDNN_CONVOLUTION_FWD_ALGO_COUNT                 = 8,
} cudnnConvolutionFwdAlgo_t;

typedef enum {
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0                 = 0,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1                 = 1,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT               = 2,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3                 = 3,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD          = 4,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING        = 6,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT             = 7,
} cudnnConvolutionBwdFilterAlgo_t;

typedef enum {
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_0                 = 0,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1                 = 1,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT               = 2,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING        = 3,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD          = 4,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT             = 6,
} cudnnConvolutionBwdDataAlgo_t;

typedef enum {
    CUDNN_RNN_ALGO_STANDARD               = 0,
    CUDNN_RNN_ALGO_PERSIST_STATIC         = 1,
    CUDNN_RNN_ALGO_PERSIST_DYNAMIC        = 2,
    CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H = 3,
    CUDNN_RNN_ALGO_COUNT                  = 4,
} cudnnRNNAlgo_t;

typedef enum {
    CUDNN_CTC_LOSS_ALGO_DETERMINISTIC     = 0,
    CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC = 1,
} cudnnCTCLossAlgo_t;

/* ---------------------------------------------------------------------------------------
 * Sub-library version checks (8.x per-library name and the cuDNN 9 name).
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnOpsInferVersionCheck(void);

cudnnStatus_t CUDNNWINAPI
cudnnOpsVersionCheck(void);

/* ---------------------------------------------------------------------------------------
 * Tensor descriptors: 4-d (NCHW/NHWC or explicit strides) and N-d.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                           cudnnDataType_t dataType, int n, int c, int h, int w);

cudnnStatus_t CUDNNWINAPI
cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int n,
                             int c, int h, int w, int nStride, int cStride, int hStride,
                             int wStride);

cudnnStatus_t CUDNNWINAPI
cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t *dataType,
                           int *n, int *c, int *h, int *w, int *nStride, int *cStride, int *hStride,
                           int *wStride);

cudnnStatus_t CUDNNWINAPI
cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                           const int dimA[], const int strideA[]);

cudnnStatus_t CUDNNWINAPI
cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                             cudnnDataType_t dataType, int nbDims, const int dimA[]);

cudnnStatus_t CUDNNWINAPI
cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                           cudnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[]);

cudnnStatus_t CUDNNWINAPI
cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc);

/* ---------------------------------------------------------------------------------------
 * Layout transforms: padding, folding and format conversion between tensors.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_TRANSFORM_FOLD   = 0,
    CUDNN_TRANSFORM_UNFOLD = 1,
} cudnnFoldingDirection_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t transformDesc,
                       const cudnnTensorDescriptor_t srcDesc, cudnnTensorDescriptor_t destDesc,
                       size_t *destSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *transformDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                  const uint32_t nbDims, const cudnnTensorFormat_t destFormat,
                                  const int32_t padBeforeA[], const int32_t padAfterA[],
                                  const uint32_t foldA[], const cudnnFoldingDirection_t direction);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc,
                                  uint32_t nbDimsRequested, cudnnTensorFormat_t *destFormat,
                                  int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
                                  cudnnFoldingDirection_t *direction);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnTransformTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                     const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                       const void *alpha, const cudnnTensorDescriptor_t srcDesc,
                       const void *srcData, const void *beta,
                       const cudnnTensorDescriptor_t destDesc, void *destData);

/* ---------------------------------------------------------------------------------------
 * Element-wise tensor arithmetic: C = op(alpha1 * A, alpha2 * B) + beta * C and friends.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_OP_TENSOR_ADD  = 0,
    CUDNN_OP_TENSOR_MUL  = 1,
    CUDNN_OP_TENSOR_MIN  = 2,
    CUDNN_OP_TENSOR_MAX  = 3,
    CUDNN_OP_TENSOR_SQRT = 4,
    CUDNN_OP_TENSOR_NOT  = 5,
} cudnnOpTensorOp_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnAddTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
               const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t opTensorOp,
                           cudnnDataType_t opTensorCompType, cudnnNanPropagation_t opTensorNanOpt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc,
                           cudnnOpTensorOp_t *opTensorOp, cudnnDataType_t *opTensorCompType,
                           cudnnNanPropagation_t *opTensorNanOpt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
              const void *alpha1, const cudnnTensorDescriptor_t aDesc, const void *A,
              const void *alpha2, const cudnnTensorDescriptor_t bDesc, const void *B,
              const void *beta, const cudnnTensorDescriptor_t cDesc, void *C);

cudnnStatus_t CUDNNWINAPI
cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
               const void *valuePtr);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                 const void *alpha);

/* ---------------------------------------------------------------------------------------
 * Tensor reductions (sum, product, min/max, norms), optionally returning indices.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_REDUCE_TENSOR_NO_INDICES        = 0,
    CUDNN_REDUCE_TENSOR_FLATTENED_INDICES = 1,
} cudnnReduceTensorIndices_t;

typedef enum {
    CUDNN_32BIT_INDICES = 0,
    CUDNN_64BIT_INDICES = 1,
    CUDNN_16BIT_INDICES = 2,
    CUDNN_8BIT_INDICES  = 3,
} cudnnIndicesType_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                               cudnnReduceTensorOp_t reduceTensorOp,
                               cudnnDataType_t reduceTensorCompType,
                               cudnnNanPropagation_t reduceTensorNanOpt,
                               cudnnReduceTensorIndices_t reduceTensorIndices,
                               cudnnIndicesType_t reduceTensorIndicesType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetReduceTensorDescriptor(const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                               cudnnReduceTensorOp_t *reduceTensorOp,
                               cudnnDataType_t *reduceTensorCompType,
                               cudnnNanPropagation_t *reduceTensorNanOpt,
                               cudnnReduceTensorIndices_t *reduceTensorIndices,
                               cudnnIndicesType_t *reduceTensorIndicesType);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t tensorDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetReductionIndicesSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceDesc,
                             const cudnnTensorDescriptor_t aDesc,
                             const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetReductionWorkspaceSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceDesc,
                               const cudnnTensorDescriptor_t aDesc,
                               const cudnnTensorDescriptor_t cDesc, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                  void *indices, size_t indicesSizeInBytes, void *workspace,
                  size_t workspaceSizeInBytes, const void *alpha,
                  const cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                  const cudnnTensorDescriptor_t cDesc, void *C);

/* ---------------------------------------------------------------------------------------
 * Filter (weight) descriptors.
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                           cudnnTensorFormat_t format, int k, int c, int h, int w);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc, cudnnDataType_t *dataType,
                           cudnnTensorFormat_t *format, int *k, int *c, int *h, int *w);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                           cudnnTensorFormat_t format, int nbDims, const int filterDimA[]);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t wDesc, int nbDimsRequested,
                           cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *nbDims,
                           int filterDimA[]);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                     const void *alpha, const cudnnFilterDescriptor_t srcDesc, const void *srcData,
                     const void *beta, const cudnnFilterDescriptor_t destDesc, void *destData);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc);

/* ---------------------------------------------------------------------------------------
 * Softmax.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_SOFTMAX_FAST     = 0,
    CUDNN_SOFTMAX_ACCURATE = 1,
    CUDNN_SOFTMAX_LOG      = 2,
} cudnnSoftmaxAlgorithm_t;

typedef enum {
    CUDNN_SOFTMAX_MODE_INSTANCE = 0,
    CUDNN_SOFTMAX_MODE_CHANNEL  = 1,
} cudnnSoftmaxMode_t;

cudnnStatus_t CUDNNWINAPI
cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algorithm,
                    cudnnSoftmaxMode_t mode, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                    const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y);

/* ---------------------------------------------------------------------------------------
 * Pooling.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_POOLING_MAX                           = 0,
    CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
    CUDNN_POOLING_MAX_DETERMINISTIC             = 3,
} cudnnPoolingMode_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                            cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                            int windowWidth, int verticalPadding, int horizontalPadding,
                            int verticalStride, int horizontalStride);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t *mode,
                            cudnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                            int *windowWidth, int *verticalPadding, int *horizontalPadding,
                            int *verticalStride, int *horizontalStride);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                            const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                            const int windowDimA[], const int paddingA[], const int strideA[]);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                            cudnnPoolingMode_t *mode, cudnnNanPropagation_t *maxpoolingNanOpt,
                            int *nbDims, int windowDimA[], int paddingA[], int strideA[]);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                  const cudnnTensorDescriptor_t inputDesc, int nbDims,
                                  int outDimA[]);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                  const cudnnTensorDescriptor_t inputDesc, int *outN, int *outC,
                                  int *outH, int *outW);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                    const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                    const void *beta, const cudnnTensorDescriptor_t yDesc, void *y);

/* ---------------------------------------------------------------------------------------
 * Activation functions.
 * ------------------------------------------------------------------------------------- */
CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,
                             cudnnNanPropagation_t reluNanOpt, double coef);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                             cudnnActivationMode_t *mode, cudnnNanPropagation_t *reluNanOpt,
                             double *coef);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                      double swish_beta);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                      double *swish_beta);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                       const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                       const void *beta, const cudnnTensorDescriptor_t yDesc, void *y);

/* ---------------------------------------------------------------------------------------
 * Local response normalization and divisive normalization, with the parameter limits
 * accepted by cudnnSetLRNDescriptor().
 * ------------------------------------------------------------------------------------- */
#define CUDNN_LRN_MIN_N 1
#define CUDNN_LRN_MAX_N 16
#define CUDNN_LRN_MIN_K 1e-5
#define CUDNN_LRN_MIN_BETA 0.01

typedef enum {
    CUDNN_LRN_CROSS_CHANNEL_DIM1 = 0,
} cudnnLRNMode_t;

typedef enum {
    CUDNN_DIVNORM_PRECOMPUTED_MEANS = 0,
} cudnnDivNormMode_t;

cudnnStatus_t CUDNNWINAPI
cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *poolingDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha, double lrnBeta,
                      double lrnK);

cudnnStatus_t CUDNNWINAPI
cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                      double *lrnBeta, double *lrnK);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc);

cudnnStatus_t CUDNNWINAPI
cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                            cudnnLRNMode_t lrnMode, const void *alpha,
                            const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                            const cudnnTensorDescriptor_t yDesc, void *y);

cudnnStatus_t CUDNNWINAPI
cudnnDivisiveNormalizationForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                  cudnnDivNormMode_t mode, const void *alpha,
                                  const cudnnTensorDescriptor_t xDesc, const void *x,
                                  const void *means, void *temp, void *temp2, const void *beta,
                                  const cudnnTensorDescriptor_t yDesc, void *y);

/* ---------------------------------------------------------------------------------------
 * Batch normalization (inference). CUDNN_BN_MIN_EPSILON is the smallest epsilon allowed.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_BATCHNORM_PER_ACTIVATION     = 0,
    CUDNN_BATCHNORM_SPATIAL            = 1,
    CUDNN_BATCHNORM_SPATIAL_PERSISTENT = 2,
} cudnnBatchNormMode_t;

#define CUDNN_BN_MIN_EPSILON 0.0

typedef enum {
    CUDNN_BATCHNORM_OPS_BN                = 0,
    CUDNN_BATCHNORM_OPS_BN_ACTIVATION     = 1,
    CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2,
} cudnnBatchNormOps_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                              const cudnnTensorDescriptor_t xDesc, cudnnBatchNormMode_t mode);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardInference(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                        const void *alpha, const void *beta,
                                        const cudnnTensorDescriptor_t xDesc, const void *x,
                                        const cudnnTensorDescriptor_t yDesc, void *y,
                                        const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                                        const void *bnScale, const void *bnBias,
                                        const void *estimatedMean, const void *estimatedVariance,
                                        double epsilon);

/* ---------------------------------------------------------------------------------------
 * Generic normalization (inference).
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_NORM_PER_ACTIVATION = 0,
    CUDNN_NORM_PER_CHANNEL    = 1,
} cudnnNormMode_t;

typedef enum {
    CUDNN_NORM_ALGO_STANDARD = 0,
    CUDNN_NORM_ALGO_PERSIST  = 1,
} cudnnNormAlgo_t;

typedef enum {
    CUDNN_NORM_OPS_NORM                = 0,
    CUDNN_NORM_OPS_NORM_ACTIVATION     = 1,
    CUDNN_NORM_OPS_NORM_ADD_ACTIVATION = 2,
} cudnnNormOps_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode,
                                int groupCnt);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnNormalizationForwardInference(cudnnHandle_t handle, cudnnNormMode_t mode,
                                   cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void *alpha,
                                   const void *beta, const cudnnTensorDescriptor_t xDesc,
                                   const void *x, const cudnnTensorDescriptor_t normScaleBiasDesc,
                                   const void *normScale, const void *normBias,
                                   const cudnnTensorDescriptor_t normMeanVarDesc,
                                   const void *estimatedMean, const void *estimatedVariance,
                                   const cudnnTensorDescriptor_t zDesc, const void *z,
                                   cudnnActivationDescriptor_t activationDesc,
                                   const cudnnTensorDescriptor_t yDesc, void *y, double epsilon,
                                   int groupCnt);

/* ---------------------------------------------------------------------------------------
 * Spatial transformer: affine grid generation and sampling.
 * ------------------------------------------------------------------------------------- */
typedef enum {
    CUDNN_SAMPLER_BILINEAR = 0,
} cudnnSamplerType_t;

cudnnStatus_t CUDNNWINAPI
cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *stDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSetSpatialTransformerNdDescriptor(cudnnSpatialTransformerDescriptor_t stDesc,
                                       cudnnSamplerType_t samplerType, cudnnDataType_t dataType,
                                       const int nbDims, const int dimA[]);

cudnnStatus_t CUDNNWINAPI
cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc);

cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfGridGeneratorForward(cudnnHandle_t handle,
                                   const cudnnSpatialTransformerDescriptor_t stDesc,
                                   const void *theta, void *grid);

cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfSamplerForward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                             const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                             const void *grid, const void *beta, cudnnTensorDescriptor_t yDesc,
                             void *y);

/* ---------------------------------------------------------------------------------------
 * Dropout.
 * ------------------------------------------------------------------------------------- */
cudnnStatus_t CUDNNWINAPI
cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *dropoutDesc);

cudnnStatus_t CUDNNWINAPI
cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc);

cudnnStatus_t CUDNNWINAPI
cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes);

cudnnStatus_t CUDNNWINAPI
cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes);

cudnnStatus_t CUDNNWINAPI
cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                          void *states, size_t stateSizeInBytes, unsigned long long seed);

cudnnStatus_t CUDNNWINAPI
cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                              float dropout, void *states, size_t stateSizeInBytes,
                              unsigned long long seed);

cudnnStatus_t CUDNNWINAPI
cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                          float *dropout, void **states, unsigned long long *seed);

cudnnStatus_t CUDNNWINAPI
cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                    const cudnnTensorDescriptor_t xdesc, const void *x,
                    const cudnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                    size_t reserveSpaceSizeInBytes);

/* ---------------------------------------------------------------------------------------
 * Algorithm descriptors and performance records (cuDNN 8.x only; removed in cuDNN 9).
 * cudnnAlgorithm_t names one algorithm of one of the families above.
 * ------------------------------------------------------------------------------------- */
typedef struct cudnnAlgorithmUnionStruct {
    union Algorithm {
        cudnnConvolutionFwdAlgo_t convFwdAlgo;
        cudnnConvolutionBwdFilterAlgo_t convBwdFilterAlgo;
        cudnnConvolutionBwdDataAlgo_t convBwdDataAlgo;
        cudnnRNNAlgo_t RNNAlgo;
        cudnnCTCLossAlgo_t CTCLossAlgo;
    } algo;
} cudnnAlgorithm_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *algoDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algorithmDesc, cudnnAlgorithm_t algorithm);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t *algorithm);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t src, cudnnAlgorithmDescriptor_t dest);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algorithmDesc);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToCreate);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t algoPerf,
                             cudnnAlgorithmDescriptor_t algoDesc, cudnnStatus_t status, float time,
                             size_t memory);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t algoPerf,
                             cudnnAlgorithmDescriptor_t *algoDesc, cudnnStatus_t *status,
                             float *time, size_t *memory);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToDestroy);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmSpaceSize(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                           size_t *algoSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSaveAlgorithm(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc, void *algoSpace,
                   size_t algoSpaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnRestoreAlgorithm(cudnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                      cudnnAlgorithmDescriptor_t algoDesc);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_OPS_INFER_H_ */
