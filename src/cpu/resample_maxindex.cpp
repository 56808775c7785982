// cpu.resample.maxindex: the fast CPU engine for max pooling with an index
// tensor (backend API; 1 to 3 spatial dimensions, N, C and the spatial
// dimensions only, FLOAT/DOUBLE/HALF/BFLOAT16 data, INT8/UINT8/INT32/INT64
// indices). The rules are those of the reference engine and of cpu.pooling:
// the running maximum starts at the compute type's lowest finite value and
// moves on strictly greater values (the first maximum wins), with NaN
// propagation the first NaN sticks; the index is the maximum's row-major
// position in the whole window, -1 (all bits set) when there is none.
//  - Forward: one unit of work is an output row (n, channel block, od, oh);
//    the innermost loop runs over the channel block (contiguous channels
//    when C is innermost).
//  - Backward: one unit is (n, channel block): each dy goes to the input
//    position its index names (when that position is inside dx) in a
//    per-unit gradient buffer, which then blends into dx (no atomics).
#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/resample_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/resample_geometry.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kChannelBlock = 16;

struct Geometry : ResampleGeometry, PoolWindow {
  int64_t xs[5] = {};  // index tensor strides (N, C, D, H, W)
  bool prop = false;
};

Geometry make_geometry(const ResampleOperands &r) {
  Geometry G;
  static_cast<ResampleGeometry &>(G) = resample_geometry(r, kChannelBlock);
  static_cast<PoolWindow &>(G) = pool_window(*r.op);
  padded_strides(*r.index, r.op->spatial_dims(), G.xs);
  G.prop = r.op->nan_propagation == CUDNN_PROPAGATE_NAN;
  return G;
}

template <class S, class C, class I>
struct Kernels : ComputeIo<S, C> {
  using T = typename S::type;
  using ComputeIo<S, C>::load;
  using ComputeIo<S, C>::from;
  const Geometry &G;
  C alpha, beta;

  void forward_row(const T *x, T *y, I *index, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh) const {
    C best[kChannelBlock];
    int64_t at[kChannelBlock];
    const T *xb = x + n * G.is[0] + c0 * G.is[1];
    for (int64_t ow = 0; ow < G.out[2]; ++ow) {
      for (int64_t c = 0; c < cb; ++c) {
        best[c] = std::numeric_limits<C>::lowest();
        at[c] = -1;
      }
      const int64_t o[3] = {od, oh, ow};
      int64_t start[3], lo[3], hi[3];
      for (int k = 0; k < 3; ++k) {
        start[k] = o[k] * G.str[k] - G.pad[k];
        lo[k] = std::max<int64_t>(0, -start[k]);
        hi[k] = std::min(G.win[k], G.in[k] - start[k]);
      }
      for (int64_t kd = lo[0]; kd < hi[0]; ++kd)
        for (int64_t kh = lo[1]; kh < hi[1]; ++kh)
          for (int64_t kw = lo[2]; kw < hi[2]; ++kw) {
            const int64_t pos = (kd * G.win[1] + kh) * G.win[2] + kw;
            const T *p = xb + (start[0] + kd) * G.is[2] + (start[1] + kh) * G.is[3] + (start[2] + kw) * G.is[4];
            for (int64_t c = 0; c < cb; ++c) {
              const C v = load(p + c * G.is[1]);
              const bool take = G.prop ? (best[c] == best[c] && (v != v || v > best[c])) : v > best[c];
              best[c] = take ? v : best[c];
              at[c] = take ? pos : at[c];
            }
          }
      T *q = y + n * G.os[0] + c0 * G.os[1] + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
      I *ix = index + n * G.xs[0] + c0 * G.xs[1] + od * G.xs[2] + oh * G.xs[3] + ow * G.xs[4];
      for (int64_t c = 0; c < cb; ++c) {
        T *qc = q + c * G.os[1];
        *qc = from(beta == C(0) ? alpha * best[c] : alpha * best[c] + beta * load(qc));
        ix[c * G.xs[1]] = at[c] >= 0 ? static_cast<I>(at[c]) : static_cast<I>(-1);
      }
    }
  }

