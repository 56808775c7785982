// cpu.matmul.blas: float and double matmuls through the BLAS GEMM
// (cpu/blas.hpp): batches spread over the thread pool, and a single matrix
// product split over it by blocks of columns or rows. Needs each matrix to
// have a unit stride in one of its two dims (row- or column-major).
//
// Mixed inputs with a float c (half, bfloat16, FP8 E4M3 / E5M2 operands, as
// attention graphs and FP8 matmuls have them: the operation computes in
// float): such an operand is first converted into a packed row-major float
// copy in the handle's scratch memory, then the float GEMM runs.
#include <algorithm>
#include <vector>

#include "core/engine.hpp"
#include "core/matmul_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/blas.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

// A matrix as BLAS sees it: transposed or not, and its leading dimension.
struct BlasMatrix {
  bool trans;
  int64_t ld;
};

// Row-major view: rows step by rs, columns by cs.
bool blas_view(int64_t rs, int64_t cs, int64_t rows, int64_t cols, BlasMatrix *out) {
  if (cs == 1 && (rows == 1 || rs >= cols)) {
    *out = {false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
    return true;
  }
  if (rs == 1 && (cols == 1 || cs >= rows)) {
    *out = {true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
    return true;
  }
  return false;
}

bool stageable_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 || t == CUDNN_DATA_FP8_E4M3 || t == CUDNN_DATA_FP8_E5M2;
}

// t as a packed row-major float tensor (the staged copy's description).
graph::Tensor staged(const graph::Tensor &t) {
  graph::Tensor s = t;
  s.dtype = CUDNN_DATA_FLOAT;
  s.strides.assign(t.dims.size(), 1);
  for (int d = static_cast<int>(t.dims.size()) - 2; d >= 0; --d) s.strides[d] = s.strides[d + 1] * t.dims[d + 1];
  return s;
}

constexpr size_t kAlign = 64;
size_t float_bytes(const graph::Tensor &t) {
  return (static_cast<size_t>(std::max<int64_t>(t.element_count(), 1)) * sizeof(float) + kAlign - 1) / kAlign * kAlign;
}

// Converts every element of t (at src) into the packed row-major float copy
// dst, rows of the last dim spread over the pool.
void stage_to_float(ThreadPool *pool, const graph::Tensor &t, const void *src, float *dst) {
  const int r = t.rank();
  const int64_t cols = t.dims[r - 1], col_stride = t.strides[r - 1];
  const int64_t rows = cols > 0 ? t.element_count() / cols : 0;
  visit_fast_type(t.dtype, [&](auto st) {
    using S = decltype(st);
    const auto *p = static_cast<const typename S::type *>(src);
    auto body = [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t rest = row, off = 0;
        for (int d = r - 2; d >= 0; --d) {
          off += rest % t.dims[d] * t.strides[d];
          rest /= t.dims[d];
        }
        float *out = dst + row * cols;
        for (int64_t j = 0; j < cols; ++j) out[j] = S::to_float(p[off + j * col_stride]);
      }
    };
    if (pool != nullptr) pool->parallel_for(rows, body);
    else body(0, rows);
  });
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b), &c = g.tensor(op.c);
    stage_a_ = a.dtype != c.dtype;
    stage_b_ = b.dtype != c.dtype;
    a_bytes_ = stage_a_ ? float_bytes(a) : 0;
    b_bytes_ = stage_b_ ? float_bytes(b) : 0;
  }
  size_t scratch_size() const override { return a_bytes_ + b_bytes_; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const graph::Tensor &at = g.tensor(op.a), &bt = g.tensor(op.b), &ct = g.tensor(op.c);
    const cudnnDataType_t t = ct.dtype;
    const MatmulGeometry geo = matmul_geometry(stage_a_ ? staged(at) : at, stage_b_ ? staged(bt) : bt, ct);
    const void *a_data = pack.get(op.a), *b_data = pack.get(op.b);
    std::vector<float> own;
    if (stage_a_ || stage_b_) {
      // The handle's scratch (scratch_size()); callers that give none get a
      // buffer of the call's own.
      auto *scratch = static_cast<unsigned char *>(pack.scratch);
      if (scratch == nullptr || pack.scratch_size < a_bytes_ + b_bytes_) {
        own.resize((a_bytes_ + b_bytes_) / sizeof(float));
        scratch = reinterpret_cast<unsigned char *>(own.data());
      }
      if (stage_a_) {
        stage_to_float(ctx.pool, at, a_data, reinterpret_cast<float *>(scratch));
        a_data = scratch;
      }
      if (stage_b_) {
        stage_to_float(ctx.pool, bt, b_data, reinterpret_cast<float *>(scratch + a_bytes_));
        b_data = scratch + a_bytes_;
      }
    }
    BlasMatrix a{}, b{};
    blas_view(geo.a_rs, geo.a_cs, geo.m, geo.k, &a);
    blas_view(geo.b_rs, geo.b_cs, geo.k, geo.n, &b);
    const int64_t batches = static_cast<int64_t>(geo.c_offsets.size());
    // A column-major c (a transposed output, as attention backward writes
    // dV^T and dK^T) is computed as C^T = B^T A^T into the same memory.
    BlasMatrix c{};
    blas_view(geo.c_rs, geo.c_cs, geo.m, geo.n, &c);
    auto run = [&](auto zero, ThreadPool *pool, int64_t bi) {
      using T = decltype(zero);
      const T *ap = static_cast<const T *>(a_data) + geo.a_offsets[bi];
      const T *bp = static_cast<const T *>(b_data) + geo.b_offsets[bi];
      T *cp = static_cast<T *>(pack.get(op.c)) + geo.c_offsets[bi];
      const T alpha = static_cast<T>(op.blend.alpha), beta = static_cast<T>(op.blend.beta);
      if (!c.trans)
        parallel_gemm<T>(pool, a.trans, b.trans, geo.m, geo.n, geo.k, alpha, ap, a.ld, bp, b.ld, beta, cp, c.ld);
      else
        parallel_gemm<T>(pool, !b.trans, !a.trans, geo.n, geo.m, geo.k, alpha, bp, b.ld, ap, a.ld, beta, cp, c.ld);
    };
    auto dispatch = [&](ThreadPool *pool, int64_t bi) {
      if (t == CUDNN_DATA_FLOAT) run(0.0f, pool, bi);
      else run(0.0, pool, bi);
    };
    // Enough batches for every thread: one whole product each; else each
    // product split over the pool.
    if (ctx.pool != nullptr && batches >= ctx.pool->size()) {
      ctx.pool->parallel_for(batches, [&](int64_t begin, int64_t end) {
        for (int64_t bi = begin; bi < end; ++bi) dispatch(nullptr, bi);
      });
    } else {
      for (int64_t bi = 0; bi < batches; ++bi) dispatch(ctx.pool, bi);
    }
  }

 private:
  bool stage_a_ = false, stage_b_ = false;
  size_t a_bytes_ = 0, b_bytes_ = 0;
};

class BlasMatmulEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.matmul.blas"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
    if (!have_blas()) return Support::no("OpenBLAS (libopenblas.so.0) is not installed");
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const cudnnDataType_t t = g.tensor(op.c).dtype;
    if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE) return Support::no("BLAS takes float and double only");
    const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b);
    for (const graph::Tensor *x : {&a, &b})
      if (x->dtype != t && !(t == CUDNN_DATA_FLOAT && stageable_type(x->dtype)))
        return Support::no("a and b must be c's type, or half / bfloat16 / FP8 with a float c");
    const MatmulGeometry geo =
        matmul_geometry(a.dtype != t ? staged(a) : a, b.dtype != t ? staged(b) : b, g.tensor(op.c));
    BlasMatrix m{};
    if (!blas_view(geo.a_rs, geo.a_cs, geo.m, geo.k, &m) || !blas_view(geo.b_rs, geo.b_cs, geo.k, geo.n, &m))
      return Support::no("a or b has no unit stride along rows or columns");
    if (!blas_view(geo.c_rs, geo.c_cs, geo.m, geo.n, &m)) return Support::no("c has no unit stride along rows or columns");
    // With beta = 0, BLAS never reads c (NaN there does not survive).
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::BlasMatmulEngine;
FDNN_REGISTER_ENGINE(BlasMatmulEngine)
