// Matmul + pointwise chains (bias, scale, activation) through the backend
// API, the graphs cpu.fusion.matmul.onednn runs as one oneDNN matmul with
// post-ops: the first engine config of heuristics mode A and the first of
// mode FALLBACK (op by op) run the graph (its output NaN-poisoned first),
// compared with a float64 computation of the ops one by one done here. On a CPU handle the chains oneDNN expresses
// exactly must go to that engine first, and the ones it cannot (other
// modes, scaled bias, SOFTPLUS beta != 1, RELU forms whose NaN results
// differ, two different scales, half virtual intermediates, divisor batch
// broadcast) must not, and
// still run on another engine. On a GPU handle any engine offered must
// compute right; offering none is fine.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/reference.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {
namespace {

constexpr const char *kEngine = "cpu.fusion.matmul.onednn";
constexpr double kU = 1.0 / (1 << 24);  // float unit roundoff

enum class Other { none, row, column, full, scalar, by_value };

struct Step {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;
  Other other = Other::none;  // the second operand: [.., 1, N], [.., M, 1], c's dims, [1..1], by value
  bool chain_as_b = false;    // the chain value is the op's b (else x)
  double alpha1 = 1, alpha2 = 1;
  PointwiseParams p;
};

struct Case {
  std::vector<int64_t> a_batch{2}, b_batch{2};  // batch dims (c's: the larger)
  int64_t m = 5, k = 7, n = 6;
  bool a_col_major = false, b_col_major = false;
  bool nan_in_a = false;  // A[.., 0, 0] is NaN: row 0 of c is NaN before the chain
  std::vector<int64_t> out_strides;  // empty: packed
  cudnnDataType_t io = CUDNN_DATA_FLOAT, out = CUDNN_DATA_FLOAT;
  cudnnDataType_t virtual_type = CUDNN_DATA_FLOAT;
  std::vector<Step> steps;
  // CPU handle: our engine is the first mode A offers, or it must refuse, or either.
  enum class Engine { ours, not_ours, either } engine = Engine::ours;
  std::string name() const;
};

std::string Case::name() const {
  std::ostringstream os;
  os << type_name(io) << "->" << type_name(out) << " a[";
  for (int64_t d : a_batch) os << d << ",";
  os << m << "," << k << (a_col_major ? "]T" : "]") << " b[";
  for (int64_t d : b_batch) os << d << ",";
  os << k << "," << n << (b_col_major ? "]T" : "]") << " steps:";
  for (const Step &s : steps) os << " " << s.mode << "/" << static_cast<int>(s.other) << (s.chain_as_b ? "r" : "");
  return os.str();
}

std::vector<int64_t> c_batch(const Case &c) {
  std::vector<int64_t> r(c.a_batch.size());
  for (size_t d = 0; d < r.size(); ++d) r[d] = std::max(c.a_batch[d], c.b_batch[d]);
  return r;
}

std::vector<int64_t> concat(std::vector<int64_t> v, std::initializer_list<int64_t> tail) {
  v.insert(v.end(), tail);
  return v;
}

// Packed strides with the last two dims stored column-major when asked.
std::vector<int64_t> matrix_strides(std::vector<int64_t> dims, bool col_major) {
  const size_t r = dims.size();
  if (!col_major) return packed(dims);
  std::swap(dims[r - 1], dims[r - 2]);
  std::vector<int64_t> s = packed(dims);
  std::swap(s[r - 1], s[r - 2]);
  return s;
}

double lipschitz(const Step &s) {
  switch (s.mode) {
    case CUDNN_POINTWISE_RELU_FWD: return std::max(1.0, std::fabs(s.p.relu_lower_clip_slope));
    case CUDNN_POINTWISE_SIGMOID_FWD: return 0.25;
    case CUDNN_POINTWISE_ELU_FWD: return std::max(1.0, s.p.elu_alpha);
    case CUDNN_POINTWISE_SWISH_FWD: return 1.1 * std::max(1.0, s.p.swish_beta);
    default: return 1.13;
  }
}

class BackendMatmulPostops : public BackendGraphTest {
 public:
  struct Graph {
    std::vector<std::unique_ptr<Desc>> keep;
    std::vector<Desc *> ops;
    std::vector<int64_t> uids;
    std::vector<HostTensor> inputs;  // parallel to the first uids
    std::vector<float> by_value;     // values of by-value operands
    std::vector<int64_t> by_value_uids;
    HostTensor out;
    std::vector<Expect> want;
  };

