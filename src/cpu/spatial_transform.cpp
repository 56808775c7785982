// cpu.spatial_transform: the fast CPU spatial transformer. The grid generator
// and the forward sampler split output rows (n, h) over the thread pool; the
// backward sampler splits images (n), since each image's dx is a scatter
// target of its own grid only, accumulating dx in a per-image buffer of the
// compute type before blending. Float for FLOAT and HALF data, double for
// DOUBLE (the rule every engine follows).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/spatial_transform_math.hpp"
#include "core/spatial_transform_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

using Stage = graph::SpatialTransformOp::Stage;

template <class C>
struct Bilinear {
  int64_t x0, y0;
  C fx, fy;
  bool valid;
};

template <class C>
Bilinear<C> locate(C gx, C gy, int64_t hi, int64_t wi) {
  const C ix = stf::input_pos<C>(gx, wi), iy = stf::input_pos<C>(gy, hi);
  Bilinear<C> b{};
  b.valid = std::fabs(ix) < C(1e9) && std::fabs(iy) < C(1e9);
  if (!b.valid) return b;
  const C x0 = std::floor(ix), y0 = std::floor(iy);
  b.x0 = static_cast<int64_t>(x0);
  b.y0 = static_cast<int64_t>(y0);
  b.fx = ix - x0;
  b.fy = iy - y0;
  return b;
}

void run(ThreadPool *pool, int64_t n, const std::function<void(int64_t, int64_t)> &body) {
  if (pool != nullptr && n > 1) pool->parallel_for(n, body);
  else body(0, n);
}

template <class S, class C>
struct Kernels {
  using T = typename S::type;
  static C load(const T *p, int64_t i) { return static_cast<C>(S::to_double(p[i])); }
  static void store(T *p, int64_t i, C v) { p[i] = S::from_double(static_cast<double>(v)); }

