// cuda.matmul: one MatmulOp on the GPU (kernel in matmul_kernels.cu): the
// types of cuda/matmul_args.hpp (typed kernels for half / bfloat16 / float
// operands, FP8 operands, double, int8 -> int32; any other mix of element
// types through run-time typed loads), batch extents that broadcast by 1 or
// by a divisor.
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "cuda/matmul_args.hpp"

namespace fdnn::cuda {
namespace {

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const graph::Tensor &ta = g.tensor(op.a), &tb = g.tensor(op.b), &tc = g.tensor(op.c);
    const int r = tc.rank();
    MatmulArgs a;
    a.dtype_a = ta.dtype;
    a.dtype_b = tb.dtype;
    a.dtype_c = tc.dtype;
    a.m = tc.dims[r - 2];
    a.n = tc.dims[r - 1];
    a.k = ta.dims[r - 1];
    a.a_rs = ta.strides[r - 2], a.a_cs = ta.strides[r - 1];
    a.b_rs = tb.strides[r - 2], a.b_cs = tb.strides[r - 1];
    a.c_rs = tc.strides[r - 2], a.c_cs = tc.strides[r - 1];
    a.batch_dims = r - 2;
    for (int i = 0; i < r - 2; ++i) {
      a.batch_extent[i] = tc.dims[i];
      a.a_bs[i] = ta.dims[i] == 1 ? 0 : ta.strides[i];
      a.b_bs[i] = tb.dims[i] == 1 ? 0 : tb.strides[i];
      a.a_div[i] = ta.dims[i] == 1 ? 1 : tc.dims[i] / ta.dims[i];
      a.b_div[i] = tb.dims[i] == 1 ? 1 : tc.dims[i] / tb.dims[i];
      a.c_bs[i] = tc.strides[i];
      a.batches *= tc.dims[i];
    }
    a.a = pack.get(op.a);
    a.b = pack.get(op.b);
    a.c = pack.get(op.c);
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    launch_matmul(a, ctx.stream);
  }
};

class CudaMatmulEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.matmul"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_matmul(g);
    if (!s) return s;
    const auto &op = std::get<graph::MatmulOp>(g.ops().front());
    const cudnnDataType_t ta = g.tensor(op.a).dtype, tb = g.tensor(op.b).dtype, t = g.tensor(op.c).dtype;
    if (!matmul_types_supported(ta, tb, t))
      return Support::no(cat("types a ", type_info(ta).name, ", b ", type_info(tb).name, ", c ", type_info(t).name,
                             ": each must be a scalar element type (float, integer, FP8, FP4 or sub-byte integer)"));
    const graph::Tensor &c = g.tensor(op.c);
    if (c.rank() - 2 > kMatmulMaxBatchDims) return Support::no("too many batch dimensions");
    int64_t batches = 1;
    for (int i = 0; i < c.rank() - 2; ++i) batches *= c.dims[i];
    if (batches >= 65536) return Support::no("at most 65535 batches (one grid z-slice each)");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaMatmulEngine;
FDNN_REGISTER_ENGINE(CudaMatmulEngine)