  Desc *keep(Graph &g, std::unique_ptr<Desc> d) {
    g.keep.push_back(std::move(d));
    return g.keep.back().get();
  }

  Desc *input(Graph &g, Rng &rng, int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims,
              const std::vector<int64_t> &strides, double lo, double hi) {
    HostTensor h = make_tensor(t, dims, strides);
    fill_random(h, rng, lo, hi);
    g.inputs.push_back(std::move(h));
    g.uids.push_back(uid);
    return keep(g, tensor_desc(uid, t, dims, strides));
  }

  void pointwise(Graph &g, const Step &s, Desc *x, Desc *b, Desc *y) {
    auto p = std::make_unique<Desc>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, s.mode), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION,
                      s.p.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN),
              CUDNN_STATUS_SUCCESS);
    if (s.mode == CUDNN_POINTWISE_RELU_FWD) {
      EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, s.p.relu_lower_clip),
                CUDNN_STATUS_SUCCESS);
      if (s.p.relu_upper_clip < 1e30) {
        EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, s.p.relu_upper_clip),
                  CUDNN_STATUS_SUCCESS);
      }
      EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, s.p.relu_lower_clip_slope),
                CUDNN_STATUS_SUCCESS);
    }
    if (s.mode == CUDNN_POINTWISE_ELU_FWD) {
      EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_DOUBLE, s.p.elu_alpha), CUDNN_STATUS_SUCCESS);
    }
    if (s.mode == CUDNN_POINTWISE_SWISH_FWD) {
      EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, s.p.swish_beta), CUDNN_STATUS_SUCCESS);
    }
    if (s.mode == CUDNN_POINTWISE_SOFTPLUS_FWD) {
      EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, CUDNN_TYPE_DOUBLE, s.p.softplus_beta),
                CUDNN_STATUS_SUCCESS);
    }
    EXPECT_EQ(p->finalize(), CUDNN_STATUS_SUCCESS);
    Desc *pd = keep(g, std::move(p));
    Desc *op = keep(g, std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, pd->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d),
              CUDNN_STATUS_SUCCESS);
    if (b) {
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d),
                CUDNN_STATUS_SUCCESS);
    }
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, static_cast<float>(s.alpha1)),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, static_cast<float>(s.alpha2)),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    g.ops.push_back(op);
  }

  // The graph of c and its float64 expectation.
  Graph build(const Case &c, Rng &rng) {
    Graph g;
    const std::vector<int64_t> cb = c_batch(c), ad = concat(c.a_batch, {c.m, c.k}), bd = concat(c.b_batch, {c.k, c.n}),
                               cd = concat(cb, {c.m, c.n});
    const size_t r = cd.size();
    Desc *a = input(g, rng, 1, c.io, ad, matrix_strides(ad, c.a_col_major), -1, 1);
    Desc *b = input(g, rng, 2, c.io, bd, matrix_strides(bd, c.b_col_major), -1, 1);
    if (c.nan_in_a) g.inputs[0].set(std::vector<int64_t>(ad.size(), 0), NAN);
    const HostTensor &ha = g.inputs[0], &hb = g.inputs[1];
    int64_t next_virtual = 100;
    Desc *cur = keep(g, tensor_desc(next_virtual++, CUDNN_DATA_FLOAT, cd, packed(cd), true));
    auto mm = std::make_unique<Desc>(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    EXPECT_EQ(mm->set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(mm->finalize(), CUDNN_STATUS_SUCCESS);
    Desc *mmd = keep(g, std::move(mm));
    Desc *op = keep(g, std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR));
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cur->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mmd->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    g.ops.push_back(op);

    // Float64 matmul (batch index i of c reads i / (c / operand) of each operand).
    std::vector<double> v, e;
    for_each_index(cd, [&](const std::vector<int64_t> &idx) {
      std::vector<int64_t> ia(r), ib(r);
      for (size_t d = 0; d + 2 < r; ++d) {
        ia[d] = idx[d] / (cb[d] / c.a_batch[d]);
        ib[d] = idx[d] / (cb[d] / c.b_batch[d]);
      }
      double s = 0, mag = 0;
      for (int64_t t = 0; t < c.k; ++t) {
        ia[r - 2] = idx[r - 2], ia[r - 1] = t, ib[r - 2] = t, ib[r - 1] = idx[r - 1];
        const double x = ha.get(ia) * hb.get(ib);
        s += x;
        mag += std::fabs(x);
      }
      v.push_back(s);
      e.push_back(static_cast<double>(c.k + 4) * kU * mag);
    });

    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Step &s = c.steps[i];
      const bool last = i + 1 == c.steps.size();
      Desc *other = nullptr;
      const HostTensor *ho = nullptr;
      double scalar = 0;
      const int64_t uid = 10 + static_cast<int64_t>(i);
      std::vector<int64_t> od = cd;
      switch (s.other) {
        case Other::none: break;
        case Other::row: std::fill(od.begin(), od.end() - 1, 1); break;
        case Other::column: std::fill(od.begin(), od.end(), 1), od[r - 2] = c.m; break;
        case Other::full: break;
        case Other::scalar:
        case Other::by_value: std::fill(od.begin(), od.end(), 1); break;
      }
      if (s.other == Other::by_value) {
        scalar = 0.5 + 0.25 * static_cast<double>(rng.integer(0, 4));
        other = keep(g, tensor_desc(uid, CUDNN_DATA_FLOAT, od, packed(od), false, true));
        g.by_value.push_back(static_cast<float>(scalar));
        g.by_value_uids.push_back(uid);
      } else if (s.other != Other::none) {
        const bool multiplier = s.mode == CUDNN_POINTWISE_MUL;
        other = input(g, rng, uid, c.io, od, packed(od), multiplier ? 0.5 : -1, multiplier ? 1.5 : 1);
        ho = &g.inputs.back();
      }
      const std::vector<int64_t> ys = c.out_strides.empty() ? packed(cd) : c.out_strides;
      Desc *y = last ? keep(g, tensor_desc(3, c.out, cd, ys))
                     : keep(g, tensor_desc(next_virtual++, c.virtual_type, cd, packed(cd), true));
      if (s.chain_as_b) pointwise(g, s, other, cur, y);
      else pointwise(g, s, cur, other, y);
      cur = y;
      size_t j = 0;
      for_each_index(cd, [&](const std::vector<int64_t> &idx) {
        double o = scalar;
        if (ho) {
          std::vector<int64_t> oi = idx;
          for (size_t d = 0; d < r; ++d)
            if (od[d] == 1) oi[d] = 0;
          o = ho->get(oi);
        }
        const double in = v[j], ein = e[j];
        const double xa = s.chain_as_b ? s.alpha1 * o : s.alpha1 * in, xb = s.chain_as_b ? s.alpha2 * in : s.alpha2 * o;
        const double a_chain = s.chain_as_b ? s.alpha2 : s.alpha1;
        // RELU without NaN propagation: max(NaN, lower clip) is the clip
        // (the library's rule; the shared reference always propagates).
        const bool relu_nan = s.mode == CUDNN_POINTWISE_RELU_FWD && std::isnan(xa) && !s.p.propagate_nan;
        const double out = relu_nan ? s.p.relu_lower_clip : pointwise_value(s.mode, xa, xb, 0, s.p);
        const double ao = std::fabs(out);
        double err = 0;
        switch (s.mode) {
          case CUDNN_POINTWISE_ADD:
          case CUDNN_POINTWISE_SUB:
            err = std::fabs(a_chain) * ein + 2 * kU * (ao + std::fabs(xa) + std::fabs(xb));
            break;
          case CUDNN_POINTWISE_EXP: err = 1.01 * ao * std::fabs(s.alpha1) * ein + 64 * kU * ao; break;
          case CUDNN_POINTWISE_MAX: err = std::fabs(a_chain) * ein + 2 * kU * ao; break;
          case CUDNN_POINTWISE_MUL: err = std::fabs(xa * xb / (in == 0 ? 1 : in)) * ein + 4 * kU * ao; break;
          default: err = lipschitz(s) * std::fabs(s.alpha1) * ein + 64 * kU * (ao + std::fabs(xa)); break;
        }
        if (s.mode == CUDNN_POINTWISE_MUL && in == 0) err = std::fabs(s.alpha1 * s.alpha2 * o) * ein + 4 * kU * ao;
        if (!last) err += unit_roundoff(c.virtual_type) * ao;
        if (std::isnan(err)) err = 0;  // a NaN input mapped to a number (RELU without NaN propagation)
        v[j] = out, e[j] = err;
        ++j;
      });
    }
    g.out = make_tensor(c.out, cd, c.out_strides.empty() ? packed(cd) : c.out_strides);
    g.want.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) g.want[i] = {v[i], 2 * e[i] + 1e-30};
    return g;
  }

  // Runs one engine config; returns its engine's name.
  std::string run_config(Graph &g, Desc &cfg) {
    std::unique_ptr<Desc> plan = finalized_plan(handle, cfg.d);
    if (!plan) return "?";
    const std::string engine = plan_engine_name(*plan);
    SCOPED_TRACE("engine " + engine);
    std::vector<Buffer> buffers;
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      buffers.push_back(upload(g.inputs[i]));
      uids.push_back(g.uids[i]);
      ptrs.push_back(buffers.back().get());
    }
    for (size_t i = 0; i < g.by_value.size(); ++i) {
      uids.push_back(g.by_value_uids[i]);
      ptrs.push_back(&g.by_value[i]);
    }
    poison(g.out);
    const HostTensor before = g.out;
    buffers.push_back(upload(g.out));
    uids.push_back(3);
    ptrs.push_back(buffers.back().get());
    const cudnnStatus_t st = execute(*plan, uids, ptrs);
    if (st != CUDNN_STATUS_SUCCESS) {
      ADD_FAILURE() << "execute: " << st << " " << last_error();
      return engine;
    }
    download(buffers.back(), g.out);
    EXPECT_TRUE(matches(g.out, g.want));
    EXPECT_TRUE(gaps_untouched(g.out, before));
    return engine;
  }

  // The engine behind a config (its plan's name), without running it.
  std::string engine_name(Desc &cfg) {
    std::unique_ptr<Desc> plan = finalized_plan(handle, cfg.d);
    return plan ? plan_engine_name(*plan) : "?";
  }

  void check(const Case &c, uint64_t seed) {
    SCOPED_TRACE(c.name() + " seed " + std::to_string(seed));
    Rng rng(seed);
    Graph g = build(c, rng);
    auto cfgs = engine_configs(handle, g.ops, CUDNN_HEUR_MODE_A);
    if (cfgs.empty()) {
      if (gpu_mode()) {
        std::cout << "[  SKIPPED ] no GPU engine for " << c.name() << "\n";
        return;
      }
      ADD_FAILURE() << "no engine runs the graph: " << last_error();
      return;
    }
    // The first config of mode A (the engine under test, or whichever takes
    // a refused chain) and the first of FALLBACK (op by op).
    std::vector<std::string> names;
    {
      SCOPED_TRACE("mode A config 0");
      names.push_back(run_config(g, *cfgs.front()));
    }
    auto fallback = engine_configs(handle, g.ops, CUDNN_HEUR_MODE_FALLBACK);
    EXPECT_FALSE(fallback.empty()) << "mode A offers engines but FALLBACK none";
    if (!fallback.empty()) {
      SCOPED_TRACE("mode FALLBACK config 0");
      names.push_back(run_config(g, *fallback.front()));
    }
    for (size_t i = 1; i < cfgs.size(); ++i) names.push_back(engine_name(*cfgs[i]));
    if (gpu_mode()) return;
    if (c.engine == Case::Engine::ours) {
      EXPECT_EQ(names.front(), kEngine) << "the first engine of mode A";
    } else if (c.engine == Case::Engine::not_ours) {
      for (const std::string &n : names)
        EXPECT_NE(n, kEngine) << "the oneDNN fused matmul took a graph it cannot run exactly";
    }
  }
};

