// cpu.rng: the fast CPU RNG engine. Work is split into chunks of 4096
// elements over the thread pool; each chunk draws its Philox blocks 8 at a
// time in lockstep (so the compiler vectorises the rounds), then writes the
// bit pattern of 0 or 1 of the output type (core/rng_support.hpp) by element
// size: no per-element type switch. Packed row-major outputs are written
// directly, any other layout through a multi-index counter.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/rng_math.hpp"
#include "core/rng_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/philox_lanes.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kChunk = 4096;  // elements, a multiple of 32

// Bernoulli bits of elements 32*batch .. 32*batch+31 (element j in bit j):
// the same values as rng::bernoulli_nibble, 8 blocks at a time.
uint32_t bernoulli_word(uint64_t seed, uint64_t offset, uint64_t batch, uint64_t threshold) {
  return philox_bits32(seed, offset, batch, [threshold](uint32_t u) { return rng::bernoulli_one(u, threshold); });
}

using Walker = RowMajorWalker;

template <class W>
void run_chunk(const graph::Tensor &y, W *yd, W one, bool packed, uint64_t seed, uint64_t offset, uint64_t threshold,
               int64_t e0, int64_t e1) {
  std::unique_ptr<Walker> walker;
  if (!packed) walker = std::make_unique<Walker>(y, e0);
  for (int64_t base = e0; base < e1; base += 32) {
    const uint32_t bits = bernoulli_word(seed, offset, static_cast<uint64_t>(base / 32), threshold);
    const int64_t count = std::min<int64_t>(32, e1 - base);
    write_run(yd, walker.get(), base, count, [&](int64_t j) { return ((bits >> j) & 1u) ? one : W(0); });
  }
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::RngOp>(g.ops().front());
    const graph::Tensor &y = g.tensor(op.y);
    void *yd = pack.get(op.y);
    const uint64_t seed = rng_host_seed(g, op, pack), offset = rng_host_offset(g, op, pack);
    const uint64_t threshold = rng::bernoulli_threshold(op.probability);
    const int64_t n = y.element_count();
    const bool packed = y.is_packed_row_major();
    int size = 0;
    const uint64_t one = one_bits(y.dtype, &size);
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    auto body = [&](int64_t c0, int64_t c1) {
      const int64_t e0 = c0 * kChunk, e1 = std::min(n, c1 * kChunk);
      switch (size) {
        case 1: run_chunk(y, static_cast<uint8_t *>(yd), static_cast<uint8_t>(one), packed, seed, offset, threshold, e0, e1); break;
        case 2: run_chunk(y, static_cast<uint16_t *>(yd), static_cast<uint16_t>(one), packed, seed, offset, threshold, e0, e1); break;
        case 4: run_chunk(y, static_cast<uint32_t *>(yd), static_cast<uint32_t>(one), packed, seed, offset, threshold, e0, e1); break;
        default: run_chunk(y, static_cast<uint64_t *>(yd), one, packed, seed, offset, threshold, e0, e1); break;
      }
    };
    if (ctx.pool != nullptr && chunks > 1) ctx.pool->parallel_for(chunks, body);
    else if (chunks > 0) body(0, chunks);
  }
};

class CpuRngEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.rng"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_rng(g); !s) return s;
    if (std::get<graph::RngOp>(g.ops().front()).distribution != CUDNN_RNG_DISTRIBUTION_BERNOULLI)
      return Support::no("cpu.rng draws Bernoulli values only");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuRngEngine;
FDNN_REGISTER_ENGINE(CpuRngEngine)
