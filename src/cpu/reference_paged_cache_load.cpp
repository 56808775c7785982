// cpu.reference.paged_cache_load: the paged K/V cache gather (semantics in
// graph/op_paged_cache_load.hpp), the only CPU engine: a gather moves bytes
// and computes nothing, so one obviously correct loop serves as reference and
// fast engine. One task per y row (b, h, s): look up the page, then copy the
// row's D elements unchanged (one memcpy when both rows are contiguous), or
// write zeros past the sequence's end or for a page index outside the
// container.
#include <algorithm>
#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/paged_cache_support.hpp"
#include "core/thread_pool.hpp"

namespace fdnn::cpu {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::PagedCacheLoadOp>(g.ops().front());
    const graph::Tensor &c = g.tensor(op.container), &y = g.tensor(op.y), &seq = g.tensor(op.seq_len),
                        &table = g.tensor(op.page_table);
    const PagedGeometry geo = paged_geometry(c, y, seq, table);
    const auto *cd = static_cast<const unsigned char *>(pack.get(op.container));
    auto *yd = static_cast<unsigned char *>(pack.get(op.y));
    const auto *sd = static_cast<const unsigned char *>(pack.get(op.seq_len));
    const auto *td = static_cast<const int32_t *>(pack.get(op.page_table));
    const bool seq64 = seq.dtype == CUDNN_DATA_INT64;
    const int64_t eb = type_info(y.dtype).bits / 8;
    const int64_t rows = geo.batch * geo.heads * geo.seq;
    if (rows == 0 || geo.head_dim == 0) return;
    const bool rows_contiguous = geo.y_strides[3] == 1 && geo.c_strides[3] == 1;

    auto body = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t s = r % geo.seq, bh = r / geo.seq, h = bh % geo.heads, b = bh / geo.heads;
        int64_t valid = seq64 ? reinterpret_cast<const int64_t *>(sd)[b * geo.seq_stride]
                              : reinterpret_cast<const int32_t *>(sd)[b * geo.seq_stride];
        const int64_t page = s < valid ? td[b * geo.table_batch_stride + (s / geo.block_size) * geo.table_page_stride]
                                       : -1;
        unsigned char *yrow = yd + (b * geo.y_strides[0] + h * geo.y_strides[1] + s * geo.y_strides[2]) * eb;
        if (page < 0 || page >= geo.num_blocks) {
          for (int64_t d = 0; d < geo.head_dim; ++d) std::memset(yrow + d * geo.y_strides[3] * eb, 0, eb);
          continue;
        }
        const unsigned char *crow =
            cd + (page * geo.c_strides[0] + h * geo.c_strides[1] + (s % geo.block_size) * geo.c_strides[2]) * eb;
        if (rows_contiguous) {
          std::memcpy(yrow, crow, static_cast<size_t>(geo.head_dim * eb));
        } else {
          for (int64_t d = 0; d < geo.head_dim; ++d)
            std::memcpy(yrow + d * geo.y_strides[3] * eb, crow + d * geo.c_strides[3] * eb, eb);
        }
      }
    };
    if (ctx.pool != nullptr && rows * geo.head_dim >= (int64_t{1} << 14)) ctx.pool->parallel_for(rows, body);
    else body(0, rows);
  }
};

class ReferencePagedCacheLoadEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.paged_cache_load"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_paged_cache_load(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferencePagedCacheLoadEngine;
FDNN_REGISTER_ENGINE(ReferencePagedCacheLoadEngine)
