// cpu.dropout: the fast CPU dropout engine. Work is split by mask words (32
// elements each) over the thread pool; a chunk's keep bits come from Philox
// blocks computed 16 (AVX-512) or 8 (AVX2) at a time in vector registers
// (philox_lanes.hpp; the same mapping as every engine, core/philox.hpp),
// then its elements are scaled in float (double for DOUBLE data). Packed row-major
// tensors are walked directly; any other layout through a per-chunk
// multi-index counter.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dropout_support.hpp"
#include "core/engine.hpp"
#include "core/philox.hpp"
#include "core/thread_pool.hpp"
#include "cpu/convert_simd.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/philox_lanes.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kWordsPerChunk = 512;  // 16384 elements

using Walker = RowMajorWalker;

// y = keep ? x * scale : +0 over one word's elements (count <= 32) of packed
// data; dropped elements are exactly +0, whatever x holds (NaN, inf). Full
// words run a fixed 32-lane loop that the compiler vectorises; 16-bit types
// convert through float with the F16C / shift conversions of convert_simd.hpp
// (bit for bit the scalar ones), so no element goes through a double.
template <class S, class C>
inline void apply_word(const typename S::type *xp, typename S::type *yp, uint32_t bits, C scale, int64_t count) {
  using T = typename S::type;
  if constexpr (std::is_same_v<T, C>) {
    if (count == 32) {
      for (int j = 0; j < 32; ++j) yp[j] = ((bits >> j) & 1u) ? xp[j] * scale : C(0);
    } else {
      for (int64_t j = 0; j < count; ++j) yp[j] = ((bits >> j) & 1u) ? xp[j] * scale : C(0);
    }
  } else if constexpr (std::is_same_v<S, Storage<CUDNN_DATA_HALF>> || std::is_same_v<S, Storage<CUDNN_DATA_BFLOAT16>>) {
    constexpr bool kBf16 = std::is_same_v<S, Storage<CUDNN_DATA_BFLOAT16>>;
    float v[32];
    const int cnt = static_cast<int>(count);
    int done = kBf16 ? simd::bf16_to_float(xp, cnt, v) : simd::half_to_float(xp, cnt, v);
    for (int j = done; j < cnt; ++j) v[j] = S::to_float(xp[j]);
    if (cnt == 32) {
      for (int j = 0; j < 32; ++j) v[j] = ((bits >> j) & 1u) ? v[j] * scale : 0.0f;
    } else {
      for (int j = 0; j < cnt; ++j) v[j] = ((bits >> j) & 1u) ? v[j] * scale : 0.0f;
    }
    done = simd::store_16bit<kBf16, false>(yp, v, cnt, 1.0f, 0.0f);
    for (int j = done; j < cnt; ++j) yp[j] = S::from_float(v[j]);
  } else {
    for (int64_t j = 0; j < count; ++j) {
      const C v = static_cast<C>(S::to_double(xp[j])) * scale;
      yp[j] = S::from_double(static_cast<double>(((bits >> j) & 1u) ? v : C(0)));
    }
  }
}

template <class S, class C>
void run_chunk(const graph::Tensor &x, const graph::Tensor &y, const typename S::type *xs, typename S::type *ys,
               uint32_t *mask, bool fwd, uint64_t seed, uint64_t offset, uint64_t threshold, C scale, int64_t w0,
               int64_t w1, int64_t n) {
  // Forward: the chunk's mask words first, all at once (philox_lanes.hpp).
  if (fwd) keep_words(seed, offset, static_cast<uint64_t>(w0), static_cast<uint64_t>(w1), threshold, mask + w0);
  const bool packed = x.is_packed_row_major() && y.is_packed_row_major();
  if (packed) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t base = w * 32;
      apply_word<S, C>(xs + base, ys + base, mask[w], scale, std::min<int64_t>(32, n - base));
    }
    return;
  }
  Walker xw(x, w0 * 32), yw(y, w0 * 32);
  for (int64_t w = w0; w < w1; ++w) {
    const uint32_t bits = mask[w];
    const int64_t base = w * 32, count = std::min<int64_t>(32, n - base);
    for (int64_t j = 0; j < count; ++j) {
      const C v = static_cast<C>(S::to_double(xs[xw.offset()])) * scale;
      ys[yw.offset()] = ((bits >> j) & 1u) ? S::from_double(static_cast<double>(v)) : S::from_double(0.0);
      xw.next();
      yw.next();
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
