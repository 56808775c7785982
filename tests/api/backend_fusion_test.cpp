// Fusion graphs through the backend API (tests/common/backend_fusion.hpp):
// every engine config heuristics mode A offers for a graph runs it, and so
// does the first config of mode FALLBACK (the op-by-op engine); each real
// output (NaN-poisoned first) is compared with the float64 expectation built
// alongside the graph.
//
// The engine behind a config is read from its plan's JSON representation
// ("engine": name). On a CPU handle the first engine mode A offers for the
// fusable graphs must be a CPU fusion engine (cpu.fusion.runtime, or
// cpu.fusion.matmul.onednn for matmul + bias + GELU), and the graphs it should refuse
// (two convolutions in a row, a reduction feeding a pointwise op) must not be
// offered to it. On a GPU handle any engine
// offered must compute right; offering none is fine.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "common/backend_fusion.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

constexpr const char *kFusedEngine = "cpu.fusion.";  // a prefix
constexpr const char *kOpByOpEngine = "cpu.graph.sequential";

class BackendFusion : public BackendGraphTest {
 public:
  // Makes the plan of cfg, runs it on fresh copies of the inputs and poisoned
  // outputs, and compares every output. Returns the engine's name.
  std::string run_config(FusionGraph &fg, Desc &cfg) {
    std::unique_ptr<Desc> owned = finalized_plan(handle, cfg.d);
    if (!owned) return "?";
    Desc &plan = *owned;
    const std::string engine = plan_engine_name(plan);
    SCOPED_TRACE("engine " + engine);
    std::vector<Buffer> buffers;
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (FusionTensor &t : fg.tensors) {
      if (t.output) poison(t.data);
      buffers.push_back(upload(t.data));
      uids.push_back(t.uid);
      ptrs.push_back(buffers.back().get());
    }
    const cudnnStatus_t st = execute(plan, uids, ptrs);
    if (st != CUDNN_STATUS_SUCCESS) {
      ADD_FAILURE() << "execute: " << st << " " << last_error();
      return engine;
    }
    for (size_t i = 0; i < fg.tensors.size(); ++i) {
      FusionTensor &t = fg.tensors[i];
      if (!t.output) continue;
      download(buffers[i], t.data);
      EXPECT_TRUE(matches(t.data, t.want)) << "output " << t.name;
    }
    return engine;
  }

  // Runs the graph of c on every engine heuristics offer. Returns the number
  // of engine configs mode A offered (0: skipped).
  size_t check(const FusionConfig &c, uint64_t seed) {
    SCOPED_TRACE(c.name() + " seed " + std::to_string(seed));
    Rng rng(seed);
    FusionGraph fg = build_fusion_graph(c, rng);
    auto cfgs = engine_configs(handle, fg.ops, CUDNN_HEUR_MODE_A);
    if (cfgs.empty()) {
      // GPU fusion is later work; half/bfloat16 graphs may have no engine
      // (the anchor's engines decide). Say so rather than fail.
      const std::string why = last_error();
      if (gpu_mode() || c.io_type != CUDNN_DATA_FLOAT) {
        std::cout << "[  SKIPPED ] no engine for " << c.name() << (why.empty() ? "" : ": " + why) << "\n";
        return 0;
      }
      ADD_FAILURE() << "no engine runs the graph: " << why;
      return 0;
    }
    std::vector<std::string> names;
    for (size_t e = 0; e < cfgs.size(); ++e) {
      SCOPED_TRACE(testing::Message() << "mode A config " << e << " of " << cfgs.size());
      names.push_back(run_config(fg, *cfgs[e]));
    }
    auto fallback = engine_configs(handle, fg.ops, CUDNN_HEUR_MODE_FALLBACK);
    EXPECT_FALSE(fallback.empty()) << "mode A offers engines but FALLBACK none";
    std::string fallback_first;
    if (!fallback.empty()) {
      SCOPED_TRACE("mode FALLBACK config 0");
      fallback_first = run_config(fg, *fallback[0]);
    }
    if (!gpu_mode()) {
      EXPECT_EQ(fallback_first, kOpByOpEngine) << "FALLBACK offers the op-by-op engine first";
      if (fg.fusable) {
        EXPECT_EQ(names.front().rfind(kFusedEngine, 0), 0u)
            << "the first engine of mode A is " << names.front() << ", not the fused one";
      } else {
        for (const std::string &n : names)
          EXPECT_NE(n.rfind(kFusedEngine, 0), 0u) << "the fused engine took a graph it should not";
      }
    }
    return cfgs.size();
  }

  // Random shapes: `rounds` problems of the pattern (plus overrides by f).
  template <class F>
  void check_random(FusionPattern p, int rounds, uint64_t seed, F &&override) {
    Rng rng(test_seed(seed));
    for (int i = 0; i < rounds; ++i) {
      FusionConfig c = random_fusion_config(p, rng);
      override(c, i);
      check(c, rng.next());
    }
  }
  void check_random(FusionPattern p, int rounds, uint64_t seed) {
    check_random(p, rounds, seed, [](FusionConfig &, int) {});
  }
};

