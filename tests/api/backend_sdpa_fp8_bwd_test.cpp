// FP8 scaled dot-product attention backward through the backend API, the
// graph cudnn-frontend's sdpa_fp8_backward node builds
// (tests/common/backend_sdpa_fp8_bwd.hpp): every engine configuration
// heuristics offer runs it (on the CPU the fused engine cpu.fusion.sdpa_bwd
// first, then the op-by-op engine), and dQ, dK, dV and the amax outputs are
// compared with the float64 reference, and the fused engine's with the
// op-by-op engine's.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/backend_sdpa_fp8_bwd.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

class BackendSdpaFp8Bwd : public BackendGraphTest {
 public:
  // Builds and runs the graph of c on every engine config; returns the count.
  size_t check(const SdpaFp8BwdConfig &c, uint64_t seed) {
    SCOPED_TRACE(c.name());
    SdpaGraph g = build_sdpa_fp8_bwd_graph(c);
    Rng rng(test_seed(seed));
    SdpaFp8BwdData data = make_sdpa_fp8_bwd_data(c, rng);
    const SdpaFp8BwdExpect want = sdpa_fp8_bwd_reference(c, data);
    SdpaFp8BwdTensors t;
    sdpa_fp8_bwd_tensors(c, data, t);
    const std::vector<int64_t> outputs = {kF8DQ, kF8DKt, kF8DVt, kF8AmaxDQ, kF8AmaxDK, kF8AmaxDV, kF8AmaxDP};
    auto cfgs = engine_configs(handle, g.ops);
    std::vector<std::string> names;
    std::vector<std::vector<HostTensor>> results;  // per engine: dQ, dK, dV
    for (size_t e = 0; e < cfgs.size(); ++e) {
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfgs[e]->d);
      if (!owned) continue;
      Desc &plan = *owned;
      names.push_back(plan_engine_name(plan));
      SCOPED_TRACE("engine " + names.back());
      std::vector<Buffer> bufs;
      std::vector<int64_t> uids;
      std::vector<void *> ptrs;
      for (auto &[uid, x] : t.list) {
        if (std::find(outputs.begin(), outputs.end(), uid) != outputs.end()) poison(*x);
        bufs.push_back(upload(*x));
        uids.push_back(uid);
        ptrs.push_back(bufs.back().get());
      }
      for (const auto &v : g.values) {
        uids.push_back(v.uid);
        ptrs.push_back(const_cast<unsigned char *>(v.bytes));
      }
      const cudnnStatus_t st = execute(plan, uids, ptrs);
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        continue;
      }
      for (size_t i = 0; i < t.list.size(); ++i)
        if (std::find(outputs.begin(), outputs.end(), t.list[i].first) != outputs.end())
          download(bufs[i], *t.list[i].second);
      EXPECT_TRUE(matches(data.dq, want.dq)) << "dQ";
      EXPECT_TRUE(matches(swap_last2_view(t.dkt), want.dk)) << "dK";
      EXPECT_TRUE(matches(swap_last2_view(t.dvt), want.dv)) << "dV";
      EXPECT_TRUE(matches(data.amax_dq, want.amax_dq)) << "amax dQ";
      EXPECT_TRUE(matches(data.amax_dk, want.amax_dk)) << "amax dK";
      EXPECT_TRUE(matches(data.amax_dv, want.amax_dv)) << "amax dV";
      EXPECT_TRUE(matches(data.amax_dp, want.amax_dp)) << "amax dP";
      results.push_back({data.dq, swap_last2_view(t.dkt), swap_last2_view(t.dvt)});
    }
    if (gpu_mode()) return cfgs.size();
    EXPECT_EQ(names, (std::vector<std::string>{"cpu.fusion.sdpa_bwd", "cpu.graph.sequential"}));
    if (results.size() == 2) {
      // Fused vs op by op: within twice the reference's tolerance.
      const std::vector<Expect> *tol[3] = {&want.dq, &want.dk, &want.dv};
      for (int k = 0; k < 3; ++k) {
        std::vector<Expect> other;
        const std::vector<double> v = results[1][static_cast<size_t>(k)].values();
        for (size_t i = 0; i < v.size(); ++i) other.push_back({v[i], 2 * (*tol[k])[i].tolerance});
        EXPECT_TRUE(matches(results[0][static_cast<size_t>(k)], other)) << "fused vs op by op, output " << k;
      }
    }
    return cfgs.size();
  }
};

