// cpu.normalization.instance: the fast CPU engine for instance norm (one
// graph::NormalizationOp, mode INSTANCE_NORM: statistics per (n, c) over the
// spatial dims, scale / bias per channel c), forward training and inference
// and backward. cpu.normalization's kernels take scale and bias of the
// statistics' shape; here they broadcast over n, and dscale / dbias sum
// over n as well as over the spatial dims.
//
//   forward:  y = blend(a * x + b), a = scale[c] * inv_std, b = bias[c] - a * mean
//   backward: dx = blend(A * dy + B * x + C0) per set, with
//             A = scale * inv_std, B = -A * inv_std * sum(dy * xhat) / M,
//             C0 = -A * sum(dy) / M - B * mean;
//             dscale[c] = sum over n of sum(dy * xhat), dbias[c] = sum over n of sum(dy).
//
// Two layouts (every data tensor has x's strides; the spatial dims must
// merge into one dim of S positions with one stride):
//  - rows (NCHW-like: the spatial stride is 1): set (n, c) is one contiguous
//    row of S elements. A thread takes whole sets: the statistics pass (two
//    passes over a row, corrected, in float lanes folded in double) and the
//    apply pass read the row while it is in its cache.
//  - cols (NHWC-like: the channel stride is 1): per n, S rows of C
//    neighbouring channels. A task is (n, a chunk of channels): column sums
//    over the rows (float accumulators of x - shift, shift the first row,
//    folded into double every kFoldRows rows), then the apply sweep.
// Tasks do not depend on the thread count, and dscale / dbias are combined
// per channel over n in order: results are the same for any thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/normalization_operands.hpp"
#include "core/normalization_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/normalization_row_io.hpp"

