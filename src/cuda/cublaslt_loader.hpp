// cuBLASLt, opened at first use (dlopen) rather than linked, as the cuBLAS
// loader of cuda.conv.winograd does: libcudnn.so.9 must load on machines with
// no CUDA toolkit, and without cuBLASLt its engines report themselves as not
// supported. The entry points are typed from the toolkit's cublasLt.h
// (decltype of the declarations: no link dependency).
#pragma once

#include <cublasLt.h>

namespace fdnn::cuda {

struct CublasLt {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  decltype(&cublasLtGetStatusName) status_name = nullptr;  // optional
};

// The library's entry points, or nullptr when it could not be opened (tried
// once per process); `why` then says what was tried.
const CublasLt *cublaslt(const char **why = nullptr);

// The cuBLASLt handle of the current CUDA device: created on first use,
// cached per device for the life of the process (cuBLASLt handles carry no
// stream and may be used from several threads at once). Throws
// fdnn::Error when there is no device or the handle cannot be created.
cublasLtHandle_t cublaslt_handle();

// Throws fdnn::Error (CUDNN_STATUS_EXECUTION_FAILED, or NOT_SUPPORTED for
// CUBLAS_STATUS_NOT_SUPPORTED / ARCH_MISMATCH) naming `what` and the status.
void check_cublaslt(cublasStatus_t status, const char *what);

// The status's name ("CUBLAS_STATUS_NOT_SUPPORTED"), for messages.
const char *cublaslt_status_name(cublasStatus_t status);

// The heuristic's first algorithm (and its workspace bytes) for the matmul
// of `desc` on layouts a, b, c, d under `pref`. `st` is the status of
// setting pref's attributes: when it failed, no query is made. Destroys
// pref. False when cuBLASLt has no algorithm for the configuration
// (NOT_SUPPORTED, or no result); other failures throw (check_cublaslt).
bool first_heuristic_algo(const CublasLt &lt, cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                          cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                          cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref, cublasStatus_t st,
                          cublasLtMatmulAlgo_t &algo, size_t &workspace);

}  // namespace fdnn::cuda
