// Scaled dot-product attention backward through the backend API, as the
// graph cudnn-frontend's sdpa_backward builds (tests/common/backend_sdpa_bwd.hpp):
// every engine configuration heuristics offer (on a CPU handle the fused
// flash-attention backward engine first, then the op-by-op engine) runs it,
// and dQ, dK, dV (dBias, the softmax_sum and dQ_accum tensors) are compared
// with a float64 attention backward written from the formula; a finite
// difference of the float64 forward checks that formula itself.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/backend_sdpa_bwd.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

class BackendSdpaBwd : public BackendGraphTest {
 public:
  // The engine configs heuristics offer (mode A), best first, and their engines' names.
  std::vector<std::unique_ptr<Desc>> configs_and_names(const SdpaGraph &sg, std::vector<std::string> *names) {
    auto cfgs = engine_configs(handle, sg.ops);
    for (auto &cfg : cfgs) names->push_back(engine_name(cfg->d));
    return cfgs;
  }

  // The engine of cfg (through its plan's JSON).
  std::string engine_name(cudnnBackendDescriptor_t cfg) {
    Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg),
              CUDNN_STATUS_SUCCESS);
    if (plan.finalize() != CUDNN_STATUS_SUCCESS) return "?";
    return plan_engine_name(plan);
  }

  // Runs the backward graph of c on every engine heuristics offer and checks
  // the outputs. Fills *first_dq etc. with the first engine's results.
  // separate: Q^T, K and dO^T get copies of their own (else they alias Q,
  // K^T and dO, as the frontend's reshapes do).
  void check(const SdpaBwdConfig &c, uint64_t seed, SdpaBwdData *keep = nullptr, bool separate = false) {
    SCOPED_TRACE(c.name());
    SdpaGraph sg = build_sdpa_bwd_graph(c);
    Rng rng(seed);
    SdpaBwdData data = make_sdpa_bwd_data(c, rng);
    const SdpaBwdExpect want = sdpa_bwd_reference(c, data);
    std::vector<std::string> names;
    auto cfgs = configs_and_names(sg, &names);
    if (gpu_mode()) {
      // No GPU fused attention: the GPU runs it op by op or refuses.
      for (const std::string &n : names) EXPECT_NE(n, "cpu.fusion.sdpa_bwd");
      if (cfgs.empty()) return;
    } else {
      EXPECT_EQ(cfgs.size(), 2u) << "the fused engine and the op-by-op engine";
      if (names.size() == 2) {
        EXPECT_EQ(names[0], "cpu.fusion.sdpa_bwd");
        EXPECT_EQ(names[1], "cpu.graph.sequential");
      }
    }
    for (size_t e = 0; e < cfgs.size(); ++e) {
      SCOPED_TRACE(testing::Message() << "engine " << names[e]);
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfgs[e]->d);
      if (!owned) continue;
      Desc &plan = *owned;
      for (HostTensor *t : {&data.dq, &data.dk, &data.dv, &data.dbias, &data.softmax_sum, &data.dq_accum}) poison(*t);
      const HostTensor dq_before = data.dq, dk_before = data.dk, dv_before = data.dv;
      Buffer q = upload(data.f.q), k = upload(data.f.k), v = upload(data.f.v), o = upload(data.f.o),
             stats = upload(data.f.stats), scale = upload(data.f.scale), bias = upload(data.f.bias),
             seq_q = upload(data.f.seq_q), seq_kv = upload(data.f.seq_kv), slopes = upload(data.f.slopes),
             d_o = upload(data.d_o), dq = upload(data.dq), dk = upload(data.dk), dv = upload(data.dv),
             dbias = upload(data.dbias), ssum = upload(data.softmax_sum), acc = upload(data.dq_accum),
             q2 = upload(data.f.q), k2 = upload(data.f.k), d_o2 = upload(data.d_o), seed = upload(data.f.seed),
             offset = upload(data.f.offset);
      std::vector<int64_t> uids = {kSdpaQ, kSdpaK, kSdpaV, kSdpaO, kSdpaStats, kBwdDO, kBwdQT, kBwdKn,
                                   kBwdDOT, kBwdDQ, kBwdDK, kBwdDV, kBwdSoftmaxSum};
      std::vector<void *> ptrs = {q.get(), k.get(), v.get(), o.get(), stats.get(), d_o.get(),
                                  separate ? q2.get() : q.get(), separate ? k2.get() : k.get(),
                                  separate ? d_o2.get() : d_o.get(), dq.get(), dk.get(), dv.get(), ssum.get()};
      auto add = [&](bool on, int64_t uid, void *p) {
        if (!on) return;
        uids.push_back(uid);
        ptrs.push_back(p);
      };
      add(!c.dbias, kBwdDqAccum, acc.get());
      add(c.dbias, kBwdDBias, dbias.get());
      add(!c.f.scale_by_value, kSdpaScale, scale.get());
      add(c.f.bias, kSdpaBias, bias.get());
      add(c.f.padding, kSdpaSeqQ, seq_q.get());
      add(c.f.padding, kSdpaSeqKv, seq_kv.get());
      add(c.f.alibi, kSdpaSlopes, slopes.get());
      add(c.f.dropout > 0, kSdpaSeed, seed.get());
      add(c.f.dropout > 0, kSdpaOffset, offset.get());
      for (auto &val : sg.values) add(true, val.uid, val.bytes);
      const cudnnStatus_t st = execute(plan, uids, ptrs);
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        continue;
      }
      download(dq, data.dq);
      download(dk, data.dk);
      download(dv, data.dv);
      download(ssum, data.softmax_sum);
      EXPECT_TRUE(matches(data.dq, want.dq)) << "dQ";
      EXPECT_TRUE(matches(data.dk, want.dk)) << "dK";
      EXPECT_TRUE(matches(data.dv, want.dv)) << "dV";
      EXPECT_TRUE(matches(data.softmax_sum, want.softmax_sum)) << "softmax_sum";
      EXPECT_TRUE(gaps_untouched(data.dq, dq_before)) << "dQ";
      EXPECT_TRUE(gaps_untouched(data.dk, dk_before)) << "dK";
      EXPECT_TRUE(gaps_untouched(data.dv, dv_before)) << "dV";
      if (c.dbias) {
        download(dbias, data.dbias);
        EXPECT_TRUE(matches(data.dbias, want.dbias)) << "dBias";
      } else {
        download(acc, data.dq_accum);
        EXPECT_TRUE(matches(data.dq_accum, want.dq)) << "dQ_accum";
      }
      if (keep != nullptr && e == 0) *keep = data;
    }
  }
};

