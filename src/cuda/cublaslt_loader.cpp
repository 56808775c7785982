#include "cuda/cublaslt_loader.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "cuda/toolkit_library.hpp"

namespace fdnn::cuda {
namespace {

struct Loaded {
  CublasLt api;
  bool ok = false;
  std::string why;

  Loaded() {
    void *lib = open_toolkit_library("libcublasLt", "cuBLASLt", &why);
    if (lib == nullptr) return;
    bool all = true;
    auto get = [&](auto &fn, const char *symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
      if (fn == nullptr) {
        all = false;
        why += (why.empty() ? "the cuBLASLt library found lacks " : ", ") + std::string(symbol);
      }
    };
    get(api.create, "cublasLtCreate");
    get(api.desc_create, "cublasLtMatmulDescCreate");
    get(api.desc_destroy, "cublasLtMatmulDescDestroy");
    get(api.desc_set, "cublasLtMatmulDescSetAttribute");
    get(api.layout_create, "cublasLtMatrixLayoutCreate");
    get(api.layout_destroy, "cublasLtMatrixLayoutDestroy");
    get(api.layout_set, "cublasLtMatrixLayoutSetAttribute");
    get(api.pref_create, "cublasLtMatmulPreferenceCreate");
    get(api.pref_destroy, "cublasLtMatmulPreferenceDestroy");
    get(api.pref_set, "cublasLtMatmulPreferenceSetAttribute");
    get(api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
    get(api.matmul, "cublasLtMatmul");
    ok = all;
    api.status_name = reinterpret_cast<decltype(api.status_name)>(dlsym(lib, "cublasLtGetStatusName"));
  }
};

const Loaded &loaded() {
  static const Loaded l;
  return l;
}

}  // namespace

const CublasLt *cublaslt(const char **why) {
  const Loaded &l = loaded();
  if (!l.ok && why != nullptr) *why = l.why.c_str();
  return l.ok ? &l.api : nullptr;
}

const char *cublaslt_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: break;
  }
  const Loaded &l = loaded();
  if (l.api.status_name != nullptr) return l.api.status_name(status);
  return "an unknown cuBLAS status";
}

void check_cublaslt(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const cudnnStatus_t s = status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH
                              ? CUDNN_STATUS_NOT_SUPPORTED
                              : CUDNN_STATUS_EXECUTION_FAILED;
  fail(s, what, " failed with ", cublaslt_status_name(status), " (", static_cast<int>(status), ")");
}

bool first_heuristic_algo(const CublasLt &lt, cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                          cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                          cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref, cublasStatus_t st,
                          cublasLtMatmulAlgo_t &algo, size_t &workspace) {
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS) st = lt.heuristic(handle, desc, a, b, c, d, pref, 1, &result, &found);
  lt.pref_destroy(pref);
  // NOT_SUPPORTED: no heuristic for this configuration, not an error.
  if (st == CUBLAS_STATUS_NOT_SUPPORTED) return false;
  check_cublaslt(st, "cublasLtMatmulAlgoGetHeuristic");
  if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS) return false;
  algo = result.algo;
  workspace = result.workspaceSize;
  return true;
}

cublasLtHandle_t cublaslt_handle() {
  const char *why = nullptr;
  const CublasLt *lt = cublaslt(&why);
  if (lt == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, why);
  int device = -1;
  const cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess)
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "cudaGetDevice failed: ", cudaGetErrorName(e), " (",
         cudaGetErrorString(e), ")");
  // Never destroyed: a handle destroyed at exit could outlive the CUDA
  // runtime's own teardown.
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t h = nullptr;
  check_cublaslt(lt->create(&h), "cublasLtCreate");
  handles.emplace(device, h);
  return h;
}

}  // namespace fdnn::cuda
