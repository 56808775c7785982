// cpu.reference.resample: the obviously-correct resample engine. For every
// output position it visits the window in row-major order in float64:
// forward max/average, backward by scattering each dy into dx through the
// same window (max: to the window's first maximum, found again from x or
// read from the index tensor). NEAREST and BILINEAR sample the input at the
// positions core/resample_support computes (see graph/op_resample.hpp) and
// scatter dy back with the same weights.
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/resample_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

int64_t offset_of(const graph::Tensor &t, const std::vector<int64_t> &idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides[d];
  return off;
}

// Calls f(index) for every multi-index of dims in row-major order.
template <class F>
void for_each(const std::vector<int64_t> &dims, F &&f) {
  int64_t total = 1;
  for (int64_t e : dims) total *= e;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t r = i;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      idx[d] = r % dims[d];
      r /= dims[d];
    }
    f(idx);
  }
}

// alpha * v (+ beta * the old value) into element `offset` of t.
void blend_store(const graph::Tensor &t, void *data, int64_t offset, double v, const graph::Blend &b) {
  double res = b.alpha * v;
  if (b.beta != 0.0) res += b.beta * load_lane(t.dtype, data, offset);
  store_lane(t.dtype, data, offset, res);
}

// The gradient of every input position, accumulated in double (row-major
// over the input's dims), then blended into dx.
class InputGradient {
 public:
  explicit InputGradient(const graph::Tensor &in) : in_(in) {
    int64_t count = 1;
    for (int64_t e : in.dims) count *= e;
    g_.assign(static_cast<size_t>(count), 0.0);
  }
  double &at(const std::vector<int64_t> &i) {
    int64_t l = 0;
    for (size_t d = 0; d < i.size(); ++d) l = l * in_.dims[d] + i[d];
    return g_[static_cast<size_t>(l)];
  }
  void blend_into(void *dx, const graph::Blend &b) {
    for_each(in_.dims, [&](const std::vector<int64_t> &i) { blend_store(in_, dx, offset_of(in_, i), at(i), b); });
  }

 private:
  const graph::Tensor &in_;
  std::vector<double> g_;
};

void interpolate(const graph::Graph &g, const VariantPack &pack, const ResampleOperands &r);

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const ResampleOperands r = resample_operands(g);
    const graph::ResampleOp &op = *r.op;
    const graph::Tensor &in = *r.in, &out = *r.out;
    const int s = op.spatial_dims();
    const bool propagate = op.nan_propagation == CUDNN_PROPAGATE_NAN;
    const void *x_data = r.x ? pack.get(r.x->uid) : nullptr;

    if (op.is_interpolation()) {
      interpolate(g, pack, r);
      return;
    }
    // The window of output index o: the in-bounds input indices (row-major),
    // their positions in the whole window, and the divisor of an average.
    std::vector<int64_t> positions;
    auto window = [&](const std::vector<int64_t> &o, std::vector<std::vector<int64_t>> &cells, double &divisor) {
      cells.clear();
      positions.clear();
      std::vector<int64_t> wdims(op.window.begin(), op.window.end());
      divisor = 1;
      for (int d = 0; d < s; ++d)
        divisor *= static_cast<double>(average_count(op, d, window_start(op, d, o[2 + d]), in.dims[2 + d]));
      int64_t position = -1;
      for_each(wdims, [&](const std::vector<int64_t> &k) {
        ++position;
        std::vector<int64_t> i = o;
        for (int d = 0; d < s; ++d) {
          i[2 + d] = window_start(op, d, o[2 + d]) + k[d];
          if (i[2 + d] < 0 || i[2 + d] >= in.dims[2 + d]) return;
        }
        cells.push_back(i);
        positions.push_back(position);
      });
    };
    int64_t window_positions = 1;
    for (int64_t w : op.window) window_positions *= w;
    // The index tensor: the window position of the maximum, -1 (all bits
    // set, 255 for UINT8) for none.
    auto store_index = [&](const std::vector<int64_t> &o, int64_t at) {
      const graph::Tensor &t = *r.index;
      const int64_t v = at >= 0 ? positions[static_cast<size_t>(at)] : t.dtype == CUDNN_DATA_UINT8 ? 255 : -1;
      store_lane(t.dtype, pack.get(t.uid), offset_of(t, o), static_cast<double>(v));
    };
    // The input cell of window position p read from the index tensor, or
    // false when p is no in-bounds position.
    auto cell_of_index = [&](const std::vector<int64_t> &o, std::vector<int64_t> &cell) {
      const graph::Tensor &t = *r.index;
      const double v = load_lane(t.dtype, pack.get(t.uid), offset_of(t, o));
      if (!(v >= 0) || v >= static_cast<double>(window_positions)) return false;
      int64_t p = static_cast<int64_t>(v);
      cell = o;
      for (int d = s - 1; d >= 0; --d) {
        const int64_t k = p % op.window[d];
        p /= op.window[d];
        cell[2 + d] = window_start(op, d, o[2 + d]) + k;
        if (cell[2 + d] < 0 || cell[2 + d] >= in.dims[2 + d]) return false;
      }
      return true;
    };
    // Max over the cells of x, as cuDNN computes it: the running maximum
    // starts at the compute type's lowest finite value (so a window without
    // input positions gives -FLT_MAX) and moves only on a strictly greater
    // value (ties keep the first); with propagation the first NaN sticks.
    // Returns the position of the chosen cell or -1.
    const double lowest = resample_computes_in_double(g, op) ? -std::numeric_limits<double>::max()
                                                             : -static_cast<double>(std::numeric_limits<float>::max());
    auto argmax = [&](const std::vector<std::vector<int64_t>> &cells, double &best) {
      best = lowest;
      int64_t at = -1;
      for (size_t c = 0; c < cells.size(); ++c) {
        const double v = load_lane(r.x->dtype, x_data, offset_of(*r.x, cells[c]));
        if (std::isnan(v)) {
          if (propagate) {
            best = v;
            return static_cast<int64_t>(c);
          }
          continue;
        }
        if (v > best) {
          best = v;
          at = static_cast<int64_t>(c);
        }
      }
      return at;
    };

    std::vector<std::vector<int64_t>> cells;
    double divisor = 1;
    if (!op.backward) {
      void *y_data = pack.get(op.y);
      for_each(out.dims, [&](const std::vector<int64_t> &o) {
        window(o, cells, divisor);
        double v;
        if (op.is_max()) {
          const int64_t at = argmax(cells, v);
          if (r.index) store_index(o, at);
          // HALF data: a window without input positions (or of -inf only)
          // gives half's lowest finite value, -65504, as cuDNN 9.19 (not
          // -FLT_MAX rounded to -inf).
          if (in.dtype == CUDNN_DATA_HALF && v < -65504.0) v = -65504.0;
        } else {
          v = 0;
          for (const auto &c : cells) v += load_lane(in.dtype, x_data, offset_of(in, c));
          // A divisor of 0: 0/0 (NaN) when excluding padding, as cuDNN (0
          // when including it); a negative one (a window past the end) -0.
          if (divisor != 0) v /= divisor;
          else v = op.mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? std::nan("") : 0.0;
        }
        blend_store(out, y_data, offset_of(out, o), v, op.blend);
      });
      return;
    }

    // Backward: accumulate the gradient of every input position, then blend.
    const void *dy_data = pack.get(op.dy);
    void *dx_data = pack.get(op.dx);
    InputGradient grad(in);
    for_each(out.dims, [&](const std::vector<int64_t> &o) {
      window(o, cells, divisor);
      const double g_o = load_lane(out.dtype, dy_data, offset_of(out, o));
      if (op.is_max() && r.index) {
        std::vector<int64_t> cell;
        if (cell_of_index(o, cell)) grad.at(cell) += g_o;
      } else if (op.is_max()) {
        double best;
        const int64_t at = argmax(cells, best);
        if (at >= 0) grad.at(cells[static_cast<size_t>(at)]) += g_o;
      } else if (divisor > 0) {
        for (const auto &c : cells) grad.at(c) += g_o / divisor;
      }
    });
    grad.blend_into(dx_data, op.blend);
  }
};