// The forward graph with dropout on every engine heuristics offer (fused
// first on the CPU): O per engine, checked against the float64 forward.
class BackendSdpaDropout : public BackendSdpaBwd {
 public:
  std::vector<HostTensor> forward(const SdpaConfig &c, SdpaData &data) {
    SCOPED_TRACE(c.name());
    SdpaGraph sg = build_sdpa_graph(c);
    const SdpaExpect want = sdpa_reference(c, data);
    std::vector<std::string> names;
    auto cfgs = configs_and_names(sg, &names);
    if (!gpu_mode()) {
      EXPECT_EQ(cfgs.size(), 2u);
      if (!names.empty()) EXPECT_EQ(names[0], "cpu.fusion.sdpa");
    }
    std::vector<HostTensor> out;
    for (size_t e = 0; e < cfgs.size(); ++e) {
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfgs[e]->d);
      if (!owned) continue;
      Desc &plan = *owned;
      poison(data.o);
      Buffer q = upload(data.q), k = upload(data.k), v = upload(data.v), o = upload(data.o),
             stats = upload(data.stats), seed = upload(data.seed), offset = upload(data.offset);
      std::vector<int64_t> uids = {kSdpaQ, kSdpaK, kSdpaV, kSdpaO, kSdpaSeed, kSdpaOffset};
      std::vector<void *> ptrs = {q.get(), k.get(), v.get(), o.get(), seed.get(), offset.get()};
      if (c.stats) uids.push_back(kSdpaStats), ptrs.push_back(stats.get());
      for (auto &val : sg.values) uids.push_back(val.uid), ptrs.push_back(val.bytes);
      const cudnnStatus_t st = execute(plan, uids, ptrs);
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        continue;
      }
      download(o, data.o);
      EXPECT_TRUE(matches(data.o, want.o)) << "engine config " << e;
      out.push_back(data.o);
    }
    return out;
  }
};

