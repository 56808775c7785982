#include "cuda/cuda_util.hpp"

#include <mutex>

namespace fdnn::cuda {

int sm_count() {
  static std::mutex m;
  static int cached[64] = {};
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  if (dev < 0 || dev >= 64) dev = 0;
  std::lock_guard<std::mutex> lock(m);
  if (cached[dev] == 0) {
    int n = 0;
    check_cuda(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
    cached[dev] = n > 0 ? n : 1;
  }
  return cached[dev];
}

}  // namespace fdnn::cuda