// Steps with the backend descriptor's default NOT_PROPAGATE_NAN.
Step unary(cudnnPointwiseMode_t mode, double alpha1 = 1) {
  Step s;
  s.p.propagate_nan = false;
  s.mode = mode;
  s.alpha1 = alpha1;
  return s;
}
Step binary(cudnnPointwiseMode_t mode, Other other, bool chain_as_b = false, double alpha1 = 1, double alpha2 = 1) {
  Step s;
  s.p.propagate_nan = false;
  s.mode = mode, s.other = other, s.chain_as_b = chain_as_b, s.alpha1 = alpha1, s.alpha2 = alpha2;
  return s;
}

// matmul + bias[.., 1, N] + every activation the engine maps.
TEST_F(BackendMatmulPostops, BiasAndEachActivation) {
  const cudnnPointwiseMode_t acts[] = {CUDNN_POINTWISE_GELU_FWD,     CUDNN_POINTWISE_GELU_APPROX_TANH_FWD,
                                       CUDNN_POINTWISE_RELU_FWD,     CUDNN_POINTWISE_TANH_FWD,
                                       CUDNN_POINTWISE_SIGMOID_FWD,  CUDNN_POINTWISE_SWISH_FWD,
                                       CUDNN_POINTWISE_ELU_FWD,      CUDNN_POINTWISE_SOFTPLUS_FWD,
                                       CUDNN_POINTWISE_IDENTITY};
  Rng rng(test_seed(501));
  for (cudnnPointwiseMode_t act : acts) {
    Case c;
    c.m = rng.integer(1, 9), c.k = rng.integer(1, 20), c.n = rng.integer(1, 12);
    Step s = unary(act);
    if (act == CUDNN_POINTWISE_SWISH_FWD) s.p.swish_beta = 1.5;
    if (act == CUDNN_POINTWISE_ELU_FWD) s.p.elu_alpha = 0.75;
    c.steps = {binary(CUDNN_POINTWISE_ADD, Other::row), s};
    check(c, rng.next());
  }
}

