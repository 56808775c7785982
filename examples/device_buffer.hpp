// Float arrays on the device the cuDNN handle computes on.
//
// With NVIDIA's cuDNN every data pointer is GPU memory. FreeDNN also runs
// without a GPU: a handle binds to the current GPU when this build has CUDA
// and a GPU is present (unless FREEDNN_DEVICE=cpu), else to the CPU, and on a
// CPU handle every data pointer is a host pointer. DeviceBuffer follows the
// same rule, so the training code below never asks where its memory lives.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef DEMO_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace demo {

// True when cuDNN handles created by this process compute on a GPU.
inline bool handles_use_gpu() {
  static const bool gpu = [] {
    const char *forced = std::getenv("FREEDNN_DEVICE");
    if (forced != nullptr && std::strcmp(forced, "cpu") == 0) return false;
#ifdef DEMO_WITH_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();  // no driver or no GPU: clear the error, use the CPU
      return false;
    }
    return count > 0;
#else
    return false;
#endif
  }();
  return gpu;
}

// A short description of where the math runs, for the demo's banner.
inline std::string device_name() {
#ifdef DEMO_WITH_CUDA
  if (handles_use_gpu()) {
    int dev = 0;
    cudaDeviceProp prop{};
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&prop, dev);
    return std::string("GPU ") + std::to_string(dev) + " (" + prop.name + ")";
  }
#endif
  return "CPU";
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    size_t bytes = (count ? count : 1) * sizeof(float);
#ifdef DEMO_WITH_CUDA
    if (handles_use_gpu()) {
      check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
      check(cudaMemset(ptr_, 0, bytes), "cudaMemset");
      return;
    }
#endif
    ptr_ = std::calloc(1, bytes);
    if (ptr_ == nullptr) fatal("out of host memory");
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    if (this != &o) {
      release();
      ptr_ = o.ptr_;
      count_ = o.count_;
      o.ptr_ = nullptr;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  float *get() const { return static_cast<float *>(ptr_); }
  size_t count() const { return count_; }

  void upload(const float *host, size_t count) {
    if (count > count_) fatal("upload larger than the buffer");
#ifdef DEMO_WITH_CUDA
    if (handles_use_gpu()) {
      check(cudaMemcpy(ptr_, host, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
      return;
    }
#endif
    std::memcpy(ptr_, host, count * sizeof(float));
  }
  void upload(const std::vector<float> &host) { upload(host.data(), host.size()); }

  // Waits for the work queued on the GPU (the handle uses the default stream).
  void download(float *host, size_t count) const {
    if (count > count_) fatal("download larger than the buffer");
#ifdef DEMO_WITH_CUDA
    if (handles_use_gpu()) {
      check(cudaMemcpy(host, ptr_, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
      return;
    }
#endif
    std::memcpy(host, ptr_, count * sizeof(float));
  }

 private:
  void release() {
    if (ptr_ == nullptr) return;
#ifdef DEMO_WITH_CUDA
    if (handles_use_gpu()) {
      cudaFree(ptr_);
      ptr_ = nullptr;
      return;
    }
#endif
    std::free(ptr_);
    ptr_ = nullptr;
  }
#ifdef DEMO_WITH_CUDA
  static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) fatal((std::string(what) + ": " + cudaGetErrorString(e)).c_str());
  }
#endif
  [[noreturn]] static void fatal(const char *what) {
    std::fprintf(stderr, "DeviceBuffer: %s\n", what);
    std::exit(2);
  }

  void *ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace demo
