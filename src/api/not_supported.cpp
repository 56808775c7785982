// GENERATED FILE - do not edit by hand.
// Regenerate with: python3 scripts/gen_not_supported.py
//
// Weak fallback definitions for every cuDNN API function returning cudnnStatus_t that
// is declared in include/*.h. Each one reports the call through
// fdnn::api::not_implemented(). A real (strong) definition anywhere else in the library
// overrides the fallback at link time. Parameter names are omitted on purpose (unused).

#include "cudnn.h"

#include "api/not_implemented.hpp"

// ---- cudnn_graph.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGraphVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnGraphVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnQueryRuntimeError(cudnnHandle_t, cudnnStatus_t *, cudnnErrQueryMode_t, cudnnRuntimeTag_t *) {
    return fdnn::api::not_implemented("cudnnQueryRuntimeError");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetProperty(libraryPropertyType, int *) {
    return fdnn::api::not_implemented("cudnnGetProperty");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreate(cudnnHandle_t *) {
    return fdnn::api::not_implemented("cudnnCreate");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroy(cudnnHandle_t) {
    return fdnn::api::not_implemented("cudnnDestroy");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetStream(cudnnHandle_t, cudaStream_t) {
    return fdnn::api::not_implemented("cudnnSetStream");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetStream(cudnnHandle_t, cudaStream_t *) {
    return fdnn::api::not_implemented("cudnnGetStream");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetCallback(unsigned, void *, cudnnCallback_t) {
    return fdnn::api::not_implemented("cudnnSetCallback");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCallback(unsigned *, void **, cudnnCallback_t *) {
    return fdnn::api::not_implemented("cudnnGetCallback");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnBackendCreateDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t) {
    return fdnn::api::not_implemented("cudnnBackendDestroyDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendInitialize(cudnnBackendDescriptor_t) {
    return fdnn::api::not_implemented("cudnnBackendInitialize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendFinalize(cudnnBackendDescriptor_t) {
    return fdnn::api::not_implemented("cudnnBackendFinalize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendSetAttribute(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t, const void *) {
    return fdnn::api::not_implemented("cudnnBackendSetAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendGetAttribute(cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t, int64_t *, void *) {
    return fdnn::api::not_implemented("cudnnBackendGetAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendExecute(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t) {
    return fdnn::api::not_implemented("cudnnBackendExecute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendPopulateCudaGraph(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t, cudaGraph_t) {
    return fdnn::api::not_implemented("cudnnBackendPopulateCudaGraph");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBackendUpdateCudaGraph(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t, cudaGraph_t) {
    return fdnn::api::not_implemented("cudnnBackendUpdateCudaGraph");
}

// ---- cudnn_ops_infer.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnOpsInferVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnOpsInferVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnOpsVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnOpsVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int) {
    return fdnn::api::not_implemented("cudnnSetTensor4dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int, int, int, int, int) {
    return fdnn::api::not_implemented("cudnnSetTensor4dDescriptorEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t, cudnnDataType_t *, int *, int *, int *, int *, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetTensor4dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t, cudnnDataType_t, int, const int[], const int[]) {
    return fdnn::api::not_implemented("cudnnSetTensorNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, const int[]) {
    return fdnn::api::not_implemented("cudnnSetTensorNdDescriptorEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t, int, cudnnDataType_t *, int *, int[], int[]) {
    return fdnn::api::not_implemented("cudnnGetTensorNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetTensorSizeInBytes");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t, const cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnInitTransformDest");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateTensorTransformDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t, const uint32_t, const cudnnTensorFormat_t, const int32_t[], const int32_t[], const uint32_t[], const cudnnFoldingDirection_t) {
    return fdnn::api::not_implemented("cudnnSetTensorTransformDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetTensorTransformDescriptor(cudnnTensorTransformDescriptor_t, uint32_t, cudnnTensorFormat_t *, int32_t[], int32_t[], uint32_t[], cudnnFoldingDirection_t *) {
    return fdnn::api::not_implemented("cudnnGetTensorTransformDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyTensorTransformDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnTransformTensor(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnTransformTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnTransformTensorEx(cudnnHandle_t, const cudnnTensorTransformDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnTransformTensorEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnAddTensor(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnAddTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateOpTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t, cudnnOpTensorOp_t, cudnnDataType_t, cudnnNanPropagation_t) {
    return fdnn::api::not_implemented("cudnnSetOpTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t, cudnnOpTensorOp_t *, cudnnDataType_t *, cudnnNanPropagation_t *) {
    return fdnn::api::not_implemented("cudnnGetOpTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyOpTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnOpTensor(cudnnHandle_t, const cudnnOpTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnOpTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetTensor(cudnnHandle_t, const cudnnTensorDescriptor_t, void *, const void *) {
    return fdnn::api::not_implemented("cudnnSetTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnScaleTensor(cudnnHandle_t, const cudnnTensorDescriptor_t, void *, const void *) {
    return fdnn::api::not_implemented("cudnnScaleTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateReduceTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t, cudnnReduceTensorOp_t, cudnnDataType_t, cudnnNanPropagation_t, cudnnReduceTensorIndices_t, cudnnIndicesType_t) {
    return fdnn::api::not_implemented("cudnnSetReduceTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetReduceTensorDescriptor(const cudnnReduceTensorDescriptor_t, cudnnReduceTensorOp_t *, cudnnDataType_t *, cudnnNanPropagation_t *, cudnnReduceTensorIndices_t *, cudnnIndicesType_t *) {
    return fdnn::api::not_implemented("cudnnGetReduceTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyReduceTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetReductionIndicesSize(cudnnHandle_t, const cudnnReduceTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetReductionIndicesSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetReductionWorkspaceSize(cudnnHandle_t, const cudnnReduceTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetReductionWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnReduceTensor(cudnnHandle_t, const cudnnReduceTensorDescriptor_t, void *, size_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnReduceTensor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateFilterDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int) {
    return fdnn::api::not_implemented("cudnnSetFilter4dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t, cudnnDataType_t *, cudnnTensorFormat_t *, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetFilter4dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, const int[]) {
    return fdnn::api::not_implemented("cudnnSetFilterNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t, int, cudnnDataType_t *, cudnnTensorFormat_t *, int *, int[]) {
    return fdnn::api::not_implemented("cudnnGetFilterNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetFilterSizeInBytes");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnTransformFilter(cudnnHandle_t, const cudnnTensorTransformDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const void *, const cudnnFilterDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnTransformFilter");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyFilterDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSoftmaxForward(cudnnHandle_t, cudnnSoftmaxAlgorithm_t, cudnnSoftmaxMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnSoftmaxForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreatePoolingDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t, cudnnPoolingMode_t, cudnnNanPropagation_t, int, int, int, int, int, int) {
    return fdnn::api::not_implemented("cudnnSetPooling2dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t, cudnnPoolingMode_t *, cudnnNanPropagation_t *, int *, int *, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetPooling2dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t, const cudnnPoolingMode_t, const cudnnNanPropagation_t, int, const int[], const int[], const int[]) {
    return fdnn::api::not_implemented("cudnnSetPoolingNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t, int, cudnnPoolingMode_t *, cudnnNanPropagation_t *, int *, int[], int[], int[]) {
    return fdnn::api::not_implemented("cudnnGetPoolingNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t, const cudnnTensorDescriptor_t, int, int[]) {
    return fdnn::api::not_implemented("cudnnGetPoolingNdForwardOutputDim");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t, const cudnnTensorDescriptor_t, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetPooling2dForwardOutputDim");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyPoolingDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnPoolingForward(cudnnHandle_t, const cudnnPoolingDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnPoolingForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateActivationDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetActivationDescriptor(cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnNanPropagation_t, double) {
    return fdnn::api::not_implemented("cudnnSetActivationDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t, cudnnActivationMode_t *, cudnnNanPropagation_t *, double *) {
    return fdnn::api::not_implemented("cudnnGetActivationDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t, double) {
    return fdnn::api::not_implemented("cudnnSetActivationDescriptorSwishBeta");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t, double *) {
    return fdnn::api::not_implemented("cudnnGetActivationDescriptorSwishBeta");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyActivationDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnActivationForward(cudnnHandle_t, cudnnActivationDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnActivationForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateLRNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetLRNDescriptor(cudnnLRNDescriptor_t, unsigned, double, double, double) {
    return fdnn::api::not_implemented("cudnnSetLRNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetLRNDescriptor(cudnnLRNDescriptor_t, unsigned *, double *, double *, double *) {
    return fdnn::api::not_implemented("cudnnGetLRNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyLRNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnLRNCrossChannelForward(cudnnHandle_t, cudnnLRNDescriptor_t, cudnnLRNMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnLRNCrossChannelForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDivisiveNormalizationForward(cudnnHandle_t, cudnnLRNDescriptor_t, cudnnDivNormMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, void *, void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnDivisiveNormalizationForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, cudnnBatchNormMode_t) {
    return fdnn::api::not_implemented("cudnnDeriveBNTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardInference(cudnnHandle_t, cudnnBatchNormMode_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, const void *, const void *, const void *, double) {
    return fdnn::api::not_implemented("cudnnBatchNormalizationForwardInference");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, cudnnNormMode_t, int) {
    return fdnn::api::not_implemented("cudnnDeriveNormTensorDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnNormalizationForwardInference(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, void *, double, int) {
    return fdnn::api::not_implemented("cudnnNormalizationForwardInference");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateSpatialTransformerDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetSpatialTransformerNdDescriptor(cudnnSpatialTransformerDescriptor_t, cudnnSamplerType_t, cudnnDataType_t, const int, const int[]) {
    return fdnn::api::not_implemented("cudnnSetSpatialTransformerNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroySpatialTransformerDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfGridGeneratorForward(cudnnHandle_t, const cudnnSpatialTransformerDescriptor_t, const void *, void *) {
    return fdnn::api::not_implemented("cudnnSpatialTfGridGeneratorForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfSamplerForward(cudnnHandle_t, cudnnSpatialTransformerDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const void *, cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnSpatialTfSamplerForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateDropoutDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyDropoutDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDropoutGetStatesSize(cudnnHandle_t, size_t *) {
    return fdnn::api::not_implemented("cudnnDropoutGetStatesSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnDropoutGetReserveSpaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t, cudnnHandle_t, float, void *, size_t, unsigned long long) {
    return fdnn::api::not_implemented("cudnnSetDropoutDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t, cudnnHandle_t, float, void *, size_t, unsigned long long) {
    return fdnn::api::not_implemented("cudnnRestoreDropoutDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t, cudnnHandle_t, float *, void **, unsigned long long *) {
    return fdnn::api::not_implemented("cudnnGetDropoutDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDropoutForward(cudnnHandle_t, const cudnnDropoutDescriptor_t, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnDropoutForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t, cudnnAlgorithm_t) {
    return fdnn::api::not_implemented("cudnnSetAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t, cudnnAlgorithm_t *) {
    return fdnn::api::not_implemented("cudnnGetAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCopyAlgorithmDescriptor(const cudnnAlgorithmDescriptor_t, cudnnAlgorithmDescriptor_t) {
    return fdnn::api::not_implemented("cudnnCopyAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *, int) {
    return fdnn::api::not_implemented("cudnnCreateAlgorithmPerformance");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetAlgorithmPerformance(cudnnAlgorithmPerformance_t, cudnnAlgorithmDescriptor_t, cudnnStatus_t, float, size_t) {
    return fdnn::api::not_implemented("cudnnSetAlgorithmPerformance");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmPerformance(const cudnnAlgorithmPerformance_t, cudnnAlgorithmDescriptor_t *, cudnnStatus_t *, float *, size_t *) {
    return fdnn::api::not_implemented("cudnnGetAlgorithmPerformance");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *, int) {
    return fdnn::api::not_implemented("cudnnDestroyAlgorithmPerformance");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetAlgorithmSpaceSize(cudnnHandle_t, cudnnAlgorithmDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetAlgorithmSpaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSaveAlgorithm(cudnnHandle_t, cudnnAlgorithmDescriptor_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnSaveAlgorithm");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRestoreAlgorithm(cudnnHandle_t, void *, size_t, cudnnAlgorithmDescriptor_t) {
    return fdnn::api::not_implemented("cudnnRestoreAlgorithm");
}

// ---- cudnn_ops_train.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnOpsTrainVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnOpsTrainVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSoftmaxBackward(cudnnHandle_t, cudnnSoftmaxAlgorithm_t, cudnnSoftmaxMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnSoftmaxBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnPoolingBackward(cudnnHandle_t, const cudnnPoolingDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnPoolingBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnActivationBackward(cudnnHandle_t, cudnnActivationDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnActivationBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnLRNCrossChannelBackward(cudnnHandle_t, cudnnLRNDescriptor_t, cudnnLRNMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnLRNCrossChannelBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDivisiveNormalizationBackward(cudnnHandle_t, cudnnLRNDescriptor_t, cudnnDivNormMode_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const void *, void *, void *, const void *, const cudnnTensorDescriptor_t, void *, void *) {
    return fdnn::api::not_implemented("cudnnDivisiveNormalizationBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(cudnnHandle_t, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationBackwardExWorkspaceSize(cudnnHandle_t, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetBatchNormalizationBackwardExWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetBatchNormalizationTrainingExReserveSpaceSize(cudnnHandle_t, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardTraining(cudnnHandle_t, cudnnBatchNormMode_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, const void *, double, void *, void *, double, void *, void *) {
    return fdnn::api::not_implemented("cudnnBatchNormalizationForwardTraining");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationForwardTrainingEx(cudnnHandle_t, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, const void *, double, void *, void *, double, void *, void *, cudnnActivationDescriptor_t, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnBatchNormalizationForwardTrainingEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationBackward(cudnnHandle_t, cudnnBatchNormMode_t, const void *, const void *, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, void *, void *, double, const void *, const void *) {
    return fdnn::api::not_implemented("cudnnBatchNormalizationBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBatchNormalizationBackwardEx(cudnnHandle_t, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void *, const void *, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, const void *, void *, void *, double, const void *, const void *, cudnnActivationDescriptor_t, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnBatchNormalizationBackwardEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationForwardTrainingWorkspaceSize(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, size_t *, int) {
    return fdnn::api::not_implemented("cudnnGetNormalizationForwardTrainingWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationBackwardWorkspaceSize(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, size_t *, int) {
    return fdnn::api::not_implemented("cudnnGetNormalizationBackwardWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetNormalizationTrainingReserveSpaceSize(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, size_t *, int) {
    return fdnn::api::not_implemented("cudnnGetNormalizationTrainingReserveSpaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnNormalizationForwardTraining(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, double, const cudnnTensorDescriptor_t, void *, void *, double, void *, void *, cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, void *, size_t, void *, size_t, int) {
    return fdnn::api::not_implemented("cudnnNormalizationForwardTraining");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnNormalizationBackward(cudnnHandle_t, cudnnNormMode_t, cudnnNormOps_t, cudnnNormAlgo_t, const void *, const void *, const void *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, const void *, const void *, void *, void *, double, const cudnnTensorDescriptor_t, const void *, const void *, cudnnActivationDescriptor_t, void *, size_t, void *, size_t, int) {
    return fdnn::api::not_implemented("cudnnNormalizationBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfGridGeneratorBackward(cudnnHandle_t, const cudnnSpatialTransformerDescriptor_t, const void *, void *) {
    return fdnn::api::not_implemented("cudnnSpatialTfGridGeneratorBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfSamplerBackward(cudnnHandle_t, cudnnSpatialTransformerDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const void *, void *) {
    return fdnn::api::not_implemented("cudnnSpatialTfSamplerBackward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDropoutBackward(cudnnHandle_t, const cudnnDropoutDescriptor_t, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, void *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnDropoutBackward");
}

// ---- cudnn_cnn_infer.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCnnInferVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnCnnInferVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCnnVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnCnnVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateConvolutionDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyConvolutionDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t, cudnnMathType_t) {
    return fdnn::api::not_implemented("cudnnSetConvolutionMathType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t, cudnnMathType_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionMathType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t, int) {
    return fdnn::api::not_implemented("cudnnSetConvolutionGroupCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t, int *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionGroupCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t, cudnnReorderType_t) {
    return fdnn::api::not_implemented("cudnnSetConvolutionReorderType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t, cudnnReorderType_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionReorderType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, cudnnConvolutionMode_t, cudnnDataType_t) {
    return fdnn::api::not_implemented("cudnnSetConvolution2dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t, int *, int *, int *, int *, int *, int *, cudnnConvolutionMode_t *, cudnnDataType_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolution2dDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t, int, const int[], const int[], const int[], cudnnConvolutionMode_t, cudnnDataType_t) {
    return fdnn::api::not_implemented("cudnnSetConvolutionNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t, int, int *, int[], int[], int[], cudnnConvolutionMode_t *, cudnnDataType_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionNdDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetConvolution2dForwardOutputDim");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, int, int[]) {
    return fdnn::api::not_implemented("cudnnGetConvolutionNdForwardOutputDim");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t, int *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionForwardAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionFwdAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionForwardAlgorithm_v7");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionFwdAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnFindConvolutionForwardAlgorithm");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, void *, const int, int *, cudnnConvolutionFwdAlgoPerf_t *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindConvolutionForwardAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionForwardWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnConvolutionForward(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnConvolutionForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBiasActivationForward(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnConvolutionBiasActivationForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnIm2Col(cudnnHandle_t, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnIm2Col");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnReorderFilterAndBias(cudnnHandle_t, const cudnnFilterDescriptor_t, cudnnReorderType_t, const void *, void *, int, const void *, void *) {
    return fdnn::api::not_implemented("cudnnReorderFilterAndBias");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t, int *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionBwdDataAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnFindConvolutionBackwardDataAlgorithm");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, void *, const int, int *, cudnnConvolutionBwdDataAlgoPerf_t *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindConvolutionBackwardDataAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionBwdDataAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardDataAlgorithm_v7");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, cudnnConvolutionBwdDataAlgo_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardDataWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardData(cudnnHandle_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, cudnnConvolutionBwdDataAlgo_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnConvolutionBackwardData");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFoldedConvBackwardDataDescriptors(const cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorFormat_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnTensorTransformDescriptor_t, cudnnTensorTransformDescriptor_t, cudnnTensorTransformDescriptor_t, cudnnTensorTransformDescriptor_t) {
    return fdnn::api::not_implemented("cudnnGetFoldedConvBackwardDataDescriptors");
}

// ---- cudnn_cnn_train.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCnnTrainVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnCnnTrainVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t, int *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, const int, int *, cudnnConvolutionBwdFilterAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnFindConvolutionBackwardFilterAlgorithm");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, void *, const int, int *, cudnnConvolutionBwdFilterAlgoPerf_t *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindConvolutionBackwardFilterAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, const int, int *, cudnnConvolutionBwdFilterAlgoPerf_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardFilterAlgorithm_v7");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t, cudnnConvolutionBwdFilterAlgo_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetConvolutionBackwardFilterWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardFilter(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnConvolutionDescriptor_t, cudnnConvolutionBwdFilterAlgo_t, void *, size_t, const void *, const cudnnFilterDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnConvolutionBackwardFilter");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardBias(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *, const void *, const cudnnTensorDescriptor_t, void *) {
    return fdnn::api::not_implemented("cudnnConvolutionBackwardBias");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *, cudnnFusedOps_t) {
    return fdnn::api::not_implemented("cudnnCreateFusedOpsConstParamPack");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t) {
    return fdnn::api::not_implemented("cudnnDestroyFusedOpsConstParamPack");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t, cudnnFusedOpsConstParamLabel_t, const void *) {
    return fdnn::api::not_implemented("cudnnSetFusedOpsConstParamPackAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t, cudnnFusedOpsConstParamLabel_t, void *, int *) {
    return fdnn::api::not_implemented("cudnnGetFusedOpsConstParamPackAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *, cudnnFusedOps_t) {
    return fdnn::api::not_implemented("cudnnCreateFusedOpsVariantParamPack");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t) {
    return fdnn::api::not_implemented("cudnnDestroyFusedOpsVariantParamPack");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t, cudnnFusedOpsVariantParamLabel_t, void *) {
    return fdnn::api::not_implemented("cudnnSetFusedOpsVariantParamPackAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t, cudnnFusedOpsVariantParamLabel_t, void *) {
    return fdnn::api::not_implemented("cudnnGetFusedOpsVariantParamPackAttribute");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *, cudnnFusedOps_t) {
    return fdnn::api::not_implemented("cudnnCreateFusedOpsPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t) {
    return fdnn::api::not_implemented("cudnnDestroyFusedOpsPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnMakeFusedOpsPlan(cudnnHandle_t, cudnnFusedOpsPlan_t, const cudnnFusedOpsConstParamPack_t, size_t *) {
    return fdnn::api::not_implemented("cudnnMakeFusedOpsPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFusedOpsExecute(cudnnHandle_t, const cudnnFusedOpsPlan_t, cudnnFusedOpsVariantParamPack_t) {
    return fdnn::api::not_implemented("cudnnFusedOpsExecute");
}

// ---- cudnn_adv_infer.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnAdvInferVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnAdvInferVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnAdvVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnAdvVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateRNNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyRNNDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t, cudnnRNNAlgo_t, cudnnRNNMode_t, cudnnRNNBiasMode_t, cudnnDirectionMode_t, cudnnRNNInputMode_t, cudnnDataType_t, cudnnDataType_t, cudnnMathType_t, int32_t, int32_t, int32_t, int32_t, cudnnDropoutDescriptor_t, uint32_t) {
    return fdnn::api::not_implemented("cudnnSetRNNDescriptor_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t, cudnnRNNAlgo_t *, cudnnRNNMode_t *, cudnnRNNBiasMode_t *, cudnnDirectionMode_t *, cudnnRNNInputMode_t *, cudnnDataType_t *, cudnnDataType_t *, cudnnMathType_t *, int32_t *, int32_t *, int32_t *, int32_t *, cudnnDropoutDescriptor_t *, uint32_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNDescriptor_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v9(cudnnRNNDescriptor_t, cudnnRNNClipMode_t, double, double) {
    return fdnn::api::not_implemented("cudnnRNNSetClip_v9");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v9(cudnnRNNDescriptor_t, cudnnRNNClipMode_t *, double *, double *) {
    return fdnn::api::not_implemented("cudnnRNNGetClip_v9");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v8(cudnnRNNDescriptor_t, cudnnRNNClipMode_t, cudnnNanPropagation_t, double, double) {
    return fdnn::api::not_implemented("cudnnRNNSetClip_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v8(cudnnRNNDescriptor_t, cudnnRNNClipMode_t *, cudnnNanPropagation_t *, double *, double *) {
    return fdnn::api::not_implemented("cudnnRNNGetClip_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnBuildRNNDynamic(cudnnHandle_t, cudnnRNNDescriptor_t, int) {
    return fdnn::api::not_implemented("cudnnBuildRNNDynamic");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTempSpaceSizes(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnForwardMode_t, cudnnRNNDataDescriptor_t, size_t *, size_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNTempSpaceSizes");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightSpaceSize(cudnnHandle_t, cudnnRNNDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNWeightSpaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightParams(cudnnHandle_t, cudnnRNNDescriptor_t, int32_t, size_t, const void *, int32_t, cudnnTensorDescriptor_t, void **, cudnnTensorDescriptor_t, void **) {
    return fdnn::api::not_implemented("cudnnGetRNNWeightParams");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateRNNDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyRNNDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t, cudnnDataType_t, cudnnRNNDataLayout_t, int, int, int, const int[], void *) {
    return fdnn::api::not_implemented("cudnnSetRNNDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t, cudnnDataType_t *, cudnnRNNDataLayout_t *, int *, int *, int *, int, int[], void *) {
    return fdnn::api::not_implemented("cudnnGetRNNDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNForward(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnForwardMode_t, const int32_t[], cudnnRNNDataDescriptor_t, const void *, cudnnRNNDataDescriptor_t, void *, cudnnTensorDescriptor_t, const void *, void *, cudnnTensorDescriptor_t, const void *, void *, size_t, const void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnRNNForward");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v6(cudnnHandle_t, cudnnRNNDescriptor_t, const int, const int, cudnnDropoutDescriptor_t, cudnnRNNInputMode_t, cudnnDirectionMode_t, cudnnRNNMode_t, cudnnRNNAlgo_t, cudnnDataType_t) {
    return fdnn::api::not_implemented("cudnnSetRNNDescriptor_v6");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor_v6(cudnnHandle_t, cudnnRNNDescriptor_t, int *, int *, cudnnDropoutDescriptor_t *, cudnnRNNInputMode_t *, cudnnDirectionMode_t *, cudnnRNNMode_t *, cudnnRNNAlgo_t *, cudnnDataType_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNDescriptor_v6");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNMatrixMathType(cudnnRNNDescriptor_t, cudnnMathType_t) {
    return fdnn::api::not_implemented("cudnnSetRNNMatrixMathType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNMatrixMathType(cudnnRNNDescriptor_t, cudnnMathType_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNMatrixMathType");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNBiasMode(cudnnRNNDescriptor_t, cudnnRNNBiasMode_t) {
    return fdnn::api::not_implemented("cudnnSetRNNBiasMode");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBiasMode(cudnnRNNDescriptor_t, cudnnRNNBiasMode_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNBiasMode");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnRNNClipMode_t, cudnnNanPropagation_t, double, double) {
    return fdnn::api::not_implemented("cudnnRNNSetClip");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnRNNClipMode_t *, cudnnNanPropagation_t *, double *, double *) {
    return fdnn::api::not_implemented("cudnnRNNGetClip");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNProjectionLayers(cudnnHandle_t, cudnnRNNDescriptor_t, int, int) {
    return fdnn::api::not_implemented("cudnnSetRNNProjectionLayers");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNProjectionLayers(cudnnHandle_t, cudnnRNNDescriptor_t, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetRNNProjectionLayers");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreatePersistentRNNPlan(cudnnRNNDescriptor_t, const int, const cudnnDataType_t, cudnnPersistentRNNPlan_t *) {
    return fdnn::api::not_implemented("cudnnCreatePersistentRNNPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyPersistentRNNPlan(cudnnPersistentRNNPlan_t) {
    return fdnn::api::not_implemented("cudnnDestroyPersistentRNNPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetPersistentRNNPlan(cudnnRNNDescriptor_t, cudnnPersistentRNNPlan_t) {
    return fdnn::api::not_implemented("cudnnSetPersistentRNNPlan");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWorkspaceSize(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, size_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNParamsSize(cudnnHandle_t, const cudnnRNNDescriptor_t, const cudnnTensorDescriptor_t, size_t *, cudnnDataType_t) {
    return fdnn::api::not_implemented("cudnnGetRNNParamsSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerMatrixParams(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, const void *, const int, cudnnFilterDescriptor_t, void **) {
    return fdnn::api::not_implemented("cudnnGetRNNLinLayerMatrixParams");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerBiasParams(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, const void *, const int, cudnnFilterDescriptor_t, void **) {
    return fdnn::api::not_implemented("cudnnGetRNNLinLayerBiasParams");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInference(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNForwardInference");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNPaddingMode(cudnnRNNDescriptor_t, cudnnRNNPaddingMode_t) {
    return fdnn::api::not_implemented("cudnnSetRNNPaddingMode");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNPaddingMode(cudnnRNNDescriptor_t, cudnnRNNPaddingMode_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNPaddingMode");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInferenceEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const cudnnRNNDataDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnRNNDataDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, void *, const cudnnRNNDataDescriptor_t, void *, const cudnnRNNDataDescriptor_t, void *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNForwardInferenceEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetRNNAlgorithmDescriptor(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnAlgorithmDescriptor_t) {
    return fdnn::api::not_implemented("cudnnSetRNNAlgorithmDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardInferenceAlgorithmMaxCount(cudnnHandle_t, const cudnnRNNDescriptor_t, int *) {
    return fdnn::api::not_implemented("cudnnGetRNNForwardInferenceAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardInferenceAlgorithmEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const float, const int, int *, cudnnAlgorithmPerformance_t *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindRNNForwardInferenceAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardTrainingAlgorithmMaxCount(cudnnHandle_t, const cudnnRNNDescriptor_t, int *) {
    return fdnn::api::not_implemented("cudnnGetRNNForwardTrainingAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardDataAlgorithmMaxCount(cudnnHandle_t, const cudnnRNNDescriptor_t, int *) {
    return fdnn::api::not_implemented("cudnnGetRNNBackwardDataAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateSeqDataDescriptor(cudnnSeqDataDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateSeqDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroySeqDataDescriptor(cudnnSeqDataDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroySeqDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetSeqDataDescriptor(cudnnSeqDataDescriptor_t, cudnnDataType_t, int, const int[], const cudnnSeqDataAxis_t[], size_t, const int[], void *) {
    return fdnn::api::not_implemented("cudnnSetSeqDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetSeqDataDescriptor(const cudnnSeqDataDescriptor_t, cudnnDataType_t *, int *, int, int[], cudnnSeqDataAxis_t[], size_t *, size_t, int[], void *) {
    return fdnn::api::not_implemented("cudnnGetSeqDataDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateAttnDescriptor(cudnnAttnDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateAttnDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyAttnDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetAttnDescriptor(cudnnAttnDescriptor_t, unsigned, int, double, cudnnDataType_t, cudnnDataType_t, cudnnMathType_t, cudnnDropoutDescriptor_t, cudnnDropoutDescriptor_t, int, int, int, int, int, int, int, int, int, int, int) {
    return fdnn::api::not_implemented("cudnnSetAttnDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetAttnDescriptor(cudnnAttnDescriptor_t, unsigned *, int *, double *, cudnnDataType_t *, cudnnDataType_t *, cudnnMathType_t *, cudnnDropoutDescriptor_t *, cudnnDropoutDescriptor_t *, int *, int *, int *, int *, int *, int *, int *, int *, int *, int *, int *) {
    return fdnn::api::not_implemented("cudnnGetAttnDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnBuffers(cudnnHandle_t, const cudnnAttnDescriptor_t, size_t *, size_t *, size_t *) {
    return fdnn::api::not_implemented("cudnnGetMultiHeadAttnBuffers");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnWeights(cudnnHandle_t, const cudnnAttnDescriptor_t, cudnnMultiHeadAttnWeightKind_t, size_t, const void *, cudnnTensorDescriptor_t, void **) {
    return fdnn::api::not_implemented("cudnnGetMultiHeadAttnWeights");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnForward(cudnnHandle_t, const cudnnAttnDescriptor_t, int, const int[], const int[], const int[], const int[], const cudnnSeqDataDescriptor_t, const void *, const void *, const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, void *, size_t, const void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnMultiHeadAttnForward");
}

// ---- cudnn_adv_train.h

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnAdvTrainVersionCheck(void) {
    return fdnn::api::not_implemented("cudnnAdvTrainVersionCheck");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData_v8(cudnnHandle_t, cudnnRNNDescriptor_t, const int32_t[], cudnnRNNDataDescriptor_t, const void *, const void *, cudnnRNNDataDescriptor_t, void *, cudnnTensorDescriptor_t, const void *, const void *, void *, cudnnTensorDescriptor_t, const void *, const void *, void *, size_t, const void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnRNNBackwardData_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights_v8(cudnnHandle_t, cudnnRNNDescriptor_t, cudnnWgradMode_t, const int32_t[], cudnnRNNDataDescriptor_t, const void *, cudnnTensorDescriptor_t, const void *, cudnnRNNDataDescriptor_t, const void *, size_t, void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnRNNBackwardWeights_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTrainingReserveSize(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, size_t *) {
    return fdnn::api::not_implemented("cudnnGetRNNTrainingReserveSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTraining(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNForwardTraining");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNBackwardData");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t *, const void *, const void *, size_t, const cudnnFilterDescriptor_t, void *, const void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNBackwardWeights");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTrainingEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const cudnnRNNDataDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnRNNDataDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, void *, const cudnnRNNDataDescriptor_t, void *, const cudnnRNNDataDescriptor_t, void *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNForwardTrainingEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardDataEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const cudnnRNNDataDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const cudnnRNNDataDescriptor_t, void *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNBackwardDataEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeightsEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const cudnnRNNDataDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnRNNDataDescriptor_t, const void *, void *, size_t, const cudnnFilterDescriptor_t, void *, void *, size_t) {
    return fdnn::api::not_implemented("cudnnRNNBackwardWeightsEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardTrainingAlgorithmEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const float, const int, int *, cudnnAlgorithmPerformance_t *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindRNNForwardTrainingAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardDataAlgorithmEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t *, void *, const cudnnTensorDescriptor_t, void *, const cudnnTensorDescriptor_t, void *, const float, const int, int *, cudnnAlgorithmPerformance_t *, void *, size_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindRNNBackwardDataAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardWeightsAlgorithmMaxCount(cudnnHandle_t, const cudnnRNNDescriptor_t, int *) {
    return fdnn::api::not_implemented("cudnnGetRNNBackwardWeightsAlgorithmMaxCount");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardWeightsAlgorithmEx(cudnnHandle_t, const cudnnRNNDescriptor_t, const int, const cudnnTensorDescriptor_t *, const void *, const cudnnTensorDescriptor_t, const void *, const cudnnTensorDescriptor_t *, const void *, const float, const int, int *, cudnnAlgorithmPerformance_t *, const void *, size_t, const cudnnFilterDescriptor_t, void *, const void *, size_t) {
    return fdnn::api::not_implemented("cudnnFindRNNBackwardWeightsAlgorithmEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardData(cudnnHandle_t, const cudnnAttnDescriptor_t, const int[], const int[], const int[], const int[], const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, void *, const void *, const cudnnSeqDataDescriptor_t, void *, const void *, const cudnnSeqDataDescriptor_t, void *, const void *, size_t, const void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnMultiHeadAttnBackwardData");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardWeights(cudnnHandle_t, const cudnnAttnDescriptor_t, cudnnWgradMode_t, const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, const void *, const cudnnSeqDataDescriptor_t, const void *, size_t, const void *, void *, size_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnMultiHeadAttnBackwardWeights");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t *) {
    return fdnn::api::not_implemented("cudnnCreateCTCLossDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor(cudnnCTCLossDescriptor_t, cudnnDataType_t) {
    return fdnn::api::not_implemented("cudnnSetCTCLossDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t, cudnnDataType_t, cudnnLossNormalizationMode_t, cudnnNanPropagation_t) {
    return fdnn::api::not_implemented("cudnnSetCTCLossDescriptorEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t, cudnnDataType_t, cudnnLossNormalizationMode_t, cudnnNanPropagation_t, int) {
    return fdnn::api::not_implemented("cudnnSetCTCLossDescriptor_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t, cudnnDataType_t, cudnnLossNormalizationMode_t, cudnnCTCGradMode_t, int) {
    return fdnn::api::not_implemented("cudnnSetCTCLossDescriptor_v9");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor(cudnnCTCLossDescriptor_t, cudnnDataType_t *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t, cudnnDataType_t *, cudnnLossNormalizationMode_t *, cudnnNanPropagation_t *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossDescriptorEx");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t, cudnnDataType_t *, cudnnLossNormalizationMode_t *, cudnnNanPropagation_t *, int *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossDescriptor_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t, cudnnDataType_t *, cudnnLossNormalizationMode_t *, cudnnCTCGradMode_t *, int *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossDescriptor_v9");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t) {
    return fdnn::api::not_implemented("cudnnDestroyCTCLossDescriptor");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss(cudnnHandle_t, const cudnnTensorDescriptor_t, const void *, const int[], const int[], const int[], void *, const cudnnTensorDescriptor_t, void *, cudnnCTCLossAlgo_t, cudnnCTCLossDescriptor_t, void *, size_t) {
    return fdnn::api::not_implemented("cudnnCTCLoss");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss_v8(cudnnHandle_t, cudnnCTCLossAlgo_t, cudnnCTCLossDescriptor_t, const cudnnTensorDescriptor_t, const void *, const int[], const int[], const int[], void *, const cudnnTensorDescriptor_t, void *, size_t, void *) {
    return fdnn::api::not_implemented("cudnnCTCLoss_v8");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const int *, const int *, const int *, cudnnCTCLossAlgo_t, cudnnCTCLossDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossWorkspaceSize");
}

extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize_v8(cudnnHandle_t, cudnnCTCLossAlgo_t, cudnnCTCLossDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, size_t *) {
    return fdnn::api::not_implemented("cudnnGetCTCLossWorkspaceSize_v8");
}
