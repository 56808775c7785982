/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_cnn_train.h: backward-filter and backward-bias convolution, and the
 * "fused ops" API (parameter packs + plans for a few fixed fusion patterns).
 */

#ifndef CUDNN_CNN_TRAIN_H_
#define CUDNN_CNN_TRAIN_H_

#include "cudnn_ops_train.h"
#include "cudnn_cnn_infer.h"

/* Version of this sub-library (always the same as the API level in cudnn_version.h). */
#define CUDNN_CNN_TRAIN_MAJOR CUDNN_MAJOR
#define CUDNN_CNN_TRAIN_MINOR CUDNN_MINOR
#define CUDNN_CNN_TRAIN_PATCH CUDNN_PATCHLEVEL

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
cudnnCnnTrainVersionCheck(void);

/* ---------------------------------------------------------------------------------------
 * Backward-filter convolution (gradient with respect to the weights) and bias gradient.
 * ------------------------------------------------------------------------------------- */
typedef struct cudnnConvolutionBwdFilterAlgoPerfStruct {
    cudnnConvolutionBwdFilterAlgo_t algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} cudnnConvolutionBwdFilterAlgoPerf_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle,
                                            const cudnnTensorDescriptor_t xDesc,
                                            const cudnnTensorDescriptor_t dyDesc,
                                            const cudnnConvolutionDescriptor_t convDesc,
                                            const cudnnFilterDescriptor_t dwDesc,
                                            const int requestedAlgoCount, int *returnedAlgoCount,
                                            cudnnConvolutionBwdFilterAlgoPerf_t *perfResults);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t *perfResults, void *workSpace, size_t workspaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int *returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t *perfResults);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha,
                               const cudnnTensorDescriptor_t xDesc, const void *x,
                               const cudnnTensorDescriptor_t dyDesc, const void *dy,
                               const cudnnConvolutionDescriptor_t convDesc,
                               cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                               size_t workSpaceSizeInBytes, const void *beta,
                               const cudnnFilterDescriptor_t dwDesc, void *dw);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void *alpha,
                             const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                             const cudnnTensorDescriptor_t dbDesc, void *db);

/* ---------------------------------------------------------------------------------------
 * Fused ops: a constant pack (shapes, modes), a variant pack (pointers, scalars) and a
 * plan built from the constant pack for one cudnnFusedOps_t pattern.
 * ------------------------------------------------------------------------------------- */
struct cudnnFusedOpsConstParamStruct;
typedef struct cudnnFusedOpsConstParamStruct *cudnnFusedOpsConstParamPack_t;

struct cudnnFusedOpsVariantParamStruct;
typedef struct cudnnFusedOpsVariantParamStruct *cudnnFusedOpsVariantParamPack_t;

struct cudnnFusedOpsPlanStruct;
typedef struct cudnnFusedOpsPlanStruct *cudnnFusedOpsPlan_t;

typedef enum {
    CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS    = 0,
    CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD           = 1,
    CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING       = 2,
    CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE      = 3,
    CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION        = 4,
    CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK = 5,
    CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM           = 6,

    /* spellings printed in the cuDNN 8.0.3 reference */
    CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GENERIC =
        CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK,
} cudnnFusedOps_t;