  void backward_unit(const T *dy, const I *index, T *dx, int64_t n, int64_t c0, int64_t cb,
                     std::vector<C> &grad) const {
    const int64_t D = G.in[0], H = G.in[1], W = G.in[2];
    const int64_t positions = G.win[0] * G.win[1] * G.win[2];
    grad.assign(static_cast<size_t>(D * H * W * cb), C(0));
    for (int64_t od = 0; od < G.out[0]; ++od)
      for (int64_t oh = 0; oh < G.out[1]; ++oh)
        for (int64_t ow = 0; ow < G.out[2]; ++ow) {
          const T *g = dy + n * G.os[0] + c0 * G.os[1] + od * G.os[2] + oh * G.os[3] + ow * G.os[4];
          const I *ix = index + n * G.xs[0] + c0 * G.xs[1] + od * G.xs[2] + oh * G.xs[3] + ow * G.xs[4];
          for (int64_t c = 0; c < cb; ++c) {
            const int64_t p = static_cast<int64_t>(ix[c * G.xs[1]]);
            if (p < 0 || p >= positions) continue;  // no maximum (-1; 255 for UINT8)
            const int64_t id = od * G.str[0] - G.pad[0] + p / (G.win[1] * G.win[2]);
            const int64_t ih = oh * G.str[1] - G.pad[1] + (p / G.win[2]) % G.win[1];
            const int64_t iw = ow * G.str[2] - G.pad[2] + p % G.win[2];
            if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            grad[static_cast<size_t>(((id * H + ih) * W + iw) * cb + c)] += load(g + c * G.os[1]);
          }
        }
    for (int64_t id = 0; id < D; ++id)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          T *p = dx + n * G.is[0] + c0 * G.is[1] + id * G.is[2] + ih * G.is[3] + iw * G.is[4];
          const C *q = grad.data() + ((id * H + ih) * W + iw) * cb;
          for (int64_t c = 0; c < cb; ++c) {
            T *pc = p + c * G.is[1];
            *pc = from(beta == C(0) ? alpha * q[c] : alpha * q[c] + beta * load(pc));
          }
        }
  }
};

template <class S, class C, class I>
void run(const ExecContext &ctx, const ResampleOperands &r, const VariantPack &pack) {
  using T = typename S::type;
  const graph::ResampleOp &op = *r.op;
  const Geometry G = make_geometry(r);
  Kernels<S, C, I> k{{}, G, static_cast<C>(op.blend.alpha), static_cast<C>(op.blend.beta)};
  const int64_t blocks = (G.c + G.cb - 1) / G.cb;
  I *index = static_cast<I *>(pack.get(op.index));
  if (!op.backward) {
    const T *x = static_cast<const T *>(pack.get(op.x));
    T *y = static_cast<T *>(pack.get(op.y));
    ctx.pool->parallel_for(G.n * blocks * G.out[0] * G.out[1], [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        int64_t rest = u;
        const int64_t oh = rest % G.out[1];
        rest /= G.out[1];
        const int64_t od = rest % G.out[0];
        rest /= G.out[0];
        const int64_t c0 = (rest % blocks) * G.cb, n = rest / blocks;
        k.forward_row(x, y, index, n, c0, std::min(G.cb, G.c - c0), od, oh);
      }
    });
    return;
  }
  const T *dy = static_cast<const T *>(pack.get(op.dy));
  T *dx = static_cast<T *>(pack.get(op.dx));
  ctx.pool->parallel_for(G.n * blocks, [&](int64_t begin, int64_t end) {
    std::vector<C> grad;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = u / blocks, c0 = (u % blocks) * G.cb;
      k.backward_unit(dy, index, dx, n, c0, std::min(G.cb, G.c - c0), grad);
    }
  });
}

template <class S, class C>
void run_for_index(const ExecContext &ctx, const ResampleOperands &r, const VariantPack &pack) {
  switch (r.index->dtype) {
    case CUDNN_DATA_INT8: run<S, C, int8_t>(ctx, r, pack); break;
    case CUDNN_DATA_UINT8: run<S, C, uint8_t>(ctx, r, pack); break;
    case CUDNN_DATA_INT32: run<S, C, int32_t>(ctx, r, pack); break;
    case CUDNN_DATA_INT64: run<S, C, int64_t>(ctx, r, pack); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.resample.maxindex: unsupported index type");
  }
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const ResampleOperands r = resample_operands(g);
    const bool in_double = resample_computes_in_double(g, *r.op);
    switch (r.in->dtype) {
      case CUDNN_DATA_FLOAT:
        if (in_double) run_for_index<Storage<CUDNN_DATA_FLOAT>, double>(ctx, r, pack);
        else run_for_index<Storage<CUDNN_DATA_FLOAT>, float>(ctx, r, pack);
        break;
      case CUDNN_DATA_DOUBLE: run_for_index<Storage<CUDNN_DATA_DOUBLE>, double>(ctx, r, pack); break;
      case CUDNN_DATA_HALF:
        if (in_double) run_for_index<Storage<CUDNN_DATA_HALF>, double>(ctx, r, pack);
        else run_for_index<Storage<CUDNN_DATA_HALF>, float>(ctx, r, pack);
        break;
      case CUDNN_DATA_BFLOAT16:
        if (in_double) run_for_index<Storage<CUDNN_DATA_BFLOAT16>, double>(ctx, r, pack);
        else run_for_index<Storage<CUDNN_DATA_BFLOAT16>, float>(ctx, r, pack);
        break;
      default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.resample.maxindex: unsupported data type");
    }
  }
};

class CpuResampleMaxIndexEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.resample.maxindex"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_any_resample(g); !s) return s;
    const ResampleOperands r = resample_operands(g);
    if (!r.op->is_max() || r.index == nullptr) return Support::no("not max pooling with an index tensor");
    return check_fast_resample_operands(r, name());
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuResampleMaxIndexEngine;
FDNN_REGISTER_ENGINE(CpuResampleMaxIndexEngine)