// RELU's forms that oneDNN has exactly: a slope (NaN propagated), clips (NaN to the lower clip).
TEST_F(BackendMatmulPostops, ReluForms) {
  Rng rng(test_seed(502));
  for (int form = 0; form < 3; ++form) {
    Case c;
    Step s = unary(CUDNN_POINTWISE_RELU_FWD);
    if (form == 0) s.p.relu_lower_clip_slope = 0.125, s.p.propagate_nan = true;  // leaky: NaN stays NaN
    if (form == 1) s.p.relu_lower_clip = -0.25, s.p.relu_upper_clip = 0.75;
    if (form == 2) s.p.relu_upper_clip = 0.5;
    c.steps = {binary(CUDNN_POINTWISE_ADD, Other::full), s};
    check(c, rng.next());
  }
}

// Scales (tensor, [1..1], by value; alphas), column bias, SUB, the chain as
// the right operand of ADD / MUL, long chains, alpha1 of an activation.
TEST_F(BackendMatmulPostops, ScalesAndChains) {
  Rng rng(test_seed(503));
  const std::vector<std::vector<Step>> chains = {
      {binary(CUDNN_POINTWISE_MUL, Other::row), binary(CUDNN_POINTWISE_ADD, Other::row),
       unary(CUDNN_POINTWISE_GELU_FWD)},
      {binary(CUDNN_POINTWISE_MUL, Other::scalar), binary(CUDNN_POINTWISE_ADD, Other::column, true),
       unary(CUDNN_POINTWISE_TANH_FWD)},
      {binary(CUDNN_POINTWISE_MUL, Other::by_value, true), binary(CUDNN_POINTWISE_ADD, Other::row),
       unary(CUDNN_POINTWISE_RELU_FWD)},
      {binary(CUDNN_POINTWISE_ADD, Other::row, false, 0.5), binary(CUDNN_POINTWISE_MUL, Other::full, false, 2, 0.25),
       unary(CUDNN_POINTWISE_SIGMOID_FWD)},
      {binary(CUDNN_POINTWISE_MUL, Other::full, true, 2, 0.75), binary(CUDNN_POINTWISE_ADD, Other::row),
       unary(CUDNN_POINTWISE_ELU_FWD, 1.5)},
      {binary(CUDNN_POINTWISE_SUB, Other::full), unary(CUDNN_POINTWISE_SWISH_FWD)},
      {binary(CUDNN_POINTWISE_ADD, Other::row, true)},
      {unary(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, 0.5)},
  };
  for (const auto &ch : chains) {
    Case c;
    c.steps = ch;
    check(c, rng.next());
  }
}

