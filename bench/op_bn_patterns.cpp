// --op=bn-pattern: the graph guide's batch-norm patterns through the backend
// API (the builders of tests/common/backend_bn_patterns.hpp), on the first
// engine of heuristics mode A (the fused cpu.fusion.bn on a CPU handle), or
// of FALLBACK (op by op) with an -opbyop suffix:
//   --alg=bn-add-relu[-opbyop]     NORM_FORWARD batch norm training (running
//                                  stats) -> ADD z -> RELU -> y, CMP_GT mask
//   --alg=drelu-fork-dbn[-opbyop]  RELU_BWD(mask, dy) -> NORM_BACKWARD
//   --alg=dgrad-drelu-bn[-opbyop]  dgrad (3x3, pad 1) -> RELU_BWD with y_bn
//                                  recomputed -> BN_BWD_WEIGHTS
// Shapes NxCxHxW (NHWC packed); the dgrad pattern takes NxCxHxWxK (K: dy's
// channels). --dt=f32|f16|bf16 for the data (statistics float). The check
// compares every output with the float64 expectation of the builder.
// No oneDNN peer: no oneDNN primitive has these exact semantics (its batch
// normalization fuses ReLU but not the residual add with a separate mask
// output, nor the dgrad with BN_BWD_WEIGHTS).
#include <memory>
#include <stdexcept>

#include "backend_plan.hpp"
#include "bn_pattern_run.hpp"
#include "common/backend_bn_patterns.hpp"
#include "default_set.hpp"
#include "dtype.hpp"
#include "op.hpp"

namespace bench {
namespace {

struct BnAlg {
  fdnn_test::BnPattern pattern = fdnn_test::BnPattern::bn_add_relu;
  bool opbyop = false;
};

BnAlg bn_alg(const std::string &name) {
  std::string n = name.empty() ? "bn-add-relu" : name;
  BnAlg a;
  a.opbyop = strip_suffix(n, "-opbyop");
  if (n == "bn-add-relu")
    a.pattern = fdnn_test::BnPattern::bn_add_relu;
  else if (n == "drelu-fork-dbn")
    a.pattern = fdnn_test::BnPattern::drelu_fork_dbn;
  else if (n == "dgrad-drelu-bn")
    a.pattern = fdnn_test::BnPattern::dgrad_drelu_bn_bwd_weight;
  else
    throw std::invalid_argument("unknown bn-pattern --alg '" + name +
                                "' (bn-add-relu, drelu-fork-dbn, dgrad-drelu-bn, each with an optional -opbyop)");
  return a;
}

fdnn_test::BnPatternConfig bn_config(const BnAlg &a, const Problem &p) {
  fdnn_test::BnPatternConfig c;
  c.pattern = a.pattern;
  c.io_type = to_cudnn_dtype(p.knobs.dt);
  const Dims &s = p.shapes[0];
  c.dims = {s[0], s[1], s[2], s[3]};
  if (s.size() == 5) c.k = s[4];
  return c;
}

class BnPatternRun : public BnPatternGraphRun {
 public:
  BnPatternRun(cudnnHandle_t handle, const BnAlg &a, const Problem &p)
      : BnPatternGraphRun(handle, bn_config(a, p), a.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A) {}

  double flops() const override {
    const fdnn_test::BnPatternConfig &c = config();
    if (c.pattern != fdnn_test::BnPattern::dgrad_drelu_bn_bwd_weight) return 0;
    return 2.0 * c.dims[0] * c.dims[1] * c.dims[2] * c.dims[3] * static_cast<double>(c.k) * 9;
  }
};

class BnPatternFamily : public OpFamily {
 public:
  const char *name() const override { return "bn-pattern"; }
  const char *help() const override {
    return "  bn-pattern the graph guide's batch-norm patterns (backend API), first engine of heuristics\n"
           "             mode A, or of FALLBACK (op by op) with an -opbyop suffix:\n"
           "             --alg=bn-add-relu|drelu-fork-dbn[-opbyop]: shape NxCxHxW (NHWC);\n"
           "             --alg=dgrad-drelu-bn[-opbyop]: shape NxCxHxWxK (3x3 dgrad from K channels);\n"
           "             --dt=f32|f16|bf16 (float statistics)\n";
  }
  void validate(const Problem &p) const override {
    const BnAlg a = bn_alg(p.knobs.alg);
    const std::string &dt = p.knobs.dt;
    if (dt != "f32" && dt != "f16" && dt != "bf16") throw std::invalid_argument("bn-pattern --dt is f32, f16 or bf16");
    const size_t rank = a.pattern == fdnn_test::BnPattern::dgrad_drelu_bn_bwd_weight ? 5 : 4;
    if (!p.descriptor.empty() || p.shapes.size() != 1 || p.shapes[0].size() != rank)
      throw std::invalid_argument(rank == 5 ? "dgrad-drelu-bn takes one shape NxCxHxWxK"
                                            : "bn-pattern takes one shape NxCxHxW");
    for (int64_t d : p.shapes[0])
      if (d < 1) throw std::invalid_argument("bn-pattern extents must be positive");
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + (p.knobs.alg.empty() ? std::string("bn-add-relu") : p.knobs.alg) + " --dt=" + p.knobs.dt;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<BnPatternRun>(handle, bn_alg(p.knobs.alg), p);
  }
};

BENCH_REGISTER_OP(BnPatternFamily)

BENCH_DEFAULT_PROBLEMS(
    bn_pattern, 97,
    {
        "--reset --name=bn.add-relu.f16 --op=bn-pattern --alg=bn-add-relu --dt=f16 32x64x56x56",
        "--reset --name=bn.add-relu.opbyop.f16 --op=bn-pattern --alg=bn-add-relu-opbyop --dt=f16 32x64x56x56",
        "--reset --name=bn.drelu-fork-dbn.f16 --op=bn-pattern --alg=drelu-fork-dbn --dt=f16 32x64x56x56",
        "--reset --name=bn.drelu-fork-dbn.opbyop.f16 --op=bn-pattern --alg=drelu-fork-dbn-opbyop --dt=f16 32x64x56x56",
        "--reset --name=bn.dgrad-drelu-bn.f32 --op=bn-pattern --alg=dgrad-drelu-bn --dt=f32 8x64x28x28x64",
        "--reset --name=bn.dgrad-drelu-bn.opbyop.f32 --op=bn-pattern --alg=dgrad-drelu-bn-opbyop --dt=f32 "
        "8x64x28x28x64",
    })

}  // namespace
}  // namespace bench
