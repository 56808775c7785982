// Scaled dot-product attention forward through the backend API, as the
// composite graph cudnn-frontend builds (tests/common/backend_sdpa.hpp):
// every engine configuration heuristics offer for the graph (on the CPU the
// fused flash-attention engine first, then the op-by-op engine) runs it, and
// O and the softmax stats are compared with a float64 attention computed from
// the formula (sdpa_reference, tests/common/backend_sdpa.cpp).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/backend_sdpa.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

class BackendSdpa : public BackendGraphTest {
 public:
  // Runs the graph of c on every engine heuristics offer and checks O (and
  // stats). Returns the number of engines that ran it.
  size_t check(const SdpaConfig &c, uint64_t seed) {
    SCOPED_TRACE(c.name());
    SdpaGraph sg = build_sdpa_graph(c);
    Rng rng(seed);
    SdpaData data = make_sdpa_data(c, rng);
    const SdpaExpect want = sdpa_reference(c, data);
    auto cfgs = engine_configs(handle, sg.ops);
    // On a GPU, no engine is acceptable (GPU attention is later work); an
    // engine that does take the graph must compute it right.
    if (gpu_mode() && cfgs.empty()) return 0;
    EXPECT_GE(cfgs.size(), 1u) << "no engine runs the SDPA graph";
    const size_t score_bytes = static_cast<size_t>(c.b * c.h * c.s_q * c.s_kv) * sizeof(float);
    if (!gpu_mode() && c.p_scale == 1.0) {
      // The fused engine ranks first and needs no s_q x s_kv workspace; the
      // op-by-op engine follows.
      EXPECT_EQ(cfgs.size(), 2u);
      if (!cfgs.empty()) EXPECT_LT(static_cast<size_t>(config_workspace(*cfgs[0])), score_bytes);
    } else if (!gpu_mode()) {
      // Not the fused pattern: the op-by-op engine alone.
      EXPECT_EQ(cfgs.size(), 1u);
      if (!cfgs.empty()) EXPECT_GE(static_cast<size_t>(config_workspace(*cfgs[0])), score_bytes);
    }
    for (size_t e = 0; e < cfgs.size(); ++e) {
      SCOPED_TRACE(testing::Message() << "engine config " << e << " of " << cfgs.size());
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfgs[e]->d);
      if (!owned) continue;
      Desc &plan = *owned;
      poison(data.o);
      poison(data.stats);
      Buffer q = upload(data.q), k = upload(data.k), v = upload(data.v), o = upload(data.o),
             stats = upload(data.stats), scale = upload(data.scale), bias = upload(data.bias),
             seq_q = upload(data.seq_q), seq_kv = upload(data.seq_kv), slopes = upload(data.slopes);
      std::vector<int64_t> uids = {kSdpaQ, kSdpaK, kSdpaV, kSdpaO};
      std::vector<void *> ptrs = {q.get(), k.get(), v.get(), o.get()};
      auto add = [&](bool on, int64_t uid, void *p) {
        if (!on) return;
        uids.push_back(uid);
        ptrs.push_back(p);
      };
      add(c.stats, kSdpaStats, stats.get());
      add(!c.scale_by_value, kSdpaScale, scale.get());
      add(c.bias, kSdpaBias, bias.get());
      add(c.padding, kSdpaSeqQ, seq_q.get());
      add(c.padding, kSdpaSeqKv, seq_kv.get());
      add(c.alibi, kSdpaSlopes, slopes.get());
      for (auto &val : sg.values) add(true, val.uid, val.bytes);
      const cudnnStatus_t st = execute(plan, uids, ptrs);
      if (st != CUDNN_STATUS_SUCCESS) {
        ADD_FAILURE() << "execute: " << st << " " << last_error();
        continue;
      }
      download(o, data.o);
      // Compare in logical [b, h, s_q, d_v] order: the host tensor's values()
      // walk its dims row-major, which for the grouped rank-5 form is the same.
      EXPECT_TRUE(matches(data.o, want.o));
      if (c.stats) {
        download(stats, data.stats);
        EXPECT_TRUE(matches(data.stats, want.stats));
      }
    }
    return cfgs.size();
  }
};