// Random shapes, batch ranks and broadcasts, row- / column-major operands,
// outputs with gaps between rows and matrices.
TEST_F(BackendMatmulPostops, RandomShapesLayoutsAndBroadcasts) {
  Rng rng(test_seed(504));
  const cudnnPointwiseMode_t acts[] = {CUDNN_POINTWISE_GELU_FWD, CUDNN_POINTWISE_RELU_FWD, CUDNN_POINTWISE_TANH_FWD,
                                       CUDNN_POINTWISE_SWISH_FWD};
  for (int i = 0; i < 8; ++i) {
    Case c;
    const int batch_rank = static_cast<int>(rng.integer(1, 2));
    c.a_batch.assign(batch_rank, 1), c.b_batch.assign(batch_rank, 1);
    for (int d = 0; d < batch_rank; ++d) {
      const int64_t e = rng.integer(1, 3);
      const int64_t which = rng.integer(0, 2);  // 0: both, 1: a only, 2: b only
      c.a_batch[d] = which == 2 ? 1 : e;
      c.b_batch[d] = which == 1 ? 1 : e;
    }
    c.m = rng.integer(1, 17), c.k = rng.integer(1, 33), c.n = rng.integer(1, 17);
    c.a_col_major = rng.coin(), c.b_col_major = rng.coin();
    std::vector<int64_t> cd = c_batch(c);
    cd.push_back(c.m), cd.push_back(c.n);
    if (i % 2 == 1) {  // row-major with gaps after each row and each matrix: oneDNN writes it in place
      c.out_strides.assign(cd.size(), 1);
      c.out_strides[cd.size() - 2] = c.n + rng.integer(1, 5);
      for (int d = static_cast<int>(cd.size()) - 3; d >= 0; --d)
        c.out_strides[d] = c.out_strides[d + 1] * cd[d + 1] + rng.integer(0, 3);
    }

    // A full-size addend in another layout than the output leaves oneDNN
    // only its reference kernel: padded outputs get a bias row.
    const bool full = i % 2 == 0 && rng.coin();
    c.steps = {binary(CUDNN_POINTWISE_ADD, full ? Other::full : Other::row), unary(acts[i % 4])};
    check(c, rng.next());
  }
}