// NEAREST and BILINEAR: every output position reads (forward) or feeds
// (backward) the input positions of its sample with their weights.
void interpolate(const graph::Graph &, const VariantPack &pack, const ResampleOperands &r) {
  const graph::ResampleOp &op = *r.op;
  const graph::Tensor &in = *r.in, &out = *r.out;
  const int s = op.spatial_dims();
  const bool bilinear = op.mode == CUDNN_RESAMPLE_BILINEAR;
  std::vector<SampleAxis> axes;
  for (int d = 0; d < s; ++d) axes.push_back(sample_axis(op, d));
  // The (input index, weight) pairs of output index o: 2^s corners
  // (bilinear) or one position (nearest).
  auto taps = [&](const std::vector<int64_t> &o, std::vector<std::pair<std::vector<int64_t>, double>> &list) {
    list.clear();
    if (!bilinear) {
      std::vector<int64_t> i = o;
      for (int d = 0; d < s; ++d) i[2 + d] = nearest_sample(axes[d], o[2 + d], in.dims[2 + d]);
      list.emplace_back(i, 1.0);
      return;
    }
    std::vector<LinearSample> ls;
    for (int d = 0; d < s; ++d) ls.push_back(linear_sample(axes[d], o[2 + d], in.dims[2 + d]));
    for (int corner = 0; corner < (1 << s); ++corner) {
      std::vector<int64_t> i = o;
      double w = 1;
      for (int d = 0; d < s; ++d) {
        const bool hi = (corner >> (s - 1 - d)) & 1;
        i[2 + d] = hi ? ls[d].i1 : ls[d].i0;
        w *= hi ? ls[d].w1 : 1 - ls[d].w1;
      }
      list.emplace_back(i, w);
    }
  };
  std::vector<std::pair<std::vector<int64_t>, double>> list;
  if (!op.backward) {
    const void *x_data = pack.get(op.x);
    void *y_data = pack.get(op.y);
    for_each(out.dims, [&](const std::vector<int64_t> &o) {
      taps(o, list);
      double v = 0;
      for (const auto &t : list)
        if (t.second != 0) v += t.second * load_lane(in.dtype, x_data, offset_of(in, t.first));
      blend_store(out, y_data, offset_of(out, o), v, op.blend);
    });
    return;
  }
  const void *dy_data = pack.get(op.dy);
  void *dx_data = pack.get(op.dx);
  InputGradient grad(in);
  for_each(out.dims, [&](const std::vector<int64_t> &o) {
    taps(o, list);
    const double g_o = load_lane(out.dtype, dy_data, offset_of(out, o));
    for (const auto &t : list)
      if (t.second != 0) grad.at(t.first) += t.second * g_o;
  });
  grad.blend_into(dx_data, op.blend);
}

class ReferenceResampleEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.resample"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_any_resample(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceResampleEngine;
FDNN_REGISTER_ENGINE(ReferenceResampleEngine)
