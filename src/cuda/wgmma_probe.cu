// The sm_90a probe (wgmma_probe.hpp). The image check has to run on the
// device: a fat binary built for sm_80 and compute_90a PTX would JIT the
// PTX on an H100, but the wgmma instructions exist only in the sm_90a pass,
// so the kernel reports what the pass that the driver loaded was built for.
#include <cuda_runtime.h>

#include <mutex>

#include "cuda/cuda_util.hpp"
#include "cuda/wgmma_probe.hpp"
#include "cuda/wgmma_sm90.cuh"

namespace fdnn::cuda {
namespace {

__global__ void wgmma_probe_kernel(int *out) { *out = FREEDNN_WGMMA_COMPILED; }

bool probe_current_device() {
  int yes = 0;
  int *flag = nullptr;
  if (cudaMalloc(&flag, sizeof(int)) == cudaSuccess) {
    wgmma_probe_kernel<<<1, 1, 0, cudaStreamPerThread>>>(flag);
    if (cudaGetLastError() != cudaSuccess ||
        cudaMemcpyAsync(&yes, flag, sizeof(int), cudaMemcpyDeviceToHost, cudaStreamPerThread) != cudaSuccess ||
        cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess)
      yes = 0;
    cudaFree(flag);
  }
  cudaGetLastError();  // leave no sticky launch error behind
  return yes == 1;
}

}  // namespace

bool device_runs_wgmma(int smem_needed) {
  DeviceFacts facts;
  if (!current_device_facts(facts) || facts.cc_major != 9 || facts.cc_minor != 0) return false;
  if (facts.smem_optin < smem_needed || facts.device < 0 || facts.device >= 64) return false;
  static std::mutex m;
  static int cached[64] = {};  // 0 unknown, 1 yes, 2 no
  std::lock_guard<std::mutex> lock(m);
  if (cached[facts.device] == 0) cached[facts.device] = probe_current_device() ? 1 : 2;
  return cached[facts.device] == 1;
}

}  // namespace fdnn::cuda