// bfloat16 and half operands and outputs with float math, on whichever
// engine takes them (whether oneDNN has a JIT kernel for them depends on
// the CPU).
TEST_F(BackendMatmulPostops, Bfloat16AndHalf) {
  Rng rng(test_seed(505));
  for (cudnnDataType_t t : {CUDNN_DATA_BFLOAT16, CUDNN_DATA_HALF}) {
    for (cudnnDataType_t out : {t, CUDNN_DATA_FLOAT}) {
      Case c;
      c.io = t, c.out = out;
      c.b_batch = {1};
      c.b_col_major = true;
      c.steps = {binary(CUDNN_POINTWISE_ADD, Other::row), unary(CUDNN_POINTWISE_GELU_FWD)};
      c.engine = Case::Engine::either;  // whether oneDNN has a JIT kernel depends on the CPU
      check(c, rng.next());
    }
  }
}

// NaN from the matmul through each activation: RELU without NaN
// propagation (the descriptor's default) gives its lower clip, the others NaN.
TEST_F(BackendMatmulPostops, NanThroughActivations) {
  Rng rng(test_seed(507));
  const cudnnPointwiseMode_t acts[] = {CUDNN_POINTWISE_RELU_FWD, CUDNN_POINTWISE_GELU_FWD, CUDNN_POINTWISE_TANH_FWD,
                                       CUDNN_POINTWISE_SIGMOID_FWD, CUDNN_POINTWISE_SWISH_FWD, CUDNN_POINTWISE_ELU_FWD,
                                       CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, CUDNN_POINTWISE_SOFTPLUS_FWD};
  for (int i = 0; i < 10; ++i) {
    Case c;
    c.nan_in_a = true;
    Step s = unary(i < 8 ? acts[i] : CUDNN_POINTWISE_RELU_FWD);
    if (i == 8) s.p.relu_lower_clip = -0.5, s.p.relu_upper_clip = 2;  // clip
    if (i == 9) s.p.relu_lower_clip_slope = 0.25, s.p.propagate_nan = true;
    c.steps = {binary(CUDNN_POINTWISE_ADD, Other::row), s};
    check(c, rng.next());
  }
}

