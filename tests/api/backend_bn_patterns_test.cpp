// The graph guide's batch-norm patterns (BnAddRelu, DReluForkDBn,
// DgradDreluBNBwdWeight, dBNApply) and layer / RMS / instance norm graphs through the
// backend API (tests/common/backend_bn_patterns.hpp), compared with float64
// expectations built independently of the library.
//
// Each graph runs on every engine heuristics mode A offers. On a CPU handle
// the first must be the fused engine cpu.fusion.bn for the patterns
// (cpu.fusion.runtime for dBNApply, a pointwise DAG, as the guide says) and
// the fast cpu.normalization.rows for layer / RMS norm (cpu.normalization.instance
// for instance norm), and the op-by-op
// engine cpu.graph.sequential (for single operations the reference engine)
// must be among them. On a GPU handle whatever engine heuristics offer must
// compute right; offering none is fine (GPU fusion is later work).
#include "common/backend_bn_patterns.hpp"

#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

constexpr const char *kFused = "cpu.fusion.bn";
constexpr const char *kSequential = "cpu.graph.sequential";
constexpr const char *kRows = "cpu.normalization.rows";

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Every engine heuristics offer. On a CPU handle the first must be
// `want_first`, and the op-by-op engine (or, for a single operation, the
// library's reference engine) must be among them. On a GPU handle, with
// `gpu_first`, heuristics must offer a GPU engine whose name starts with it.
void check(const BnPatternConfig &c, uint64_t seed, const char *want_first, const char *gpu_first = nullptr) {
  SCOPED_TRACE(c.name() + " seed " + std::to_string(seed));
  Rng rng(seed);
  PatternGraph pg = build_bn_pattern(c, rng);
  const std::vector<std::string> names = run_on_every_engine(pg);
  if (gpu_mode()) {
    if (gpu_first != nullptr) {
      ASSERT_FALSE(names.empty()) << "no GPU engine: " << last_error();
      EXPECT_EQ(names.front().rfind(gpu_first, 0), 0u) << "the first engine is " << names.front();
    }
    if (names.empty()) std::cout << "[  SKIPPED ] no GPU engine for " << c.name() << ": " << last_error() << "\n";
    return;
  }
  ASSERT_FALSE(names.empty()) << last_error();
  EXPECT_EQ(names.front(), want_first) << "the first engine heuristics offer";
  if (pg.ops.size() > 1)
    EXPECT_TRUE(contains(names, kSequential));
  else
    EXPECT_TRUE(contains(names, "cpu.reference.normalization"));
}

std::vector<int64_t> pattern_dims(Rng &rng, bool five_d) {
  std::vector<int64_t> d{static_cast<int64_t>(rng.integer(1, 3)), 8 * static_cast<int64_t>(rng.integer(1, 3))};
  for (int i = 0; i < (five_d ? 3 : 2); ++i) d.push_back(rng.integer(1, 5));
  return d;
}

const cudnnDataType_t kTypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

TEST(BackendBnPatterns, BnAddReluPieces) {
  Rng rng(test_seed(501));
  // Every on/off combination of the optional pieces (the bare norm is one op).
  for (int bits = 0; bits < 16; ++bits) {
    BnPatternConfig c;
    c.pattern = BnPattern::bn_add_relu;
    c.add_z = bits & 1, c.relu = bits & 2, c.mask = bits & 4, c.running = bits & 8;
    c.io_type = kTypes[bits % 3];
    c.dims = pattern_dims(rng, bits % 2 == 1);
    const bool single = !c.add_z && !c.relu && !c.mask;
    check(c, rng.next(), single ? "cpu.normalization" : kFused);
  }
}

TEST(BackendBnPatterns, DReluForkDBn) {
  Rng rng(test_seed(502));
  for (int i = 0; i < 6; ++i) {
    BnPatternConfig c;
    c.pattern = BnPattern::drelu_fork_dbn;
    c.drelu = i != 5;
    c.dz_real = i % 2 == 1;
    c.io_type = kTypes[i % 3];
    c.dims = pattern_dims(rng, i >= 3);
    check(c, rng.next(), c.drelu ? kFused : "cpu.normalization");
  }
}

TEST(BackendBnPatterns, DgradDreluBNBwdWeight) {
  Rng rng(test_seed(503));
  for (int i = 0; i < 3; ++i) {
    BnPatternConfig c;
    c.pattern = BnPattern::dgrad_drelu_bn_bwd_weight;
    c.io_type = kTypes[i];
    c.dims = pattern_dims(rng, false);
    c.k = 4 * rng.integer(1, 3);
    check(c, rng.next(), kFused);
  }
}