SdpaBwdConfig cfg(int64_t b, int64_t h, int64_t h_kv, int64_t s_q, int64_t s_kv, int64_t d, int64_t d_v) {
  SdpaBwdConfig c;
  c.f.b = b, c.f.h = h, c.f.h_kv = h_kv, c.f.s_q = s_q, c.f.s_kv = s_kv, c.f.d = d, c.f.d_v = d_v;
  return c;
}

TEST_F(BackendSdpaBwd, Plain) {
  SdpaBwdConfig c = cfg(2, 2, 2, 37, 45, 16, 12);
  check(c, 1);
  c.f.bshd = true, c.f.scale_by_value = false;
  check(c, 2);
  check(c, 3, nullptr, true);
  c.gapped = true, c.f.io_type = CUDNN_DATA_HALF;
  check(c, 4);
}

TEST_F(BackendSdpaBwd, CausalTypes) {
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    SdpaBwdConfig c = cfg(1, 2, 2, 70, 70, 24, 16);
    c.f.io_type = t, c.f.causal = true, c.f.bshd = t == CUDNN_DATA_HALF;
    check(c, 10 + t);
  }
  SdpaBwdConfig c = cfg(1, 1, 1, 33, 77, 8, 8);
  c.f.causal = true, c.f.causal_fill = std::numeric_limits<float>::lowest();
  check(c, 20);
}

TEST_F(BackendSdpaBwd, Padding) {
  SdpaBwdConfig c = cfg(3, 2, 2, 40, 52, 16, 16);
  c.f.padding = true;
  check(c, 30);
  c.f.causal = true, c.f.io_type = CUDNN_DATA_BFLOAT16, c.f.bshd = true;
  check(c, 31);
}

TEST_F(BackendSdpaBwd, SlidingWindow) {
  SdpaBwdConfig c = cfg(1, 2, 2, 66, 66, 16, 16);
  c.f.causal = true, c.f.window = 9;
  check(c, 40);
  c.f.causal = false, c.f.window = 20, c.f.s_q = 50, c.f.s_kv = 81;
  check(c, 41);
}

TEST_F(BackendSdpaBwd, Alibi) {
  SdpaBwdConfig c = cfg(2, 4, 4, 30, 30, 16, 16);
  c.f.alibi = true, c.f.causal = true;
  check(c, 50);
}

TEST_F(BackendSdpaBwd, BiasAndDBias) {
  SdpaBwdConfig c = cfg(2, 2, 2, 21, 67, 32, 8);
  c.f.bias = true;
  check(c, 60);
  c.dbias = true;
  check(c, 61);
  c.f.io_type = CUDNN_DATA_HALF, c.f.causal = true;
  check(c, 62);
}

TEST_F(BackendSdpaBwd, GroupedAndMultiQuery) {
  SdpaBwdConfig c = cfg(2, 4, 1, 25, 40, 16, 16);
  c.f.causal = true;
  check(c, 70);  // multi-query: dK, dV summed over all heads
  c.f.h = 6, c.f.h_kv = 2, c.f.bshd = true, c.f.io_type = CUDNN_DATA_BFLOAT16;
  check(c, 71);  // grouped-query, rank-5 form
  c.gapped = true;
  check(c, 73);  // dQ, dK, dV with gaps between rows and heads
  c.f.alibi = true, c.f.padding = true, c.f.bias = true, c.dbias = true, c.f.io_type = CUDNN_DATA_FLOAT;
  check(c, 72);
}