TEST_F(BackendSdpa, PlainF32) {
  SdpaConfig c;
  c.b = 2, c.h = 3, c.h_kv = 3, c.s_q = 37, c.s_kv = 45, c.d = 16, c.d_v = 12;
  check(c, 1);
  c.bshd = true, c.scale_by_value = false, c.stats = true;
  check(c, 2);
}

TEST_F(BackendSdpa, Causal) {
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    SdpaConfig c;
    c.io_type = t;
    c.b = 1, c.h = 2, c.h_kv = 2, c.s_q = 70, c.s_kv = 70, c.d = 24, c.d_v = 24, c.causal = true, c.stats = true;
    c.bshd = t == CUDNN_DATA_HALF;
    check(c, 10 + t);
  }
  SdpaConfig c;
  c.b = 1, c.h = 1, c.h_kv = 1, c.s_q = 33, c.s_kv = 77, c.d = 8, c.d_v = 8, c.causal = true;
  c.causal_fill = std::numeric_limits<float>::lowest();
  check(c, 20);
}

TEST_F(BackendSdpa, PaddingMask) {
  SdpaConfig c;
  c.b = 3, c.h = 2, c.h_kv = 2, c.s_q = 40, c.s_kv = 52, c.d = 16, c.d_v = 16, c.padding = true, c.stats = true;
  check(c, 30);
  c.causal = true, c.io_type = CUDNN_DATA_BFLOAT16, c.bshd = true;
  check(c, 31);
}

// Long enough that the fused engine skips fully masked key blocks: causal
// blocks above the diagonal, padded keys, and padded query rows (whole rows
// masked with a finite fill, which the engine recomputes without skipping).
TEST_F(BackendSdpa, SkippedBlocks) {
  SdpaConfig c;
  c.b = 1, c.h = 1, c.h_kv = 1, c.s_q = 150, c.s_kv = 300, c.d = 8, c.d_v = 8, c.causal = true, c.stats = true;
  check(c, 80);
  c.causal = false, c.padding = true, c.seq_q = 100, c.seq_kv = 90;
  check(c, 81);
  c.causal = true, c.seq_kv = 200;
  check(c, 82);
}

// Graphs that are not the pattern (here the softmax output scaled before P V)
// are refused by the fused engine and still run op by op.
TEST_F(BackendSdpa, OtherGraphsRunOpByOp) {
  SdpaConfig c;
  c.b = 1, c.h = 2, c.h_kv = 2, c.s_q = 20, c.s_kv = 24, c.d = 8, c.d_v = 8, c.causal = true, c.p_scale = 0.5;
  check(c, 90);
}

TEST_F(BackendSdpa, SlidingWindow) {
  SdpaConfig c;
  c.b = 1, c.h = 2, c.h_kv = 2, c.s_q = 66, c.s_kv = 66, c.d = 16, c.d_v = 16, c.causal = true, c.window = 9;
  check(c, 40);
  c.causal = false, c.window = 20, c.s_q = 50, c.s_kv = 81, c.stats = true;
  check(c, 41);
}

TEST_F(BackendSdpa, Alibi) {
  SdpaConfig c;
  c.b = 2, c.h = 4, c.h_kv = 4, c.s_q = 30, c.s_kv = 30, c.d = 16, c.d_v = 16, c.alibi = true, c.causal = true;
  c.stats = true;
  check(c, 50);
}

TEST_F(BackendSdpa, BiasTensor) {
  SdpaConfig c;
  c.b = 2, c.h = 2, c.h_kv = 2, c.s_q = 21, c.s_kv = 67, c.d = 32, c.d_v = 8, c.bias = true;
  check(c, 60);
  c.io_type = CUDNN_DATA_HALF, c.stats = true, c.causal = true;
  check(c, 61);
}

TEST_F(BackendSdpa, GroupedAndMultiQuery) {
  SdpaConfig c;
  c.b = 2, c.h = 4, c.h_kv = 1, c.s_q = 25, c.s_kv = 40, c.d = 16, c.d_v = 16, c.causal = true, c.stats = true;
  check(c, 70);  // multi-query: K/V heads broadcast
  c.h = 6, c.h_kv = 2, c.bshd = true, c.io_type = CUDNN_DATA_BFLOAT16;
  check(c, 71);  // grouped-query, rank-5 form
  c.alibi = true, c.padding = true, c.bias = true, c.io_type = CUDNN_DATA_FLOAT;
  check(c, 72);
}

}  // namespace
}  // namespace fdnn_test
