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
#include <map>
#include <memory>
#include <stdexcept>

#include "backend_plan.hpp"
#include "common/backend_bn_patterns.hpp"
#include "common/backend_graph.hpp"
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
  const std::string suffix = "-opbyop";
  if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
    a.opbyop = true;
    n.resize(n.size() - suffix.size());
  }
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

class BnPatternRun : public OpRun {
 public:
  BnPatternRun(cudnnHandle_t handle, const Problem &p) : handle_(handle) {
    const BnAlg a = bn_alg(p.knobs.alg);
    cfg_.pattern = a.pattern;
    cfg_.io_type = to_cudnn_dtype(p.knobs.dt);
    const Dims &s = p.shapes[0];
    cfg_.dims = {s[0], s[1], s[2], s[3]};
    if (s.size() == 5) cfg_.k = s[4];
    cfg_.reference = false;
    fdnn_test::Rng rng(1);
    graph_ = fdnn_test::build_bn_pattern(cfg_, rng);  // descriptors; fill() makes the data
    plan_ = plan_graph(handle_, graph_.ops, a.opbyop ? CUDNN_HEUR_MODE_FALLBACK : CUDNN_HEUR_MODE_A);
  }

  void fill(uint64_t seed) override {
    fdnn_test::Rng rng(seed);
    fdnn_test::BnPatternConfig c = cfg_;
    c.reference = true;
    data_ = fdnn_test::build_bn_pattern(c, rng);  // same uids and shapes, fresh data and expectations
    buffers_.clear();
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (fdnn_test::PatternTensor &t : data_.tensors) {
      uids.push_back(t.uid);
      if (t.by_value) {
        ptrs.push_back(&t.value);
        continue;
      }
      buffers_[t.uid] = fdnn_test::upload(t.data);
      ptrs.push_back(buffers_[t.uid].get());
    }
    pack_ = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    check_status(pack_->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids), "set pack uids");
    check_status(pack_->set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs), "set pack pointers");
    check_status(pack_->set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, plan_.workspace.get()),
                 "set pack workspace");
    check_status(pack_->finalize(), "finalize variant pack");
  }

  void execute() override {
    check_status(cudnnBackendExecute(handle_, plan_.plan->d, pack_->d), "cudnnBackendExecute");
  }

  CheckResult check() override {
    CheckResult r;
    r.passed = true;
    for (fdnn_test::PatternTensor &t : data_.tensors) {
      if (!t.output) continue;
      fdnn_test::download(buffers_[t.uid], t.data);
      const ::testing::AssertionResult m = fdnn_test::matches(t.data, t.want);
      if (!m) {
        r.passed = false;
        r.detail += t.name + ": " + m.message() + "\n";
      }
    }
    return r;
  }

  // Each real tensor once (outputs are written without being read).
  double bytes_moved() const override {
    double b = 0;
    for (const fdnn_test::PatternTensor &t : data_.tensors)
      if (!t.by_value) b += static_cast<double>(t.data.bytes.size());
    return b;
  }
  double flops() const override {
    if (cfg_.pattern != fdnn_test::BnPattern::dgrad_drelu_bn_bwd_weight) return 0;
    return 2.0 * cfg_.dims[0] * cfg_.dims[1] * cfg_.dims[2] * cfg_.dims[3] * static_cast<double>(cfg_.k) * 9;
  }

 private:
  cudnnHandle_t handle_;
  fdnn_test::BnPatternConfig cfg_;
  fdnn_test::PatternGraph graph_, data_;
  GraphPlan plan_;
  std::unique_ptr<fdnn_test::Desc> pack_;
  std::map<int64_t, fdnn_test::Buffer> buffers_;
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
    return std::make_unique<BnPatternRun>(handle, p);
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
