// cpu.signal: OPERATION_SIGNAL on the CPU (graph/op_signal.hpp). The flag is
// a host int64 accessed atomically: SET copies x to y, then stores the value
// with release ordering (y's writes are visible before the flag changes);
// WAIT spins (yielding) until an acquire load of the flag equals the value,
// then copies. y must be absent, x itself, or have x's type, dims and
// strides (the pass-through is a byte copy of x's span).
#include <cstring>
#include <memory>
#include <thread>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/signal_support.hpp"

namespace fdnn::cpu {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SignalOp>(g.ops().front());
    auto *flag = static_cast<int64_t *>(pack.get(op.flag));
    check_not_null(flag, "the signal flag");
    const auto pass_through = [&] {
      const SignalCopy c = signal_pass_through(g, op, pack);
      if (c.bytes > 0) std::memmove(c.dst, c.src, c.bytes);
    };
    if (op.mode == CUDNN_SIGNAL_WAIT) {
      while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != op.value) std::this_thread::yield();
      pass_through();
    } else {
      pass_through();
      __atomic_store_n(flag, op.value, __ATOMIC_RELEASE);
    }
  }
};

class CpuSignalEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.signal"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override { return check_single_signal(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuSignalEngine;
FDNN_REGISTER_ENGINE(CpuSignalEngine)
