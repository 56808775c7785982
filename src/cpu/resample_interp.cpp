// cpu.resample.interp: the fast CPU engine for the upsampling resample modes
// (NEAREST, BILINEAR; 1 to 3 spatial dimensions, N, C and the spatial
// dimensions only, FLOAT/DOUBLE/HALF/BFLOAT16). Sample positions come from
// core/resample_support (the same exact arithmetic as the reference engine),
// tabulated per spatial dimension once per call.
//  - Forward: one unit of work is an output row (n, channel block, od, oh);
//    each output position gathers its 2^s taps (1 for nearest) and the
//    innermost loop runs over the channel block (contiguous channels when C
//    is innermost, so the loop vectorises; one channel otherwise).
//  - Backward: one unit is (n, channel block): dy is scattered into a
//    per-unit gradient buffer in the compute type, which then blends into dx
//    (every dx element is written exactly once, no atomics, deterministic).
// Compute in float, or in double when the compute type or a tensor is DOUBLE.
#include <algorithm>
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

constexpr int64_t kChannelBlock = 64;

struct Geometry : ResampleGeometry {
  bool bilinear = true;
};

Geometry make_geometry(const ResampleOperands &r) {
  Geometry G;
  static_cast<ResampleGeometry &>(G) = resample_geometry(r, kChannelBlock);
  G.bilinear = r.op->mode == CUDNN_RESAMPLE_BILINEAR;
  return G;
}

// Per spatial dimension and output position: the two input positions and
// the weight of the second (nearest: one position, weight 0).
template <class C>
struct Taps {
  std::vector<int64_t> pos0[3], pos1[3];
  std::vector<C> w1[3];

  Taps(const graph::ResampleOp &op, const Geometry &G) {
    const int s = op.spatial_dims();
    for (int k = 0; k < 3; ++k) {
      pos0[k].assign(static_cast<size_t>(G.out[k]), 0);
      pos1[k].assign(static_cast<size_t>(G.out[k]), 0);
      w1[k].assign(static_cast<size_t>(G.out[k]), C(0));
      const int d = k - (3 - s);
      if (d < 0) continue;
      const SampleAxis a = sample_axis(op, d);
      for (int64_t o = 0; o < G.out[k]; ++o) {
        const size_t i = static_cast<size_t>(o);
        if (G.bilinear) {
          const LinearSample ls = linear_sample(a, o, G.in[k]);
          pos0[k][i] = ls.i0;
          pos1[k][i] = ls.i1;
          w1[k][i] = static_cast<C>(ls.w1);
        } else {
          pos0[k][i] = pos1[k][i] = nearest_sample(a, o, G.in[k]);
        }
      }
    }
  }
};

template <class S, class C>
struct Kernels : ComputeIo<S, C> {
  using T = typename S::type;
  using ComputeIo<S, C>::load;
  using ComputeIo<S, C>::from;
  const Geometry &G;
  const Taps<C> &taps;
  C alpha, beta;

  // The taps of output position (od, oh, ow): offsets from the (n, c) base
  // and weights; returns how many.
  int gather(int64_t od, int64_t oh, int64_t ow, int64_t *off, C *w) const {
    const int nt = G.bilinear ? 2 : 1;
    int k = 0;
    for (int a = 0; a < nt; ++a) {
      const int64_t od_off = (a ? taps.pos1[0][od] : taps.pos0[0][od]) * G.is[2];
      const C wd = G.bilinear ? (a ? taps.w1[0][od] : C(1) - taps.w1[0][od]) : C(1);
      for (int b = 0; b < nt; ++b) {
        const int64_t oh_off = (b ? taps.pos1[1][oh] : taps.pos0[1][oh]) * G.is[3];
        const C wh = G.bilinear ? (b ? taps.w1[1][oh] : C(1) - taps.w1[1][oh]) : C(1);
        for (int e = 0; e < nt; ++e) {
          off[k] = od_off + oh_off + (e ? taps.pos1[2][ow] : taps.pos0[2][ow]) * G.is[4];
          w[k] = wd * wh * (G.bilinear ? (e ? taps.w1[2][ow] : C(1) - taps.w1[2][ow]) : C(1));
          ++k;
        }
      }
    }
    return k;
  }

