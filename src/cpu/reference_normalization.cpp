// cpu.reference.normalization: the obviously-correct normalization engine.
// Every element of x is visited in logical order; its statistics set is the
// row-major index over the kept dimensions. All arithmetic is in double;
// statistics use two passes (mean, then squared deviations).
#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

// One tensor bound to its data, addressed by x's logical multi-index.
struct Bound {
  const graph::Tensor *t = nullptr;
  void *data = nullptr;
  std::vector<int64_t> strides;  // broadcast strides over x's dims

  bool present() const { return t != nullptr; }
  int64_t offset(const std::vector<int64_t> &idx) const {
    int64_t o = 0;
    for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * strides[d];
    return o;
  }
  double load(const std::vector<int64_t> &idx) const { return load_lane(t->dtype, data, offset(idx)); }
  void store(const std::vector<int64_t> &idx, double v) const { store_lane(t->dtype, data, offset(idx), v); }
};

Bound bind(const graph::Graph &g, const VariantPack &pack, graph::Uid uid) {
  Bound b;
  if (uid == graph::kNoTensor) return b;
  b.t = &g.tensor(uid);
  b.data = pack.get(uid);
  if (b.data == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", uid);
  b.strides = broadcast_strides(*b.t);
  return b;
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    const NormShape shape = normalization_shape(g, op);
    const int rank = static_cast<int>(shape.dims.size());
    const int64_t n = g.tensor(op.x).element_count();

    // Every element's multi-index and statistics set.
    std::vector<std::vector<int64_t>> idx(static_cast<size_t>(n), std::vector<int64_t>(rank));
    std::vector<int64_t> group(static_cast<size_t>(n));
    std::vector<std::vector<int64_t>> group_idx(static_cast<size_t>(shape.groups));  // first element's index
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e;
      for (int d = rank - 1; d >= 0; --d) {
        idx[e][d] = rest % shape.dims[d];
        rest /= shape.dims[d];
      }
      int64_t gi = 0;
      for (int d = 0; d < rank; ++d)
        if (!shape.reduced[d]) gi = gi * shape.dims[d] + idx[e][d];
      group[e] = gi;
      if (group_idx[gi].empty()) group_idx[gi] = idx[e];
    }

    const Bound x = bind(g, pack, op.x), y = bind(g, pack, op.y), z = bind(g, pack, op.z);
    const Bound scale = bind(g, pack, op.scale), bias = bind(g, pack, op.bias);
    const Bound mean = bind(g, pack, op.mean), inv = bind(g, pack, op.inv_variance), var = bind(g, pack, op.variance);
    const Bound mask = bind(g, pack, op.mask);
    const size_t G = static_cast<size_t>(shape.groups);
    const double M = static_cast<double>(shape.count);
    const bool rms = op.mode == CUDNN_RMS_NORM;  // no centring: xhat = x * inv_std
    const bool relu = op.has_activation && op.activation == CUDNN_POINTWISE_RELU_FWD;
    const double clip = op.relu_upper_clip;

    std::vector<double> xs(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e) xs[e] = x.load(idx[e]);

    // Batch statistics (training, and backward without saved ones).
    std::vector<double> mu(G, 0.0), sig2(G, 0.0), istd(G, 0.0);
    auto batch_stats = [&] {
      if (!rms) {
        for (int64_t e = 0; e < n; ++e) mu[group[e]] += xs[e];
        for (double &m : mu) m /= M;
      }
      for (int64_t e = 0; e < n; ++e) sig2[group[e]] += (xs[e] - mu[group[e]]) * (xs[e] - mu[group[e]]);
      for (size_t k = 0; k < G; ++k) {
        sig2[k] /= M;
        istd[k] = 1.0 / std::sqrt(sig2[k] + op.epsilon);
      }
    };

    if (!op.backward) {
      if (op.phase == CUDNN_NORM_FWD_INFERENCE) {
        for (size_t k = 0; k < G; ++k) {
          mu[k] = rms ? 0.0 : mean.load(group_idx[k]);
          istd[k] = var.present() ? 1.0 / std::sqrt(var.load(group_idx[k]) + op.epsilon) : inv.load(group_idx[k]);
        }
      } else {
        batch_stats();
        for (size_t k = 0; k < G; ++k) {
          const auto &gi = group_idx[k];
          if (mean.present()) mean.store(gi, mu[k]);
          if (inv.present()) inv.store(gi, istd[k]);
          const double f = op.exp_avg_factor;
          if (op.running_mean_in != graph::kNoTensor) {
            const Bound rin = bind(g, pack, op.running_mean_in), rout = bind(g, pack, op.running_mean_out);
            rout.store(gi, (1.0 - f) * rin.load(gi) + f * mu[k]);
          }
          if (op.running_var_in != graph::kNoTensor) {
            const Bound rin = bind(g, pack, op.running_var_in), rout = bind(g, pack, op.running_var_out);
            rout.store(gi, (1.0 - f) * rin.load(gi) + f * sig2[k] * unbias_factor(shape.count));
          }
        }
      }
      for (int64_t e = 0; e < n; ++e) {
        const size_t k = static_cast<size_t>(group[e]);
        double v = scale.load(idx[e]) * (xs[e] - mu[k]) * istd[k] + (bias.present() ? bias.load(idx[e]) : 0.0);
        if (z.present()) v += z.load(idx[e]);
        double out = op.blend.alpha * norm::activate(v, relu, clip);
        if (op.blend.beta != 0.0) out += op.blend.beta * y.load(idx[e]);
        y.store(idx[e], out);
        if (mask.present()) mask.store(idx[e], norm::passes(v, relu, clip) ? 1.0 : 0.0);
      }
      return;
    }

    // Backward.
    if (inv.present()) {
      for (size_t k = 0; k < G; ++k) {
        mu[k] = rms ? 0.0 : mean.load(group_idx[k]);
        istd[k] = inv.load(group_idx[k]);
      }
    } else {
      batch_stats();
    }
    const Bound dy = bind(g, pack, op.dy), dx = bind(g, pack, op.dx), dz = bind(g, pack, op.dz);
    const Bound dscale = bind(g, pack, op.dscale), dbias = bind(g, pack, op.dbias);
    std::vector<double> gr(static_cast<size_t>(n)), xhat(static_cast<size_t>(n));
    std::vector<double> sum_h(G, 0.0), sum_hx(G, 0.0);  // h = scale * g: the gradient of xhat
    for (int64_t e = 0; e < n; ++e) {
      const size_t k = static_cast<size_t>(group[e]);
      double gv = dy.load(idx[e]);
      if (op.has_activation && mask.load(idx[e]) == 0.0) gv = 0.0;
      gr[e] = gv;
      xhat[e] = (xs[e] - mu[k]) * istd[k];
      const double h = scale.load(idx[e]) * gv;
      sum_h[k] += h;
      sum_hx[k] += h * xhat[e];
    }
    for (int64_t e = 0; e < n; ++e) {
      const size_t k = static_cast<size_t>(group[e]);
      const double h = scale.load(idx[e]) * gr[e];
      double out = op.blend.alpha * istd[k] * (h - (rms ? 0.0 : sum_h[k] / M) - xhat[e] * sum_hx[k] / M);
      if (op.blend.beta != 0.0) out += op.blend.beta * dx.load(idx[e]);
      dx.store(idx[e], out);
      if (dz.present()) dz.store(idx[e], gr[e]);
    }
    // Parameter gradients: summed over the dimensions where they broadcast.
    for (const Bound *p : {&dscale, &dbias}) {
      if (!p->present()) continue;
      const graph::Tensor &t = *p->t;
      std::vector<double> acc(static_cast<size_t>(t.element_count()), 0.0);
      std::vector<int64_t> packed(rank, 0);
      int64_t step = 1;
      for (int d = rank - 1; d >= 0; --d) {
        packed[d] = t.dims[d] == 1 ? 0 : step;
        step *= t.dims[d];
      }
      std::vector<std::vector<int64_t>> first(acc.size());
      for (int64_t e = 0; e < n; ++e) {
        int64_t a = 0;
        for (int d = 0; d < rank; ++d) a += idx[e][d] * packed[d];
        acc[a] += p == &dscale ? gr[e] * xhat[e] : gr[e];
        if (first[a].empty()) first[a] = idx[e];
      }
      for (size_t a = 0; a < acc.size(); ++a) {
        double out = op.param_blend.alpha * acc[a];
        if (op.param_blend.beta != 0.0) out += op.param_blend.beta * p->load(first[a]);
        p->store(first[a], out);
      }
    }
  }
};

class ReferenceNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.normalization"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_normalization(g, true); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceNormalizationEngine;
FDNN_REGISTER_ENGINE(ReferenceNormalizationEngine)