// cudnn-frontend's form of the transposes: Q^T, K, dO^T and V^T are RESHAPE
// views of Q, K^T, dO and V. The graph collapses them into strided views of
// the caller's tensors, so the fused engine still runs it first.
TEST_F(BackendSdpaBwd, FrontendReshapes) {
  SdpaBwdConfig c = cfg(2, 2, 2, 37, 45, 16, 12);
  c.reshapes = true;
  check(c, 80);
  c.f.causal = true, c.f.bshd = true, c.f.io_type = CUDNN_DATA_HALF;
  check(c, 81);
  c = cfg(1, 4, 2, 24, 24, 16, 16);  // square scores: the transposes keep their dims' extents
  c.reshapes = true, c.f.io_type = CUDNN_DATA_BFLOAT16;
  check(c, 82);
}

// cudnn-frontend's own products: dV = P^T dO and dK = dS^T Q with P^T and
// dS^T RESHAPE views (transposes) of the virtual P and dS, cast to the I/O
// type by the reshape; grouped heads in rank 4 summed by a grouped REDUCTION
// ([b, h, s_kv, d] into [b, h_kv, s_kv, d]). The fused engine reads the views
// as the transposes they are and runs first; op by op agrees.
TEST_F(BackendSdpaBwd, FrontendTransposesOfVirtualScores) {
  SdpaBwdConfig c = cfg(2, 2, 2, 37, 45, 16, 12);
  c.frontend = true;
  check(c, 90);
  c.reshapes = true, c.f.causal = true, c.f.bshd = true, c.f.io_type = CUDNN_DATA_HALF;
  check(c, 91);
  c.f.dropout = 0.2, c.f.seed = 5, c.f.bias = true, c.dbias = true, c.f.io_type = CUDNN_DATA_FLOAT;
  check(c, 92);
  c = cfg(2, 6, 2, 19, 23, 16, 8);  // grouped-query heads in rank 4
  c.frontend = true, c.reshapes = true, c.f.rank4_groups = true, c.f.io_type = CUDNN_DATA_BFLOAT16, c.f.causal = true;
  check(c, 93);
  c.f.h = 4, c.f.h_kv = 1, c.f.s_q = c.f.s_kv = 24, c.gapped = true;  // multi-query, square scores
  check(c, 94);
  c = cfg(1, 4, 2, 30, 41, 8, 8);
  c.frontend = true, c.f.rank4_groups = true, c.f.dropout = 0.5, c.f.padding = true, c.f.seed = 3;
  check(c, 95);
}

// Grouped-query heads in rank 4 with dO^T / Q^T products (the builder's other
// form): per-head dK^T / dV^T summed by a grouped REDUCTION, fused and op by op.
TEST_F(BackendSdpaBwd, GroupedRank4) {
  SdpaBwdConfig c = cfg(2, 6, 3, 21, 33, 16, 16);
  c.f.rank4_groups = true, c.f.causal = true;
  check(c, 96);
  c.f.bshd = true, c.f.io_type = CUDNN_DATA_HALF, c.gapped = true;
  check(c, 97);
}

