#include "cuda/cuda_util.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace fdnn::cuda {
namespace {

constexpr int kMaxDevices = 64;

bool query(int dev, DeviceFacts &f) {
  int coop = 0;
  f.device = dev;
  const bool ok = cudaDeviceGetAttribute(&f.sm_count, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&f.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&f.l2_bytes, cudaDevAttrL2CacheSize, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&f.cc_major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&f.cc_minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) == cudaSuccess;
  if (f.sm_count < 1) f.sm_count = 1;
  f.cooperative = coop != 0;
  return ok;
}

}  // namespace

bool current_device_facts(DeviceFacts &out) {
  static std::mutex m;
  static DeviceFacts cached[kMaxDevices];
  static bool known[kMaxDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();
    return false;
  }
  std::lock_guard<std::mutex> lock(m);
  if (!known[dev]) {
    DeviceFacts f;
    if (!query(dev, f)) {
      cudaGetLastError();
      return false;
    }
    cached[dev] = f;
    known[dev] = true;
  }
  out = cached[dev];
  return true;
}

int sm_count() {
  DeviceFacts f;
  if (!current_device_facts(f))
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "the current CUDA device's multiprocessor count could not be read");
  return f.sm_count;
}

void set_kernel_smem(const void *kernel, int smem, int carveout) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex mu;
  static std::map<std::pair<const void *, int>, std::pair<int, int>> set;  // (kernel, device) -> (smem, carveout)
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(kernel, device);
  const auto it = set.find(key);
  if (it != set.end() && it->second == std::make_pair(smem, carveout)) return;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "cudaFuncSetAttribute");
  if (carveout >= 0)
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout),
               "cudaFuncSetAttribute");
  set[key] = {smem, carveout};
}

}  // namespace fdnn::cuda
