// cpu.reference.spatial_transform: the obviously-correct spatial transformer
// engine, in double, one output element at a time (see
// graph/op_spatial_transform.hpp for the conventions).
#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/spatial_transform_math.hpp"
#include "core/spatial_transform_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

using Stage = graph::SpatialTransformOp::Stage;

int64_t at4(const graph::Tensor &t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return a * t.strides[0] + b * t.strides[1] + c * t.strides[2] + d * t.strides[3];
}

struct Corner {
  int64_t y, x;
  double w;      // bilinear weight
  double dw_dx;  // d w / d ix
  double dw_dy;  // d w / d iy
};

// The four corners around (ix, iy) with their weights and derivatives.
void corners(double ix, double iy, Corner out[4]) {
  if (!(std::fabs(ix) < 1e15 && std::fabs(iy) < 1e15)) {  // NaN, inf, far away: nothing is read
    for (int k = 0; k < 4; ++k) out[k] = {-2, -2, 0, 0, 0};
    return;
  }
  const double x0 = std::floor(ix), y0 = std::floor(iy);
  const double fx = ix - x0, fy = iy - y0;
  const int64_t xi = static_cast<int64_t>(x0), yi = static_cast<int64_t>(y0);
  out[0] = {yi, xi, (1 - fx) * (1 - fy), -(1 - fy), -(1 - fx)};
  out[1] = {yi, xi + 1, fx * (1 - fy), (1 - fy), -fx};
  out[2] = {yi + 1, xi, (1 - fx) * fy, -fy, (1 - fx)};
  out[3] = {yi + 1, xi + 1, fx * fy, fy, fx};
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SpatialTransformOp>(g.ops().front());
    switch (op.stage) {
      case Stage::grid_forward: grid_forward(g, op, pack); break;
      case Stage::grid_backward: grid_backward(g, op, pack); break;
      case Stage::sampler_forward: sampler(g, op, pack, false); break;
      case Stage::sampler_backward: sampler(g, op, pack, true); break;
    }
  }

 private:
  static void grid_forward(const graph::Graph &g, const graph::SpatialTransformOp &op, const VariantPack &pack) {
    const graph::Tensor &th = g.tensor(op.theta), &gr = g.tensor(op.grid);
    const void *tp = pack.get(op.theta);
    void *gp = pack.get(op.grid);
    const int64_t n = gr.dims[0], h = gr.dims[1], w = gr.dims[2];
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
          const double xt = stf::output_coord<double>(j, w), yt = stf::output_coord<double>(i, h);
          for (int64_t k = 0; k < 2; ++k) {
            const double t0 = load_lane(th.dtype, tp, b * 6 + k * 3 + 0);
            const double t1 = load_lane(th.dtype, tp, b * 6 + k * 3 + 1);
            const double t2 = load_lane(th.dtype, tp, b * 6 + k * 3 + 2);
            store_lane(gr.dtype, gp, ((b * h + i) * w + j) * 2 + k, t0 * xt + t1 * yt + t2);
          }
        }
  }

  static void grid_backward(const graph::Graph &g, const graph::SpatialTransformOp &op, const VariantPack &pack) {
    const graph::Tensor &th = g.tensor(op.theta), &gr = g.tensor(op.dgrid);
    const void *gp = pack.get(op.dgrid);
    void *tp = pack.get(op.theta);
    const int64_t n = gr.dims[0], h = gr.dims[1], w = gr.dims[2];
    for (int64_t b = 0; b < n; ++b) {
      double acc[6] = {};
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
          const double xt = stf::output_coord<double>(j, w), yt = stf::output_coord<double>(i, h);
          for (int64_t k = 0; k < 2; ++k) {
            const double d = load_lane(gr.dtype, gp, ((b * h + i) * w + j) * 2 + k);
            acc[k * 3 + 0] += d * xt;
            acc[k * 3 + 1] += d * yt;
            acc[k * 3 + 2] += d;
          }
        }
      for (int k = 0; k < 6; ++k) store_lane(th.dtype, tp, b * 6 + k, acc[k]);
    }
  }

  static void sampler(const graph::Graph &g, const graph::SpatialTransformOp &op, const VariantPack &pack,
                      bool backward) {
    const graph::Tensor &x = g.tensor(op.x), &gr = g.tensor(op.grid);
    const void *xp = pack.get(op.x), *gp = pack.get(op.grid);
    const int64_t n = x.dims[0], c = x.dims[1], hi = x.dims[2], wi = x.dims[3];
    const int64_t h = gr.dims[1], w = gr.dims[2];
    auto grid_at = [&](int64_t b, int64_t i, int64_t j, int k) {
      return load_lane(gr.dtype, gp, ((b * h + i) * w + j) * 2 + k);
    };
    if (!backward) {
      const graph::Tensor &y = g.tensor(op.y);
      void *yp = pack.get(op.y);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j) {
            Corner cs[4];
            corners(stf::input_pos<double>(grid_at(b, i, j, 0), wi), stf::input_pos<double>(grid_at(b, i, j, 1), hi),
                    cs);
            for (int64_t ch = 0; ch < c; ++ch) {
              double v = 0;
              for (const Corner &k : cs)
                if (k.y >= 0 && k.y < hi && k.x >= 0 && k.x < wi)
                  v += k.w * load_lane(x.dtype, xp, at4(x, b, ch, k.y, k.x));
              const int64_t yo = at4(y, b, ch, i, j);
              double out = op.blend.alpha * v;
              if (op.blend.beta != 0.0) out += op.blend.beta * load_lane(y.dtype, yp, yo);
              store_lane(y.dtype, yp, yo, out);
            }
          }
      return;
    }
    const graph::Tensor &dy = g.tensor(op.dy), &dx = g.tensor(op.dx), &dg = g.tensor(op.dgrid);
    const void *dyp = pack.get(op.dy);
    void *dxp = pack.get(op.dx), *dgp = pack.get(op.dgrid);
    // dx: accumulate the scatter in double, then blend once.
    std::vector<double> acc(static_cast<size_t>(n * c * hi * wi), 0.0);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
          Corner cs[4];
          corners(stf::input_pos<double>(grid_at(b, i, j, 0), wi), stf::input_pos<double>(grid_at(b, i, j, 1), hi),
                  cs);
          double gx = 0, gy = 0;
          for (int64_t ch = 0; ch < c; ++ch) {
            const double d = load_lane(dy.dtype, dyp, at4(dy, b, ch, i, j));
            for (const Corner &k : cs) {
              if (!(k.y >= 0 && k.y < hi && k.x >= 0 && k.x < wi)) continue;
              acc[static_cast<size_t>(((b * c + ch) * hi + k.y) * wi + k.x)] += k.w * d;
              const double v = load_lane(x.dtype, xp, at4(x, b, ch, k.y, k.x));
              gx += d * v * k.dw_dx;
              gy += d * v * k.dw_dy;
            }
          }
          gx *= stf::input_pos_scale<double>(wi);
          gy *= stf::input_pos_scale<double>(hi);
          const int64_t o = ((b * h + i) * w + j) * 2;
          double ox = op.grid_blend.alpha * gx, oy = op.grid_blend.alpha * gy;
          if (op.grid_blend.beta != 0.0) {
            ox += op.grid_blend.beta * load_lane(dg.dtype, dgp, o);
            oy += op.grid_blend.beta * load_lane(dg.dtype, dgp, o + 1);
          }
          store_lane(dg.dtype, dgp, o, ox);
          store_lane(dg.dtype, dgp, o + 1, oy);
        }
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < hi; ++p)
          for (int64_t q = 0; q < wi; ++q) {
            const int64_t o = at4(dx, b, ch, p, q);
            double out = op.blend.alpha * acc[static_cast<size_t>(((b * c + ch) * hi + p) * wi + q)];
            if (op.blend.beta != 0.0) out += op.blend.beta * load_lane(dx.dtype, dxp, o);
            store_lane(dx.dtype, dxp, o, out);
          }
  }
};

class ReferenceSpatialTransformEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.spatial_transform"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_spatial_transform(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceSpatialTransformEngine;
FDNN_REGISTER_ENGINE(ReferenceSpatialTransformEngine)