// The float64 reference against central differences of the float64 forward
// L = sum(dO * O): dL/dQ, dL/dK, dL/dV; and the library's first engine
// against the same numbers.
TEST_F(BackendSdpaBwd, FiniteDifferences) {
  SdpaBwdConfig c = cfg(1, 2, 1, 5, 6, 4, 3);
  c.f.causal = true, c.f.bias = true, c.dbias = true;
  Rng rng(99);
  SdpaBwdData data = make_sdpa_bwd_data(c, rng);
  const SdpaBwdExpect want = sdpa_bwd_reference(c, data);
  SdpaBwdData got;
  check(c, 99, &got);
  auto fd = [&](HostTensor &t, const std::vector<int64_t> &idx) {
    const double x0 = t.get(idx);
    t.set(idx, x0 + 1.0 / 64);
    const double lp = sdpa_loss(c.f, data.f, data.d_o);
    const double xp = t.get(idx);
    t.set(idx, x0 - 1.0 / 64);
    const double lm = sdpa_loss(c.f, data.f, data.d_o);
    const double xm = t.get(idx);
    t.set(idx, x0);
    return (lp - lm) / (xp - xm);
  };
  for (int64_t i = 0; i < c.f.s_q; ++i)
    for (int64_t e = 0; e < c.f.d; ++e) {
      const double g = fd(data.f.q, {0, 1, i, e});
      const double r = want.dq[static_cast<size_t>(((1 * c.f.s_q) + i) * c.f.d + e)].value;
      EXPECT_NEAR(r, g, 2e-4 * (1 + std::fabs(g))) << "dQ " << i << "," << e;
      if (!got.dq.bytes.empty()) EXPECT_NEAR(got.dq.get({0, 1, i, e}), g, 1e-3 * (1 + std::fabs(g)));
    }
  for (int64_t j = 0; j < c.f.s_kv; ++j) {
    for (int64_t e = 0; e < c.f.d; ++e) {
      const double g = fd(data.f.k, {0, 0, j, e});
      EXPECT_NEAR(want.dk[static_cast<size_t>(j * c.f.d + e)].value, g, 2e-4 * (1 + std::fabs(g))) << "dK";
      if (!got.dk.bytes.empty()) EXPECT_NEAR(got.dk.get({0, 0, j, e}), g, 1e-3 * (1 + std::fabs(g)));
    }
    for (int64_t e = 0; e < c.f.d_v; ++e) {
      const double g = fd(data.f.v, {0, 0, j, e});
      EXPECT_NEAR(want.dv[static_cast<size_t>(j * c.f.d_v + e)].value, g, 2e-4 * (1 + std::fabs(g))) << "dV";
      if (!got.dv.bytes.empty()) EXPECT_NEAR(got.dv.get({0, 0, j, e}), g, 1e-3 * (1 + std::fabs(g)));
    }
  }
  for (int64_t i = 0; i < c.f.s_q; ++i)
    for (int64_t j = 0; j < c.f.s_kv; ++j) {
      const double g = fd(data.f.bias, {0, 1, i, j});
      EXPECT_NEAR(want.dbias[static_cast<size_t>((c.f.s_q + i) * c.f.s_kv + j)].value, g, 2e-4 * (1 + std::fabs(g)))
          << "dBias";
    }
}

// A graph the fused engine does not take (the dS scale is applied twice)
// runs op by op only.
TEST_F(BackendSdpaBwd, OtherGraphsNotFused) {
  SdpaBwdConfig c = cfg(1, 1, 1, 8, 8, 8, 8);
  SdpaGraph sg = build_sdpa_bwd_graph(c);
  // Drop the last op (dQ's IDENTITY): dQ_accum is then the graph's output
  // and dQ unused, which the fused engine still takes; instead drop dK's
  // matmul so that dS_io has no consumer.
  std::vector<std::string> names;
  std::vector<Desc *> ops = sg.ops;
  ops.erase(ops.end() - 3);  // MATMUL(Q^T, dS_io) -> dK^T
  SdpaGraph partial;
  partial.ops = ops;
  auto cfgs = configs_and_names(partial, &names);
  for (const std::string &n : names) EXPECT_NE(n, "cpu.fusion.sdpa_bwd");
}

TEST_F(BackendSdpaBwd, Dropout) {
  SdpaBwdConfig c = cfg(2, 2, 2, 70, 70, 16, 16);
  c.f.dropout = 0.2, c.f.seed = 77, c.f.offset = 5;
  check(c, 80);
  c.f.causal = true, c.f.bias = true, c.dbias = true, c.f.io_type = CUDNN_DATA_BFLOAT16;
  check(c, 81);
  c = cfg(1, 4, 2, 30, 41, 8, 8);
  c.f.dropout = 0.5, c.f.padding = true, c.f.seed = 3;
  check(c, 82);  // grouped-query
}

