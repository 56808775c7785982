// cpu.reference.convolution: the obviously-correct convolution engine, all
// three directions, any number of spatial dimensions, groups, both modes,
// padding, stride, dilation, any strides and data types, in double.
//
// Every operand is read into a packed double array (the filter already
// flipped for CONVOLUTION mode); one loop nest walks every (image, group,
// output channel, input channel, output position, filter tap) and adds the
// product to the direction's result; the result is blended into the output.
#include <memory>
#include <variant>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

// Element offsets (signed) of every index of dims, in row-major order.
std::vector<int64_t> offsets(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> out{0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * dims[d]);
    for (int64_t base : out)
      for (int64_t i = 0; i < dims[d]; ++i) next.push_back(base + i * strides[d]);
    out.swap(next);
  }
  return out;
}

std::vector<double> read_all(const graph::Tensor &t, const void *p) {
  const std::vector<int64_t> off = offsets(t.dims, t.strides);
  std::vector<double> v(off.size());
  for (size_t i = 0; i < off.size(); ++i) v[i] = load_lane(t.dtype, p, off[i]);
  return v;
}

// Row-major multi-indices of dims, as flat vectors of length dims.size().
std::vector<int64_t> all_indices(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> out(static_cast<size_t>(n) * dims.size());
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < dims.size(); ++d) out[i * dims.size() + d] = idx[d];
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const ConvGeometry geo = convolution_geometry(g);
    const void *xp = pack.get(op.x), *wp = pack.get(op.w), *yp = pack.get(op.y);
    if (xp == nullptr || wp == nullptr || yp == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "missing data pointer");
    const int nsp = geo.nsp;
    const int64_t P = geo.out_pixels(), T = geo.filter_taps(), I = geo.in_pixels();
    const std::vector<int64_t> opos = all_indices(geo.out), taps = all_indices(geo.filt);

    using Dir = graph::ConvDirection;
    std::vector<double> X, W, Y;
    if (geo.direction != Dir::backward_data) X = read_all(geo.x, xp);
    else X.assign(static_cast<size_t>(geo.N * geo.C * I), 0.0);
    if (geo.direction != Dir::backward_filter) W = read_all(geo.w, wp);
    else W.assign(static_cast<size_t>(geo.K * geo.Cg * T), 0.0);
    if (geo.direction != Dir::forward) Y = read_all(geo.y, yp);
    else Y.assign(static_cast<size_t>(geo.N * geo.K * P), 0.0);

    // The tap the filter array holds for tap t: reversed in CONVOLUTION mode.
    std::vector<int64_t> stored_tap(T);
    {
      std::vector<int64_t> fstride(nsp, 1);
      for (int d = nsp - 2; d >= 0; --d) fstride[d] = fstride[d + 1] * geo.filt[d + 1];
      for (int64_t t = 0; t < T; ++t) {
        int64_t s = 0;
        for (int d = 0; d < nsp; ++d) {
          const int64_t f = taps[t * nsp + d];
          s += (geo.flip ? geo.filt[d] - 1 - f : f) * fstride[d];
        }
        stored_tap[t] = s;
      }
    }
    // Input position (flat, or -1 when in the padding) of each (output, tap).
    std::vector<int64_t> src(static_cast<size_t>(P * T));
    for (int64_t o = 0; o < P; ++o)
      for (int64_t t = 0; t < T; ++t) {
        int64_t flat = 0;
        bool inside = true;
        for (int d = 0; d < nsp; ++d) {
          const int64_t i = opos[o * nsp + d] * geo.stride[d] - geo.pad[d] + taps[t * nsp + d] * geo.dil[d];
          if (i < 0 || i >= geo.in[d]) inside = false;
          flat = flat * geo.in[d] + i;
        }
        src[o * T + t] = inside ? flat : -1;
      }

    for (int64_t n = 0; n < geo.N; ++n)
      for (int64_t grp = 0; grp < geo.G; ++grp)
        for (int64_t kk = 0; kk < geo.Kg; ++kk)
          for (int64_t cc = 0; cc < geo.Cg; ++cc) {
            const int64_t k = grp * geo.Kg + kk, c = grp * geo.Cg + cc;
            double *xr = &X[(n * geo.C + c) * I];
            double *wr = &W[(k * geo.Cg + cc) * T];
            double *yr = &Y[(n * geo.K + k) * P];
            for (int64_t o = 0; o < P; ++o)
              for (int64_t t = 0; t < T; ++t) {
                const int64_t i = src[o * T + t];
                if (i < 0) continue;
                const int64_t ws = stored_tap[t];
                switch (geo.direction) {
                  case Dir::forward: yr[o] += xr[i] * wr[ws]; break;
                  case Dir::backward_data: xr[i] += yr[o] * wr[ws]; break;
                  case Dir::backward_filter: wr[ws] += xr[i] * yr[o]; break;
                }
              }
          }

    const graph::Tensor &out = geo.direction == Dir::forward         ? geo.y
                               : geo.direction == Dir::backward_data ? geo.x
                                                                     : geo.w;
    const std::vector<double> &res = geo.direction == Dir::forward ? Y : geo.direction == Dir::backward_data ? X : W;
    void *outp = const_cast<void *>(geo.direction == Dir::forward ? yp : geo.direction == Dir::backward_data ? xp : wp);
    const std::vector<int64_t> off = offsets(out.dims, out.strides);
    for (size_t i = 0; i < off.size(); ++i) {
      double v = op.blend.alpha * res[i];
      if (op.blend.beta != 0.0) v += op.blend.beta * load_lane(out.dtype, outp, off[i]);
      store_lane(out.dtype, outp, off[i], v);
    }
  }
};

class ReferenceConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.convolution"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override {
    if (Support s = check_single_convolution(g); !s) return s;
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    return cpu_convolution_algo_applies(convolution_geometry(g), op.algo);
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceConvolutionEngine;
FDNN_REGISTER_ENGINE(ReferenceConvolutionEngine)