TEST_F(BackendFusion, ConvBiasAct) {
  check_random(FusionPattern::conv_bias_act, 4, 101, [](FusionConfig &c, int i) { c.nhwc = i % 2 == 0; });
}

TEST_F(BackendFusion, ConvBiasActHalfAndBfloat16) {
  check_random(FusionPattern::conv_bias_act, 2, 102, [](FusionConfig &c, int i) {
    c.io_type = i == 0 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
  });
}

TEST_F(BackendFusion, ConvScaleBiasAct) {
  const cudnnPointwiseMode_t acts[] = {CUDNN_POINTWISE_RELU_FWD, CUDNN_POINTWISE_GELU_FWD, CUDNN_POINTWISE_TANH_FWD,
                                       CUDNN_POINTWISE_SIGMOID_FWD, CUDNN_POINTWISE_SWISH_FWD};
  check_random(FusionPattern::conv_scale_bias_act, 5, 103, [&](FusionConfig &c, int i) { c.act = acts[i]; });
}

TEST_F(BackendFusion, ConvScaleBiasActHalfAndBfloat16) {
  check_random(FusionPattern::conv_scale_bias_act, 2, 104, [](FusionConfig &c, int i) {
    c.io_type = i == 0 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    c.act = CUDNN_POINTWISE_GELU_FWD;
  });
}

// Half virtual tensors between the ops: an engine may keep the values in
// float or store them as half; the expectation allows either.
TEST_F(BackendFusion, HalfVirtualTensors) {
  check_random(FusionPattern::conv_scale_bias_act, 2, 116, [](FusionConfig &c, int i) {
    c.io_type = CUDNN_DATA_HALF;
    c.virtual_type = CUDNN_DATA_HALF;
    c.act = i == 0 ? CUDNN_POINTWISE_RELU_FWD : CUDNN_POINTWISE_SWISH_FWD;
  });
}

TEST_F(BackendFusion, ConvBNfprop) { check_random(FusionPattern::conv_bn_fprop, 3, 105); }

TEST_F(BackendFusion, DBARCS) { check_random(FusionPattern::dbarcs, 3, 106); }

TEST_F(BackendFusion, ConvBNwgrad) { check_random(FusionPattern::conv_bn_wgrad, 3, 107); }

TEST_F(BackendFusion, DgradDrelu) { check_random(FusionPattern::dgrad_drelu, 3, 108); }

TEST_F(BackendFusion, MatmulBiasGelu) {
  check_random(FusionPattern::matmul_bias_gelu, 6, 109, [](FusionConfig &c, int i) {
    c.broadcast_b = i == 1 || i == 5;
    c.pre_output = i == 2 || i == 5;
    c.a_prologue = i == 3 || i == 5;
    c.row_sum = i == 4 || i == 5;
  });
}

TEST_F(BackendFusion, MatmulBiasGeluHalfAndBfloat16) {
  check_random(FusionPattern::matmul_bias_gelu, 4, 110, [](FusionConfig &c, int i) {
    c.io_type = i % 2 == 0 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    c.pre_output = i >= 2;
    c.row_sum = i >= 2;
    c.broadcast_b = i == 3;
  });
}

TEST_F(BackendFusion, DBNApply) { check_random(FusionPattern::dbn_apply, 3, 111); }

TEST_F(BackendFusion, PointwiseAndReduction) { check_random(FusionPattern::pointwise_reduction, 3, 112); }

// Graphs outside the fusion engine's shapes still run op by op.
TEST_F(BackendFusion, NotFusableGraphsRunOpByOp) {
  check_random(FusionPattern::two_convs, 2, 113);
  check_random(FusionPattern::reduction_then_pointwise, 2, 114);
}

// A variant pack without one of the graph's real tensors (a real
// intermediate, relu_y of DBARCS) is refused, whichever engine runs it.
TEST_F(BackendFusion, MissingRealIntermediateIsRefused) {
  Rng rng(115);
  FusionConfig c = random_fusion_config(FusionPattern::dbarcs, rng);
  FusionGraph fg = build_fusion_graph(c, rng);
  auto cfgs = engine_configs(handle, fg.ops, CUDNN_HEUR_MODE_A);
  if (cfgs.empty()) GTEST_SKIP() << "no engine for the graph";
  Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  ASSERT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfgs[0]->d),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(plan.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  std::vector<Buffer> buffers;
  std::vector<int64_t> uids;
  std::vector<void *> ptrs;
  for (FusionTensor &t : fg.tensors) {
    if (t.name == "relu_y") continue;
    buffers.push_back(upload(t.data));
    uids.push_back(t.uid);
    ptrs.push_back(buffers.back().get());
  }
  EXPECT_NE(execute(plan, uids, ptrs), CUDNN_STATUS_SUCCESS);
  EXPECT_NE(last_error(), "");
}

}  // namespace
}  // namespace fdnn_test