  static void grid_forward(ThreadPool *pool, const graph::Tensor &gr, const T *theta, T *grid) {
    const int64_t n = gr.dims[0], h = gr.dims[1], w = gr.dims[2];
    run(pool, n * h, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / h, i = r % h;
        C t[6];
        for (int k = 0; k < 6; ++k) t[k] = load(theta, b * 6 + k);
        const C yt = stf::output_coord<C>(i, h);
        T *row = grid + r * w * 2;
        for (int64_t j = 0; j < w; ++j) {
          const C xt = stf::output_coord<C>(j, w);
          store(row, 2 * j, t[0] * xt + t[1] * yt + t[2]);
          store(row, 2 * j + 1, t[3] * xt + t[4] * yt + t[5]);
        }
      }
    });
  }

  static void grid_backward(ThreadPool *pool, const graph::Tensor &gr, const T *dgrid, T *dtheta) {
    const int64_t n = gr.dims[0], h = gr.dims[1], w = gr.dims[2];
    run(pool, n, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        C acc[6] = {};
        for (int64_t i = 0; i < h; ++i) {
          const C yt = stf::output_coord<C>(i, h);
          const T *row = dgrid + (b * h + i) * w * 2;
          for (int64_t j = 0; j < w; ++j) {
            const C xt = stf::output_coord<C>(j, w), dx = load(row, 2 * j), dy = load(row, 2 * j + 1);
            acc[0] += dx * xt;
            acc[1] += dx * yt;
            acc[2] += dx;
            acc[3] += dy * xt;
            acc[4] += dy * yt;
            acc[5] += dy;
          }
        }
        for (int k = 0; k < 6; ++k) store(dtheta, b * 6 + k, acc[k]);
      }
    });
  }

  static void sampler_forward(ThreadPool *pool, const graph::Graph &g, const graph::SpatialTransformOp &op,
                              const T *x, const T *grid, T *y) {
    const graph::Tensor &xt = g.tensor(op.x), &yt = g.tensor(op.y);
    const int64_t n = xt.dims[0], c = xt.dims[1], hi = xt.dims[2], wi = xt.dims[3];
    const int64_t h = yt.dims[2], w = yt.dims[3];
    const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
    const bool read_y = op.blend.beta != 0.0;
    run(pool, n * h, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / h, i = r % h;
        const T *xb = x + b * xt.strides[0];
        for (int64_t j = 0; j < w; ++j) {
          const T *gp = grid + (r * w + j) * 2;
          const Bilinear<C> bl = locate<C>(load(gp, 0), load(gp, 1), hi, wi);
          // Weights and offsets of the 4 corners (0 weight when outside).
          C wt[4] = {};
          int64_t off[4] = {};
          if (bl.valid) {
            const C wx[2] = {1 - bl.fx, bl.fx}, wy[2] = {1 - bl.fy, bl.fy};
            for (int k = 0; k < 4; ++k) {
              const int64_t yy = bl.y0 + k / 2, xx = bl.x0 + k % 2;
              if (yy >= 0 && yy < hi && xx >= 0 && xx < wi) {
                wt[k] = wx[k % 2] * wy[k / 2];
                off[k] = yy * xt.strides[2] + xx * xt.strides[3];
              }
            }
          }
          const int64_t yo = b * yt.strides[0] + i * yt.strides[2] + j * yt.strides[3];
          for (int64_t ch = 0; ch < c; ++ch) {
            const T *xc = xb + ch * xt.strides[1];
            C v = 0;
            for (int k = 0; k < 4; ++k)
              if (wt[k] != C(0)) v += wt[k] * load(xc, off[k]);
            const int64_t o = yo + ch * yt.strides[1];
            C out = alpha * v;
            if (read_y) out += beta * load(y, o);
            store(y, o, out);
          }
        }
      }
    });
  }

  static void sampler_backward(ThreadPool *pool, const graph::Graph &g, const graph::SpatialTransformOp &op,
                               const T *x, const T *grid, const T *dy, T *dx, T *dgrid) {
    const graph::Tensor &xt = g.tensor(op.x), &dyt = g.tensor(op.dy), &dxt = g.tensor(op.dx);
    const int64_t n = xt.dims[0], c = xt.dims[1], hi = xt.dims[2], wi = xt.dims[3];
    const int64_t h = dyt.dims[2], w = dyt.dims[3];
    const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
    const C galpha = static_cast<C>(op.grid_blend.alpha), gbeta = static_cast<C>(op.grid_blend.beta);
    const C sx = stf::input_pos_scale<C>(wi), sy = stf::input_pos_scale<C>(hi);
    run(pool, n, [&](int64_t b0, int64_t b1) {
      std::vector<C> acc(static_cast<size_t>(c * hi * wi));
      for (int64_t b = b0; b < b1; ++b) {
        std::fill(acc.begin(), acc.end(), C(0));
        const T *xb = x + b * xt.strides[0];
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j) {
            const int64_t gi = ((b * h + i) * w + j) * 2;
            const Bilinear<C> bl = locate<C>(load(grid, gi), load(grid, gi + 1), hi, wi);
            C gx = 0, gy = 0;
            if (bl.valid) {
              const C wx[2] = {1 - bl.fx, bl.fx}, wy[2] = {1 - bl.fy, bl.fy};
              const C dwx[2] = {-1, 1}, dwy[2] = {-1, 1};
              const int64_t dyo = b * dyt.strides[0] + i * dyt.strides[2] + j * dyt.strides[3];
              for (int k = 0; k < 4; ++k) {
                const int64_t yy = bl.y0 + k / 2, xx = bl.x0 + k % 2;
                if (!(yy >= 0 && yy < hi && xx >= 0 && xx < wi)) continue;
                const C wk = wx[k % 2] * wy[k / 2];
                const C dwk_dx = dwx[k % 2] * wy[k / 2], dwk_dy = wx[k % 2] * dwy[k / 2];
                const int64_t xo = yy * xt.strides[2] + xx * xt.strides[3];
                C *a = acc.data() + yy * wi + xx;
                for (int64_t ch = 0; ch < c; ++ch) {
                  const C d = load(dy, dyo + ch * dyt.strides[1]);
                  a[ch * hi * wi] += wk * d;
                  const C dv = d * load(xb, xo + ch * xt.strides[1]);
                  gx += dv * dwk_dx;
                  gy += dv * dwk_dy;
                }
              }
            }
            C ox = galpha * gx * sx, oy = galpha * gy * sy;
            if (op.grid_blend.beta != 0.0) {
              ox += gbeta * load(dgrid, gi);
              oy += gbeta * load(dgrid, gi + 1);
            }
            store(dgrid, gi, ox);
            store(dgrid, gi + 1, oy);
          }
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t p = 0; p < hi; ++p)
            for (int64_t q = 0; q < wi; ++q) {
              const int64_t o = b * dxt.strides[0] + ch * dxt.strides[1] + p * dxt.strides[2] + q * dxt.strides[3];
              C out = alpha * acc[static_cast<size_t>((ch * hi + p) * wi + q)];
              if (op.blend.beta != 0.0) out += beta * load(dx, o);
              store(dx, o, out);
            }
      }
    });
  }
};

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SpatialTransformOp>(g.ops().front());
    const graph::Tensor &grid_t = g.tensor(op.stage == Stage::grid_backward ? op.dgrid : op.grid);
    visit_fast_type(grid_t.dtype, [&](auto storage) {
      using S = decltype(storage);
      using T = typename S::type;
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<S, Storage<CUDNN_DATA_HALF>>) {
        using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
        using K = Kernels<S, C>;
        auto in = [&](graph::Uid u) { return static_cast<const T *>(pack.get(u)); };
        auto out = [&](graph::Uid u) { return static_cast<T *>(pack.get(u)); };
        switch (op.stage) {
          case Stage::grid_forward: K::grid_forward(ctx.pool, grid_t, in(op.theta), out(op.grid)); break;
          case Stage::grid_backward: K::grid_backward(ctx.pool, grid_t, in(op.dgrid), out(op.theta)); break;
          case Stage::sampler_forward:
            K::sampler_forward(ctx.pool, g, op, in(op.x), in(op.grid), out(op.y));
            break;
          case Stage::sampler_backward:
            K::sampler_backward(ctx.pool, g, op, in(op.x), in(op.grid), in(op.dy), out(op.dx), out(op.dgrid));
            break;
        }
      }
    });
  }
};

class CpuSpatialTransformEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.spatial_transform"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Support supports(const graph::Graph &g) const override { return check_single_spatial_transform(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuSpatialTransformEngine;
FDNN_REGISTER_ENGINE(CpuSpatialTransformEngine)