TEST(BackendBnPatterns, DBNApply) {
  Rng rng(test_seed(504));
  for (int i = 0; i < 3; ++i) {
    BnPatternConfig c;
    c.pattern = BnPattern::dbn_apply;
    c.io_type = kTypes[i];
    c.dims = pattern_dims(rng, i == 2);
    // A pointwise DAG: the generic runtime fusion engine's, as the guide says.
    check(c, rng.next(), "cpu.fusion.runtime");
  }
}

// Single batch-norm operations with mixed data types, the form of the
// frontends' graphs (virtual FLOAT intermediates next to HALF / BFLOAT16
// tensors): forward training and inference with x HALF / BFLOAT16 and y
// FLOAT (and the reverse), backward with dy FLOAT and x, dx HALF / BFLOAT16
// (and other mixes), NHWC and NCHW. Outputs NaN-poisoned (run_pattern). On a
// GPU handle the first engine must be cuda.normalization itself; on a CPU
// handle the reference engine must be among those offered.
void check_mixed(const BnPatternConfig &c, uint64_t seed, const char *gpu_first = "cuda.normalization") {
  SCOPED_TRACE(c.name() + " seed " + std::to_string(seed));
  Rng rng(seed);
  PatternGraph pg = build_bn_pattern(c, rng);
  const std::vector<std::string> names = run_on_every_engine(pg);
  ASSERT_FALSE(names.empty()) << last_error();
  if (gpu_mode())
    EXPECT_EQ(names.front(), gpu_first);
  else
    EXPECT_TRUE(contains(names, "cpu.reference.normalization"));
}

TEST(BackendBnPatterns, BatchNormMixedTypes) {
  Rng rng(test_seed(511));
  constexpr cudnnDataType_t F = CUDNN_DATA_FLOAT, K = BnPatternConfig::kIoType;
  int i = 0;
  for (cudnnDataType_t low : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16})
    for (bool nhwc : {true, false}) {
      // {pattern, training, x, dy, y / dx}
      struct Case {
        BnPattern p;
        bool training;
        cudnnDataType_t x, dy, out;
      };
      const Case cases[] = {{BnPattern::bn_add_relu, true, low, K, F},
                            {BnPattern::bn_add_relu, false, low, K, F},
                            {BnPattern::bn_add_relu, (i / 6) % 2 == 0, F, K, low},
                            {BnPattern::drelu_fork_dbn, true, low, F, low},
                            {BnPattern::drelu_fork_dbn, true, low, low, F},
                            {BnPattern::drelu_fork_dbn, true, F, F, low}};
      for (const Case &k : cases) {
        BnPatternConfig c;
        c.pattern = k.p;
        c.add_z = c.relu = c.mask = c.drelu = false;
        c.running = k.training && i % 3 != 2;
        c.training = k.training;
        c.nhwc = nhwc;
        c.io_type = k.x;
        c.grad_type = k.dy;
        c.out_type = k.out;
        c.dims = pattern_dims(rng, i % 4 == 3);
        c.dims[2] += 1;  // at least two elements per channel
        // Some larger problems (forward training and inference, backward):
        // several parts per channel on a GPU.
        if (i % 5 == 1) c.dims = {4, 16, 24, 24};
        ++i;
        check_mixed(c, rng.next());
      }
    }
}

