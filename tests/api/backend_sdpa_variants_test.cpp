// Variants of scaled dot-product attention forward through the backend API
// (tests/common/backend_sdpa_variants.hpp): grouped-query heads in rank 4
// (matmul batch broadcast by a divisor), dropout from an RNG op or a mask
// tensor, paged K/V caches, and the FP8 graph with its scale / descale / amax
// tensors. Every engine configuration heuristics offer runs the graph (on the
// CPU the op-by-op engine; the fused engine too where the graph is its
// pattern) and the outputs are compared with the float64 reference. Also the
// matmul operation's divisor batch broadcast on its own, and its misuse.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "common/backend_sdpa_variants.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

class BackendSdpaVariants : public BackendGraphTest {
 public:
  // Runs ops on every engine config: tensors (uid -> host tensor) are
  // uploaded fresh for each, by-value scalars passed as host pointers, then
  // the outputs downloaded and check() called. Returns the engine count.
  size_t run_all(const std::vector<Desc *> &ops, const std::vector<std::pair<int64_t, HostTensor *>> &tensors,
                 const std::vector<SdpaVariantGraph::Value> &values, const std::vector<int64_t> &outputs,
                 const std::function<void()> &check) {
    auto cfgs = engine_configs(handle, ops);
    for (size_t e = 0; e < cfgs.size(); ++e) {
      SCOPED_TRACE(testing::Message() << "engine config " << e << " of " << cfgs.size());
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfgs[e]->d);
      if (!owned) continue;
      Desc &plan = *owned;
      engines.push_back(plan_engine_name(plan));
      std::vector<Buffer> bufs;
      std::vector<int64_t> uids;
      std::vector<void *> ptrs;
      for (auto &[uid, t] : tensors) {
        if (std::find(outputs.begin(), outputs.end(), uid) != outputs.end()) poison(*t);
        bufs.push_back(upload(*t));
        uids.push_back(uid);
        ptrs.push_back(bufs.back().get());
      }
      for (const auto &v : values) {
        uids.push_back(v.uid);
        ptrs.push_back(const_cast<unsigned char *>(v.bytes));
      }
      const cudnnStatus_t st = execute(plan, uids, ptrs);
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        continue;
      }
      for (size_t i = 0; i < tensors.size(); ++i)
        if (std::find(outputs.begin(), outputs.end(), tensors[i].first) != outputs.end())
          download(bufs[i], *tensors[i].second);
      check();
    }
    return cfgs.size();
  }

  // The engines run_all ran, in order.
  std::vector<std::string> engines;
  // O as each engine left it (check() fills it), and the reference.
  std::vector<HostTensor> outputs;
  SdpaVariantExpect expected;

  // check(), and on the CPU: the fused engine runs the graph first, then
  // the op-by-op engine, and their outputs agree within twice the
  // reference's tolerance (both are within it of the reference).
  void check_fused_first(const SdpaVariantConfig &c, uint64_t seed) {
    SCOPED_TRACE(c.name());
    check(c, seed);
    if (gpu_mode()) return;
    ASSERT_EQ(engines.size(), 2u);
    EXPECT_EQ(engines[0], "cpu.fusion.sdpa");
    EXPECT_EQ(engines[1], "cpu.graph.sequential");
    ASSERT_EQ(outputs.size(), 2u);
    std::vector<Expect> op_by_op;
    const std::vector<double> ref = outputs[1].values();
    for (size_t i = 0; i < ref.size(); ++i) op_by_op.push_back({ref[i], 2 * expected.o[i].tolerance});
    EXPECT_TRUE(matches(outputs[0], op_by_op)) << "fused vs op by op";
  }

  // Builds, runs and checks one attention variant; returns the engine count.
  size_t check(const SdpaVariantConfig &c, uint64_t seed) {
    engines.clear();
    outputs.clear();
    SCOPED_TRACE(c.name());
    SdpaVariantGraph g = build_sdpa_variant_graph(c);
    Rng rng(seed);
    SdpaVariantData data = make_sdpa_variant_data(c, rng);
    const SdpaVariantExpect want = sdpa_variant_reference(c, data);
    const auto tensors = sdpa_variant_tensors(c, data);
    expected = want;
    const size_t n = run_all(g.ops, tensors, g.values, {kVarO, kVarStats, kVarAmaxS, kVarAmaxO}, [&] {
      outputs.push_back(data.o);
      EXPECT_TRUE(matches(data.o, want.o));
      if (c.stats) EXPECT_TRUE(matches(data.stats, want.stats));
      if (c.fp8()) {
        EXPECT_TRUE(matches(data.amax_s, want.amax_s));
        EXPECT_TRUE(matches(data.amax_o, want.amax_o));
      }
    });
    if (!gpu_mode()) EXPECT_GE(n, 1u) << "no engine runs the graph";
    return n;
  }
};