TEST_F(BackendSdpaBwd, DropoutFiniteDifferences) {
  SdpaBwdConfig c = cfg(1, 1, 1, 6, 5, 3, 4);
  c.f.dropout = 0.3, c.f.seed = 11;
  Rng rng(5);
  SdpaBwdData data = make_sdpa_bwd_data(c, rng);
  const SdpaBwdExpect want = sdpa_bwd_reference(c, data);
  for (int64_t j = 0; j < c.f.s_kv; ++j)
    for (int64_t e = 0; e < c.f.d; ++e) {
      const double x0 = data.f.k.get({0, 0, j, e});
      data.f.k.set({0, 0, j, e}, x0 + 1.0 / 64);
      const double lp = sdpa_loss(c.f, data.f, data.d_o), xp = data.f.k.get({0, 0, j, e});
      data.f.k.set({0, 0, j, e}, x0 - 1.0 / 64);
      const double lm = sdpa_loss(c.f, data.f, data.d_o), xm = data.f.k.get({0, 0, j, e});
      data.f.k.set({0, 0, j, e}, x0);
      const double g = (lp - lm) / (xp - xm);
      EXPECT_NEAR(want.dk[static_cast<size_t>(j * c.f.d + e)].value, g, 2e-4 * (1 + std::fabs(g)));
    }
  check(c, 5);
}

TEST_F(BackendSdpaDropout, Forward) {
  SdpaConfig c;
  c.b = 2, c.h = 3, c.h_kv = 3, c.s_q = 37, c.s_kv = 70, c.d = 16, c.d_v = 16, c.causal = true, c.stats = true;
  c.dropout = 0.25, c.seed = 9, c.offset = 3;
  Rng rng(1);
  SdpaData data = make_sdpa_data(c, rng);
  forward(c, data);
}

// The fused engine's mask equals the RNG op's (the op-by-op engine) and the
// independent Philox's, element for element: with Q = 0 the weights are
// 1 / s_kv, and with V the identity O[i, j] = M[i, j] / ((1 - p) s_kv).
TEST_F(BackendSdpaDropout, MaskElementForElement) {
  SdpaConfig c;
  c.b = 1, c.h = 2, c.h_kv = 2, c.s_q = 50, c.s_kv = 40, c.d = 8, c.d_v = 40;
  c.dropout = 0.4, c.seed = 0x123456789abcLL, c.offset = 17;
  Rng rng(2);
  SdpaData data = make_sdpa_data(c, rng);
  for_each_index(data.q.dims, [&](const std::vector<int64_t> &i) { data.q.set(i, 0.0); });
  for_each_index(data.v.dims, [&](const std::vector<int64_t> &i) { data.v.set(i, i[2] == i[3] ? 1.0 : 0.0); });
  const std::vector<HostTensor> outs = forward(c, data);
  const double unit = static_cast<float>(1.0 / (1.0 - c.dropout)) / static_cast<double>(c.s_kv);
  for (const HostTensor &o : outs) {
    int64_t bad = 0, kept = 0;
    for (int64_t h = 0; h < c.h; ++h)
      for (int64_t i = 0; i < c.s_q; ++i)
        for (int64_t j = 0; j < c.s_kv; ++j) {
          const int want = sdpa_keep(c, 0, h, i, j);
          kept += want;
          if (std::fabs(o.get({0, h, i, j}) - want * unit) > 1e-5 * unit) ++bad;
        }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(kept, c.h * c.s_q * c.s_kv * 4 / 10);  // about 60% kept
    EXPECT_LT(kept, c.h * c.s_q * c.s_kv * 8 / 10);
  }
}

}  // namespace
}  // namespace fdnn_test
