// cpu.conv.direct: direct convolution loops without any lowering, for FWD
// DIRECT, BWD_DATA ALGO_0 and BWD_FILTER ALGO_0. One work item is one output
// plane (image and output channel; image and input channel; filter slice),
// accumulated tap by tap with an inner loop over output columns that
// vectorises for stride 1. No workspace beyond staging.
#include <algorithm>
#include <memory>
#include <variant>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/thread_pool.hpp"
#include "cpu/convolution_common.hpp"
#include "cpu/convolution_lowering.hpp"

namespace fdnn::cpu {
namespace {

using Dir = graph::ConvDirection;

// Output columns ow with 0 <= ow*stride + base < in: [lo, hi).
inline void valid_columns(int64_t base, int64_t stride, int64_t in, int64_t out, int64_t &lo, int64_t &hi) {
  lo = base >= 0 ? 0 : (-base + stride - 1) / stride;
  hi = in - base <= 0 ? 0 : std::min(out, (in - base + stride - 1) / stride);
  if (hi < lo) hi = lo;
}

template <class T>
class DirectPlan final : public ConvPlanBase<T> {
  using Base = ConvPlanBase<T>;
  using Base::geo_;
  using Base::p_;

 public:
  DirectPlan(const Engine &e, const graph::Graph &g) : Base(e, g) {}

 private:
  void run(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta, void *) const override {
    switch (geo_.direction) {
      case Dir::forward: return forward(ctx, a, alpha, beta);
      case Dir::backward_data: return backward_data(ctx, a, alpha, beta);
      case Dir::backward_filter: return backward_filter(ctx, a, alpha, beta);
    }
  }

  // Calls f(in_row_index_base, out_row, id, ih) pairs for tap (kd, kh): every
  // output row (od, oh) whose input row is inside.
  template <class F>
  void rows_of_tap(int64_t kd, int64_t kh, F &&f) const {
    const Conv3 &p = p_;
    for (int64_t od = 0; od < p.od; ++od) {
      const int64_t id = in_coord(od, kd, p.sd, p.pd, p.dd);
      if (id < 0 || id >= p.id) continue;
      for (int64_t oh = 0; oh < p.oh; ++oh) {
        const int64_t ih = in_coord(oh, kh, p.sh, p.ph, p.dh);
        if (ih < 0 || ih >= p.ih) continue;
        f((id * p.ih + ih) * p.iw, (od * p.oh + oh) * p.ow);
      }
    }
  }

  void forward(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta) const {
    const Conv3 &p = p_;
    const int64_t I = p.in_pixels(), P = p.out_pixels(), taps = p.taps();
    for_chunks(ctx.pool, p.N * p.K, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      std::vector<T> acc(P);
      for (int64_t item = b; item < e; ++item) {
        const int64_t n = item / p.K, k = item % p.K, g = k / p.Kg;
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t cc = 0; cc < p.Cg; ++cc) {
          const T *xc = a.x + (n * p.C + g * p.Cg + cc) * I;
          const T *wk = a.w + (k * p.Cg + cc) * taps;
          for (int64_t t = 0; t < taps; ++t) {
            const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
            const T wv = wk[t];
            const int64_t base = kw * p.dw - p.pw;
            int64_t lo, hi;
            valid_columns(base, p.sw, p.iw, p.ow, lo, hi);
            rows_of_tap(kd, kh, [&](int64_t in_row, int64_t out_row) {
              const T *in = xc + in_row + base;
              T *out = acc.data() + out_row;
              if (p.sw == 1)
                for (int64_t ow = lo; ow < hi; ++ow) out[ow] += wv * in[ow];
              else
                for (int64_t ow = lo; ow < hi; ++ow) out[ow] += wv * in[ow * p.sw];
            });
          }
        }
        T *y = a.y + (n * p.K + k) * P;
        if (beta == T(0))
          for (int64_t i = 0; i < P; ++i) y[i] = alpha * acc[i];
        else
          for (int64_t i = 0; i < P; ++i) y[i] = alpha * acc[i] + beta * y[i];
      }
    });
  }

