// cpu.matmul.blas: float and double matmuls through the BLAS GEMM, one call
// per batch (batches spread over the thread pool, BLAS itself single-threaded
// here so that the two levels do not oversubscribe the cores). Needs each
// matrix to have a unit stride in one of its two dims (row- or column-major).
#include "core/engine.hpp"
#include "core/matmul_support.hpp"
#include "core/thread_pool.hpp"

#ifdef FREEDNN_WITH_OPENBLAS
#include <cblas.h>

namespace fdnn::cpu {
namespace {

// A matrix as BLAS sees it: transposed or not, and its leading dimension.
struct BlasMatrix {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

// Row-major view: rows step by rs, columns by cs.
bool blas_view(int64_t rs, int64_t cs, int64_t rows, int64_t cols, BlasMatrix *out) {
  if (cs == 1 && (rows == 1 || rs >= cols)) {
    *out = {CblasNoTrans, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
    return true;
  }
  if (rs == 1 && (cols == 1 || cs >= rows)) {
    *out = {CblasTrans, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
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
    openblas_set_num_threads(1);
    auto run = [&](int64_t bi) {
      if (t == CUDNN_DATA_FLOAT) {
        cblas_sgemm(CblasRowMajor, a.trans, b.trans, geo.m, geo.n, geo.k, static_cast<float>(op.blend.alpha),
                    static_cast<const float *>(pack.get(op.a)) + geo.a_offsets[bi], a.ld,
                    static_cast<const float *>(pack.get(op.b)) + geo.b_offsets[bi], b.ld,
                    static_cast<float>(op.blend.beta), static_cast<float *>(pack.get(op.c)) + geo.c_offsets[bi],
                    geo.c_rs);
      } else {
        cblas_dgemm(CblasRowMajor, a.trans, b.trans, geo.m, geo.n, geo.k, op.blend.alpha,
                    static_cast<const double *>(pack.get(op.a)) + geo.a_offsets[bi], a.ld,
                    static_cast<const double *>(pack.get(op.b)) + geo.b_offsets[bi], b.ld, op.blend.beta,
                    static_cast<double *>(pack.get(op.c)) + geo.c_offsets[bi], geo.c_rs);
      }
    };
    ctx.pool->parallel_for(batches, [&](int64_t begin, int64_t end) {
      for (int64_t bi = begin; bi < end; ++bi) run(bi);
    });
  }
};

class BlasMatmulEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.matmul.blas"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
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

#endif  // FREEDNN_WITH_OPENBLAS
