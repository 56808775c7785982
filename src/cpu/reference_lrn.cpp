// cpu.reference.lrn: the obviously-correct LRN engine (graph::LrnOp). It loads
// every operand into doubles in logical row-major order, computes the window
// sums S element by element by walking each window, and stores the blended
// results. Slow on purpose: the fast engines are checked against it.
#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/lrn_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

// Element offset of logical index `i` (row-major over dims) in t.
int64_t offset_of(const graph::Tensor &t, int64_t i) {
  int64_t off = 0;
  for (int d = t.rank() - 1; d >= 0; --d) {
    off += (i % t.dims[d]) * t.strides[d];
    i /= t.dims[d];
  }
  return off;
}

std::vector<double> load_all(const graph::Tensor &t, const void *data) {
  std::vector<double> v(static_cast<size_t>(t.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_lane(t.dtype, data, offset_of(t, static_cast<int64_t>(i)));
  return v;
}

void store_all(const graph::Tensor &t, void *data, const std::vector<double> &v, const graph::Blend &b) {
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t off = offset_of(t, static_cast<int64_t>(i));
    double out = b.alpha * v[i];
    if (b.beta != 0.0) out += b.beta * load_lane(t.dtype, data, off);
    store_lane(t.dtype, data, off, out);
  }
}

// Calls f(q) for every logical index q at the offsets [lo, hi] from p along
// each dimension in `dims_normalized` (clipped to the tensor).
template <class F>
void for_window(const std::vector<int64_t> &dims, const std::vector<int> &normalized, int64_t p, int64_t lo,
                int64_t hi, F &&f) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> idx(rank), row(rank, 1);
  int64_t r = 1;
  for (int d = rank - 1; d >= 0; --d) {
    row[d] = r;
    r *= dims[d];
  }
  int64_t rest = p;
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = rest % dims[d];
    rest /= dims[d];
  }
  // Odometer over the window of the normalized dims.
  std::vector<int64_t> off(normalized.size(), lo);
  while (true) {
    bool inside = true;
    int64_t q = p;
    for (size_t k = 0; k < normalized.size(); ++k) {
      const int d = normalized[k];
      const int64_t c = idx[d] + off[k];
      if (c < 0 || c >= dims[d]) inside = false;
      q += off[k] * row[d];
    }
    if (inside) f(q);
    size_t k = 0;
    for (; k < off.size(); ++k) {
      if (++off[k] <= hi) break;
      off[k] = lo;
    }
    if (k == off.size()) break;
  }
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::LrnOp>(g.ops().front());
    const graph::Tensor &xt = g.tensor(op.x);
    const int rank = xt.rank();
    std::vector<int> normalized;
    if (op.kind == graph::LrnKind::cross_channel) normalized.push_back(1);
    else
      for (int d = 2; d < rank; ++d) normalized.push_back(d);
    const int64_t behind = graph::lrn_look_behind(op.n), ahead = graph::lrn_look_ahead(op.n);
    const double a = lrn_alpha_over_size(op, rank);

    const std::vector<double> x = load_all(xt, pack.get(op.x));
    std::vector<double> m(x.size(), 0.0);
    if (op.means != graph::kNoTensor) m = load_all(g.tensor(op.means), pack.get(op.means));
    const bool divisive = op.kind == graph::LrnKind::divisive;
    const int64_t count = xt.element_count();
    // S(p): cross-channel sums x(q)^2, divisive (x(q) - m(p))^2 over W(p).
    std::vector<double> s(x.size());
    for (int64_t p = 0; p < count; ++p) {
      double sum = 0;
      for_window(xt.dims, normalized, p, -behind, ahead, [&](int64_t q) {
        const double d = divisive ? x[q] - m[p] : x[q];
        sum += d * d;
      });
      s[p] = op.k + a * sum;
    }
    if (!op.backward) {
      std::vector<double> y(x.size());
      for (int64_t p = 0; p < count; ++p) y[p] = x[p] * std::pow(s[p], -op.beta);
      store_all(g.tensor(op.y), pack.get(op.y), y, op.blend);
      return;
    }
    const std::vector<double> dy = load_all(g.tensor(op.dy), pack.get(op.dy));
    // R(p) = dy(p) y(p) / S(p) with y recomputed from x.
    std::vector<double> r(x.size());
    for (int64_t p = 0; p < count; ++p) r[p] = dy[p] * x[p] * std::pow(s[p], -op.beta) / s[p];
    std::vector<double> dx(x.size()), dm(x.size());
    for (int64_t q = 0; q < count; ++q) {
      double acc = 0;
      if (divisive) {
        // cuDNN sums over W(q) itself (see graph/op_lrn.hpp).
        for_window(xt.dims, normalized, q, -behind, ahead, [&](int64_t p) { acc += r[p] * (x[q] - m[p]); });
      } else {
        // The p whose window W(p) = [p - behind, p + ahead] holds q.
        for_window(xt.dims, normalized, q, -ahead, behind, [&](int64_t p) { acc += r[p] * x[q]; });
      }
      dx[q] = dy[q] * std::pow(s[q], -op.beta) - 2.0 * a * op.beta * acc;
    }
    store_all(g.tensor(op.dx), pack.get(op.dx), dx, op.blend);
    if (op.dmeans != graph::kNoTensor) {
      for (int64_t p = 0; p < count; ++p) {
        double sum = 0;
        for_window(xt.dims, normalized, p, -behind, ahead, [&](int64_t q) { sum += x[q] - m[p]; });
        dm[p] = 2.0 * a * op.beta * r[p] * sum;
      }
      store_all(g.tensor(op.dmeans), pack.get(op.dmeans), dm, op.blend);
    }
  }
};

class ReferenceLrnEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.lrn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_lrn(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceLrnEngine;
FDNN_REGISTER_ENGINE(ReferenceLrnEngine)