TEST_F(BackendSdpaFp8Bwd, PlainAndCausal) {
  for (cudnnDataType_t type : {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FP8_E5M2}) {
    SdpaFp8BwdConfig c;
    c.io_type = type;
    c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 13, c.s_kv = 21, c.d = 16, c.d_v = 8;
    check(c, 600 + type);
    c.causal = true, c.bshd = true, c.s_q = 17, c.s_kv = 17, c.d_v = 16;
    check(c, 610 + type);
  }
}

TEST_F(BackendSdpaFp8Bwd, GroupedQuery) {
  for (cudnnDataType_t type : {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FP8_E5M2}) {
    SdpaFp8BwdConfig c;
    c.io_type = type;
    c.b = 1, c.h = 6, c.h_kv = 2, c.s_q = 11, c.s_kv = 19, c.d = 8, c.d_v = 16, c.causal = type == CUDNN_DATA_FP8_E4M3;
    check(c, 620 + type);
    c.h = 4, c.h_kv = 1, c.bshd = true, c.causal = !c.causal;  // multi-query
    check(c, 630 + type);
  }
}

// Several blocks of query rows and keys in the fused engine.
TEST_F(BackendSdpaFp8Bwd, SeveralBlocks) {
  SdpaFp8BwdConfig c;
  c.b = 1, c.h = 4, c.h_kv = 2, c.s_q = 70, c.s_kv = 150, c.d = 16, c.d_v = 8, c.causal = true;
  check(c, 640);
  c.io_type = CUDNN_DATA_FP8_E5M2, c.causal = false, c.h = 2, c.s_q = 130, c.s_kv = 67;
  check(c, 641);
}

// Dropout as cudnn-frontend's FP8 backward forms it (the RNG op's mask on P
// before its FP8 scale, the dropout scales on Dot and dS): fused first, op by
// op, and the float64 reference with the same Philox mask agree.
TEST_F(BackendSdpaFp8Bwd, Dropout) {
  SdpaFp8BwdConfig c;
  c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 13, c.s_kv = 21, c.d = 16, c.d_v = 8, c.dropout = 0.25;
  check(c, 650);
  c.io_type = CUDNN_DATA_FP8_E5M2, c.causal = true, c.bshd = true, c.h = 6, c.h_kv = 2, c.dropout = 0.5, c.seed = 1;
  check(c, 651);  // grouped-query
  c.b = 1, c.h = 4, c.h_kv = 1, c.s_q = 70, c.s_kv = 90, c.dropout = 0.1, c.offset = 1 << 20;
  check(c, 652);  // multi-query, several blocks
}

// cudnn-frontend's own products: P8^T and dS8^T RESHAPE views of the virtual
// FP8 scores feeding dV = P8^T dO and dK = dS8^T Q; the fused engine reads the
// views as transposes and runs first.
TEST_F(BackendSdpaFp8Bwd, FrontendTransposes) {
  SdpaFp8BwdConfig c;
  c.frontend = true;
  c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 13, c.s_kv = 21, c.d = 16, c.d_v = 8;
  check(c, 660);
  c.io_type = CUDNN_DATA_FP8_E5M2, c.causal = true, c.h = 6, c.h_kv = 2, c.dropout = 0.3;
  check(c, 661);  // grouped-query (rank 5), dropout
}

}  // namespace
}  // namespace fdnn_test