// The other mixes the CPU runs (its reference engine): half with bfloat16
// across x, dy and y / dx, DOUBLE data next to FLOAT data, and FLOAT data with
// DOUBLE scale, bias and statistics (or DOUBLE data with FLOAT ones). On a
// GPU handle cuda.normalization runs them (generic kernels with run-time
// typed operands) and must come first, as in check_mixed.
TEST(BackendBnPatterns, BatchNormOtherMixes) {
  Rng rng(test_seed(512));
  constexpr cudnnDataType_t F = CUDNN_DATA_FLOAT, D = CUDNN_DATA_DOUBLE, H = CUDNN_DATA_HALF,
                            B = CUDNN_DATA_BFLOAT16;
  struct Case {
    BnPattern p;
    bool training;
    cudnnDataType_t x, dy, out, stats;
  };
  const Case cases[] = {{BnPattern::bn_add_relu, true, H, H, B, F},     {BnPattern::bn_add_relu, false, B, B, H, F},
                        {BnPattern::bn_add_relu, true, D, D, F, F},     {BnPattern::bn_add_relu, true, D, D, D, F},
                        {BnPattern::bn_add_relu, true, F, F, F, D},     {BnPattern::bn_add_relu, false, H, H, D, D},
                        {BnPattern::drelu_fork_dbn, true, H, B, F, F},  {BnPattern::drelu_fork_dbn, true, B, H, H, F},
                        {BnPattern::drelu_fork_dbn, true, D, F, H, F},  {BnPattern::drelu_fork_dbn, true, F, F, F, D},
                        {BnPattern::drelu_fork_dbn, true, D, D, D, F},  {BnPattern::drelu_fork_dbn, true, H, D, B, D}};
  int i = 0;
  for (const Case &k : cases) {
    BnPatternConfig c;
    c.pattern = k.p;
    c.add_z = c.relu = c.mask = c.drelu = false;
    c.running = k.training && i % 2 == 0;
    c.training = k.training;
    c.nhwc = i % 3 != 1;
    c.io_type = k.x;
    c.grad_type = k.dy;
    c.out_type = k.out;
    c.stat_type = k.stats;
    c.dims = pattern_dims(rng, i % 4 == 3);
    c.dims[2] += 1;  // at least two elements per channel
    if (i % 5 == 1) c.dims = {4, 16, 24, 24};  // several parts per channel on a GPU
    ++i;
    check_mixed(c, rng.next());
  }
}

// NCHW data: the fused engine refuses (its rows are NHWC positions), so the
// graphs run op by op.
TEST(BackendBnPatterns, NchwPatternsRunOpByOp) {
  Rng rng(test_seed(507));
  for (BnPattern p : {BnPattern::bn_add_relu, BnPattern::drelu_fork_dbn}) {
    BnPatternConfig c;
    c.pattern = p;
    c.nhwc = false;
    c.dims = pattern_dims(rng, false);
    check(c, rng.next(), kSequential);
  }
}

// RMS norm has no running statistics: no engine takes such a graph.
TEST(BackendBnPatterns, RmsNormRefusesRunningStatistics) {
  cudnnHandle_t handle = nullptr;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  const std::vector<int64_t> xd{2, 8, 2, 2}, pd{1, 8, 2, 2}, sd{2, 1, 1, 1}, one{1, 1, 1, 1};
  auto x = tensor_desc(1, CUDNN_DATA_FLOAT, xd, packed(xd)), y = tensor_desc(2, CUDNN_DATA_FLOAT, xd, packed(xd));
  auto scale = tensor_desc(3, CUDNN_DATA_FLOAT, pd, packed(pd)), inv = tensor_desc(4, CUDNN_DATA_FLOAT, sd, packed(sd));
  auto rm = tensor_desc(5, CUDNN_DATA_FLOAT, sd, packed(sd)), rv = tensor_desc(6, CUDNN_DATA_FLOAT, sd, packed(sd));
  auto rm2 = tensor_desc(7, CUDNN_DATA_FLOAT, sd, packed(sd)), rv2 = tensor_desc(8, CUDNN_DATA_FLOAT, sd, packed(sd));
  auto eps = tensor_desc(9, CUDNN_DATA_DOUBLE, one, one, false, true);
  auto f = tensor_desc(10, CUDNN_DATA_DOUBLE, one, one, false, true);
  Desc op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_RMS_NORM), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING),
            CUDNN_STATUS_SUCCESS);
  const std::pair<cudnnBackendAttributeName_t, Desc *> attrs[] = {
      {CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, f.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, rm.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, rv.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, rm2.get()},
      {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, rv2.get()}};
  for (const auto &a : attrs)
    EXPECT_EQ(op.set1(a.first, CUDNN_TYPE_BACKEND_DESCRIPTOR, a.second->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(engine_count(handle, {&op}), 0);
  cudnnDestroy(handle);
}

// Layer and RMS norm, forward (training and inference) and backward, on the
// fast engine.
TEST(BackendBnPatterns, LayerAndRmsNorm) {
  Rng rng(test_seed(505));
  int i = 0;
  for (cudnnBackendNormMode_t mode : {CUDNN_LAYER_NORM, CUDNN_RMS_NORM})
    for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward})
      for (bool training : {true, false}) {
        if (p == BnPattern::norm_backward && !training) continue;
        for (bool nhwc : {true, false}) {
          BnPatternConfig c;
          c.pattern = p;
          c.norm_mode = mode;
          c.training = training;
          c.nhwc = nhwc;
          c.io_type = kTypes[i % 3];
          c.dims = pattern_dims(rng, i % 4 == 3);
          ++i;
          check(c, rng.next(), kRows);
        }
      }
}

