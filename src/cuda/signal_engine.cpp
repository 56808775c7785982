// cuda.signal: OPERATION_SIGNAL on a GPU handle (graph/op_signal.hpp), the
// semantics of cpu.signal enqueued on the handle's stream. The flag is an
// INT64 in device, managed or host-mapped memory. SET: the pass-through copy
// (when y is distinct), then a one-thread kernel that stores the flag with
// system-scope release ordering. WAIT: a one-thread kernel that spins with
// system-scope acquire loads until the flag equals the value, then the copy.
// The host never blocks: the stream does. A WAIT whose SET is enqueued later
// on the same stream never finishes (as with NVIDIA's: the setter must run on
// another stream, device or the host).
#include <cuda_runtime_api.h>

#include <memory>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/signal_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/signal_args.hpp"

namespace fdnn::cuda {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SignalOp>(g.ops().front());
    auto *flag = static_cast<int64_t *>(pack.get(op.flag));
    check_not_null(flag, "the signal flag");
    const auto pass_through = [&] {
      const SignalCopy c = signal_pass_through(g, op, pack);
      if (c.bytes == 0) return;
      check_cuda(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDefault, as_stream(ctx.stream)),
                 "cudaMemcpyAsync (signal pass-through)");
    };
    if (op.mode == CUDNN_SIGNAL_WAIT) {
      launch_signal_wait(flag, op.value, ctx.stream);
      pass_through();
    } else {
      pass_through();
      launch_signal_set(flag, op.value, ctx.stream);
    }
  }
};

class CudaSignalEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.signal"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_single_signal(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaSignalEngine;
FDNN_REGISTER_ENGINE(CudaSignalEngine)
