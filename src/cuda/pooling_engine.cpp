// cuda.pooling: the CUDA engine for pooling-style ResampleOps (1, 2 or 3
// spatial dimensions, any strides, FLOAT/DOUBLE/HALF/BFLOAT16/INT8). Same semantics
// as the CPU engines (core/resample_support): windows, divisors, NaN rules,
// the first maximum on ties. Channels-innermost layouts whose channel count
// and strides allow it move 16 bytes of channels per thread. A 1-d problem
// [N, C, W] runs as the 2-d one with H = 1 (window 1, stride 1, no padding
// in H: PoolingArgs' defaults), so every kernel path serves it unchanged.
// Max backward of 2-d 2x2 / 3x3 windows of stride 2 takes a byte per output
// from the handle's scratch (scratch_size): the two-pass kernels' codes
// (none where the one-pass streaming kernel runs: pooling_codes_bytes).
#include <algorithm>
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/resample_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/pooling_args.hpp"

namespace fdnn::cuda {
namespace {

bool kernel_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
         t == CUDNN_DATA_INT8;
}

int element_bytes(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_INT8: return 1;
    default: return 2;
  }
}

PoolingArgs make_args(const graph::Graph &g) {
  const ResampleOperands r = resample_operands(g);
  const graph::ResampleOp &op = *r.op;
  const int s = op.spatial_dims();
  PoolingArgs a;
  a.backward = op.backward;
  a.is_max = op.is_max();
  a.propagate_nan = op.nan_propagation == CUDNN_PROPAGATE_NAN;
  a.exclude_padding = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
  a.dtype = r.in->dtype;
  a.n = r.in->dims[0];
  a.c = r.in->dims[1];
  a.is[0] = r.in->strides[0];
  a.is[1] = r.in->strides[1];
  a.os[0] = r.out->strides[0];
  a.os[1] = r.out->strides[1];
  if (r.x) {
    a.xs[0] = r.x->strides[0];
    a.xs[1] = r.x->strides[1];
  }
  for (int d = 0; d < s; ++d) {
    const int k = 3 - s + d;
    a.in[k] = r.in->dims[2 + d];
    a.out[k] = r.out->dims[2 + d];
    a.win[k] = op.window[d];
    a.pad[k] = op.pre_padding[d];
    a.post[k] = op.post_padding[d];
    a.str[k] = op.strides[d];
    a.is[2 + k] = r.in->strides[2 + d];
    a.os[2 + k] = r.out->strides[2 + d];
    if (r.x) a.xs[2 + k] = r.x->strides[2 + d];
  }
  const bool x_inner = !r.x || r.x->strides[1] == 1;
  a.channels_inner = a.c > 1 && a.is[1] == 1 && a.os[1] == 1 && x_inner;
  if (a.channels_inner) {
    const int v = std::min(8, 16 / element_bytes(a.dtype));
    bool ok = v > 1 && a.c % v == 0;
    for (int k = 0; k < 5 && ok; ++k)
      if (k != 1) ok = a.is[k] % v == 0 && a.os[k] % v == 0 && (!r.x || a.xs[k] % v == 0);
    a.vec = ok ? v : 1;
  }
  return a;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g)
      : ExecutionPlan(e), args_(make_args(g)), codes_(pooling_codes_bytes(args_)) {}

  // Max backward's first-maximum codes (the two-pass kernels).
  size_t scratch_size() const override { return codes_; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ResampleOp>(g.ops().front());
    PoolingArgs a = args_;
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    if (op.backward) {
      a.x = op.x != graph::kNoTensor ? pack.get(op.x) : nullptr;
      a.dy = pack.get(op.dy);
      a.dx = pack.get(op.dx);
      if (codes_ > 0 && pack.scratch != nullptr && pack.scratch_size >= codes_) {
        a.codes = pack.scratch;
        a.codes_size = pack.scratch_size;
      }
    } else {
      a.x = pack.get(op.x);
      a.y = pack.get(op.y);
    }
    // 16-byte accesses need 16-byte aligned pointers.
    if (a.vec > 1) {
      const size_t bytes = static_cast<size_t>(a.vec * element_bytes(a.dtype));
      for (const void *p : {a.x, a.dy, static_cast<const void *>(a.y), static_cast<const void *>(a.dx)})
        if (p != nullptr && !aligned_to(p, bytes)) a.vec = 1;
    }
    launch_pooling(a, ctx.stream);
  }

 private:
  PoolingArgs args_;
  size_t codes_ = 0;
};

class CudaPoolingEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.pooling"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_resample(g); !s) return s;
    const ResampleOperands r = resample_operands(g);
    const int sp = r.op->spatial_dims();
    if (sp < 1 || sp > 3) return Support::no("cuda.pooling runs 1, 2 or 3 spatial dimensions");
    if (r.in->rank() != 2 + sp) return Support::no("cuda.pooling needs N, C and the spatial dimensions only");
    if (!kernel_type(r.in->dtype))
      return Support::no(cat("data type ", type_info(r.in->dtype).enum_name, " has no CUDA pooling kernel"));
    // The kernels index in 32 bits: element counts and the offsets strides
    // reach must stay below 2^31.
    const int64_t big = int64_t{1} << 31;
    for (const graph::Tensor *t : {r.in, r.out, r.x}) {
      if (t == nullptr) continue;
      int64_t reach = 0;
      for (int d = 0; d < t->rank(); ++d) reach += (t->dims[d] - 1) * (t->strides[d] < 0 ? -t->strides[d] : t->strides[d]);
      if (t->element_count() >= big || reach >= big) return Support::no("tensors of 2^31 elements or more");
    }
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaPoolingEngine;
FDNN_REGISTER_ENGINE(CudaPoolingEngine)