// Layer and RMS norm with mixed data types (x HALF / BFLOAT16 with y, dy or
// dx FLOAT, and the reverse; half with bfloat16): on a GPU handle
// cuda.normalization.rows runs them (its mixed-type rows kernels) and must
// come first; on a CPU handle the reference engine must be among those offered.
TEST(BackendBnPatterns, LayerAndRmsNormMixedTypes) {
  Rng rng(test_seed(514));
  constexpr cudnnDataType_t F = CUDNN_DATA_FLOAT, H = CUDNN_DATA_HALF, B = CUDNN_DATA_BFLOAT16;
  struct Case {
    cudnnDataType_t x, dy, out;
  };
  const Case cases[] = {{H, H, F}, {F, F, B}, {B, F, B}, {H, F, F}, {H, B, H}, {F, H, F}};
  int i = 0;
  for (cudnnBackendNormMode_t mode : {CUDNN_LAYER_NORM, CUDNN_RMS_NORM})
    for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward})
      for (const Case &k : cases) {
        if (p == BnPattern::norm_forward && k.dy != k.x) continue;  // forward has no dy
        BnPatternConfig c;
        c.pattern = p;
        c.norm_mode = mode;
        c.training = p == BnPattern::norm_backward || i % 2 == 0;
        c.nhwc = i % 3 != 0;
        c.io_type = k.x;
        c.grad_type = k.dy;
        c.out_type = k.out;
        c.dims = pattern_dims(rng, i % 4 == 3);
        ++i;
        check_mixed(c, rng.next(), "cuda.normalization.rows");
      }
}

// Layer / RMS norm followed by ADD z and RELU: a residual and activation
// after the norm exist only as such multi-node graphs (the backend's
// NORM_FORWARD has no z or activation; the legacy calls that fuse them are
// batch norm), so cuda.normalization.rows refusing a fused z / activation
// leaves no single-node graph behind. Fusing them on a GPU is later work: a
// GPU handle may offer only the op-by-op engine (cuda.graph.sequential, the
// norm on cuda.normalization.rows, the pointwise ops on cuda.pointwise), and
// whatever it offers must compute right; no single-op GPU engine may claim the
// graph. On a CPU handle the op-by-op engine must be among those offered.
TEST(BackendBnPatterns, NormThenAddReluRunsOpByOpOnGpu) {
  Rng rng(test_seed(513));
  int i = 0;
  for (cudnnBackendNormMode_t mode : {CUDNN_LAYER_NORM, CUDNN_RMS_NORM})
    for (bool training : {true, false}) {
      BnPatternConfig c;
      c.pattern = BnPattern::norm_forward;
      c.norm_mode = mode;
      c.training = training;
      c.norm_epilogue = true;
      c.nhwc = i % 2 == 0;
      c.io_type = kTypes[i % 3];
      c.dims = pattern_dims(rng, i == 3);
      ++i;
      SCOPED_TRACE(c.name());
      Rng data(rng.next());
      PatternGraph pg = build_bn_pattern(c, data);
      ASSERT_EQ(pg.ops.size(), 3u);
      const std::vector<std::string> names = run_on_every_engine(pg);
      if (gpu_mode()) {
        for (const std::string &n : names) {
          EXPECT_EQ(n.rfind("cuda.", 0), 0u) << n;
          EXPECT_NE(n, "cuda.normalization.rows");
          EXPECT_NE(n, "cuda.normalization");
        }
        std::cout << "[  INFO    ] GPU engines for " << c.name() << ":";
        for (const std::string &n : names) std::cout << " " << n;
        std::cout << "\n";
      } else {
        ASSERT_FALSE(names.empty()) << last_error();
        EXPECT_TRUE(contains(names, kSequential));
      }
    }
}

// A layer norm whose statistics are not outputs: the statistics follow the
// mode ([N,1,1,1]), not the scale's shape.
TEST(BackendBnPatterns, LayerNormWithoutStatisticsOutputs) {
  Rng rng(test_seed(506));
  for (int i = 0; i < 3; ++i) {
    BnPatternConfig c;
    c.pattern = BnPattern::norm_forward;
    c.norm_mode = i == 2 ? CUDNN_RMS_NORM : CUDNN_LAYER_NORM;
    c.training = true;
    c.io_type = kTypes[i];
    c.dims = pattern_dims(rng, false);
    c.stats_out = false;
    check(c, rng.next(), kRows);
  }
}

