// The few CUDA runtime services core code needs, behind an interface so that
// core compiles without CUDA headers. gpu_cuda.cpp implements them when the
// CUDA backend is built; gpu_none.cpp otherwise (no GPU, every call fails).
#pragma once

#include <cstddef>

namespace fdnn::gpu {

bool built_with_cuda();
// Number of usable GPUs (0 when there is no driver or no device).
int device_count();
int current_device();
// Version of the CUDA runtime the library was built with (e.g. 13000), 0 if none.
int runtime_version();
// Highest compute capability this build has code for, as major*100+minor*10.
int max_device_version();

// Stream-ordered helpers on the given device; stream is a cudaStream_t.
void synchronize(void *stream);
void memcpy_d2h(void *dst, const void *src, size_t bytes, void *stream);
void memcpy_h2d(void *dst, const void *src, size_t bytes, void *stream);

// Device memory on the current device (handle scratch for engine workspaces).
// device_alloc throws ALLOC_FAILED; device_free(nullptr) does nothing. Freeing
// waits for work still using the memory (cudaFree semantics).
void *device_alloc(size_t bytes);
void device_free(void *p);

}  // namespace fdnn::gpu
