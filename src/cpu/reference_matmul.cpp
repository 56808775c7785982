// cpu.reference.matmul: float64 triple loop over every batch, any strides and
// data types.
#include "core/engine.hpp"
#include "core/matmul_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const graph::Tensor &a = g.tensor(op.a), &b = g.tensor(op.b), &c = g.tensor(op.c);
    const void *ap = pack.get(op.a), *bp = pack.get(op.b);
    void *cp = pack.get(op.c);
    const MatmulGeometry geo = matmul_geometry(g);
    for (size_t bi = 0; bi < geo.c_offsets.size(); ++bi)
      for (int64_t i = 0; i < geo.m; ++i)
        for (int64_t j = 0; j < geo.n; ++j) {
          double s = 0;
          for (int64_t k = 0; k < geo.k; ++k)
            s += load_lane(a.dtype, ap, geo.a_offsets[bi] + i * geo.a_rs + k * geo.a_cs) *
                 load_lane(b.dtype, bp, geo.b_offsets[bi] + k * geo.b_rs + j * geo.b_cs);
          const int64_t co = geo.c_offsets[bi] + i * geo.c_rs + j * geo.c_cs;
          double out = op.blend.alpha * s;
          if (op.blend.beta != 0.0) out += op.blend.beta * load_lane(c.dtype, cp, co);
          store_lane(c.dtype, cp, co, out);
        }
  }
};

class ReferenceMatmulEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.matmul"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_matmul(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceMatmulEngine;
FDNN_REGISTER_ENGINE(ReferenceMatmulEngine)
