// cuda.matmul.cublaslt: one MatmulOp on cuBLASLt (cublasLtMatmul), ranked
// before cuda.matmul, which stays the engine for what this one refuses
// (mixed operand types, FP8, int8, divisor broadcasts, batch dims that do
// not collapse, operands without a unit-stride inner dim).
//
// Types: a and b both HALF with c HALF or FLOAT, both BFLOAT16 with c
// BFLOAT16 or FLOAT, all FLOAT (CUBLAS_COMPUTE_32F: no TF32, the MatmulOp
// carries no math mode that would allow it), all DOUBLE (COMPUTE_64F).
//
// Layouts: every matrix is described column-major to cuBLASLt. A row-major
// operand is its transpose stored column-major (TRANSA / TRANSB = T); a
// row-major c is computed as c^T = b^T a^T (operands swapped). Batch dims
// must collapse to one strided dim (extent-1 operands: batch stride 0).
//
// The matmul descriptor, the layouts and two algorithms
// (cublasLtMatmulAlgoGetHeuristic) are made once per plan: one for pointers
// aligned to 16 bytes with up to 32 MiB of workspace (declared as the plan's
// workspace size), one for any pointer alignment and no workspace. supports()
// asks the heuristic too, so a graph cuBLASLt has no algorithm for goes to
// cuda.matmul instead of failing.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "cuda/cublaslt_loader.hpp"

