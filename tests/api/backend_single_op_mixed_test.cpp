// Single-operation graphs with mixed types or layouts that the CPU runs (its
// reference engine) and that the GPU must run on its own engines too:
//  - layer / RMS / NCHW instance norm whose y / dx and dy rows lie apart
//    from x's (a padded batch stride), DOUBLE data next to other types,
//    FLOAT data with DOUBLE statistics and parameters, DOUBLE data with
//    FLOAT ones, and NHWC instance norm with mixed types
//    (cuda.normalization.rows);
//  - a single convolution, forward / data gradient / filter gradient, with
//    HALF or BFLOAT16 inputs and a FLOAT output (cuda.conv.*).
// On a GPU handle the first engine heuristics offer must be that GPU engine
// (and every engine offered must compute right); on a CPU handle the graph
// must run, the reference engine among those offered.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/backend_bn_patterns.hpp"
#include "common/backend_graph.hpp"
#include "common/backend_ops.hpp"
#include "common/convolution_reference.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {
namespace {

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// GPU: the first engine's name starts with `gpu_first`; CPU: the reference
// engine `cpu_reference` is among those offered.
void expect_engines(const std::vector<std::string> &names, const char *gpu_first, const char *cpu_reference) {
  ASSERT_FALSE(names.empty()) << last_error();
  if (gpu_mode())
    EXPECT_EQ(names.front().rfind(gpu_first, 0), 0u) << "the first engine is " << names.front();
  else
    EXPECT_TRUE(contains(names, cpu_reference));
}

void check_norm(const BnPatternConfig &c, uint64_t seed) {
  SCOPED_TRACE(c.name() + " seed " + std::to_string(seed));
  Rng rng(seed);
  PatternGraph pg = build_bn_pattern(c, rng);
  expect_engines(run_on_every_engine(pg), "cuda.normalization.rows", "cpu.reference.normalization");
}

std::vector<int64_t> norm_dims(Rng &rng, bool five_d) {
  std::vector<int64_t> d{static_cast<int64_t>(rng.integer(2, 3)), 8 * static_cast<int64_t>(rng.integer(1, 3))};
  for (int i = 0; i < (five_d ? 3 : 2); ++i) d.push_back(rng.integer(2, 5));
  return d;
}

constexpr cudnnDataType_t F = CUDNN_DATA_FLOAT, D = CUDNN_DATA_DOUBLE, H = CUDNN_DATA_HALF,
                          B = CUDNN_DATA_BFLOAT16;

// y / dx and dy with a padded batch stride (x packed): each row still one
// contiguous run, at its own offsets; same and mixed types.
TEST(BackendSingleOpMixed, NormRowsWithPaddedOutputs) {
  Rng rng(test_seed(601));
  struct Case {
    cudnnDataType_t x, dy, out;
  };
  const Case cases[] = {{F, F, F}, {H, H, H}, {B, F, B}, {D, D, D}, {H, H, F}};
  int i = 0;
  for (cudnnBackendNormMode_t mode : {CUDNN_LAYER_NORM, CUDNN_RMS_NORM, CUDNN_INSTANCE_NORM})
    for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward}) {
      const Case &k = cases[i % 5];
      BnPatternConfig c;
      c.pattern = p;
      c.norm_mode = mode;
      c.training = p == BnPattern::norm_backward || i % 2 == 0;
      c.nhwc = mode != CUDNN_INSTANCE_NORM && i % 3 == 0;
      c.io_type = k.x;
      if (k.dy != k.x) c.grad_type = k.dy;
      if (k.out != k.x) c.out_type = k.out;
      c.padded_out = true;
      c.running = false;
      c.dims = norm_dims(rng, i % 4 == 3);
      ++i;
      check_norm(c, rng.next());
    }
}

