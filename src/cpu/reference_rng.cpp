// cpu.reference.rng: the obviously-correct RNG engine. Element by element in
// logical row-major order: the element's Philox word (core/rng_math.hpp)
// becomes a Bernoulli, uniform or normal draw in double, stored through
// store_lane (cpu.rng and cpu.rng.continuous are the fast engines).
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/philox.hpp"
#include "core/rng_math.hpp"
#include "core/rng_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::RngOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    void *yd = pack.get(op.y);
    const uint64_t seed = rng_host_seed(g, op, pack), offset = rng_host_offset(g, op, pack);
    const uint64_t threshold = rng::bernoulli_threshold(op.probability);
    const int64_t n = y.element_count();
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0, rest = i;
      for (int d = y.rank() - 1; d >= 0; --d) {
        off += (rest % y.dims[d]) * y.strides[d];
        rest /= y.dims[d];
      }
      const philox::Word4 w = philox::stream_block(seed, offset, static_cast<uint64_t>(i / 4));
      const int j = static_cast<int>(i % 4);
      double v;
      switch (op.distribution) {
        case CUDNN_RNG_DISTRIBUTION_UNIFORM:
          v = op.uniform_min + (op.uniform_max - op.uniform_min) * rng::uniform01(w.v[j]);
          break;
        case CUDNN_RNG_DISTRIBUTION_NORMAL: v = op.normal_mean + op.normal_sd * rng::standard_normal(w, j); break;
        default: v = rng::bernoulli_one(w.v[j], threshold) ? 1.0 : 0.0;
      }
      store_lane(y.dtype, yd, off, v);
    }
  }
};

class ReferenceRngEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.rng"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_rng(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceRngEngine;
FDNN_REGISTER_ENGINE(ReferenceRngEngine)
