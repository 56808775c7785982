// Versions, properties, error strings, logging callbacks, runtime errors and
// the sub-library version checks (under their 8.0.3 and cuDNN 9 names).
#include <cstring>

#include "api/guard.hpp"
#include "core/gpu.hpp"
#include "core/handle.hpp"
#include "core/last_error.hpp"
#include "core/log.hpp"

using namespace fdnn;

extern "C" {

size_t CUDNNWINAPI cudnnGetVersion(void) { return CUDNN_VERSION; }

size_t CUDNNWINAPI cudnnGetMaxDeviceVersion(void) { return static_cast<size_t>(gpu::max_device_version()); }

size_t CUDNNWINAPI cudnnGetCudartVersion(void) { return static_cast<size_t>(gpu::runtime_version()); }

const char *CUDNNWINAPI cudnnGetErrorString(cudnnStatus_t status) {
  // One name per value; where cuDNN 9 keeps an older alias for the same
  // value (ALLOC_FAILED, ARCH_MISMATCH, MAPPING_ERROR, VERSION_MISMATCH,
  // RUNTIME_PREREQUISITE_MISSING) the current name is returned.
  switch (status) {
#define FDNN_STATUS_NAME(s) \
  case s: return #s;
    FDNN_STATUS_NAME(CUDNN_STATUS_SUCCESS)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_INITIALIZED)
    FDNN_STATUS_NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_DEPRECATED)
    FDNN_STATUS_NAME(CUDNN_STATUS_LICENSE_ERROR)
    FDNN_STATUS_NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    FDNN_STATUS_NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    FDNN_STATUS_NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM)
    FDNN_STATUS_NAME(CUDNN_STATUS_INVALID_VALUE)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    FDNN_STATUS_NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    FDNN_STATUS_NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_EXECUTION_FAILED)
    FDNN_STATUS_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    FDNN_STATUS_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    FDNN_STATUS_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    FDNN_STATUS_NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef FDNN_STATUS_NAME
    default: return "CUDNN_UNKNOWN_STATUS";
  }
}

void CUDNNWINAPI cudnnGetLastErrorString(char *message, size_t max_size) { take_last_error(message, max_size); }

cudnnStatus_t CUDNNWINAPI cudnnGetProperty(libraryPropertyType type, int *value) {
  return FDNN_GUARDED([&] {
    check_not_null(value, "value");
    switch (type) {
      case MAJOR_VERSION: *value = CUDNN_MAJOR; break;
      case MINOR_VERSION: *value = CUDNN_MINOR; break;
      case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; break;
      default: fail(CUDNN_STATUS_BAD_PARAM, "type = ", static_cast<int>(type), " is not a libraryPropertyType");
    }
  });
}

cudnnStatus_t CUDNNWINAPI cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t *rstatus,
                                                 cudnnErrQueryMode_t mode, cudnnRuntimeTag_t *tag) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_not_null(rstatus, "rstatus");
    check_arg(mode == CUDNN_ERRQUERY_RAWCODE || mode == CUDNN_ERRQUERY_NONBLOCKING || mode == CUDNN_ERRQUERY_BLOCKING,
              "mode = ", static_cast<int>(mode), " is not a cudnnErrQueryMode_t");
    check_arg(tag == nullptr, "tag must be NULL (runtime tags are not used)");
    if (mode == CUDNN_ERRQUERY_BLOCKING && h.device.kind == DeviceKind::cuda) gpu::synchronize(h.stream);
    // Our kernels report no in-kernel errors (the only producers are batch
    // norm's *_PERSISTENT modes, which check for overflow on the host side).
    *rstatus = CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetCallback(unsigned mask, void *udata, cudnnCallback_t fptr) {
  return FDNN_GUARDED([&] { log::set_callback(mask, udata, fptr); });
}

cudnnStatus_t CUDNNWINAPI cudnnGetCallback(unsigned *mask, void **udata, cudnnCallback_t *fptr) {
  return FDNN_GUARDED([&] {
    check_arg(mask != nullptr || udata != nullptr || fptr != nullptr, "mask, udata and fptr are all NULL");
    log::get_callback(mask, udata, fptr);
  });
}

// All of FreeDNN is one library, so every sub-library check succeeds.
cudnnStatus_t CUDNNWINAPI cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnAdvVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnOpsInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnOpsTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnCnnInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnCnnTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnAdvInferVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t CUDNNWINAPI cudnnAdvTrainVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

}  // extern "C"