// DOUBLE data next to other types (double compute, DOUBLE statistics), FLOAT
// (or HALF) data with DOUBLE statistics and parameters, DOUBLE data with
// FLOAT ones.
TEST(BackendSingleOpMixed, NormRowsDoubleMixes) {
  Rng rng(test_seed(602));
  struct Case {
    BnPattern p;
    cudnnDataType_t x, dy, out, stats;
  };
  const BnPattern fw = BnPattern::norm_forward, bw = BnPattern::norm_backward;
  const Case cases[] = {{fw, D, D, F, D}, {fw, F, F, D, D}, {fw, H, H, D, D}, {fw, D, D, B, D},
                        {fw, F, F, F, D}, {fw, D, D, D, F}, {bw, D, D, F, D}, {bw, B, B, D, D},
                        {bw, F, F, F, D}, {bw, H, H, H, D}, {bw, D, D, D, F}};
  int i = 0;
  for (cudnnBackendNormMode_t mode : {CUDNN_LAYER_NORM, CUDNN_RMS_NORM})
    for (const Case &k : cases) {
      BnPatternConfig c;
      c.pattern = k.p;
      c.norm_mode = mode;
      c.training = k.p == bw || i % 2 == 0;
      c.nhwc = i % 3 != 0;
      c.io_type = k.x;
      if (k.dy != k.x) c.grad_type = k.dy;
      if (k.out != k.x) c.out_type = k.out;
      c.stat_type = k.stats;
      c.padded_out = i % 4 == 1;
      c.dims = norm_dims(rng, i % 5 == 4);
      ++i;
      check_norm(c, rng.next());
    }
}

// Instance norm with mixed data types, NHWC (the column form) and NCHW, and
// with DOUBLE statistics for FLOAT data (NCHW).
TEST(BackendSingleOpMixed, InstanceNormMixedTypes) {
  Rng rng(test_seed(603));
  struct Case {
    cudnnDataType_t x, out, stats;
    bool nhwc;
  };
  const Case cases[] = {{H, F, F, true}, {F, B, F, true}, {B, H, F, true}, {H, F, F, false}, {F, F, D, false},
                        {D, F, D, false}};
  int i = 0;
  for (BnPattern p : {BnPattern::norm_forward, BnPattern::norm_backward})
    for (const Case &k : cases) {
      BnPatternConfig c;
      c.pattern = p;
      c.norm_mode = CUDNN_INSTANCE_NORM;
      c.training = p == BnPattern::norm_backward || i % 2 == 0;
      c.running = p == BnPattern::norm_forward && c.training && i % 3 == 0;
      c.stats_out = true;
      c.nhwc = k.nhwc;
      c.io_type = k.x;
      if (k.out != k.x) c.out_type = k.out;
      c.stat_type = k.stats;
      c.dims = norm_dims(rng, i % 4 == 3);
      if (i % 5 == 2) c.dims = {2, 40, 30, 30};  // several segments per set on a GPU (column form)
      ++i;
      check_norm(c, rng.next());
    }
}

// ---- convolution --------------------------------------------------------------

enum class Dir { fwd, bwd_data, bwd_filter };

struct ConvCase {
  Dir dir;
  cudnnDataType_t in;  // both inputs
  bool nhwc;
  std::vector<int64_t> x, w;  // N C H W, K C/G R S
  int pad, stride, groups;
};

std::vector<int64_t> nhwc_strides(const std::vector<int64_t> &d) {
  std::vector<int64_t> s(d.size());
  s[1] = 1;
  int64_t st = d[1];
  for (size_t i = d.size(); i-- > 2;) s[i] = st, st *= d[i];
  s[0] = st;
  return s;
}