  void backward_data(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta) const {
    const Conv3 &p = p_;
    const int64_t I = p.in_pixels(), P = p.out_pixels(), taps = p.taps();
    for_chunks(ctx.pool, p.N * p.C, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      std::vector<T> acc(I);
      for (int64_t item = b; item < e; ++item) {
        const int64_t n = item / p.C, c = item % p.C, g = c / p.Cg, cc = c % p.Cg;
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t kk = 0; kk < p.Kg; ++kk) {
          const int64_t k = g * p.Kg + kk;
          const T *dy = a.y + (n * p.K + k) * P;
          const T *wk = a.w + (k * p.Cg + cc) * taps;
          for (int64_t t = 0; t < taps; ++t) {
            const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
            const T wv = wk[t];
            const int64_t base = kw * p.dw - p.pw;
            int64_t lo, hi;
            valid_columns(base, p.sw, p.iw, p.ow, lo, hi);
            rows_of_tap(kd, kh, [&](int64_t in_row, int64_t out_row) {
              T *out = acc.data() + in_row + base;
              const T *in = dy + out_row;
              if (p.sw == 1)
                for (int64_t ow = lo; ow < hi; ++ow) out[ow] += wv * in[ow];
              else
                for (int64_t ow = lo; ow < hi; ++ow) out[ow * p.sw] += wv * in[ow];
            });
          }
        }
        T *dx = a.x + (n * p.C + c) * I;
        if (beta == T(0))
          for (int64_t i = 0; i < I; ++i) dx[i] = alpha * acc[i];
        else
          for (int64_t i = 0; i < I; ++i) dx[i] = alpha * acc[i] + beta * dx[i];
      }
    });
  }

  void backward_filter(const ExecContext &ctx, const ConvArrays<T> &a, T alpha, T beta) const {
    const Conv3 &p = p_;
    const int64_t I = p.in_pixels(), P = p.out_pixels(), taps = p.taps();
    for_chunks(ctx.pool, p.K * p.Cg, pool_threads(ctx), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t item = b; item < e; ++item) {
        const int64_t k = item / p.Cg, cc = item % p.Cg, g = k / p.Kg;
        T *dw = a.w + (k * p.Cg + cc) * taps;
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t kw = t % p.fw, kh = (t / p.fw) % p.fh, kd = t / (p.fw * p.fh);
          const int64_t base = kw * p.dw - p.pw;
          int64_t lo, hi;
          valid_columns(base, p.sw, p.iw, p.ow, lo, hi);
          T sum = 0;
          for (int64_t n = 0; n < p.N; ++n) {
            const T *xc = a.x + (n * p.C + g * p.Cg + cc) * I;
            const T *dy = a.y + (n * p.K + k) * P;
            rows_of_tap(kd, kh, [&](int64_t in_row, int64_t out_row) {
              const T *in = xc + in_row + base;
              const T *d = dy + out_row;
              T s = 0;
              if (p.sw == 1)
                for (int64_t ow = lo; ow < hi; ++ow) s += in[ow] * d[ow];
              else
                for (int64_t ow = lo; ow < hi; ++ow) s += in[ow * p.sw] * d[ow];
              sum += s;
            });
          }
          dw[t] = beta == T(0) ? alpha * sum : alpha * sum + beta * dw[t];
        }
      }
    });
  }
};

class DirectConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.conv.direct"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 40; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const ConvGeometry geo = convolution_geometry(g);
    if (!convolution_is_floating(geo)) return Support::no("integer data: reference engine only");
    const int algo = std::get<graph::ConvolutionOp>(g.ops().front()).algo;
    const bool claimed = (geo.direction == Dir::forward && algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT) ||
                         (geo.direction == Dir::backward_data && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0) ||
                         (geo.direction == Dir::backward_filter && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0) ||
                         (algo == -1 && geo.nsp <= 3);
    if (!claimed) return Support::no("algorithm not implemented by this engine");
    return cpu_convolution_algo_applies(geo, algo);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    if (g.tensor(std::get<graph::ConvolutionOp>(g.ops().front()).x).dtype == CUDNN_DATA_DOUBLE)
      return std::make_unique<DirectPlan<double>>(*this, g);
    return std::make_unique<DirectPlan<float>>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::DirectConvolutionEngine;
FDNN_REGISTER_ENGINE(DirectConvolutionEngine)
