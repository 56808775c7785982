// cuda.paged_cache_load: the CUDA engine of the paged K/V cache gather
// (graph/op_paged_cache_load.hpp; kernel in paged_cache_load.cu). Picks the
// widest unit (16, 8, 4 or 2 bytes) that divides a row's D elements, every
// row start in y and in the container, and both base pointers, when the
// rows are contiguous in both (stride 1 on d: true of the transposed K^T
// form too, whose stride-1 dim is d); else one element per thread.
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/paged_cache_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/paged_cache_load_args.hpp"

namespace fdnn::cuda {
namespace {

int64_t narrow_u32(int64_t v, const char *what) {
  check_supported(v >= 1 && v < (int64_t{1} << 31), "cuda.paged_cache_load: ", what, " = ", v,
                  " is outside [1, 2^31)");
  return v;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::PagedCacheLoadOp>(g.ops().front());
    const graph::Tensor &c = g.tensor(op.container), &y = g.tensor(op.y), &seq = g.tensor(op.seq_len),
                        &table = g.tensor(op.page_table);
    const PagedGeometry geo = paged_geometry(c, y, seq, table);
    PagedLoadArgs a;
    a.container = pack.get(op.container);
    a.y = pack.get(op.y);
    a.seq_len = pack.get(op.seq_len);
    a.table = static_cast<const int32_t *>(pack.get(op.page_table));
    check_arg(a.container && a.y && a.seq_len && a.table, "cuda.paged_cache_load: a data pointer is missing");
    a.seq64 = seq.dtype == CUDNN_DATA_INT64;
    a.rows = geo.batch * geo.heads * geo.seq;
    if (a.rows == 0 || geo.head_dim == 0) return;
    const int64_t eb = type_info(y.dtype).bits / 8;
    int64_t unit = eb;
    if (geo.y_strides[3] == 1 && geo.c_strides[3] == 1) {
      for (int64_t v : {16, 8, 4, 2}) {
        if (v <= eb) break;
        bool ok = (geo.head_dim * eb) % v == 0 && aligned_to(a.y, v) && aligned_to(a.container, v);
        for (int d = 0; d < 3; ++d) ok = ok && (geo.y_strides[d] * eb) % v == 0 && (geo.c_strides[d] * eb) % v == 0;
        if (ok) {
          unit = v;
          break;
        }
      }
    }
    const int64_t per_unit = unit / eb;  // elements per unit
    a.unit_bytes = static_cast<int>(unit);
    a.units_per_row = geo.head_dim / per_unit;
    for (int d = 0; d < 3; ++d) {
      a.ys[d] = geo.y_strides[d] / per_unit;
      a.cs[d] = geo.c_strides[d] / per_unit;
    }
    a.ys[3] = per_unit == 1 ? geo.y_strides[3] : 1;
    a.cs[3] = per_unit == 1 ? geo.c_strides[3] : 1;
    a.table_b = geo.table_batch_stride;
    a.table_page = geo.table_page_stride;
    a.seq_b = geo.seq_stride;
    a.num_blocks = geo.num_blocks;
    a.upr = FastDivmod(static_cast<uint32_t>(narrow_u32(a.units_per_row, "units per row")));
    a.seq = FastDivmod(static_cast<uint32_t>(narrow_u32(geo.seq, "S")));
    a.heads = FastDivmod(static_cast<uint32_t>(narrow_u32(geo.heads, "H")));
    a.block = FastDivmod(static_cast<uint32_t>(narrow_u32(geo.block_size, "block size")));
    launch_paged_cache_load(a, ctx.stream);
  }
};

class CudaPagedCacheLoadEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.paged_cache_load"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_single_paged_cache_load(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaPagedCacheLoadEngine;
FDNN_REGISTER_ENGINE(CudaPagedCacheLoadEngine)