typedef enum {
    CUDNN_PARAM_XDESC                          = 0,
    CUDNN_PARAM_XDATA_PLACEHOLDER              = 1,
    CUDNN_PARAM_BN_MODE                        = 2,
    CUDNN_PARAM_BN_EQSCALEBIAS_DESC            = 3,
    CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER         = 4,
    CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER          = 5,
    CUDNN_PARAM_ACTIVATION_DESC                = 6,
    CUDNN_PARAM_CONV_DESC                      = 7,
    CUDNN_PARAM_WDESC                          = 8,
    CUDNN_PARAM_WDATA_PLACEHOLDER              = 9,
    CUDNN_PARAM_DWDESC                         = 10,
    CUDNN_PARAM_DWDATA_PLACEHOLDER             = 11,
    CUDNN_PARAM_YDESC                          = 12,
    CUDNN_PARAM_YDATA_PLACEHOLDER              = 13,
    CUDNN_PARAM_DYDESC                         = 14,
    CUDNN_PARAM_DYDATA_PLACEHOLDER             = 15,
    CUDNN_PARAM_YSTATS_DESC                    = 16,
    CUDNN_PARAM_YSUM_PLACEHOLDER               = 17,
    CUDNN_PARAM_YSQSUM_PLACEHOLDER             = 18,
    CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC      = 19,
    CUDNN_PARAM_BN_SCALE_PLACEHOLDER           = 20,
    CUDNN_PARAM_BN_BIAS_PLACEHOLDER            = 21,
    CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER      = 22,
    CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER    = 23,
    CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER    = 24,
    CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER     = 25,
    CUDNN_PARAM_ZDESC                          = 26,
    CUDNN_PARAM_ZDATA_PLACEHOLDER              = 27,
    CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC          = 28,
    CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER       = 29,
    CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER        = 30,
    CUDNN_PARAM_ACTIVATION_BITMASK_DESC        = 31,
    CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER = 32,
    CUDNN_PARAM_DXDESC                         = 33,
    CUDNN_PARAM_DXDATA_PLACEHOLDER             = 34,
    CUDNN_PARAM_DZDESC                         = 35,
    CUDNN_PARAM_DZDATA_PLACEHOLDER             = 36,
    CUDNN_PARAM_BN_DSCALE_PLACEHOLDER          = 37,
    CUDNN_PARAM_BN_DBIAS_PLACEHOLDER           = 38,
} cudnnFusedOpsConstParamLabel_t;

typedef enum {
    CUDNN_PTR_NULL         = 0,
    CUDNN_PTR_ELEM_ALIGNED = 1,
    CUDNN_PTR_16B_ALIGNED  = 2,
} cudnnFusedOpsPointerPlaceHolder_t;

typedef enum {
    CUDNN_PTR_XDATA                             = 0,
    CUDNN_PTR_BN_EQSCALE                        = 1,
    CUDNN_PTR_BN_EQBIAS                         = 2,
    CUDNN_PTR_WDATA                             = 3,
    CUDNN_PTR_DWDATA                            = 4,
    CUDNN_PTR_YDATA                             = 5,
    CUDNN_PTR_DYDATA                            = 6,
    CUDNN_PTR_YSUM                              = 7,
    CUDNN_PTR_YSQSUM                            = 8,
    CUDNN_PTR_WORKSPACE                         = 9,
    CUDNN_PTR_BN_SCALE                          = 10,
    CUDNN_PTR_BN_BIAS                           = 11,
    CUDNN_PTR_BN_SAVED_MEAN                     = 12,
    CUDNN_PTR_BN_SAVED_INVSTD                   = 13,
    CUDNN_PTR_BN_RUNNING_MEAN                   = 14,
    CUDNN_PTR_BN_RUNNING_VAR                    = 15,
    CUDNN_PTR_ZDATA                             = 16,
    CUDNN_PTR_BN_Z_EQSCALE                      = 17,
    CUDNN_PTR_BN_Z_EQBIAS                       = 18,
    CUDNN_PTR_ACTIVATION_BITMASK                = 19,
    CUDNN_PTR_DXDATA                            = 20,
    CUDNN_PTR_DZDATA                            = 21,
    CUDNN_PTR_BN_DSCALE                         = 22,
    CUDNN_PTR_BN_DBIAS                          = 23,
    CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES = 100,
    CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT  = 101,
    CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR       = 102,
    CUDNN_SCALAR_DOUBLE_BN_EPSILON              = 103,
} cudnnFusedOpsVariantParamLabel_t;

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t constPack,
                                        cudnnFusedOpsConstParamLabel_t paramLabel,
                                        const void *param);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t constPack,
                                        cudnnFusedOpsConstParamLabel_t paramLabel, void *param,
                                        int *isNULL);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t varPack,
                                          cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                          cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnMakeFusedOpsPlan(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                      const cudnnFusedOpsConstParamPack_t constPack, size_t *workspaceSizeInBytes);

CUDNN_DEPRECATED cudnnStatus_t CUDNNWINAPI
cudnnFusedOpsExecute(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                     cudnnFusedOpsVariantParamPack_t varPack);

#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_CNN_TRAIN_H_ */
