// The CUDA engines of the resamples the pooling engine does not run:
//   cuda.resample.interp    NEAREST and BILINEAR upsampling, forward and
//                           backward (1 to 3 spatial dimensions);
//   cuda.resample.maxindex  max pooling with an index tensor (INT8, UINT8,
//                           INT32 or INT64), forward (writes it) and backward
//                           (reads it instead of x).
// FLOAT, DOUBLE, HALF and BFLOAT16 data; N, C and the spatial dimensions
// only. Semantics: core/resample_support (the CPU engines' rules).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <variant>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/resample_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/resample_interp_args.hpp"

namespace fdnn::cuda {
namespace {

bool kernel_type(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

ResampleKernelArgs make_args(const graph::Graph &g) {
  const ResampleOperands r = resample_operands(g);
  const graph::ResampleOp &op = *r.op;
  const int s = op.spatial_dims();
  ResampleKernelArgs a;
  a.backward = op.backward;
  a.bilinear = op.mode == CUDNN_RESAMPLE_BILINEAR;
  a.propagate_nan = op.nan_propagation == CUDNN_PROPAGATE_NAN;
  a.dtype = r.in->dtype;
  a.n = r.in->dims[0];
  a.c = r.in->dims[1];
  for (int k = 0; k < 2; ++k) {
    a.is[k] = r.in->strides[k];
    a.os[k] = r.out->strides[k];
    if (r.index) a.xs[k] = r.index->strides[k];
  }
  for (int d = 0; d < s; ++d) {
    const int k = 3 - s + d;
    a.in[k] = r.in->dims[2 + d];
    a.out[k] = r.out->dims[2 + d];
    a.is[2 + k] = r.in->strides[2 + d];
    a.os[2 + k] = r.out->strides[2 + d];
    if (r.index) a.xs[2 + k] = r.index->strides[2 + d];
    if (op.is_interpolation()) {
      const SampleAxis ax = sample_axis(op, d);
      a.scale[k] = ax.scale;
      a.offset[k] = ax.offset;
      a.denominator[k] = ax.denominator;
    } else {
      a.win[k] = op.window[d];
      a.pad[k] = op.pre_padding[d];
      a.str[k] = op.strides[d];
    }
  }
  if (r.index) a.index_type = r.index->dtype;
  // Threads step along C when the written tensor has channels innermost.
  const graph::Tensor &written = op.backward ? *r.in : *r.out;
  a.channels_inner = a.c > 1 && written.strides[1] == 1;
  return a;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), args_(make_args(g)) {}

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ResampleOp>(g.ops().front());
    ResampleKernelArgs a = args_;
    a.alpha = op.blend.alpha;
    a.beta = op.blend.beta;
    if (op.backward) {
      a.dy = pack.get(op.dy);
      a.dx = pack.get(op.dx);
    } else {
      a.x = pack.get(op.x);
      a.y = pack.get(op.y);
    }
    if (op.index != graph::kNoTensor) a.index = pack.get(op.index);
    if (op.is_interpolation()) launch_resample_interp(a, ctx.stream);
    else launch_resample_maxindex(a, ctx.stream);
  }

 private:
  ResampleKernelArgs args_;
};

// What both engines need besides the op itself.
Support check_layout(const ResampleOperands &r, const char *engine) {
  const int sp = r.op->spatial_dims();
  if (sp < 1 || sp > 3) return Support::no(cat(engine, " runs 1 to 3 spatial dimensions"));
  if (r.in->rank() != 2 + sp) return Support::no(cat(engine, " needs N, C and the spatial dimensions only"));
  if (!kernel_type(r.in->dtype))
    return Support::no(cat("data type ", type_info(r.in->dtype).enum_name, " has no ", engine, " kernel"));
  return Support::yes();
}

class CudaResampleInterpEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.resample.interp"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_interpolation(g); !s) return s;
    const ResampleOperands r = resample_operands(g);
    if (Support s = check_layout(r, name()); !s) return s;
    // The kernels' exact sample arithmetic must stay inside 63 bits.
    for (int d = 0; d < r.op->spatial_dims(); ++d) {
      const SampleAxis ax = sample_axis(*r.op, d);
      const __int128 reach = static_cast<__int128>(std::max(r.in->dims[2 + d], r.out->dims[2 + d]) + 2) *
                                 (std::llabs(ax.scale) + ax.denominator) +
                             std::llabs(ax.offset);
      if (reach >= (static_cast<__int128>(1) << 62)) return Support::no("sample arithmetic beyond 62 bits");
    }
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

class CudaResampleMaxIndexEngine final : public Engine {
 public:
  const char *name() const override { return "cuda.resample.maxindex"; }
  DeviceKind device() const override { return DeviceKind::cuda; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_any_resample(g); !s) return s;
    const ResampleOperands r = resample_operands(g);
    if (!r.op->is_max() || r.index == nullptr) return Support::no("not max pooling with an index tensor");
    return check_layout(r, name());
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cuda

using fdnn::cuda::CudaResampleInterpEngine;
using fdnn::cuda::CudaResampleMaxIndexEngine;
FDNN_REGISTER_ENGINE(CudaResampleInterpEngine)
FDNN_REGISTER_ENGINE(CudaResampleMaxIndexEngine)