namespace fdnn::cpu {
namespace {

using normop::kInv;
using normop::kMean;
using normop::kRmIn;
using normop::kRmOut;
using normop::kRvIn;
using normop::kRvOut;
using normop::kVar;

using normrow::lane_sum;
using normrow::load_row;
using normrow::row_view;
using normrow::store_row;

constexpr int64_t kColsChunk = 512;   // cols: channels per task at most
constexpr int64_t kFoldRows = 64;     // cols: rows summed in float before folding into double
constexpr int64_t kParallelElements = 16384;

struct InstanceGeometry {
  bool cols = false;
  int64_t N = 1, C = 1, S = 1;
  int64_t xs_n = 0, xs_c = 0, xs_s = 0;  // x's strides (0 where the extent is 1)
  int64_t chunk = 1, nch = 1;            // cols: channels per task, tasks per n
};

Support check_instance(const graph::Graph &g, InstanceGeometry *out) {
  if (Support s = check_single_normalization(g); !s) return s;
  const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
  if (op.mode != CUDNN_INSTANCE_NORM) return Support::no("not instance norm");
  if (op.has_activation || op.z != graph::kNoTensor || op.dz != graph::kNoTensor || op.mask != graph::kNoTensor)
    return Support::no("fused residual / activation are not implemented here");
  const graph::Tensor &x = g.tensor(op.x);
  if (Support s = normop::check_data_operands(g, op); !s) return s;
  if (x.rank() < 3) return Support::no("instance norm needs N, C and spatial dims");
  const bool dbl = x.dtype == CUDNN_DATA_DOUBLE;
  const int rank = x.rank();
  // Statistics: [N, C, 1, ...].
  const std::vector<int64_t> st = normalization_stats_dims(g, op);
  for (int d = 0; d < rank; ++d)
    if (st[d] != (d < 2 ? x.dims[d] : 1)) return Support::no("statistics are not [N, C, 1, ...]");
  for (graph::Uid u : {op.scale, op.bias, op.dscale, op.dbias, op.mean, op.inv_variance, op.variance,
                       op.running_mean_in, op.running_var_in, op.running_mean_out, op.running_var_out}) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (Support s = normop::check_side_operand(t, dbl); !s) return s;
    const bool param = u == op.scale || u == op.bias || u == op.dscale || u == op.dbias;
    if (param) {
      for (int d = 0; d < rank; ++d)
        if (d != 1 && t.dims[d] != 1) return Support::no("scale / bias are not [1, C, 1, ...]");
      if ((u == op.dscale || u == op.dbias) && t.dims[1] != x.dims[1])
        return Support::no("dscale / dbias broadcast over channels");
    }
  }
  InstanceGeometry G;
  G.N = x.dims[0];
  G.C = x.dims[1];
  G.xs_n = G.N > 1 ? x.strides[0] : 0;
  G.xs_c = G.C > 1 ? x.strides[1] : 0;
  std::vector<int> sp;
  for (int d = 2; d < rank; ++d)
    if (x.dims[d] > 1) sp.push_back(d);
  std::stable_sort(sp.begin(), sp.end(), [&](int a, int b) { return x.strides[a] > x.strides[b]; });
  for (size_t i = sp.size(); i-- > 0;) {
    if (i + 1 < sp.size() && x.strides[sp[i]] != x.strides[sp[i + 1]] * x.dims[sp[i + 1]])
      return Support::no("the spatial dims do not merge into one");
    G.S *= x.dims[sp[i]];
  }
  G.xs_s = sp.empty() ? 1 : x.strides[sp.back()];
  if (G.xs_s == 1 || G.S == 1)
    G.cols = false;
  else if (G.C > 1 && x.strides[1] == 1)
    G.cols = true;
  else
    return Support::no("neither the spatial positions nor the channels are contiguous");
  if (G.S == 1) G.xs_s = 1;
  if (G.cols) {
    G.nch = (G.C + kColsChunk - 1) / kColsChunk;
    G.chunk = (G.C + G.nch - 1) / G.nch;
  }
  if (out) *out = G;
  return Support::yes();
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, InstanceGeometry G) : ExecutionPlan(e), G_(G) {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    for (graph::Uid u : {op.scale, op.bias, op.dscale, op.dbias}) {
      if (u == graph::kNoTensor) {
        pstride_.push_back(0);
        continue;
      }
      const graph::Tensor &t = g.tensor(u);
      pstride_.push_back(t.dims[1] == 1 ? 0 : t.strides[1]);
    }
    for (graph::Uid u : {op.mean, op.inv_variance, op.variance, op.running_mean_in, op.running_var_in,
                         op.running_mean_out, op.running_var_out}) {
      std::pair<int64_t, int64_t> s{0, 0};
      if (u != graph::kNoTensor) {
        const graph::Tensor &t = g.tensor(u);
        s = {t.dims[0] == 1 ? 0 : t.strides[0], t.dims[1] == 1 ? 0 : t.strides[1]};
      }
      sstride_.push_back(s);
    }
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::NormalizationOp>(g.ops().front());
    switch (g.tensor(op.x).dtype) {
      case CUDNN_DATA_FLOAT: return run<CUDNN_DATA_FLOAT, float>(ctx, op, pack);
      case CUDNN_DATA_HALF: return run<CUDNN_DATA_HALF, float>(ctx, op, pack);
      case CUDNN_DATA_BFLOAT16: return run<CUDNN_DATA_BFLOAT16, float>(ctx, op, pack);
      case CUDNN_DATA_DOUBLE: return run<CUDNN_DATA_DOUBLE, double>(ctx, op, pack);
      default: fail(CUDNN_STATUS_INTERNAL_ERROR, "cpu.normalization.instance: unexpected type");
    }
  }

 private:
  enum { kScale, kBias, kDscale, kDbias };

  static void *ptr(const VariantPack &pack, graph::Uid u) { return normop::operand(pack, u); }

