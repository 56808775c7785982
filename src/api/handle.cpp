// cudnnCreate, cudnnDestroy, cudnnSetStream, cudnnGetStream.
#include <cstdlib>

#include "api/guard.hpp"
#include "core/handle.hpp"
#include "core/log.hpp"

using namespace fdnn;

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t *handle) {
  return FDNN_GUARDED([&] {
    check_not_null(handle, "handle");
    auto h = std::make_unique<cudnnContext>();
    h->device = default_device();
    if (const char *filter = std::getenv("FREEDNN_ENGINE")) h->engine_filter = filter;
    if (log::verbose()) log::verbose_line("create," + to_string(h->device));
    *handle = h.release();
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle) {
  return FDNN_GUARDED([&] {
    if (handle == nullptr) return;  // cuDNN 9 accepts destroying NULL (8.0.3 documented BAD_PARAM)
    cudnnContext &h = checked_handle(handle);
    h.magic = 0;  // a later use of this pointer fails cleanly while the memory is not reused
    release_scratch(h);
    delete &h;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    // A CPU handle has no streams; cuDNN code always sets one, so accept it
    // and keep it for cudnnGetStream, but never use it.
    h.stream = static_cast<void *>(streamId);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    check_not_null(streamId, "streamId");
    *streamId = static_cast<cudaStream_t>(h.stream);
  });
}

}  // extern "C"
