// The planned cuBLASLt matmul (lt_matmul.hpp).
#include "cuda/lt_matmul.hpp"

#include <cstdint>
#include <limits>
#include <optional>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn::cuda {
namespace {

constexpr uint32_t kFastAlignment = 16;
constexpr size_t kWorkspaceAlignment = 256;
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

std::optional<LtOperand> as_col_major(int64_t R, int64_t C, int64_t rs, int64_t cs) {
  if ((rs == 1 || R == 1) && (C == 1 || cs >= R)) {
    const int64_t ld = C == 1 ? R : cs;
    return LtOperand{static_cast<uint64_t>(R), static_cast<uint64_t>(C), ld, false, 0};
  }
  if ((cs == 1 || C == 1) && (R == 1 || rs >= C)) {
    const int64_t ld = R == 1 ? C : rs;
    return LtOperand{static_cast<uint64_t>(C), static_cast<uint64_t>(R), ld, true, 0};
  }
  return std::nullopt;
}

std::optional<cudaDataType_t> lt_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_HALF: return CUDA_R_16F;
    case CUDNN_DATA_BFLOAT16: return CUDA_R_16BF;
    case CUDNN_DATA_FLOAT: return CUDA_R_32F;
    case CUDNN_DATA_DOUBLE: return CUDA_R_64F;
    default: return std::nullopt;
  }
}

bool types_taken(cudnnDataType_t a, cudnnDataType_t b, cudnnDataType_t c, cudnnDataType_t compute) {
  if (a != b) return false;
  if (a == CUDNN_DATA_DOUBLE) return c == CUDNN_DATA_DOUBLE && compute == CUDNN_DATA_DOUBLE;
  if (compute != CUDNN_DATA_FLOAT) return false;
  if (a == CUDNN_DATA_FLOAT) return c == CUDNN_DATA_FLOAT;
  if (a == CUDNN_DATA_HALF || a == CUDNN_DATA_BFLOAT16) return c == a || c == CUDNN_DATA_FLOAT;
  return false;
}

const CublasLt &require_lt() {
  const char *why = nullptr;
  const CublasLt *lt = cublaslt(&why);
  if (lt == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, why);
  return *lt;
}

bool aligned_to(const void *p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

}  // namespace