// Chains oneDNN's post-ops cannot express exactly: refused by the engine,
// run by another one.
TEST_F(BackendMatmulPostops, RefusedChainsRunElsewhere) {
  Rng rng(test_seed(506));
  std::vector<Case> cases;
  auto add = [&](std::vector<Step> steps) {
    Case c;
    c.steps = std::move(steps);
    c.engine = Case::Engine::not_ours;
    cases.push_back(c);
  };
  Step softplus = unary(CUDNN_POINTWISE_SOFTPLUS_FWD);
  softplus.p.softplus_beta = 2;
  add({binary(CUDNN_POINTWISE_ADD, Other::row), softplus});
  Step leaky_clip = unary(CUDNN_POINTWISE_RELU_FWD);
  leaky_clip.p.relu_lower_clip = 0.25, leaky_clip.p.relu_lower_clip_slope = 0.5;
  add({binary(CUDNN_POINTWISE_ADD, Other::row), leaky_clip});
  Step leaky_no_nan = unary(CUDNN_POINTWISE_RELU_FWD);  // NOT_PROPAGATE: NaN would become 0, oneDNN keeps NaN
  leaky_no_nan.p.relu_lower_clip_slope = 0.25;
  add({binary(CUDNN_POINTWISE_ADD, Other::row), leaky_no_nan});
  Step clip_nan = unary(CUDNN_POINTWISE_RELU_FWD);  // PROPAGATE: oneDNN's relu gives 0 for NaN
  clip_nan.p.propagate_nan = true;
  add({binary(CUDNN_POINTWISE_ADD, Other::row), clip_nan});
  Step leaky_upper = unary(CUDNN_POINTWISE_RELU_FWD);
  leaky_upper.p.relu_lower_clip_slope = 0.25, leaky_upper.p.relu_upper_clip = 1, leaky_upper.p.propagate_nan = true;
  add({binary(CUDNN_POINTWISE_ADD, Other::row), leaky_upper});
  add({binary(CUDNN_POINTWISE_ADD, Other::row, false, 1, 2)});               // scaled bias
  add({binary(CUDNN_POINTWISE_SUB, Other::row, true)});                       // t - c
  add({binary(CUDNN_POINTWISE_ADD, Other::row), unary(CUDNN_POINTWISE_EXP)});  // no post-op
  add({binary(CUDNN_POINTWISE_MAX, Other::full)});
  // Two different scales of the chain value: oneDNN 2.6 would apply the
  // first linear post-op's factor to both.
  add({binary(CUDNN_POINTWISE_ADD, Other::row, false, 0.5), binary(CUDNN_POINTWISE_MUL, Other::full, false, 2, 0.75),
       unary(CUDNN_POINTWISE_SIGMOID_FWD, 1.5)});
  cases.push_back(cases.front());  // half virtual intermediates
  cases.back().steps = {binary(CUDNN_POINTWISE_ADD, Other::row), unary(CUDNN_POINTWISE_GELU_FWD)};
  cases.back().virtual_type = CUDNN_DATA_HALF;
  cases.push_back(cases.back());  // divisor batch broadcast (a batch 2 against c's 4)
  cases.back().virtual_type = CUDNN_DATA_FLOAT;
  cases.back().a_batch = {2}, cases.back().b_batch = {4};
  for (const Case &c : cases) check(c, rng.next());
}

}  // namespace
}  // namespace fdnn_test