// Instance norm (statistics per (n, c), scale / bias per c), forward
// (training with and without running statistics, inference) and backward,
// NCHW and NHWC, on the fast engine.
TEST(BackendBnPatterns, InstanceNorm) {
  Rng rng(test_seed(509));
  int i = 0;
  for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward})
    for (bool training : {true, false}) {
      if (p == BnPattern::norm_backward && !training) continue;
      for (bool nhwc : {true, false})
        for (int variant = 0; variant < 2; ++variant) {
          BnPatternConfig c;
          c.pattern = p;
          c.norm_mode = CUDNN_INSTANCE_NORM;
          c.training = training;
          c.nhwc = nhwc;
          c.running = variant == 1;
          c.stats_out = variant == 0 || i % 3 != 0;
          c.io_type = kTypes[i % 3];
          c.dims = pattern_dims(rng, i % 4 == 3);
          c.dims[2] += 1;  // at least two positions per set
          ++i;
          // N == 1: statistics and scale are both [1, C, 1, ...], the
          // batch-norm engine's form (it sorts first by name).
          check(c, rng.next(), c.dims[0] == 1 ? "cpu.normalization" : "cpu.normalization.instance",
                c.dims[0] == 1 ? "cuda.normalization" : "cuda.normalization.rows");
        }
    }
}

// Instance norm on DOUBLE data (double statistics and compute), NHWC
// forward and NCHW backward.
TEST(BackendBnPatterns, InstanceNormDouble) {
  Rng rng(test_seed(510));
  for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward}) {
    BnPatternConfig c;
    c.pattern = p;
    c.norm_mode = CUDNN_INSTANCE_NORM;
    c.io_type = CUDNN_DATA_DOUBLE;
    c.dims = {2, 8, 3, 5};
    c.nhwc = p == BnPattern::norm_forward;
    check(c, rng.next(), "cpu.normalization.instance", "cuda.normalization.rows");
  }
}

// Layer norm on the fast engine's sweeps for long rows: 16-bit forward rows
// converted and summed in one sweep and written by the converting apply
// sweep (row lengths with a tail past the last 8 / 16 lanes), and a FLOAT
// backward whose dx (8.5 MB) is streamed past the caches.
TEST(BackendBnPatterns, LayerNormLongRows) {
  Rng rng(test_seed(515));
  BnPatternConfig c;
  c.norm_mode = CUDNN_LAYER_NORM;
  c.pattern = BnPattern::norm_forward;
  c.training = true;
  for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
    c.io_type = t;
    c.dims = {6, 40, 3, 7};  // rows of 840
    check(c, rng.next(), kRows);
  }
  c.pattern = BnPattern::norm_backward;
  c.io_type = CUDNN_DATA_FLOAT;
  c.dims = {520, 64, 8, 8};
  check(c, rng.next(), kRows);
}

// Problems large enough for several tiles on several threads (the tests
// above fit in one tile): the partial sums of the tiles must combine right.
TEST(BackendBnPatterns, SeveralTiles) {
  Rng rng(test_seed(508));
  BnPatternConfig c;
  c.dims = {4, 32, 16, 16};
  c.pattern = BnPattern::bn_add_relu;
  check(c, rng.next(), kFused);
  c.pattern = BnPattern::drelu_fork_dbn;
  c.io_type = CUDNN_DATA_HALF;
  check(c, rng.next(), kFused);
  c.dims = {64, 128, 2, 2};
  c.io_type = CUDNN_DATA_FLOAT;
  for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward}) {
    c.pattern = p;
    check(c, rng.next(), kRows);
  }
  // Instance norm: many sets (NCHW rows), wide channel rows (NHWC) and,
  // NHWC, few channel tiles of many positions (on a GPU, sets cut into
  // segments whose partial sums meet in the workspace), f32 and f16.
  c.norm_mode = CUDNN_INSTANCE_NORM;
  const std::vector<int64_t> shapes[] = {{4, 32, 16, 16}, {3, 600, 5, 7}, {2, 40, 24, 24}};
  for (int s = 0; s < 3; ++s) {
    c.nhwc = s > 0;
    c.dims = shapes[s];
    for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward}) {
      c.pattern = p;
      c.io_type = s == 2 && p == BnPattern::norm_backward ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
      check(c, rng.next(), "cpu.normalization.instance", "cuda.normalization.rows");
    }
  }
  c.pattern = BnPattern::norm_forward;  // inference, and training with running statistics
  c.io_type = CUDNN_DATA_BFLOAT16;
  c.training = false;
  check(c, rng.next(), "cpu.normalization.instance", "cuda.normalization.rows");
  c.training = true;
  c.running = true;
  check(c, rng.next(), "cpu.normalization.instance", "cuda.normalization.rows");
}

}  // namespace
}  // namespace fdnn_test