// ---- The matmul operation's batch broadcast --------------------------------

struct MatmulCase {
  std::vector<int64_t> a_dims, b_dims, c_dims;
};

TEST_F(BackendSdpaVariants, MatmulDivisorBroadcast) {
  Rng rng(test_seed(501));
  const std::vector<MatmulCase> cases = {
      {{2, 6, 5, 7}, {2, 3, 7, 4}, {2, 6, 5, 4}},  // b's heads divide a's (GQA)
      {{2, 2, 5, 7}, {2, 6, 7, 4}, {2, 6, 5, 4}},  // a broadcast by a divisor
      {{1, 4, 3, 6}, {3, 2, 6, 5}, {3, 4, 3, 5}},  // extent 1 and a divisor together
      {{8, 9, 4}, {2, 4, 3}, {8, 9, 3}},           // rank 3
  };
  // (a and b type, c type): mixed inputs with a float c run on the BLAS
  // engine through float copies (half, bfloat16, FP8), as attention graphs
  // have them.
  const std::vector<std::pair<cudnnDataType_t, cudnnDataType_t>> types = {
      {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
      {CUDNN_DATA_HALF, CUDNN_DATA_HALF},      {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}, {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FLOAT},
      {CUDNN_DATA_FP8_E5M2, CUDNN_DATA_FLOAT}};
  // c row-major, or column-major (a transposed output, as attention
  // backward writes dV^T and dK^T: the BLAS engine computes C^T = B^T A^T).
  auto c_strides = [](const std::vector<int64_t> &d, bool column_major) {
    std::vector<int64_t> st = packed(d);
    if (!column_major) return st;
    const size_t r = d.size();
    st[r - 2] = 1;
    st[r - 1] = d[r - 2];
    return st;
  };
  for (const auto &[t, ct] : types) {
    for (const MatmulCase &mc : cases) {
     for (bool c_col : {false, true}) {
      SCOPED_TRACE(testing::Message() << type_name(t) << "->" << type_name(ct) << " a"
                                      << testing::PrintToString(mc.a_dims) << " b"
                                      << testing::PrintToString(mc.b_dims) << (c_col ? " c column-major" : ""));
      // Packed a where the BLAS engine reads it in place (float, double);
      // any strides where it is staged or the reference engine runs.
      const bool in_place = t == ct && t != CUDNN_DATA_HALF;
      HostTensor a = make_tensor(t, mc.a_dims, in_place ? packed(mc.a_dims) : random_strides(rng, mc.a_dims));
      HostTensor b = make_tensor(t, mc.b_dims, packed(mc.b_dims));
      HostTensor c = make_tensor(ct, mc.c_dims, c_strides(mc.c_dims, c_col));
      fill_random(a, rng, -2, 2);
      fill_random(b, rng, -2, 2);
      auto ad = tensor_desc(1, t, a.dims, a.strides), bd = tensor_desc(2, t, b.dims, b.strides),
           cd = tensor_desc(3, ct, c.dims, c.strides);
      Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
      EXPECT_EQ(mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
                        t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT),
                CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS);
      Desc op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, ad->d), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, bd->d), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd->d), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
      ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
      // Batch index i of c reads index i / (c / a) of a (0 for extent 1).
      std::vector<Expect> want;
      const int r = static_cast<int>(mc.c_dims.size());
      const int64_t k_extent = mc.a_dims[static_cast<size_t>(r - 1)];
      for_each_index(mc.c_dims, [&](const std::vector<int64_t> &ci) {
        std::vector<int64_t> ai = ci, bi = ci;
        for (int d = 0; d < r - 2; ++d) {
          ai[d] = ci[d] / (mc.c_dims[d] / mc.a_dims[d]);
          bi[d] = ci[d] / (mc.c_dims[d] / mc.b_dims[d]);
        }
        double s = 0, mag = 0;
        for (int64_t k = 0; k < k_extent; ++k) {
          ai[r - 1] = k, bi[r - 2] = k;
          const double p = a.get(ai) * b.get(bi);
          s += p, mag += std::fabs(p);
        }
        want.push_back({s, (k_extent + 2) * mag * (ct == CUDNN_DATA_DOUBLE ? 1e-15 : 1.0 / (1 << 22))});
      });
      const size_t n = run_all({&op}, {{1, &a}, {2, &b}, {3, &c}}, {}, {3}, [&] { EXPECT_TRUE(matches(c, want)); });
      // On the CPU the BLAS engine (float or double c) and the reference run it.
      if (!gpu_mode()) EXPECT_GE(n, ct == CUDNN_DATA_HALF ? 1u : 2u);
     }
    }
  }
}

