// cpu.dropout: the fast CPU dropout engine. Work is split by mask words (32
// elements each) over the thread pool; each word's keep bits come from 8
// Philox blocks (the same mapping as every engine, core/philox.hpp), then
// its elements are scaled in float (double for DOUBLE data). Packed row-major
// tensors are walked directly; any other layout through a per-chunk
// multi-index counter.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "core/dropout_support.hpp"
#include "core/engine.hpp"
#include "core/philox.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/philox_lanes.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kWordsPerChunk = 512;  // 16384 elements

using Walker = RowMajorWalker;

// keep_word of philox.hpp, 8 blocks at a time (philox_lanes.hpp). Same bits.
uint32_t keep_word_batched(uint64_t seed, uint64_t offset, uint64_t word, uint64_t threshold) {
  return philox_bits32(seed, offset, word, [threshold](uint32_t u) { return philox::keeps(u, threshold); });
}

template <class S, class C>
void run_chunk(const graph::Tensor &x, const graph::Tensor &y, const typename S::type *xs, typename S::type *ys,
               uint32_t *mask, bool fwd, uint64_t seed, uint64_t offset, uint64_t threshold, C scale, int64_t w0,
               int64_t w1, int64_t n) {
  const bool packed = x.is_packed_row_major() && y.is_packed_row_major();
  const int64_t e0 = w0 * 32;
  std::unique_ptr<Walker> xw, yw;
  if (!packed) {
    xw = std::make_unique<Walker>(x, e0);
    yw = std::make_unique<Walker>(y, e0);
  }
  for (int64_t w = w0; w < w1; ++w) {
    uint32_t bits;
    if (fwd) {
      bits = keep_word_batched(seed, offset, static_cast<uint64_t>(w), threshold);
      mask[w] = bits;
    } else {
      bits = mask[w];
    }
    const int64_t base = w * 32, count = std::min<int64_t>(32, n - base);
    if (packed) {
      const typename S::type *xp = xs + base;
      typename S::type *yp = ys + base;
      for (int64_t j = 0; j < count; ++j) {
        // Dropped elements are exactly +0, whatever x holds (NaN, inf).
        const C v = static_cast<C>(S::to_double(xp[j])) * scale;
        yp[j] = S::from_double(static_cast<double>(((bits >> j) & 1u) ? v : C(0)));
      }
    } else {
      for (int64_t j = 0; j < count; ++j) {
        const C v = static_cast<C>(S::to_double(xs[xw->offset()])) * scale;
        ys[yw->offset()] = ((bits >> j) & 1u) ? S::from_double(static_cast<double>(v)) : S::from_double(0.0);
        xw->next();
        yw->next();
      }
    }
  }
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::DropoutOp>(g.ops().front());
    const graph::Tensor &x = g.tensor(op.x), &y = g.tensor(op.y);
    const void *xd = pack.get(op.x);
    void *yd = pack.get(op.y);
    auto *mask = static_cast<uint32_t *>(pack.get(op.mask));
    const int64_t n = x.element_count(), words = graph::dropout_mask_words(n);
    const bool fwd = op.direction == graph::DropoutOp::Direction::forward;
    uint64_t seed = 0, offset = 0;
    uint64_t *offset_p = nullptr;
    if (fwd) {
      seed = *static_cast<const uint64_t *>(pack.get(op.seed));
      offset_p = static_cast<uint64_t *>(pack.get(op.offset));
      offset = *offset_p;
    }
    const uint64_t threshold = philox::drop_threshold(op.probability);
    const int64_t chunks = (words + kWordsPerChunk - 1) / kWordsPerChunk;
    auto body = [&](int64_t c0, int64_t c1) {
      const int64_t w0 = c0 * kWordsPerChunk, w1 = std::min(words, c1 * kWordsPerChunk);
      visit_fast_type(x.dtype, [&](auto storage) {
        using S = decltype(storage);
        using T = typename S::type;
        if constexpr (std::is_same_v<T, double>) {
          run_chunk<S, double>(x, y, static_cast<const T *>(xd), static_cast<T *>(yd), mask, fwd, seed, offset,
                               threshold, dropout_scale_double(op.probability), w0, w1, n);
        } else {
          run_chunk<S, float>(x, y, static_cast<const T *>(xd), static_cast<T *>(yd), mask, fwd, seed, offset,
                              threshold, dropout_scale_float(op.probability), w0, w1, n);
        }
      });
    };
    if (ctx.pool != nullptr && chunks > 1) ctx.pool->parallel_for(chunks, body);
    else body(0, chunks);
    if (fwd && op.advance_offset) *offset_p = offset + 1;
  }
};

class CpuDropoutEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.dropout"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override { return check_single_dropout(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuDropoutEngine;
FDNN_REGISTER_ENGINE(CpuDropoutEngine)