void check_conv(const ConvCase &k, uint64_t seed) {
  const char *dn = k.dir == Dir::fwd ? "fwd" : k.dir == Dir::bwd_data ? "bwd_data" : "bwd_filter";
  SCOPED_TRACE(std::string(dn) + (k.in == H ? " half" : " bfloat16") + (k.nhwc ? " nhwc" : " nchw") + " seed " +
               std::to_string(seed));
  Rng rng(seed);
  ConvParams p;
  p.pad = {k.pad, k.pad};
  p.stride = {k.stride, k.stride};
  p.dilation = {1, 1};
  p.groups = k.groups;
  const std::vector<int64_t> yd = conv_output_dims(p, k.x, k.w);
  const auto strides = [&](const std::vector<int64_t> &d) { return k.nhwc ? nhwc_strides(d) : packed(d); };
  const cudnnDataType_t xt = k.dir == Dir::bwd_data ? F : k.in, wt = k.dir == Dir::bwd_filter ? F : k.in,
                        yt = k.dir == Dir::fwd ? F : k.in;
  PatternGraph pg;
  std::vector<std::unique_ptr<Desc>> &keep = pg.keep;
  const auto add = [&](int64_t uid, const char *name, cudnnDataType_t t, const std::vector<int64_t> &d, bool out) {
    PatternTensor pt;
    pt.uid = uid, pt.name = name, pt.output = out;
    pt.data = make_tensor(t, d, strides(d));
    if (out)
      poison(pt.data);
    else
      fill_random(pt.data, rng, -1, 1);
    keep.push_back(tensor_desc(uid, t, d, strides(d)));
    pg.tensors.push_back(std::move(pt));
    return keep.back()->d;
  };
  const bool fwd = k.dir == Dir::fwd, bd = k.dir == Dir::bwd_data;
  cudnnBackendDescriptor_t xd = add(1, "x", xt, k.x, bd);
  cudnnBackendDescriptor_t wd = add(2, "w", wt, k.w, k.dir == Dir::bwd_filter);
  cudnnBackendDescriptor_t ydsc = add(3, "y", yt, yd, fwd);
  const std::vector<int64_t> pads{k.pad, k.pad}, str{k.stride, k.stride}, dil{1, 1};
  keep.push_back(convolution_desc(pads, str, dil));
  cudnnBackendDescriptor_t cd = keep.back()->d;
  const double alpha = 1.0, beta = 0.0;
  std::unique_ptr<Desc> op;
  if (fwd) {
    op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, xd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, wd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, ydsc),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, static_cast<float>(alpha)),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, static_cast<float>(beta)),
              CUDNN_STATUS_SUCCESS);
  } else if (bd) {
    op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_TYPE_BACKEND_DESCRIPTOR, xd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, wd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, ydsc),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, static_cast<float>(alpha)),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, static_cast<float>(beta)),
              CUDNN_STATUS_SUCCESS);
  } else {
    op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, xd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_TYPE_BACKEND_DESCRIPTOR, wd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, ydsc),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_TYPE_FLOAT, static_cast<float>(alpha)),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CUDNN_TYPE_FLOAT, static_cast<float>(beta)),
              CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  pg.ops.push_back(op.get());
  keep.push_back(std::move(op));
  PatternTensor &x = pg.tensors[0], &w = pg.tensors[1], &y = pg.tensors[2];
  const double slack = 8;
  const cudnnDataType_t ct = CUDNN_DATA_FLOAT;
  if (fwd)
    y.want = reference_conv_forward(p, x.data, w.data, alpha, beta, y.data, ct, slack);
  else if (bd)
    x.want = reference_conv_backward_data(p, w.data, y.data, alpha, beta, x.data, ct, slack);
  else
    w.want = reference_conv_backward_filter(p, x.data, y.data, alpha, beta, w.data, ct, slack);
  expect_engines(run_on_every_engine(pg), "cuda.conv", "cpu.reference.convolution");
}

// HALF / BFLOAT16 inputs, FLOAT output: forward (x, w -> y), data gradient
// (dy, w -> dx) and filter gradient (x, dy -> dw), NCHW and NHWC, grouped,
// strided, and with channel counts the tensor-core paths take (multiples of
// 8) and ones they do not.
TEST(BackendSingleOpMixed, ConvolutionHalfInputsFloatOutput) {
  Rng rng(test_seed(604));
  int i = 0;
  for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter})
    for (cudnnDataType_t in : {H, B})
      for (int variant = 0; variant < 2; ++variant) {
        ConvCase k;
        k.dir = dir;
        k.in = in;
        k.nhwc = (i + variant) % 2 == 0;
        const bool wide = variant == 0;
        const int64_t C = wide ? 16 : 3, K = wide ? 8 : 5;
        k.groups = !wide && i % 3 == 1 ? 1 : (wide && i % 4 == 2 ? 2 : 1);
        k.x = {static_cast<int64_t>(rng.integer(1, 2)), C, static_cast<int64_t>(rng.integer(5, 9)),
               static_cast<int64_t>(rng.integer(5, 9))};
        k.w = {K, C / k.groups, 3, 3};
        k.pad = 1;
        k.stride = i % 3 == 2 ? 2 : 1;
        ++i;
        check_conv(k, rng.next());
      }
}

}  // namespace
}  // namespace fdnn_test