  // One output row: (n, channels [c0, c0 + cb), od, oh).
  void forward_row(const T *x, T *y, int64_t n, int64_t c0, int64_t cb, int64_t od, int64_t oh) const {
    int64_t off[8];
    C w[8];
    C acc[kChannelBlock];
    const T *xb = x + n * G.is[0] + c0 * G.is[1];
    T *yb = y + n * G.os[0] + c0 * G.os[1] + od * G.os[2] + oh * G.os[3];
    if (cb == 1) {
      forward_row_single(xb, yb, od, oh);
      return;
    }
    for (int64_t ow = 0; ow < G.out[2]; ++ow) {
      const int nt = gather(od, oh, ow, off, w);
      T *q = yb + ow * G.os[4];
      if (cb > 1) {  // channels contiguous in x and y
        for (int64_t c = 0; c < cb; ++c) acc[c] = C(0);
        for (int t = 0; t < nt; ++t) {
          const T *p = xb + off[t];
          const C wt = w[t];
          for (int64_t c = 0; c < cb; ++c) acc[c] += wt * load(p + c);
        }
        if (beta == C(0))
          for (int64_t c = 0; c < cb; ++c) q[c] = from(alpha * acc[c]);
        else
          for (int64_t c = 0; c < cb; ++c) q[c] = from(alpha * acc[c] + beta * load(q + c));
      } else {
        C v = 0;
        for (int t = 0; t < nt; ++t) v += w[t] * load(xb + off[t]);
        *q = from(beta == C(0) ? alpha * v : alpha * v + beta * load(q));
      }
    }
  }

  // One channel (C not innermost): the input rows of the (d, h) taps are
  // fixed along the output row, only the w taps move.
  void forward_row_single(const T *xb, T *yb, int64_t od, int64_t oh) const {
    const T *rows[4];
    C rw[4];
    int nr = 0;
    const int nt = G.bilinear ? 2 : 1;
    for (int a = 0; a < nt; ++a)
      for (int b = 0; b < nt; ++b) {
        rows[nr] = xb + (a ? taps.pos1[0][od] : taps.pos0[0][od]) * G.is[2] +
                   (b ? taps.pos1[1][oh] : taps.pos0[1][oh]) * G.is[3];
        rw[nr] = G.bilinear ? (a ? taps.w1[0][od] : C(1) - taps.w1[0][od]) *
                                  (b ? taps.w1[1][oh] : C(1) - taps.w1[1][oh])
                            : C(1);
        ++nr;
      }
    const int64_t *p0 = taps.pos0[2].data(), *p1 = taps.pos1[2].data();
    const C *w1 = taps.w1[2].data();
    const int64_t s4 = G.is[4], o4 = G.os[4];
    for (int64_t ow = 0; ow < G.out[2]; ++ow) {
      C v;
      if (G.bilinear) {
        v = 0;
        for (int r = 0; r < nr; ++r)
          v += rw[r] * ((C(1) - w1[ow]) * load(rows[r] + p0[ow] * s4) + w1[ow] * load(rows[r] + p1[ow] * s4));
      } else {
        v = load(rows[0] + p0[ow] * s4);
      }
      T *q = yb + ow * o4;
      *q = from(beta == C(0) ? alpha * v : alpha * v + beta * load(q));
    }
  }