// The finalize rule, probed against NVIDIA's libcudnn 9.19 on the host: per
// batch dim one of a's and b's extents divides the other and c's is the
// larger; anything else is BAD_PARAM.
TEST_F(BackendSdpaVariants, MatmulBatchRuleAtFinalize) {
  Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  EXPECT_EQ(mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS);
  auto finalize = [&](int64_t ah, int64_t bh, int64_t ch) {
    auto a = tensor_desc(1, CUDNN_DATA_FLOAT, {2, ah, 5, 7}, packed({2, ah, 5, 7}));
    auto b = tensor_desc(2, CUDNN_DATA_FLOAT, {2, bh, 7, 4}, packed({2, bh, 7, 4}));
    auto c = tensor_desc(3, CUDNN_DATA_FLOAT, {2, ch, 5, 4}, packed({2, ch, 5, 4}));
    Desc op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
    return op.finalize();
  };
  EXPECT_EQ(finalize(6, 3, 6), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize(2, 6, 6), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize(1, 6, 6), CUDNN_STATUS_SUCCESS);
  // 4 and 6 divide neither way; c not the larger of a and b (4, 12, 6 and 3).
  for (const auto &abc : std::vector<std::vector<int64_t>>{{6, 4, 6}, {4, 6, 12}, {6, 2, 4}, {6, 3, 12}, {3, 3, 6},
                                                           {6, 6, 3}}) {
    SCOPED_TRACE(testing::PrintToString(abc));
    EXPECT_FAILS_NAMING(finalize(abc[0], abc[1], abc[2]), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize",
                        "the larger of the two");
  }
}

// ---- Attention variants -----------------------------------------------------

TEST_F(BackendSdpaVariants, GroupedQueryRank4) {
  SdpaVariantConfig c;
  c.b = 2, c.h = 6, c.h_kv = 2, c.s_q = 19, c.s_kv = 27, c.d = 16, c.d_v = 8, c.causal = true, c.stats = true;
  // On the CPU the fused engine takes the rank-4 grouped form too; the
  // op-by-op engine follows.
  const size_t n = check(c, 1);
  if (!gpu_mode()) EXPECT_GE(n, 2u);
  c.io_type = CUDNN_DATA_BFLOAT16, c.bshd = true, c.h = 4, c.h_kv = 4, c.causal = false, c.padding = true;
  check(c, 2);
  c.io_type = CUDNN_DATA_HALF, c.h = 8, c.h_kv = 1, c.bshd = false;
  check(c, 3);
}

TEST_F(BackendSdpaVariants, DropoutFromRng) {
  SdpaVariantConfig c;
  c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 17, c.s_kv = 23, c.d = 8, c.d_v = 8, c.stats = true;
  c.dropout = SdpaDropout::rng, c.dropout_p = 0.3, c.seed = 987654321, c.offset = 7;
  check(c, 10);  // the op-by-op engine at least; any fused engine that takes it is checked too
  c.causal = true, c.h = 4, c.h_kv = 2, c.io_type = CUDNN_DATA_HALF, c.dropout_p = 0.1, c.offset = 1 << 20;
  c.seed_type = CUDNN_DATA_INT32, c.seed = 2000000011;
  check(c, 11);
}

