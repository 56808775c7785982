// cuda.reduction: the CUDA engine for a single ReductionOp (cudnnReduceTensor
// and backend reductions). Same semantics as the CPU engines (modes, NaN
// rules, flat indices, compute precision): see cuda/reduce_modes.cuh.
//
// The plan sorts x's dims by stride and merges them, carrying y's strides
// (0 on reduced dims), the flat-index multipliers of the reduced dims and the
// indices tensor's strides along, as the CPU engine does; then it picks the
// kernel shape and how many parts each slice is cut into so that the GPU is
// full. Parts are combined by a second, deterministic kernel.
#include <algorithm>
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/op_support.hpp"
#include "core/reduction_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {
namespace {

enum Operand { kX = 0, kY = 1, kFlat = 2, kIdx = 3 };

// The shared structural checks, then what the CUDA kernels can do.
Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_reduction(g); !s) return s;
  const auto &op = std::get<graph::ReductionOp>(g.ops().front());
  graph::Tensor xs = g.tensor(op.x), ys = g.tensor(op.y);
  split_grouped_reduction(xs, ys);  // grouped dims in two (core/reduction_support.hpp)
  const graph::Tensor *x = &xs, *y = &ys;
  if (x->rank() > kMaxRank)
    return Support::no(cat("rank ", x->rank(), " (grouped dims split in two) is above ", kMaxRank));
  for (const graph::Tensor *t : {x, y})
    if (!element_type_supported(t->dtype))
      return Support::no(cat("data type ", type_info(t->dtype).enum_name, " has no CUDA kernels"));
  int64_t outputs = y->element_count(), slice = 1;
  for (size_t d = 0; d < x->dims.size(); ++d)
    if (y->dims[d] == 1) slice *= x->dims[d];
  if (outputs >= (int64_t{1} << 31) || slice >= (int64_t{1} << 31))
    return Support::no("more than 2^31 outputs or reduced elements per output");
  return Support::yes();
}

constexpr int64_t kMaxThreads = (int64_t{1} << 31) - 1;  // the kernels index threads in 32 bits

// Columns need a kept contiguous dim wide enough to fill most of a warp.
constexpr int64_t kMinColumnWidth = 16;

ReductionArgs make_geometry(const graph::Graph &g) {
  const auto &op = std::get<graph::ReductionOp>(g.ops().front());
  // A grouped reduction is the plain one with its grouped dims split in two
  // (check_single_reduction refuses indices for it).
  graph::Tensor x = g.tensor(op.x), y = g.tensor(op.y);
  split_grouped_reduction(x, y);
  const graph::Tensor *idx = op.indices != graph::kNoTensor ? &g.tensor(op.indices) : nullptr;
  const int rank = x.rank();
  std::vector<std::vector<int64_t>> strides(4, std::vector<int64_t>(rank, 0));
  strides[kX] = x.strides;
  int64_t mult = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const bool reduced = y.dims[d] == 1 && x.dims[d] != 1;
    strides[kY][d] = y.dims[d] == 1 ? 0 : y.strides[d];
    strides[kFlat][d] = reduced ? mult : 0;
    if (reduced) mult *= x.dims[d];
    strides[kIdx][d] = idx != nullptr && y.dims[d] != 1 ? idx->strides[d] : 0;
  }
  const StridedLayout l = make_layout(x.dims, strides, /*reorder=*/true);

  ReductionArgs a;
  a.mode = op.mode;
  a.compute_double = reduction_computes_in_double(op, x, y);
  a.with_index = idx != nullptr;
  a.x_dtype = x.dtype;
  a.y_dtype = y.dtype;
  for (int d = 0; d < l.rank; ++d) {
    if (l.extent[d] == 1) continue;  // only the single-element layout has one
    if (l.stride[kY][d] == 0 && l.stride[kFlat][d] != 0) {
      const int r = a.red_rank++;
      a.red_extent[r] = l.extent[d];
      a.red_x[r] = l.stride[kX][d];
      a.red_flat[r] = l.stride[kFlat][d];
      a.slice *= l.extent[d];
    } else {
      const int k = a.kept_rank++;
      a.kept_extent[k] = l.extent[d];
      a.kept_x[k] = l.stride[kX][d];
      a.kept_y[k] = l.stride[kY][d];
      a.kept_idx[k] = l.stride[kIdx][d];
      a.outputs *= l.extent[d];
    }
  }
  const int last = l.rank - 1;
  a.columns = a.kept_rank > 0 && a.red_rank > 0 && l.stride[kY][last] != 0 && l.stride[kX][last] == 1 &&
              l.extent[last] >= kMinColumnWidth;

  // Enough warps (rows) or blocks (columns) in flight to keep every
  // multiprocessor busy; each part of a slice keeps a useful amount of work.
  const int64_t sms = sm_count();
  int64_t splits = 1;
  if (a.columns) {
    const int64_t width = a.kept_extent[a.kept_rank - 1];
    const int64_t tiles = a.outputs / width * ((width + 31) / 32);
    const int64_t want = (sms * 8 + tiles - 1) / tiles;
    splits = std::min({want, a.slice / 128, int64_t{65535}});
  } else {
    // Lanes per output: about a quarter of the slice, so each lane gets a
    // few elements, at most a warp.
    int lanes = 1;
    while (lanes < 32 && lanes * 4 < a.slice) lanes *= 2;
    while (lanes > 1 && a.outputs * lanes > kMaxThreads) lanes /= 2;
    a.lanes_per_output = lanes;
    const int64_t groups_wanted = sms * 2048 / lanes;
    const int64_t want = (groups_wanted + a.outputs - 1) / a.outputs;
    splits = std::min({want, a.slice / (lanes * 32), ((int64_t{1} << 31) - 1) / (a.outputs * lanes)});
  }
  a.splits = std::max<int64_t>(1, splits);
  return a;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), geometry_(make_geometry(g)) {}

  size_t workspace_size() const override { return reduction_workspace_size(geometry_); }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ReductionOp>(g.ops().front());
    ReductionArgs a = geometry_;
    a.x = pack.get(op.x);
    a.y = pack.get(op.y);
    a.indices = a.with_index ? pack.get(op.indices) : nullptr;
    check_arg(a.x != nullptr && a.y != nullptr, "cuda.reduction: no device pointer for x or y");
    check_arg(!a.with_index || a.indices != nullptr, "cuda.reduction: no device pointer for the indices");
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    a.propagate_nan = op.nan_propagation != CUDNN_NOT_PROPAGATE_NAN;
    const size_t need = workspace_size();
    if (need == 0 || (pack.workspace != nullptr && pack.workspace_size >= need)) {
      a.workspace = pack.workspace;
      launch_reduction(a, ctx.stream);
      return;
    }
    // The caller's workspace is too small: memory for this call alone.
    with_stream_memory(need, ctx.stream, "the reduction workspace", [&](void *workspace) {
      a.workspace = workspace;
      launch_reduction(a, ctx.stream);
    });
  }

 private:
  ReductionArgs geometry_;
};

class CudaReductionEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.reduction"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaReductionEngine;
FDNN_REGISTER_ENGINE(CudaReductionEngine)
