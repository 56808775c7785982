// Built when the CUDA backend is off: there is never a GPU.
#include "core/error.hpp"
#include "core/gpu.hpp"

namespace fdnn::gpu {

bool built_with_cuda() { return false; }
int device_count() { return 0; }
int current_device() { return 0; }
int runtime_version() { return 0; }
int max_device_version() { return 0; }
void synchronize(void *) {}
void memcpy_d2h(void *, const void *, size_t, void *) {
  fail(CUDNN_STATUS_NOT_SUPPORTED, "this FreeDNN build has no CUDA backend");
}
void memcpy_h2d(void *, const void *, size_t, void *) {
  fail(CUDNN_STATUS_NOT_SUPPORTED, "this FreeDNN build has no CUDA backend");
}

void *device_alloc(size_t) { fail(CUDNN_STATUS_NOT_SUPPORTED, "this FreeDNN build has no CUDA backend"); }
void device_free(void *) {}

}  // namespace fdnn::gpu