std::variant<LtMatmulSetup, std::string> lt_matmul_setup(const graph::Tensor &a, const graph::Tensor &b,
                                                         const graph::Tensor &c, cudnnDataType_t compute) {
  if (!types_taken(a.dtype, b.dtype, c.dtype, compute))
    return cat("types a ", type_info(a.dtype).name, ", b ", type_info(b.dtype).name, ", c ", type_info(c.dtype).name,
               ", compute ", type_info(compute).name,
               ": cuBLASLt takes HALF a and b with HALF or FLOAT c, BFLOAT16 with BFLOAT16 or FLOAT c (FLOAT compute), "
               "all FLOAT, or all DOUBLE");
  const int r = c.rank();
  const int64_t m = c.dims[r - 2], n = c.dims[r - 1], k = a.dims[r - 1];
  if (m > kInt32Max || n > kInt32Max || k > kInt32Max) return std::string("m, n or k of 2^31 or more");

  LtMatmulSetup s;
  s.f64 = a.dtype == CUDNN_DATA_DOUBLE;
  std::optional<LtOperand> d = as_col_major(m, n, c.strides[r - 2], c.strides[r - 1]);
  if (!d) return std::string("c has no unit-stride matrix dim (or its rows or columns overlap)");
  std::optional<LtOperand> x, y;
  if (!d->trans) {
    x = as_col_major(m, k, a.strides[r - 2], a.strides[r - 1]);
    y = as_col_major(k, n, b.strides[r - 2], b.strides[r - 1]);
  } else {
    s.swapped = true;
    d = LtOperand{d->rows, d->cols, d->ld, false, 0};
    x = as_col_major(n, k, b.strides[r - 1], b.strides[r - 2]);  // b^T
    y = as_col_major(k, m, a.strides[r - 1], a.strides[r - 2]);  // a^T
  }
  if (!x || !y) return std::string("a or b has no unit-stride matrix dim (or its rows or columns overlap)");
  if (x->ld > kInt32Max || y->ld > kInt32Max || d->ld > kInt32Max) return std::string("leading dims of 2^31 or more");

  // Collapse the batch dims (those of c's extent > 1) into one strided dim.
  int64_t count = 1, sa = 0, sb = 0, sc = 0;
  for (int i = r - 3; i >= 0; --i) {
    const int64_t e = c.dims[i];
    if (e == 1) continue;
    if ((a.dims[i] != 1 && a.dims[i] != e) || (b.dims[i] != 1 && b.dims[i] != e))
      return cat("batch dimension ", i, " broadcasts by a proper divisor (a ", a.dims[i], ", b ", b.dims[i], ", c ", e,
                 ")");
    const int64_t ta = a.dims[i] == 1 ? 0 : a.strides[i], tb = b.dims[i] == 1 ? 0 : b.strides[i];
    const int64_t tc = c.strides[i];
    if (ta < 0 || tb < 0 || tc <= 0) return std::string("negative or zero batch strides");
    if (count == 1) {
      sa = ta, sb = tb, sc = tc;
    } else if (ta != sa * count || tb != sb * count || tc != sc * count) {
      return cat("batch dimension ", i, " does not collapse with the inner ones into one strided batch dim");
    }
    count *= e;
    if (count > kInt32Max) return std::string("2^31 or more batches");
  }
  s.batches = count;
  x->batch_stride = s.swapped ? sb : sa;
  y->batch_stride = s.swapped ? sa : sb;
  d->batch_stride = sc;
  s.x = *x, s.y = *y, s.d = *d;
  s.x_type = *lt_type(s.swapped ? b.dtype : a.dtype);
  s.y_type = *lt_type(s.swapped ? a.dtype : b.dtype);
  s.d_type = *lt_type(c.dtype);
  s.x_elem = static_cast<size_t>(type_info(s.swapped ? b.dtype : a.dtype).bits / 8);
  s.y_elem = static_cast<size_t>(type_info(s.swapped ? a.dtype : b.dtype).bits / 8);
  s.d_elem = static_cast<size_t>(type_info(c.dtype).bits / 8);
  return s;
}


std::string lt_matmul_refusal(const std::variant<LtMatmulSetup, std::string> &setup) {
  const char *why = nullptr;
  if (cublaslt(&why) == nullptr) return why;
  if (const auto *reason = std::get_if<std::string>(&setup)) return *reason;
  try {
    LtMatmul probe(std::get<LtMatmulSetup>(setup));
  } catch (const Error &e) {
    return e.what();
  }
  return {};
}

