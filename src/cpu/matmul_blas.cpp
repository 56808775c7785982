// cpu.matmul.blas: float and double matmuls through the BLAS GEMM
// (cpu/blas.hpp): batches spread over the thread pool, and a single matrix
// product split over it by blocks of columns or rows. Needs each matrix to
// have a unit stride in one of its two dims (row- or column-major).
#include "core/engine.hpp"
#include "core/matmul_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/blas.hpp"

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

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const cudnnDataType_t t = g.tensor(op.c).dtype;
    const MatmulGeometry geo = matmul_geometry(g);
    BlasMatrix a{}, b{};
    blas_view(geo.a_rs, geo.a_cs, geo.m, geo.k, &a);
    blas_view(geo.b_rs, geo.b_cs, geo.k, geo.n, &b);
    const int64_t batches = static_cast<int64_t>(geo.c_offsets.size());
    auto run = [&](auto zero, ThreadPool *pool, int64_t bi) {
      using T = decltype(zero);
      parallel_gemm<T>(pool, a.trans, b.trans, geo.m, geo.n, geo.k, static_cast<T>(op.blend.alpha),
                       static_cast<const T *>(pack.get(op.a)) + geo.a_offsets[bi], a.ld,
                       static_cast<const T *>(pack.get(op.b)) + geo.b_offsets[bi], b.ld,
                       static_cast<T>(op.blend.beta), static_cast<T *>(pack.get(op.c)) + geo.c_offsets[bi], geo.c_rs);
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
    if (g.tensor(op.a).dtype != t || g.tensor(op.b).dtype != t) return Support::no("a, b and c differ in type");
    const MatmulGeometry geo = matmul_geometry(g);
    BlasMatrix m{};
    if (!blas_view(geo.a_rs, geo.a_cs, geo.m, geo.k, &m) || !blas_view(geo.b_rs, geo.b_cs, geo.k, geo.n, &m))
      return Support::no("a or b has no unit stride along rows or columns");
    if (geo.c_cs != 1 || (geo.m > 1 && geo.c_rs < geo.n)) return Support::no("c must be row-major");
    // With beta = 0, BLAS never reads c (NaN there does not survive).
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::BlasMatmulEngine;
FDNN_REGISTER_ENGINE(BlasMatmulEngine)
