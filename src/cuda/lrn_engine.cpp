// cuda.lrn: the CUDA engine for graph::LrnOp (cross-channel LRN and divisive
// normalization, forward and backward). Same semantics and precision rules as
// the CPU engines; the kernels are in lrn_kernels.cu.
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/lrn_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/lrn_args.hpp"

namespace fdnn::cuda {
namespace {

Support check_graph(const graph::Graph &g) {
  if (Support s = check_single_lrn(g); !s) return s;
  const auto &op = std::get<graph::LrnOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  if (x.rank() > LrnArgs::kMaxRank) return Support::no(cat("rank ", x.rank(), " is above ", LrnArgs::kMaxRank));
  if (op.kind == graph::LrnKind::divisive && x.rank() > 5) return Support::no("more than 3 spatial dims");
  const cudnnDataType_t t = x.dtype;
  if (t != CUDNN_DATA_FLOAT && t != CUDNN_DATA_DOUBLE && t != CUDNN_DATA_HALF && t != CUDNN_DATA_BFLOAT16)
    return Support::no("cuda.lrn handles FLOAT, DOUBLE, HALF and BFLOAT16");
  for (const graph::Tensor &tt : g.tensors())
    if (tt.dtype != t) return Support::no("cuda.lrn needs every tensor of one type");
  if (lrn_computes_in_double(g, op) != (t == CUDNN_DATA_DOUBLE))
    return Support::no("cuda.lrn computes DOUBLE data in double and the rest in float");
  return Support::yes();
}

LrnArgs make_args(const graph::Graph &g) {
  const auto &op = std::get<graph::LrnOp>(g.ops().front());
  const graph::Tensor &x = g.tensor(op.x);
  LrnArgs a;
  a.dtype = x.dtype;
  a.compute_double = x.dtype == CUDNN_DATA_DOUBLE;
  a.cross = op.kind == graph::LrnKind::cross_channel;
  a.backward = op.backward;
  a.rank = x.rank();
  a.count = x.element_count();
  for (int d = 0; d < a.rank; ++d) a.dims[d] = x.dims[d];
  const graph::Uid uids[LrnArgs::kOperands] = {op.x, op.means, op.y, op.dy, op.dx, op.dmeans};
  for (int k = 0; k < LrnArgs::kOperands; ++k) {
    if (uids[k] == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(uids[k]);
    for (int d = 0; d < a.rank; ++d) a.strides[k][d] = t.strides[d];
  }
  a.behind = static_cast<int>(graph::lrn_look_behind(op.n));
  a.ahead = static_cast<int>(graph::lrn_look_ahead(op.n));
  a.positions = a.count / (x.dims[1] > 0 ? x.dims[1] : 1);
  // Enough threads to fill the GPU: shorter chunks when there are few positions.
  const int64_t want_threads = static_cast<int64_t>(sm_count()) * 2048;
  a.chunk = 64;
  while (a.chunk > 8 && a.positions * ((x.dims[1] + a.chunk - 1) / a.chunk) < want_threads) a.chunk /= 2;
  return a;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), geometry_(make_args(g)) {}

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::LrnOp>(g.ops().front());
    LrnArgs a = geometry_;
    if (a.count == 0) return;
    const graph::Uid uids[LrnArgs::kOperands] = {op.x, op.means, op.y, op.dy, op.dx, op.dmeans};
    for (int k = 0; k < LrnArgs::kOperands; ++k) {
      if (uids[k] == graph::kNoTensor) continue;
      a.ptr[k] = pack.get(uids[k]);
      check_arg(a.ptr[k] != nullptr, "cuda.lrn: no device pointer for tensor ", uids[k]);
    }
    // In place (an output on an input): one chunk per channel line, so that
    // no thread reads what another has already written.
    if (a.cross) {
      const void *out = a.ptr[a.backward ? LrnArgs::kDx : LrnArgs::kY];
      if (out == a.ptr[LrnArgs::kX] || (a.backward && out == a.ptr[LrnArgs::kDy]))
        a.chunk = static_cast<int>(a.dims[1]);
    }
    const double as = lrn_alpha_over_size(op, a.rank);
    a.k = op.k;
    a.a = as;
    a.beta = op.beta;
    a.two_a_beta = 2.0 * as * op.beta;
    a.blend_alpha = op.blend.alpha;
    a.blend_beta = op.blend.beta;
    const size_t need = lrn_scratch_bytes(a);
    if (need == 0) {
      launch_lrn(a, ctx.stream);
      return;
    }
    with_stream_memory(need, ctx.stream, "the LRN scratch", [&](void *scratch) {
      a.scratch = scratch;
      launch_lrn(a, ctx.stream);
    });
  }

 private:
  LrnArgs geometry_;
};

class CudaLrnEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.lrn"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_graph(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaLrnEngine;
FDNN_REGISTER_ENGINE(CudaLrnEngine)