LtMatmul::LtMatmul(const LtMatmulSetup &s, uint64_t max_workspace) : lt_(require_lt()), s_(s) {
  handle_ = cublaslt_handle();
  const cublasComputeType_t compute = s.f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const cudaDataType_t scale = s.f64 ? CUDA_R_64F : CUDA_R_32F;
  check_cublaslt(lt_.desc_create(&desc_, compute, scale), "cublasLtMatmulDescCreate");
  const int32_t ta = s.x.trans ? CUBLAS_OP_T : CUBLAS_OP_N, tb = s.y.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  check_cublaslt(lt_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                 "cublasLtMatmulDescSetAttribute(TRANSA)");
  check_cublaslt(lt_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
                 "cublasLtMatmulDescSetAttribute(TRANSB)");
  x_ = layout(s.x_type, s.x, s.batches);
  y_ = layout(s.y_type, s.y, s.batches);
  d_ = layout(s.d_type, s.d, s.batches);
  // Fast: 16-byte aligned pointers, up to max_workspace bytes of workspace.
  if (!algorithm(kFastAlignment, max_workspace, fast_, fast_workspace_))
    fail(CUDNN_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic found no algorithm for ", describe());
  // Any: element-aligned pointers, no workspace (when it finds none, the
  // fast algorithm runs only on aligned pointers and execute says so).
  has_any_ = algorithm(0, 0, any_, any_workspace_);
}

std::string LtMatmul::detail() const {
  return cat(describe(), ", workspace ", fast_workspace_, has_any_ ? "" : ", no algorithm for unaligned pointers");
}

void LtMatmul::run(void *stream, const void *a, const void *b, void *c, double alpha, double beta, void *workspace,
         size_t workspace_size) const {
  const void *x = s_.swapped ? b : a, *y = s_.swapped ? a : b;
  const bool aligned = aligned_to(x, kFastAlignment) && aligned_to(y, kFastAlignment) &&
                       aligned_to(c, kFastAlignment) &&
                       (fast_workspace_ == 0 || (workspace != nullptr && workspace_size >= fast_workspace_ &&
                                                 aligned_to(workspace, kWorkspaceAlignment)));
  const cublasLtMatmulAlgo_t *algo = &fast_;
  size_t ws = fast_workspace_;
  if (!aligned) {
    if (!has_any_)
      fail(CUDNN_STATUS_NOT_SUPPORTED, "cuBLASLt has no algorithm for pointers not aligned to ", kFastAlignment,
           " bytes (or a workspace smaller than ", fast_workspace_, " bytes) for ", describe());
    algo = &any_;
    ws = any_workspace_;
  }
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const void *pa = s_.f64 ? static_cast<const void *>(&alpha) : &af;
  const void *pb = s_.f64 ? static_cast<const void *>(&beta) : &bf;
  // beta = 0: cuBLASLt does not read C, so NaN there does not survive.
  check_cublaslt(lt_.matmul(handle_, desc_, pa, x, x_, y, y_, pb, c, d_, c, d_, algo, ws == 0 ? nullptr : workspace,
                            ws, static_cast<cudaStream_t>(stream)),
                 "cublasLtMatmul");
}

std::string LtMatmul::describe() const {
  return cat("x ", s_.x.rows, "x", s_.x.cols, " ld ", s_.x.ld, s_.x.trans ? " T" : " N", ", y ", s_.y.rows, "x",
             s_.y.cols, " ld ", s_.y.ld, s_.y.trans ? " T" : " N", ", d ", s_.d.rows, "x", s_.d.cols, " ld ",
             s_.d.ld, ", ", s_.batches, " batches");
}

cublasLtMatrixLayout_t LtMatmul::layout(cudaDataType_t type, const LtOperand &o, int64_t batches) {
  cublasLtMatrixLayout_t l = nullptr;
  check_cublaslt(lt_.layout_create(&l, type, o.rows, o.cols, o.ld), "cublasLtMatrixLayoutCreate");
  if (batches > 1) {
    const int32_t count = static_cast<int32_t>(batches);
    const int64_t stride = o.batch_stride;
    cublasStatus_t st = lt_.layout_set(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = lt_.layout_set(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    if (st != CUBLAS_STATUS_SUCCESS) {
      lt_.layout_destroy(l);
      check_cublaslt(st, "cublasLtMatrixLayoutSetAttribute(BATCH)");
    }
  }
  return l;
}

// The heuristic's best algorithm for pointers aligned to `alignment` bytes
// (0: to their elements) and at most `max_workspace` bytes of workspace.
bool LtMatmul::algorithm(uint32_t alignment, uint64_t max_workspace, cublasLtMatmulAlgo_t &algo, size_t &workspace) {
  cublasLtMatmulPreference_t pref = nullptr;
  check_cublaslt(lt_.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
  const uint32_t align_x = alignment ? alignment : static_cast<uint32_t>(s_.x_elem);
  const uint32_t align_y = alignment ? alignment : static_cast<uint32_t>(s_.y_elem);
  const uint32_t align_d = alignment ? alignment : static_cast<uint32_t>(s_.d_elem);
  cublasStatus_t st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
                                   sizeof max_workspace);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_x, sizeof align_x);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_y, sizeof align_y);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_d, sizeof align_d);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_d, sizeof align_d);
  // Split-k partial sums of a HALF / BFLOAT16 c only in the compute type
  // (INPLACE and OUTPUT_TYPE would add them rounded to c's type).
  const uint32_t schemes = s_.d_elem < 4 ? CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE : CUBLASLT_REDUCTION_SCHEME_MASK;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = lt_.pref_set(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes);
  return first_heuristic_algo(lt_, handle_, desc_, x_, y_, d_, d_, pref, st, algo, workspace);
}

LtMatmul::Owned::~Owned() {
  if (x != nullptr) lt.layout_destroy(x);
  if (y != nullptr) lt.layout_destroy(y);
  if (d != nullptr) lt.layout_destroy(d);
  if (desc != nullptr) lt.desc_destroy(desc);
}

}  // namespace fdnn::cuda
