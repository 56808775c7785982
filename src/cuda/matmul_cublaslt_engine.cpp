// cuda.matmul.cublaslt: one MatmulOp on cuBLASLt (cublasLtMatmul), ranked
// before cuda.matmul, which stays the engine for what this one refuses
// (mixed operand types, FP8, int8, divisor broadcasts, batch dims that do
// not collapse, operands without a unit-stride inner dim).
//
// The matrix product itself, its types, layouts and algorithms are
// lt_matmul.hpp's. supports() asks cuBLASLt's heuristic too, so a graph it
// has no algorithm for goes to cuda.matmul instead of failing.
#include <memory>
#include <string>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "cuda/cublaslt_loader.hpp"
#include "cuda/lt_matmul.hpp"

namespace fdnn::cuda {
namespace {

std::variant<LtMatmulSetup, std::string> make_setup(const graph::Graph &g) {
  const auto &op = std::get<graph::MatmulOp>(g.ops().front());
  return lt_matmul_setup(g.tensor(op.a), g.tensor(op.b), g.tensor(op.c), op.compute_type);
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const LtMatmulSetup &s) : ExecutionPlan(e), state_(std::make_unique<LtMatmul>(s)) {}

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
  std::unique_ptr<LtMatmul> state_;
};

class CudaMatmulCublasLtEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.matmul.cublaslt"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 50; }  // before cuda.matmul (100)
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
    // Ask cuBLASLt itself: no algorithm (or no device) means cuda.matmul runs it.
    const std::string why = lt_matmul_refusal(make_setup(g));
    return why.empty() ? Support::yes() : Support::no(why);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    auto setup = make_setup(g);
    if (auto *reason = std::get_if<std::string>(&setup)) fail(CUDNN_STATUS_NOT_SUPPORTED, *reason);
    return std::make_unique<Plan>(*this, std::get<LtMatmulSetup>(setup));
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaMatmulCublasLtEngine;
FDNN_REGISTER_ENGINE(CudaMatmulCublasLtEngine)
