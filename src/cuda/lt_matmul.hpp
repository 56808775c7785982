// One cublasLtMatmul, d = alpha * x y + beta * d, planned once and run many
// times: the engines whose work is exactly a (strided batched) matrix
// product build it from graph tensors c = a b (cuda.matmul.cublaslt: the
// MatmulOp; cuda.conv.gemm_1x1: a pointwise NHWC convolution, y = x w^T).
//
// Every matrix is described column-major to cuBLASLt. A row-major operand
// is its transpose stored column-major (TRANSA / TRANSB = T); a row-major c
// is computed as c^T = b^T a^T (operands swapped). Batch dims must collapse
// to one strided dim (extent-1 operands: batch stride 0).
//
// Two algorithms are chosen (cublasLtMatmulAlgoGetHeuristic) when the plan
// is made: one for pointers aligned to 16 bytes with up to `max_workspace`
// bytes of workspace (the plan's workspace size), one for any pointer
// alignment and no workspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "cuda/cublaslt_loader.hpp"
#include "graph/tensor.hpp"

namespace fdnn::cuda {

// A logical R x C matrix (strides rs, cs) as a column-major cuBLASLt operand:
// stored rows x cols with leading dim ld, `trans` when op(stored) = matrix.
struct LtOperand {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  bool trans = false;
  int64_t batch_stride = 0;
};

// Everything cublasLtMatmul needs but the pointers and scalars.
struct LtMatmulSetup {
  cudaDataType_t x_type = CUDA_R_32F, y_type = CUDA_R_32F, d_type = CUDA_R_32F;
  bool f64 = false;
  bool swapped = false;  // x = b^T, y = a^T, d = c^T (c row-major)
  LtOperand x, y, d;
  int64_t batches = 1;
  size_t x_elem = 4, y_elem = 4, d_elem = 4;
};

// The setup for c = a b (the last two dims of each tensor are the matrix,
// the ones before are batch dims; compute type `compute`), or the reason
// cuBLASLt cannot take it. Types: a and b both HALF with c HALF or FLOAT,
// both BFLOAT16 with c BFLOAT16 or FLOAT, all FLOAT (COMPUTE_32F: no TF32),
// all DOUBLE (COMPUTE_64F).
std::variant<LtMatmulSetup, std::string> lt_matmul_setup(const graph::Tensor &a, const graph::Tensor &b,
                                                         const graph::Tensor &c, cudnnDataType_t compute);

// Why cuBLASLt cannot run `setup` here (the library does not open, the
// setup is a refusal, there is no device, or the heuristic has no
// algorithm), or an empty string when it can: the engines' supports().
std::string lt_matmul_refusal(const std::variant<LtMatmulSetup, std::string> &setup);

class LtMatmul {
 public:
  static constexpr uint64_t kMaxWorkspace = uint64_t{32} << 20;

  // Throws fdnn::Error (NOT_SUPPORTED) when cuBLASLt is absent or its
  // heuristic has no algorithm for 16-byte aligned pointers.
  explicit LtMatmul(const LtMatmulSetup &s, uint64_t max_workspace = kMaxWorkspace);
  LtMatmul(const LtMatmul &) = delete;
  LtMatmul &operator=(const LtMatmul &) = delete;

  size_t workspace_size() const { return fast_workspace_; }
  std::string detail() const;

  // c = alpha a b + beta c on `stream` (beta = 0 never reads c). Pointers
  // not aligned to 16 bytes, or a workspace smaller than workspace_size(),
  // take the second algorithm; NOT_SUPPORTED when there is none.
  void run(void *stream, const void *a, const void *b, void *c, double alpha, double beta, void *workspace,
           size_t workspace_size) const;

 private:
  std::string describe() const;
  cublasLtMatrixLayout_t layout(cudaDataType_t type, const LtOperand &o, int64_t batches);
  bool algorithm(uint32_t alignment, uint64_t max_workspace, cublasLtMatmulAlgo_t &algo, size_t &workspace);

  // The descriptors, destroyed by a member so that they are also when the
  // constructor throws (supports() probes graphs the heuristic refuses).
  struct Owned {
    const CublasLt &lt;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t x = nullptr, y = nullptr, d = nullptr;
    explicit Owned(const CublasLt &l) : lt(l) {}
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned();
  };

  const CublasLt &lt_;
  LtMatmulSetup s_;
  cublasLtHandle_t handle_ = nullptr;
  Owned owned_{lt_};
  cublasLtMatmulDesc_t &desc_ = owned_.desc;
  cublasLtMatrixLayout_t &x_ = owned_.x, &y_ = owned_.y, &d_ = owned_.d;
  cublasLtMatmulAlgo_t fast_{}, any_{};
  size_t fast_workspace_ = 0, any_workspace_ = 0;
  bool has_any_ = false;
};

}  // namespace fdnn::cuda