namespace fdnn::cuda {
namespace {

constexpr uint64_t kMaxWorkspace = uint64_t{32} << 20;
constexpr uint32_t kFastAlignment = 16;
constexpr size_t kWorkspaceAlignment = 256;
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// A logical R x C matrix (strides rs, cs) as a column-major cuBLASLt operand:
// stored rows x cols with leading dim ld, `trans` when op(stored) = matrix.
struct Operand {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  bool trans = false;
  int64_t batch_stride = 0;
};

std::optional<Operand> as_col_major(int64_t R, int64_t C, int64_t rs, int64_t cs) {
  if ((rs == 1 || R == 1) && (C == 1 || cs >= R)) {
    const int64_t ld = C == 1 ? R : cs;
    return Operand{static_cast<uint64_t>(R), static_cast<uint64_t>(C), ld, false, 0};
  }
  if ((cs == 1 || C == 1) && (R == 1 || rs >= C)) {
    const int64_t ld = R == 1 ? C : rs;
    return Operand{static_cast<uint64_t>(C), static_cast<uint64_t>(R), ld, true, 0};
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

// Everything cublasLtMatmul needs but the pointers and scalars.
struct Setup {
  cudaDataType_t x_type = CUDA_R_32F, y_type = CUDA_R_32F, d_type = CUDA_R_32F;
  bool f64 = false;
  bool swapped = false;  // x = b^T, y = a^T, d = c^T (c row-major)
  Operand x, y, d;
  int64_t batches = 1;
  size_t x_elem = 4, y_elem = 4, d_elem = 4;
};

// The setup for c = a b (compute type `compute`), or the reason cuBLASLt
// cannot take it.
std::variant<Setup, std::string> make_setup(const graph::Tensor &a, const graph::Tensor &b, const graph::Tensor &c,
                                            cudnnDataType_t compute) {
  if (!types_taken(a.dtype, b.dtype, c.dtype, compute))
    return cat("types a ", type_info(a.dtype).name, ", b ", type_info(b.dtype).name, ", c ", type_info(c.dtype).name,
               ", compute ", type_info(compute).name,
               ": cuBLASLt takes HALF a and b with HALF or FLOAT c, BFLOAT16 with BFLOAT16 or FLOAT c (FLOAT compute), "
               "all FLOAT, or all DOUBLE");
  const int r = c.rank();
  const int64_t m = c.dims[r - 2], n = c.dims[r - 1], k = a.dims[r - 1];
  if (m > kInt32Max || n > kInt32Max || k > kInt32Max) return std::string("m, n or k of 2^31 or more");

  Setup s;
  s.f64 = a.dtype == CUDNN_DATA_DOUBLE;
  std::optional<Operand> d = as_col_major(m, n, c.strides[r - 2], c.strides[r - 1]);
  if (!d) return std::string("c has no unit-stride matrix dim (or its rows or columns overlap)");
  std::optional<Operand> x, y;
  if (!d->trans) {
    x = as_col_major(m, k, a.strides[r - 2], a.strides[r - 1]);
    y = as_col_major(k, n, b.strides[r - 2], b.strides[r - 1]);
  } else {
    s.swapped = true;
    d = Operand{d->rows, d->cols, d->ld, false, 0};
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

std::variant<Setup, std::string> make_setup(const graph::Graph &g) {
  const auto &op = std::get<graph::MatmulOp>(g.ops().front());
  return make_setup(g.tensor(op.a), g.tensor(op.b), g.tensor(op.c), op.compute_type);
}

// The cuBLASLt objects of one plan, destroyed with it.
class LtState {
 public:
  LtState(const LtState &) = delete;
  LtState &operator=(const LtState &) = delete;

  explicit LtState(const Setup &s) : lt_(*require_lt()), s_(s) {
    handle_ = cublaslt_handle();
    const cublasComputeType_t compute = s.f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scale = s.f64 ? CUDA_R_64F : CUDA_R_32F;
    check_cublaslt(lt_.desc_create(&desc_, compute, scale), "cublasLtMatmulDescCreate");
    const int32_t ta = s.x.trans ? CUBLAS_OP_T : CUBLAS_OP_N, tb = s.y.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    check_cublaslt(lt_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "cublasLtMatmulDescSetAttribute(TRANSA)");
    check_cublaslt(lt_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "cublasLtMatmulDescSetAttribute(TRANSB)");
    x_ = layout(s.x_type, s.x, s.batches);
    y_ = layout(s.y_type, s.y, s.batches);
    d_ = layout(s.d_type, s.d, s.batches);
    // Fast: 16-byte aligned pointers, up to 32 MiB of workspace.
    if (!algorithm(kFastAlignment, kMaxWorkspace, fast_, fast_workspace_))
      fail(CUDNN_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic found no algorithm for ", describe());
    // Any: element-aligned pointers, no workspace (when it finds none, the
    // fast algorithm runs only on aligned pointers and execute says so).
    has_any_ = algorithm(0, 0, any_, any_workspace_);
  }

  size_t workspace_size() const { return fast_workspace_; }

  std::string detail() const {
    return cat(describe(), ", workspace ", fast_workspace_, has_any_ ? "" : ", no algorithm for unaligned pointers");
  }

  void run(void *stream, const void *a, const void *b, void *c, double alpha, double beta, void *workspace,
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

 private:
  static const CublasLt *require_lt() {
    const char *why = nullptr;
    const CublasLt *lt = cublaslt(&why);
    if (lt == nullptr) fail(CUDNN_STATUS_NOT_SUPPORTED, why);
    return lt;
  }

  static bool aligned_to(const void *p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

  std::string describe() const {
    return cat("x ", s_.x.rows, "x", s_.x.cols, " ld ", s_.x.ld, s_.x.trans ? " T" : " N", ", y ", s_.y.rows, "x",
               s_.y.cols, " ld ", s_.y.ld, s_.y.trans ? " T" : " N", ", d ", s_.d.rows, "x", s_.d.cols, " ld ",
               s_.d.ld, ", ", s_.batches, " batches");
  }

  cublasLtMatrixLayout_t layout(cudaDataType_t type, const Operand &o, int64_t batches) {
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
  bool algorithm(uint32_t alignment, uint64_t max_workspace, cublasLtMatmulAlgo_t &algo, size_t &workspace) {
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

  // The descriptors, destroyed by a member so that they are also when the
  // constructor throws (supports() probes graphs the heuristic refuses).
  struct Owned {
    const CublasLt &lt;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t x = nullptr, y = nullptr, d = nullptr;
    explicit Owned(const CublasLt &l) : lt(l) {}
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() {
      if (x != nullptr) lt.layout_destroy(x);
      if (y != nullptr) lt.layout_destroy(y);
      if (d != nullptr) lt.layout_destroy(d);
      if (desc != nullptr) lt.desc_destroy(desc);
    }
  };

  const CublasLt &lt_;
  Setup s_;
  cublasLtHandle_t handle_ = nullptr;
  Owned owned_{lt_};
  cublasLtMatmulDesc_t &desc_ = owned_.desc;
  cublasLtMatrixLayout_t &x_ = owned_.x, &y_ = owned_.y, &d_ = owned_.d;
  cublasLtMatmulAlgo_t fast_{}, any_{};
  size_t fast_workspace_ = 0, any_workspace_ = 0;
  bool has_any_ = false;
};

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const Setup &s) : ExecutionPlan(e), state_(std::make_unique<LtState>(s)) {}

  size_t workspace_size() const override { return state_->workspace_size(); }
  std::string detail() const override { return state_->detail(); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const void *a = pack.get(op.a), *b = pack.get(op.b);
    void *c = pack.get(op.c);
    if (a == nullptr || b == nullptr || c == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "missing data pointer");
    state_->run(ctx.stream, a, b, c, op.blend.alpha, op.blend.beta, pack.workspace, pack.workspace_size);
  }

 private:
  std::unique_ptr<LtState> state_;
};

class CudaMatmulCublasLtEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.matmul.cublaslt"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 50; }  // before cuda.matmul (100)
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
    const char *why = nullptr;
    if (cublaslt(&why) == nullptr) return Support::no(why);
    auto setup = make_setup(g);
    if (auto *reason = std::get_if<std::string>(&setup)) return Support::no(*reason);
    // Ask cuBLASLt itself: no algorithm (or no device) means cuda.matmul runs it.
    try {
      LtState probe(std::get<Setup>(setup));
    } catch (const Error &e) {
      return Support::no(e.what());
    }
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    auto setup = make_setup(g);
    if (auto *reason = std::get_if<std::string>(&setup)) fail(CUDNN_STATUS_NOT_SUPPORTED, *reason);
    return std::make_unique<Plan>(*this, std::get<Setup>(setup));
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaMatmulCublasLtEngine;
FDNN_REGISTER_ENGINE(CudaMatmulCublasLtEngine)
