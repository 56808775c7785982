// Compile-only check that the public headers are valid C++17 and keep the cuDNN 9 ABI:
//   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -c tests/api/header_check.cpp
// (with and without the CUDA include directory after -Iinclude). Values below are the
// cuDNN 9 numbers; scripts/check_abi.py compares all of them against a real install.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cudnn.h"

// API level and limits.
static_assert(CUDNN_MAJOR == 9 && CUDNN_VERSION == 90000, "API level");
static_assert(CUDNN_DIM_MAX == 8, "CUDNN_DIM_MAX");
static_assert(CUDNN_LRN_MIN_N == 1 && CUDNN_LRN_MAX_N == 16, "LRN limits");
static_assert(CUDNN_ATTN_WKIND_COUNT == 8, "attention weight kinds");

// A dozen key enum values (cuDNN 9 numbering).
static_assert(CUDNN_STATUS_SUCCESS == 0, "status");
static_assert(CUDNN_STATUS_NOT_INITIALIZED == 1001, "status");
static_assert(CUDNN_STATUS_BAD_PARAM == 2000, "status");
static_assert(CUDNN_STATUS_NOT_SUPPORTED == 3000, "status");
static_assert(CUDNN_STATUS_INTERNAL_ERROR == 4000, "status");
static_assert(CUDNN_STATUS_EXECUTION_FAILED == 5000, "status");
static_assert(CUDNN_STATUS_ALLOC_FAILED == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "alias");
static_assert(CUDNN_DATA_BFLOAT16 == 9 && CUDNN_DATA_FP8_E4M3 == 12, "data types");
static_assert(CUDNN_TENSOR_NHWC == 1, "tensor format");
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8, "conv fwd algos");
static_assert(CUDNN_POINTWISE_RELU_FWD == 100, "pointwise");
static_assert(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR == 10, "descriptor type");
static_assert(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS == 104, "attribute name");
static_assert(CUDNN_TYPE_LAYOUT_TYPE == 12 && CUDNN_TYPE_ATTRIB_NAME == 13, "attribute type");
static_assert(CUDNN_HEUR_MODE_FALLBACK == 2, "heuristics");
static_assert(CUDNN_KNOB_TYPE_SPECFILT == 23, "knob");
static_assert(CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK == 5, "fused ops");
static_assert(CUDNN_MH_ATTN_O_BIASES == 7, "attention weights");

// Enums are int-sized, as in C.
static_assert(sizeof(cudnnStatus_t) == sizeof(int), "enum size");
static_assert(sizeof(cudnnBackendAttributeName_t) == sizeof(int), "enum size");

// Perf records and other ABI structs (x86-64 / aarch64 LP64 layout).
static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) == 48, "fwd perf size");
static_assert(sizeof(cudnnConvolutionBwdDataAlgoPerf_t) == 48, "bwd data perf size");
static_assert(sizeof(cudnnConvolutionBwdFilterAlgoPerf_t) == 48, "bwd filter perf size");
static_assert(offsetof(cudnnConvolutionFwdAlgoPerf_t, memory) == 16, "fwd perf layout");
static_assert(offsetof(cudnnConvolutionFwdAlgoPerf_t, determinism) == 24, "fwd perf layout");
static_assert(offsetof(cudnnConvolutionFwdAlgoPerf_t, reserved) == 32, "fwd perf layout");
static_assert(sizeof(cudnnDebug_t) == 120 && offsetof(cudnnDebug_t, stream) == 32, "debug struct");
static_assert(sizeof(cudnnFraction_t) == 16, "fraction");
static_assert(sizeof(cudnnAlgorithm_t) == sizeof(int), "algorithm union");

// Handle and descriptor types are pointers; the RNN padding mode is an unsigned.
static_assert(std::is_pointer<cudnnHandle_t>::value, "handle");
static_assert(std::is_pointer<cudnnTensorDescriptor_t>::value, "tensor descriptor");
static_assert(std::is_same<cudnnBackendDescriptor_t, void *>::value, "backend descriptor");
static_assert(std::is_same<cudnnRNNPaddingMode_t, unsigned>::value, "padding mode");

// A few prototypes, checked through function pointer types (nothing is called).
static_assert(std::is_same<decltype(&cudnnBackendSetAttribute),
                           cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                             cudnnBackendAttributeType_t, int64_t, const void *)>::value,
              "cudnnBackendSetAttribute (cuDNN 9 form)");
static_assert(std::is_same<decltype(&cudnnBackendInitialize), cudnnStatus_t (*)(cudnnBackendDescriptor_t)>::value,
              "cudnnBackendInitialize (cuDNN 9 form)");
static_assert(std::is_same<decltype(&cudnnDestroyAlgorithmPerformance),
                           cudnnStatus_t (*)(cudnnAlgorithmPerformance_t *, int)>::value,
              "cudnnDestroyAlgorithmPerformance (8.x array form)");
static_assert(std::is_same<decltype(&cudnnGetVersion), size_t (*)()>::value, "cudnnGetVersion");
static_assert(std::is_same<decltype(&cudnnGetErrorString), const char *(*)(cudnnStatus_t)>::value,
              "cudnnGetErrorString");
static_assert(std::is_same<decltype(&cudnnSetStream), cudnnStatus_t (*)(cudnnHandle_t, cudaStream_t)>::value,
              "cudnnSetStream");

int header_check_cpp();
int header_check_cpp() {
    cudnnAlgorithm_t algo{};
    algo.algo.RNNAlgo = CUDNN_RNN_ALGO_STANDARD;
    return static_cast<int>(algo.algo.RNNAlgo);
}