  // One (n, channel block): scatter dy into grad (laid out [d][h][w][cb]
  // over dx's positions), then blend into dx.
  void backward_unit(const T *dy, T *dx, int64_t n, int64_t c0, int64_t cb, std::vector<C> &grad) const {
    const int64_t D = G.in[0], H = G.in[1], W = G.in[2];
    grad.assign(static_cast<size_t>(D * H * W * cb), C(0));
    int64_t off[8];
    C w[8];
    for (int64_t od = 0; od < G.out[0]; ++od)
      for (int64_t oh = 0; oh < G.out[1]; ++oh) {
        const T *g = dy + n * G.os[0] + c0 * G.os[1] + od * G.os[2] + oh * G.os[3];
        for (int64_t ow = 0; ow < G.out[2]; ++ow) {
          const int nt = gather_positions(od, oh, ow, off, w);
          const T *gp = g + ow * G.os[4];
          for (int t = 0; t < nt; ++t) {
            C *q = grad.data() + off[t] * cb;
            const C wt = w[t];
            for (int64_t c = 0; c < cb; ++c) q[c] += wt * load(gp + c * G.os[1]);
          }
        }
      }
    for (int64_t id = 0; id < D; ++id)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) {
          T *p = dx + n * G.is[0] + c0 * G.is[1] + id * G.is[2] + ih * G.is[3] + iw * G.is[4];
          const C *q = grad.data() + ((id * H + ih) * W + iw) * cb;
          if (beta == C(0))
            for (int64_t c = 0; c < cb; ++c) p[c * G.is[1]] = from(alpha * q[c]);
          else
            for (int64_t c = 0; c < cb; ++c) p[c * G.is[1]] = from(alpha * q[c] + beta * load(p + c * G.is[1]));
        }
  }

  // As gather(), with offsets as flat positions ((id * H + ih) * W + iw).
  int gather_positions(int64_t od, int64_t oh, int64_t ow, int64_t *off, C *w) const {
    const int nt = G.bilinear ? 2 : 1;
    const int64_t H = G.in[1], W = G.in[2];
    int k = 0;
    for (int a = 0; a < nt; ++a) {
      const int64_t id = a ? taps.pos1[0][od] : taps.pos0[0][od];
      const C wd = G.bilinear ? (a ? taps.w1[0][od] : C(1) - taps.w1[0][od]) : C(1);
      for (int b = 0; b < nt; ++b) {
        const int64_t ih = b ? taps.pos1[1][oh] : taps.pos0[1][oh];
        const C wh = G.bilinear ? (b ? taps.w1[1][oh] : C(1) - taps.w1[1][oh]) : C(1);
        for (int e = 0; e < nt; ++e) {
          off[k] = (id * H + ih) * W + (e ? taps.pos1[2][ow] : taps.pos0[2][ow]);
          w[k] = wd * wh * (G.bilinear ? (e ? taps.w1[2][ow] : C(1) - taps.w1[2][ow]) : C(1));
          ++k;
        }
      }
    }
    return k;
  }
};

template <class S, class C>
void run(const ExecContext &ctx, const ResampleOperands &r, const VariantPack &pack) {
  using T = typename S::type;
  const graph::ResampleOp &op = *r.op;
  const Geometry G = make_geometry(r);
  const Taps<C> taps(op, G);
  Kernels<S, C> k{{}, G, taps, static_cast<C>(op.blend.alpha), static_cast<C>(op.blend.beta)};
  const int64_t blocks = (G.c + G.cb - 1) / G.cb;
  if (!op.backward) {
    const T *x = static_cast<const T *>(pack.get(op.x));
    T *y = static_cast<T *>(pack.get(op.y));
    const int64_t rows = G.n * blocks * G.out[0] * G.out[1];
    ctx.pool->parallel_for(rows, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        int64_t rest = u;
        const int64_t oh = rest % G.out[1];
        rest /= G.out[1];
        const int64_t od = rest % G.out[0];
        rest /= G.out[0];
        const int64_t cbk = rest % blocks;
        const int64_t n = rest / blocks;
        const int64_t c0 = cbk * G.cb;
        k.forward_row(x, y, n, c0, std::min(G.cb, G.c - c0), od, oh);
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
      k.backward_unit(dy, dx, n, c0, std::min(G.cb, G.c - c0), grad);
    }
  });
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;
  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const ResampleOperands r = resample_operands(g);
    const bool in_double = resample_computes_in_double(g, *r.op);
    const bool done = visit_fast_type(r.in->dtype, [&](auto s) {
      using S = decltype(s);
      if (in_double) run<S, double>(ctx, r, pack);
      else run<S, float>(ctx, r, pack);
    });
    check_supported(done, "cpu.resample.interp: unsupported data type");
  }
};

class CpuResampleInterpEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.resample.interp"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_interpolation(g); !s) return s;
    const ResampleOperands r = resample_operands(g);
    return check_fast_resample_operands(r, name());
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuResampleInterpEngine;
FDNN_REGISTER_ENGINE(CpuResampleInterpEngine)
