// cuda.rng: the CUDA engine for a single RngOp (the backend API's
// OPERATION_RNG: Bernoulli, uniform and normal draws). Same values as the CPU engines (see
// graph/op_rng.hpp and core/rng_math.hpp); kernel in rng_kernels.cu.
#include <memory>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/rng_math.hpp"
#include "core/rng_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/rng_args.hpp"

namespace fdnn::cuda {
namespace {

Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_rng(g); !s) return s;
  const auto &op = std::get<graph::RngOp>(g.ops().front());
  if (g.tensor(op.y).rank() > kRngMaxRank) return Support::no("rank above 8");
  return Support::yes();
}

// A scalar operand: a device pointer, or its by-value value.
void scalar_operand(const graph::Graph &g, graph::Uid uid, const VariantPack &pack, const void **ptr, bool *int32,
                    uint64_t *value) {
  if (uid == graph::kNoTensor) return;
  const graph::Tensor &t = g.tensor(uid);
  if (t.by_value) {
    *ptr = nullptr;
    *value = static_cast<uint64_t>(static_cast<int64_t>(t.value));
    return;
  }
  *ptr = pack.get(uid);
  *int32 = t.dtype == CUDNN_DATA_INT32;
  check_arg(*ptr != nullptr, "cuda.rng: missing seed/offset pointer");
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::RngOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    RngArgs a;
    a.y = pack.get(op.y);
    check_arg(a.y != nullptr, "cuda.rng: missing y pointer");
    a.one = one_bits(y.dtype, &a.elem_bytes);
    a.n = y.element_count();
    a.rank = y.rank();
    for (int d = 0; d < y.rank(); ++d) {
      a.dims[d] = y.dims[d];
      a.strides[d] = y.strides[d];
    }
    a.packed = y.is_packed_row_major() && aligned_to(a.y, 4 * static_cast<size_t>(a.elem_bytes));
    a.seed_value = static_cast<uint64_t>(op.seed_value);
    scalar_operand(g, op.seed, pack, &a.seed_ptr, &a.seed_int32, &a.seed_value);
    scalar_operand(g, op.offset, pack, &a.offset_ptr, &a.offset_int32, &a.offset_value);
    a.threshold = rng::bernoulli_threshold(op.probability);
    a.distribution = op.distribution;
    a.dtype = y.dtype;
    if (op.distribution == CUDNN_RNG_DISTRIBUTION_UNIFORM) {
      a.p0 = op.uniform_min;
      a.p1 = op.uniform_max - op.uniform_min;
    } else if (op.distribution == CUDNN_RNG_DISTRIBUTION_NORMAL) {
      a.p0 = op.normal_mean;
      a.p1 = op.normal_sd;
    }
    launch_rng(a, ctx.stream);
  }
};

class CudaRngEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.rng"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaRngEngine;
FDNN_REGISTER_ENGINE(CudaRngEngine)
