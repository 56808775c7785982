// cpu.reference.dropout: the obviously-correct dropout engine. Element by
// element in logical order, in double: the keep bit from Philox
// (core/philox.hpp), y = keep ? x / (1 - p) : 0.
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "core/dropout_support.hpp"
#include "core/engine.hpp"
#include "core/philox.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

int64_t offset_of(const graph::Tensor &t, int64_t linear) {
  int64_t off = 0;
  for (int d = t.rank() - 1; d >= 0; --d) {
    off += (linear % t.dims[d]) * t.strides[d];
    linear /= t.dims[d];
  }
  return off;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::DropoutOp>(g.ops().front());
    const graph::Tensor &x = g.tensor(op.x), &y = g.tensor(op.y);
    const void *xd = pack.get(op.x);
    void *yd = pack.get(op.y);
    auto *mask = static_cast<uint32_t *>(pack.get(op.mask));
    const int64_t n = x.element_count();
    const double scale = op.probability >= 1.0 ? 0.0 : 1.0 / (1.0 - op.probability);
    const bool fwd = op.direction == graph::DropoutOp::Direction::forward;
    if (fwd) {
      const uint64_t seed = *static_cast<const uint64_t *>(pack.get(op.seed));
      auto *offset_p = static_cast<uint64_t *>(pack.get(op.offset));
      const uint64_t offset = *offset_p;
      const uint64_t threshold = philox::drop_threshold(op.probability);
      for (int64_t w = 0; w < graph::dropout_mask_words(n); ++w) mask[w] = 0;
      for (int64_t i = 0; i < n; ++i) {
        const philox::Word4 r = philox::stream_block(seed, offset, static_cast<uint64_t>(i / 4));
        if (philox::keeps(r.v[i % 4], threshold)) mask[i / 32] |= 1u << (i % 32);
      }
      if (op.advance_offset) *offset_p = offset + 1;
    }
    for (int64_t i = 0; i < n; ++i) {
      const bool keep = (mask[i / 32] >> (i % 32)) & 1u;
      const double v = keep ? load_lane(x.dtype, xd, offset_of(x, i)) * scale : 0.0;
      store_lane(y.dtype, yd, offset_of(y, i), v);
    }
  }
};

class ReferenceDropoutEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.dropout"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_dropout(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceDropoutEngine;
FDNN_REGISTER_ENGINE(ReferenceDropoutEngine)
