// cuda.dropout: the CUDA engine for a single DropoutOp (cudnnDropoutForward,
// cudnnDropoutBackward). Same masks and arithmetic as the CPU engines (see
// core/philox.hpp and core/dropout_support.hpp); kernels in dropout_kernels.cu.
#include <algorithm>
#include <memory>
#include <variant>

#include "core/dropout_support.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/philox.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/dropout_args.hpp"
#include "cuda/strided_layout.hpp"

namespace fdnn::cuda {
namespace {

Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_dropout(g); !s) return s;
  const auto &op = std::get<graph::DropoutOp>(g.ops().front());
  if (g.tensor(op.x).rank() > kDropoutMaxRank || g.tensor(op.y).rank() > kDropoutMaxRank)
    return Support::no("rank above 8");
  return Support::yes();
}

DropoutOperand operand(const graph::Tensor &t, void *p) {
  DropoutOperand o;
  o.ptr = p;
  o.rank = t.rank();
  for (int d = 0; d < t.rank(); ++d) {
    o.dims[d] = t.dims[d];
    o.strides[d] = t.strides[d];
  }
  return o;
}

// The transposed-tile view of x and y (dropout_args.hpp) when both have the
// same dims and strides and those strides are a permutation of a packed
// layout whose memory-innermost dim is not the logical innermost one.
// Anything else (packed row-major, differing layouts, gaps, overlaps, a
// logical innermost dim of stride 1 in a permuted tensor) leaves it off.
DropoutTiled tiled_view(const graph::Tensor &x, const graph::Tensor &y) {
  DropoutTiled t;
  if (x.dims != y.dims || x.strides != y.strides) return t;
  const StridedLayout l = make_layout(x.dims, {x.strides}, false);
  const int r = l.rank;
  if (r < 2 || r - 2 > kDropoutTileBatchRank) return t;
  // Dense: sorted by stride, each stride is the product of the smaller ones'
  // extents (positive strides, no gaps, no overlaps).
  std::vector<int> by_stride(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) by_stride[static_cast<size_t>(d)] = d;
  std::sort(by_stride.begin(), by_stride.end(), [&](int a, int b) { return l.stride[0][a] < l.stride[0][b]; });
  int64_t expect = 1;
  for (int d : by_stride) {
    if (l.stride[0][d] != expect) return t;
    expect *= l.extent[d];
  }
  const int a_dim = r - 1, b_dim = by_stride.front();
  if (b_dim == a_dim) return t;
  int64_t logical[kMaxRank];
  logical[r - 1] = 1;
  for (int d = r - 2; d >= 0; --d) logical[d] = logical[d + 1] * l.extent[d + 1];
  t.a_extent = l.extent[a_dim];
  t.a_stride = l.stride[0][a_dim];
  t.b_extent = l.extent[b_dim];
  t.b_logical = logical[b_dim];
  for (int d = 0; d < r; ++d) {
    if (d == a_dim || d == b_dim) continue;
    t.batch_extent[t.batch_rank] = l.extent[d];
    t.batch_logical[t.batch_rank] = logical[d];
    t.batch_stride[t.batch_rank] = l.stride[0][d];
    ++t.batch_rank;
  }
  t.on = true;
  return t;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::DropoutOp>(g.ops().front());
    const graph::Tensor &x = g.tensor(op.x), &y = g.tensor(op.y);
    DropoutArgs a;
    a.dtype = x.dtype;
    a.forward = op.direction == graph::DropoutOp::Direction::forward;
    a.n = x.element_count();
    a.x = operand(x, pack.get(op.x));
    a.y = operand(y, pack.get(op.y));
    a.mask = static_cast<uint32_t *>(pack.get(op.mask));
    const size_t vec_bytes = 4 * static_cast<size_t>(x.dtype == CUDNN_DATA_DOUBLE ? 8 : (x.dtype == CUDNN_DATA_FLOAT ? 4 : 2));
    a.packed = x.is_packed_row_major() && y.is_packed_row_major() && aligned_to(a.x.ptr, vec_bytes) &&
               aligned_to(a.y.ptr, vec_bytes);
    if (!a.packed) a.tiled = tiled_view(x, y);
    if (a.forward) {
      a.seed = static_cast<const uint64_t *>(pack.get(op.seed));
      a.offset = static_cast<uint64_t *>(pack.get(op.offset));
      a.advance_offset = op.advance_offset;
    }
    a.threshold = philox::drop_threshold(op.probability);
    a.scale_f = dropout_scale_float(op.probability);
    a.scale_d = dropout_scale_double(op.probability);
    check_arg(a.x.ptr && a.y.ptr && a.mask, "cuda.dropout: missing device pointers");
    launch_dropout(a, ctx.stream);
  }
};

class CudaDropoutEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.dropout"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaDropoutEngine;
FDNN_REGISTER_ENGINE(CudaDropoutEngine)