TEST_F(BackendSdpaVariants, DropoutFromMaskTensor) {
  SdpaVariantConfig c;
  c.b = 1, c.h = 3, c.h_kv = 3, c.s_q = 20, c.s_kv = 31, c.d = 8, c.d_v = 12, c.causal = true;
  c.dropout = SdpaDropout::mask, c.dropout_p = 0.4;
  check(c, 20);
}

// Paged K/V: on the CPU the fused engine gathers the pages itself and comes
// first; its O agrees with the op-by-op engine's (which materialises K and
// V) within the reference's tolerance, and both with the reference.
TEST_F(BackendSdpaVariants, PagedKv) {
  auto check_paged = [&](const SdpaVariantConfig &c, uint64_t seed) { check_fused_first(c, seed); };
  SdpaVariantConfig c;
  c.b = 3, c.h = 2, c.h_kv = 2, c.s_q = 9, c.s_kv = 29, c.d = 8, c.d_v = 8, c.paged = true, c.block_size = 4;
  c.stats = true;
  check_paged(c, 30);
  c.h = 4, c.h_kv = 2, c.causal = true, c.block_size = 8, c.io_type = CUDNN_DATA_BFLOAT16, c.s_q = 29;
  check_paged(c, 31);
  // Decode: one query row against a long cache, multi-query heads.
  c = SdpaVariantConfig{};
  c.b = 3, c.h = 4, c.h_kv = 1, c.s_q = 1, c.s_kv = 300, c.d = 16, c.d_v = 16, c.paged = true, c.block_size = 16;
  c.io_type = CUDNN_DATA_HALF, c.stats = true;
  check_paged(c, 32);
}

// The FP8 graph: on the CPU the fused engine (two passes: FP8 rounding of
// the normalised P) first, then op by op.
TEST_F(BackendSdpaVariants, Fp8Forward) {
  for (cudnnDataType_t t : {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FP8_E5M2}) {
    SdpaVariantConfig c;
    c.io_type = t;
    c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 21, c.s_kv = 26, c.d = 16, c.d_v = 16, c.stats = true;
    check_fused_first(c, 40 + t);
    c.causal = true, c.bshd = true, c.h = 4, c.h_kv = 1;
    check_fused_first(c, 50 + t);
    // More than one block of rows and of keys, grouped heads.
    c.causal = t == CUDNN_DATA_FP8_E5M2, c.bshd = false, c.b = 1, c.h = 4, c.h_kv = 2, c.s_q = 70, c.s_kv = 150;
    c.stats = false;
    check_fused_first(c, 60 + t);
  }
  // FP8 K/V read from paged caches.
  SdpaVariantConfig c;
  c.io_type = CUDNN_DATA_FP8_E4M3, c.paged = true, c.block_size = 8, c.stats = true;
  c.b = 2, c.h = 4, c.h_kv = 2, c.s_q = 5, c.s_kv = 37, c.d = 16, c.d_v = 16;
  check_fused_first(c, 70);
}

// FP8 with dropout (the RNG op's mask and scale on P before its AMAX and FP8
// scale): fused first, op by op, and the float64 reference with the same
// Philox mask agree.
TEST_F(BackendSdpaVariants, Fp8ForwardDropout) {
  SdpaVariantConfig c;
  c.io_type = CUDNN_DATA_FP8_E4M3, c.dropout = SdpaDropout::rng, c.dropout_p = 0.2;
  c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 21, c.s_kv = 26, c.d = 16, c.d_v = 16, c.stats = true;
  check_fused_first(c, 80);
  c.io_type = CUDNN_DATA_FP8_E5M2, c.causal = true, c.bshd = true, c.h = 4, c.h_kv = 2, c.s_q = 70, c.s_kv = 90;
  c.dropout_p = 0.5, c.seed_type = CUDNN_DATA_INT32, c.stats = false;
  check_fused_first(c, 81);
}

}  // namespace
}  // namespace fdnn_test