  template <class F>
  void parallel(const ExecContext &ctx, int64_t tasks, int64_t elements, F &&body) const {
    const auto work = [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) body(t);
    };
    if (ctx.pool != nullptr && tasks > 1 && elements >= kParallelElements)
      ctx.pool->parallel_for(tasks, work);
    else
      work(0, tasks);
  }

  template <cudnnDataType_t DT, class C>
  void run(const ExecContext &ctx, const graph::NormalizationOp &op, const VariantPack &pack) const {
    const cudnnDataType_t st = std::is_same_v<C, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const int64_t N = G_.N, Cn = G_.C, S = G_.S, sets = N * Cn;
    const double M = static_cast<double>(S), eps = op.epsilon, f = op.exp_avg_factor;
    const bool training = !op.backward && op.phase == CUDNN_NORM_FWD_TRAINING;
    const bool compute = training || (op.backward && op.inv_variance == graph::kNoTensor);
    void *x = ptr(pack, op.x);
    const std::array<void *, 7> stat = normop::stat_pointers(pack, op);
    const auto sat = [&](int j, int64_t n, int64_t c) { return n * sstride_[j].first + c * sstride_[j].second; };
    std::vector<double> scale(static_cast<size_t>(Cn), 1.0), bias(static_cast<size_t>(Cn), 0.0);
    if (void *p = ptr(pack, op.scale))
      for (int64_t c = 0; c < Cn; ++c) scale[c] = load_lane(st, p, c * pstride_[kScale]);
    if (void *p = ptr(pack, op.bias); p && !op.backward)
      for (int64_t c = 0; c < Cn; ++c) bias[c] = load_lane(st, p, c * pstride_[kBias]);
    // Per set: mean and inv_std (given, or computed by the statistics pass).
    std::vector<double> mu(static_cast<size_t>(sets), 0.0), istd(static_cast<size_t>(sets), 0.0);
    if (!compute)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < Cn; ++c) {
          const int64_t k = n * Cn + c;
          mu[k] = load_lane(st, stat[kMean], sat(kMean, n, c));
          istd[k] = stat[kInv] ? load_lane(st, stat[kInv], sat(kInv, n, c))
                               : 1.0 / std::sqrt(load_lane(st, stat[kVar], sat(kVar, n, c)) + eps);
        }
    // Training: the computed statistics' outputs (var: biased).
    const auto store_stats = [&](int64_t n, int64_t c, double m, double var) {
      const int64_t k = n * Cn + c;
      mu[k] = m;
      istd[k] = 1.0 / std::sqrt(std::max(var, 0.0) + eps);
      if (!training) return;
      if (stat[kMean]) store_lane(st, stat[kMean], sat(kMean, n, c), m);
      if (stat[kInv]) store_lane(st, stat[kInv], sat(kInv, n, c), istd[k]);
      if (stat[kRmIn])
        store_lane(st, stat[kRmOut], sat(kRmOut, n, c), (1 - f) * load_lane(st, stat[kRmIn], sat(kRmIn, n, c)) + f * m);
      if (stat[kRvIn])
        store_lane(st, stat[kRvOut], sat(kRvOut, n, c),
                   (1 - f) * load_lane(st, stat[kRvIn], sat(kRvIn, n, c)) + f * var * unbias_factor(S));
    };
    const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
    void *y = op.backward ? nullptr : ptr(pack, op.y);
    void *dy = op.backward ? ptr(pack, op.dy) : nullptr, *dx = op.backward ? ptr(pack, op.dx) : nullptr;
    // Backward: per set sum(dy * xhat), sum(dy).
    std::vector<double> sgx(op.backward ? static_cast<size_t>(sets) : 0), sg(sgx.size());
    const int64_t elements = sets * S;

    if (!G_.cols) {
      parallel(ctx, sets, elements, [&](int64_t k) {
        thread_local std::vector<C> xb, gb, ob;
        xb.resize(static_cast<size_t>(S));
        ob.resize(static_cast<size_t>(S));
        const int64_t n = k / Cn, c = k % Cn, off = n * G_.xs_n + c * G_.xs_c;
        const C *xr = row_view<DT>(x, off, S, xb.data());
        if (compute) {
          const double s = normrow::row_sum(xr, S) / M;
          const C m = static_cast<C>(s);
          double q, d;
          normrow::row_deviations(xr, S, m, q, d);
          store_stats(n, c, static_cast<double>(m) + d / M, (q - d * d / M) / M);
        }
        C *o = ob.data();
        if (!op.backward) {
          const C a = static_cast<C>(scale[c] * istd[k]), b = static_cast<C>(bias[c] - scale[c] * istd[k] * mu[k]);
          for (int64_t i = 0; i < S; ++i) o[i] = a * xr[i] + b;
          store_row<DT>(y, off, S, o, alpha, beta);
          return;
        }
        gb.resize(static_cast<size_t>(S));
        const C *gr = row_view<DT>(dy, off, S, gb.data());
        const C m = static_cast<C>(mu[k]);
        const double s_g = normrow::row_sum(gr, S);
        const double s_gx = lane_sum<C>(S, [&](int64_t i) { return gr[i] * (xr[i] - m); }) * istd[k];
        sg[k] = s_g;
        sgx[k] = s_gx;
        // A * dy + B * (x - mean) + the constant term (C0 + B * mean).
        const double A = scale[c] * istd[k], B = -A * istd[k] * s_gx / M;
        const C a = static_cast<C>(A), b = static_cast<C>(B), cc = static_cast<C>(-A * s_g / M);
        for (int64_t i = 0; i < S; ++i) o[i] = a * gr[i] + b * (xr[i] - m) + cc;
        store_row<DT>(dx, off, S, o, alpha, beta);
      });
    } else {
      const int64_t tasks = N * G_.nch;
      parallel(ctx, tasks, elements, [&](int64_t t) {
        const int64_t n = t / G_.nch, c0 = (t % G_.nch) * G_.chunk, w = std::min(G_.chunk, Cn - c0);
        thread_local std::vector<C> xb, gb, ob, shift, a, b, bx;
        thread_local std::vector<C> acc1, acc2;
        thread_local std::vector<double> s1, s2;
        for (auto *v : {&xb, &gb, &ob, &shift, &a, &b, &bx, &acc1, &acc2}) v->assign(static_cast<size_t>(w), C(0));
        s1.assign(static_cast<size_t>(w), 0.0);
        s2.assign(static_cast<size_t>(w), 0.0);
        const int64_t base = n * G_.xs_n + c0;
        const auto row_off = [&](int64_t r) { return base + r * G_.xs_s; };
        C *A1 = acc1.data(), *A2 = acc2.data();
        const auto fold = [&] {
          for (int64_t j = 0; j < w; ++j) {
            s1[j] += static_cast<double>(A1[j]);
            s2[j] += static_cast<double>(A2[j]);
            A1[j] = A2[j] = C(0);
          }
        };
        if (compute) {
          // Sums of x - shift and its squares (shift: the first row).
          const C *f0 = row_view<DT>(x, row_off(0), w, xb.data());
          std::copy(f0, f0 + w, shift.begin());
          const C *k0 = shift.data();
          for (int64_t r = 0; r < S; ++r) {
            const C *xr = row_view<DT>(x, row_off(r), w, xb.data());
            for (int64_t j = 0; j < w; ++j) {
              const C d = xr[j] - k0[j];
              A1[j] += d;
              A2[j] += d * d;
            }
            if ((r + 1) % kFoldRows == 0) fold();
          }
          fold();
          for (int64_t j = 0; j < w; ++j) {
            const double md = s1[j] / M;
            store_stats(n, c0 + j, static_cast<double>(k0[j]) + md, s2[j] / M - md * md);
          }
        }
        if (!op.backward) {
          for (int64_t j = 0; j < w; ++j) {
            const int64_t k = n * Cn + c0 + j;
            const double sa = scale[c0 + j] * istd[k];
            a[j] = static_cast<C>(sa);
            b[j] = static_cast<C>(bias[c0 + j] - sa * mu[k]);
          }
          const C *pa = a.data(), *pb = b.data();
          C *o = ob.data();
          for (int64_t r = 0; r < S; ++r) {
            const C *xr = row_view<DT>(x, row_off(r), w, xb.data());
            for (int64_t j = 0; j < w; ++j) o[j] = pa[j] * xr[j] + pb[j];
            store_row<DT>(y, row_off(r), w, o, alpha, beta);
          }
          return;
        }
        // Backward: column sums of dy and dy * (x - mean).
        for (int64_t j = 0; j < w; ++j) shift[j] = static_cast<C>(mu[n * Cn + c0 + j]);
        const C *k0 = shift.data();
        std::fill(s1.begin(), s1.end(), 0.0);
        std::fill(s2.begin(), s2.end(), 0.0);
        for (int64_t r = 0; r < S; ++r) {
          const C *xr = row_view<DT>(x, row_off(r), w, xb.data());
          const C *gr = row_view<DT>(dy, row_off(r), w, gb.data());
          for (int64_t j = 0; j < w; ++j) {
            A1[j] += gr[j];
            A2[j] += gr[j] * (xr[j] - k0[j]);
          }
          if ((r + 1) % kFoldRows == 0) fold();
        }
        fold();
        for (int64_t j = 0; j < w; ++j) {
          const int64_t k = n * Cn + c0 + j;
          const double s_gx = s2[j] * istd[k];
          sg[k] = s1[j];
          sgx[k] = s_gx;
          const double Av = scale[c0 + j] * istd[k], Bv = -Av * istd[k] * s_gx / M;
          a[j] = static_cast<C>(Av);
          b[j] = static_cast<C>(Bv);
          bx[j] = static_cast<C>(-Av * s1[j] / M);  // the constant term, on x - mean
        }
        const C *pa = a.data(), *pb = b.data(), *pc = bx.data();
        C *o = ob.data();
        for (int64_t r = 0; r < S; ++r) {
          const C *xr = row_view<DT>(x, row_off(r), w, xb.data());
          const C *gr = row_view<DT>(dy, row_off(r), w, gb.data());
          for (int64_t j = 0; j < w; ++j) o[j] = pa[j] * gr[j] + pb[j] * (xr[j] - k0[j]) + pc[j];
          store_row<DT>(dx, row_off(r), w, o, alpha, beta);
        }
      });
    }
    if (!op.backward) return;
    void *dscale = ptr(pack, op.dscale), *dbias = ptr(pack, op.dbias);
    const double pa = op.param_blend.alpha, pb = op.param_blend.beta;
    for (int64_t c = 0; c < Cn; ++c) {
      double a = 0, b = 0;
      for (int64_t n = 0; n < N; ++n) {
        a += sgx[n * Cn + c];
        b += sg[n * Cn + c];
      }
      if (dscale) {
        const int64_t o = c * pstride_[kDscale];
        store_lane(st, dscale, o, pa * a + (pb != 0 ? pb * load_lane(st, dscale, o) : 0.0));
      }
      if (dbias) {
        const int64_t o = c * pstride_[kDbias];
        store_lane(st, dbias, o, pa * b + (pb != 0 ? pb * load_lane(st, dbias, o) : 0.0));
      }
    }
  }

  InstanceGeometry G_;
  std::vector<int64_t> pstride_;                       // scale, bias, dscale, dbias: channel strides
  std::vector<std::pair<int64_t, int64_t>> sstride_;   // statistics: (n, c) strides
};

class InstanceNormalizationEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.normalization.instance"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override { return check_instance(g, nullptr); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    InstanceGeometry G;
    Support s = check_instance(g, &G);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, G);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::InstanceNormalizationEngine;
FDNN_REGISTER_ENGINE(InstanceNormalizationEngine)
