// cudnnConvolutionForward / BackwardData / BackwardFilter / BackwardBias /
// BiasActivationForward, the workspace and algorithm queries and the Find
// calls, through the public API.
//
// Random problems (2-d and 3-d, padding, stride, dilation, groups including
// depthwise, both modes, NCHW / NHWC / strided tensors, NCHW and NHWC
// filters, float / double / half / bfloat16, alpha/beta with NaN-poisoned
// outputs) run every algorithm of each direction that the _v7 query reports
// as supported, with exactly the reported workspace, against the float64
// references of tests/common/convolution_reference.*; the others must be
// refused with NOT_SUPPORTED by the execute call too. Backward passes are also
// checked by finite differences of the forward call.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/buffer.hpp"
#include "common/convolution_reference.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

enum class Dir { fwd, bwd_data, bwd_filter };
const char *dir_name(Dir d) { return d == Dir::fwd ? "fwd" : d == Dir::bwd_data ? "bwd_data" : "bwd_filter"; }
int algo_count(Dir d) {
  return d == Dir::fwd        ? int{CUDNN_CONVOLUTION_FWD_ALGO_COUNT}
         : d == Dir::bwd_data ? int{CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT}
                              : int{CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};
}

class Handle {
 public:
  explicit Handle(const char *engine = nullptr) {
    if (engine != nullptr) {
      ScopedEnv pin("FREEDNN_ENGINE", engine);
      EXPECT_EQ(cudnnCreate(&h_), CUDNN_STATUS_SUCCESS);
    } else {
      EXPECT_EQ(cudnnCreate(&h_), CUDNN_STATUS_SUCCESS);
    }
  }
  ~Handle() { cudnnDestroy(h_); }
  operator cudnnHandle_t() const { return h_; }

 private:
  cudnnHandle_t h_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc(cudnnDataType_t t, cudnnTensorFormat_t f, const std::vector<int64_t> &dims) {
    EXPECT_EQ(cudnnCreateFilterDescriptor(&d_), CUDNN_STATUS_SUCCESS);
    std::vector<int> di(dims.begin(), dims.end());
    EXPECT_EQ(cudnnSetFilterNdDescriptor(d_, t, f, static_cast<int>(di.size()), di.data()), CUDNN_STATUS_SUCCESS);
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d_); }
  operator cudnnFilterDescriptor_t() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc(const ConvParams &p, cudnnDataType_t compute) {
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&d_), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(d_, static_cast<int>(p.pad.size()), p.pad.data(), p.stride.data(),
                                              p.dilation.data(), p.mode, compute),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionGroupCount(d_, p.groups), CUDNN_STATUS_SUCCESS);
  }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d_); }
  operator cudnnConvolutionDescriptor_t() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

struct Problem {
  ConvParams p;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT, compute = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t wformat = CUDNN_TENSOR_NCHW;
  HostTensor x, w, y;  // y holds dy for the backward directions
  std::string text;
};

std::vector<int64_t> layout_strides(Rng &rng, const std::vector<int64_t> &dims) {
  switch (rng.integer(0, 2)) {
    case 0: return packed_strides(dims, Layout::nchw);
    case 1: return packed_strides(dims, Layout::nhwc);
    default: return random_strides(rng, dims);
  }
}

Problem random_problem(Rng &rng, cudnnDataType_t dtype, int nsp) {
  Problem pr;
  pr.dtype = dtype;
  pr.compute = dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  if (dtype == CUDNN_DATA_HALF && rng.coin(0.3)) pr.compute = CUDNN_DATA_HALF;  // TRUE_HALF_CONFIG
  ConvParams &p = pr.p;
  const bool winogradish = rng.coin(0.35);  // 3x3, stride 1, dilation 1: Winograd's domain
  const int kind = rng.integer(0, 3);       // 0: plain, 1: grouped, 2: depthwise, 3: many channels
  int64_t G = 1, Cg = rng.integer(1, 4), Kg = rng.integer(1, 4);
  if (kind == 1) G = rng.integer(2, 3);
  if (kind == 2) G = rng.integer(2, 5), Cg = 1, Kg = rng.integer(1, 2);
  if (kind == 3) Cg = rng.integer(8, 20), Kg = rng.integer(8, 20);
  p.groups = static_cast<int>(G);
  p.mode = rng.coin() ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
  std::vector<int64_t> xd{rng.integer(1, 2), G * Cg}, wd{G * Kg, Cg};
  for (int d = 0; d < nsp; ++d) {
    const int64_t f = winogradish ? 3 : rng.integer(1, nsp == 3 ? 2 : 4);
    const int dil = winogradish ? 1 : static_cast<int>(rng.integer(1, 2));
    const int pad = static_cast<int>(rng.integer(0, winogradish ? 2 : 3));
    const int stride = winogradish ? 1 : static_cast<int>(rng.integer(1, 3));
    const int64_t span = (f - 1) * dil + 1;
    const int64_t in = std::max<int64_t>(span - 2 * pad, 1) + rng.integer(0, nsp == 3 ? 3 : 7);
    xd.push_back(in);
    wd.push_back(f);
    p.pad.push_back(pad);
    p.stride.push_back(stride);
    p.dilation.push_back(dil);
  }
  const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
  pr.wformat = rng.coin(0.3) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  pr.x = make_tensor(dtype, xd, layout_strides(rng, xd));
  pr.w = make_tensor(dtype, wd, packed_strides(wd, pr.wformat == CUDNN_TENSOR_NHWC ? Layout::nhwc : Layout::nchw));
  pr.y = make_tensor(dtype, yd, layout_strides(rng, yd));
  fill_random(pr.x, rng, -1, 1);
  fill_random(pr.w, rng, -1, 1);
  fill_random(pr.y, rng, -1, 1);
  std::string s = std::string(type_name(dtype)) + (pr.compute == CUDNN_DATA_HALF ? "(true half)" : "") + " x";
  for (int64_t v : xd) s += " " + std::to_string(v);
  s += " w";
  for (int64_t v : wd) s += " " + std::to_string(v);
  s += pr.wformat == CUDNN_TENSOR_NHWC ? "(nhwc)" : "";
  s += " g" + std::to_string(p.groups) + (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
  for (int d = 0; d < nsp; ++d)
    s += " p" + std::to_string(p.pad[d]) + "s" + std::to_string(p.stride[d]) + "d" + std::to_string(p.dilation[d]);
  s += " xstrides";
  for (int64_t v : pr.x.strides) s += " " + std::to_string(v);
  pr.text = s;
  return pr;
}

// Descriptors and device copies of a problem.
struct Bound {
  TensorDesc xd, yd;
  FilterDesc wd;
  ConvDesc cd;
  Bound(const Problem &pr)
      : xd(pr.x), yd(pr.y), wd(pr.dtype, pr.wformat, pr.w.dims), cd(pr.p, pr.compute) {}
};

// The _v7 answer of a direction: status per algorithm, and the workspace.
struct V7 {
  std::vector<cudnnStatus_t> status;
  std::vector<size_t> memory;
};

V7 query_v7(cudnnHandle_t h, const Bound &b, Dir dir) {
  V7 out;
  out.status.assign(algo_count(dir), CUDNN_STATUS_INTERNAL_ERROR);
  out.memory.assign(algo_count(dir), 0);
  int n = -1;
  const auto take = [&](auto *perf, int count) {
    for (int i = 0; i < count; ++i) {
      out.status[perf[i].algo] = perf[i].status;
      out.memory[perf[i].algo] = perf[i].memory;
      EXPECT_EQ(perf[i].determinism, CUDNN_DETERMINISTIC);
    }
  };
  if (dir == Dir::fwd) {
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, b.xd, b.wd, b.cd, b.yd, 16, &n, perf), CUDNN_STATUS_SUCCESS);
    take(perf, n);
  } else if (dir == Dir::bwd_data) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[16];
    EXPECT_EQ(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, b.wd, b.yd, b.cd, b.xd, 16, &n, perf),
              CUDNN_STATUS_SUCCESS);
    take(perf, n);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[16];
    EXPECT_EQ(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, b.xd, b.yd, b.cd, b.wd, 16, &n, perf),
              CUDNN_STATUS_SUCCESS);
    take(perf, n);
  }
  EXPECT_EQ(n, algo_count(dir));
  return out;
}

cudnnStatus_t workspace_size(cudnnHandle_t h, const Bound &b, Dir dir, int algo, size_t *bytes) {
  switch (dir) {
    case Dir::fwd:
      return cudnnGetConvolutionForwardWorkspaceSize(h, b.xd, b.wd, b.cd, b.yd,
                                                     static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
    case Dir::bwd_data:
      return cudnnGetConvolutionBackwardDataWorkspaceSize(h, b.wd, b.yd, b.cd, b.xd,
                                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
    default:
      return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, b.xd, b.yd, b.cd, b.wd,
                                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
  }
}

cudnnStatus_t execute(cudnnHandle_t h, const Bound &b, Dir dir, int algo, const Buffer &x, const Buffer &w,
                      const Buffer &y, void *ws, size_t ws_bytes, const Scaling &alpha, const Scaling &beta,
                      cudnnDataType_t out_type) {
  const void *a = alpha.for_type(out_type), *bt = beta.for_type(out_type);
  switch (dir) {
    case Dir::fwd:
      return cudnnConvolutionForward(h, a, b.xd, x.get(), b.wd, w.get(), b.cd,
                                     static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes, bt, b.yd, y.get());
    case Dir::bwd_data:
      return cudnnConvolutionBackwardData(h, a, b.wd, w.get(), b.yd, y.get(), b.cd,
                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws, ws_bytes, bt, b.xd,
                                          x.get());
    default:
      return cudnnConvolutionBackwardFilter(h, a, b.xd, x.get(), b.yd, y.get(), b.cd,
                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws, ws_bytes, bt,
                                            b.wd, w.get());
  }
}

struct AlphaBeta {
  double alpha, beta;
};
const std::vector<AlphaBeta> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.75, -1}};

// Runs one algorithm of one direction and compares with the reference.
// Returns false when the algorithm is not supported (after checking that the
// execute call says so as well). alpha / beta: `force`, else drawn.
void check_algorithm(cudnnHandle_t h, Rng &rng, const Problem &pr, const Bound &b, Dir dir, int algo,
                     cudnnStatus_t v7_status, size_t v7_memory, const AlphaBeta *force = nullptr) {
  SCOPED_TRACE(std::string(dir_name(dir)) + " algo " + std::to_string(algo) + ": " + pr.text);
  size_t ws_bytes = 0;
  const cudnnStatus_t ws_status = workspace_size(h, b, dir, algo, &ws_bytes);
  HostTensor out = dir == Dir::fwd ? pr.y : dir == Dir::bwd_data ? pr.x : pr.w;
  const AlphaBeta ab = force != nullptr ? *force : rng.pick(kAlphaBeta);
  if (ab.beta == 0) poison(out);
  Buffer xb = upload(dir == Dir::bwd_data ? out : pr.x), wb = upload(dir == Dir::bwd_filter ? out : pr.w),
         yb = upload(dir == Dir::fwd ? out : pr.y);
  Buffer ws(ws_bytes + 1);
  const Scaling alpha(ab.alpha), beta(ab.beta);
  if (v7_status != CUDNN_STATUS_SUCCESS) {
    EXPECT_EQ(v7_status, CUDNN_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(ws_status, CUDNN_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(execute(h, b, dir, algo, xb, wb, yb, ws.get(), 1 << 20, alpha, beta, pr.dtype), CUDNN_STATUS_NOT_SUPPORTED);
    last_error();
    return;
  }
  ASSERT_EQ(ws_status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(ws_bytes, v7_memory);
  if (ws_bytes > 0) {
    EXPECT_EQ(execute(h, b, dir, algo, xb, wb, yb, ws.get(), ws_bytes - 1, alpha, beta, pr.dtype),
              CUDNN_STATUS_BAD_PARAM);
    last_error();
  }
  ASSERT_EQ(execute(h, b, dir, algo, xb, wb, yb, ws_bytes ? ws.get() : nullptr, ws_bytes, alpha, beta, pr.dtype),
            CUDNN_STATUS_SUCCESS)
      << last_error();
  const HostTensor prior = out;
  download(dir == Dir::fwd ? yb : dir == Dir::bwd_data ? xb : wb, out);
  // Winograd's transforms and float accumulation over many terms: generous
  // slack in units of the compute type's roundoff times the magnitudes; the
  // GPU's F(4x4,3x3) amplifies rounding more than F(2x2,3x3) (up to ~45 of
  // those units seen in a host emulation), so Winograd algorithms get more.
  const bool winograd = dir == Dir::fwd ? algo >= CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD
                                        : algo == 4 /* WINOGRAD */ || algo == 5 /* WINOGRAD_NONFUSED */;
  const double slack = winograd ? 128 : 64;
  std::vector<Expect> want;
  if (dir == Dir::fwd) want = reference_conv_forward(pr.p, pr.x, pr.w, ab.alpha, ab.beta, prior, pr.compute, slack);
  else if (dir == Dir::bwd_data)
    want = reference_conv_backward_data(pr.p, pr.w, pr.y, ab.alpha, ab.beta, prior, pr.compute, slack);
  else want = reference_conv_backward_filter(pr.p, pr.x, pr.y, ab.alpha, ab.beta, prior, pr.compute, slack);
  // Winograd's rounding follows the magnitudes of a whole transformed tile,
  // not of one output's own products (an output whose window lies in the
  // padding comes out as rounding noise, not 0): the largest tolerance is
  // every element's floor.
  if (winograd) {
    double floor = 0;
    for (const Expect &e : want) floor = std::max(floor, e.tolerance);
    for (Expect &e : want) e.tolerance = std::max(e.tolerance, floor);
  }
  EXPECT_TRUE(matches(out, want)) << "alpha " << ab.alpha << " beta " << ab.beta;
  EXPECT_TRUE(gaps_untouched(out, prior));
}

void check_all_algorithms(cudnnHandle_t h, Rng &rng, const Problem &pr) {
  Bound b(pr);
  for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter}) {
    const V7 v7 = query_v7(h, b, dir);
    for (int algo = 0; algo < algo_count(dir); ++algo) check_algorithm(h, rng, pr, b, dir, algo, v7.status[algo], v7.memory[algo]);
  }
}

// The pointwise algorithms of cuda.conv.gemm_1x1 (the forward GEMM and the
// data gradient's ALGO_0), each run with two blends of `blends` (from
// `first`). `h` is pinned to that engine on a GPU handle, where both must be
// supported.
void check_pointwise_gemm_algorithms(cudnnHandle_t h, Rng &rng, const Problem &pr, const AlphaBeta *blends,
                                     int first) {
  Bound b(pr);
  const std::pair<Dir, int> cases[] = {{Dir::fwd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
                                       {Dir::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0}};
  for (const auto &[dir, algo] : cases) {
    const V7 v7 = query_v7(h, b, dir);
    if (gpu_mode()) ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << dir_name(dir) << ": " << pr.text;
    for (int k = 0; k < 2; ++k)
      check_algorithm(h, rng, pr, b, dir, algo, v7.status[algo], v7.memory[algo], &blends[(first + 2 * k) % 4]);
  }
}

// On a GPU handle only cuda.conv.gemm_1x1, so that the checks above reach it.
const char *pointwise_gemm_engine() { return gpu_mode() ? "cuda.conv.gemm_1x1" : nullptr; }

TEST(Convolution, EveryAlgorithmAgainstReference2d) {
  Handle h;
  Rng rng(test_seed(401));
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                              CUDNN_DATA_BFLOAT16};
  for (int iter = 0; iter < 16; ++iter) {
    const Problem pr = random_problem(rng, types[iter % types.size()], 2);
    check_all_algorithms(h, rng, pr);
    if (HasFailure()) break;
  }
}

TEST(Convolution, EveryAlgorithmAgainstReference3d) {
  Handle h;
  Rng rng(test_seed(402));
  for (int iter = 0; iter < 5; ++iter) {
    const Problem pr = random_problem(rng, iter % 2 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, 3);
    check_all_algorithms(h, rng, pr);
    if (HasFailure()) break;
  }
}

// Few input channels (ResNet-50's RGB stem: C = 3, 7x7, stride 2, pad 3;
// and a 3x3 stride-1 one): the GPU's data gradient for Cg <= 4 and its
// tensor-core forward / filter gradient on 8-channel copies (HALF and
// BFLOAT16, one group) take these shapes; channels-innermost and NCHW
// tensors, both modes, every type.
TEST(Convolution, FewChannelsEveryAlgorithm) {
  Handle h;
  Rng rng(test_seed(406));
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT,
                                              CUDNN_DATA_DOUBLE};
  for (int iter = 0; iter < 8; ++iter) {
    Problem pr;
    pr.dtype = types[iter % types.size()];
    pr.compute = pr.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const bool stem = iter < 4;
    const int64_t C = stem ? 3 : rng.integer(1, 7), K = stem ? 16 : 8 * rng.integer(1, 2), f = stem ? 7 : 3;
    ConvParams &p = pr.p;
    p.mode = rng.coin() ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    p.pad = {stem ? 3 : 1, stem ? 3 : 1};
    p.stride = {stem ? 2 : 1, stem ? 2 : 1};
    p.dilation = {1, 1};
    const std::vector<int64_t> xd{2, C, rng.integer(9, 16), rng.integer(9, 16)}, wd{K, C, f, f};
    const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
    const bool nhwc = iter % 4 != 3;
    const Layout layout = nhwc ? Layout::nhwc : Layout::nchw;
    pr.wformat = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    pr.x = make_tensor(pr.dtype, xd, packed_strides(xd, layout));
    pr.w = make_tensor(pr.dtype, wd, packed_strides(wd, layout));
    pr.y = make_tensor(pr.dtype, yd, packed_strides(yd, layout));
    fill_random(pr.x, rng, -1, 1);
    fill_random(pr.w, rng, -1, 1);
    fill_random(pr.y, rng, -1, 1);
    pr.text = std::string(type_name(pr.dtype)) + (nhwc ? " nhwc" : " nchw") + " C" + std::to_string(C) + " K" +
              std::to_string(K) + " " + std::to_string(xd[2]) + "x" + std::to_string(xd[3]) + " f" +
              std::to_string(f) + (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
    check_all_algorithms(h, rng, pr);
    if (HasFailure()) break;
  }
}

// Pointwise (1x1, stride 1, no padding) NCHW convolutions, images with gaps
// between them: the GPU's forward GEMM algorithm and the data gradient's
// ALGO_0 run these as one cuBLAS batched matrix product per call.
TEST(Convolution, PointwiseNchwEveryAlgorithm) {
  Handle h, pinned(pointwise_gemm_engine());
  Rng rng(test_seed(407));
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  for (int iter = 0; iter < 6; ++iter) {
    Problem pr;
    pr.dtype = iter % 3 == 2 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    pr.compute = pr.dtype;
    const int64_t N = rng.integer(1, 3), C = iter == 0 ? 1 : rng.integer(2, 40), K = iter == 1 ? 1 : rng.integer(2, 40);
    ConvParams &p = pr.p;
    p.mode = rng.coin() ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    p.pad = {0, 0};
    p.stride = {1, 1};
    p.dilation = {1, static_cast<int>(rng.integer(1, 2))};
    const std::vector<int64_t> xd{N, C, rng.integer(1, 9), rng.integer(1, 13)}, wd{K, C, 1, 1};
    const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
    const int64_t gap = rng.integer(0, 5);
    pr.wformat = CUDNN_TENSOR_NCHW;
    pr.x = make_tensor(pr.dtype, xd, {C * xd[2] * xd[3] + gap, xd[2] * xd[3], xd[3], 1});
    pr.w = make_tensor(pr.dtype, wd, packed_strides(wd, Layout::nchw));
    pr.y = make_tensor(pr.dtype, yd, {K * yd[2] * yd[3] + gap, yd[2] * yd[3], yd[3], 1});
    fill_random(pr.x, rng, -1, 1);
    fill_random(pr.w, rng, -1, 1);
    fill_random(pr.y, rng, -1, 1);
    pr.text = std::string(type_name(pr.dtype)) + " 1x1 N" + std::to_string(N) + " C" + std::to_string(C) + " K" +
              std::to_string(K) + " " + std::to_string(xd[2]) + "x" + std::to_string(xd[3]) + " gap " +
              std::to_string(gap);
    check_all_algorithms(h, rng, pr);
    check_pointwise_gemm_algorithms(pinned, rng, pr, blends, iter);
    if (HasFailure()) break;
  }
}

// A HALF / BFLOAT16 (by iter) 2-d problem with channels innermost and
// `gap` unused elements after each row of W pixels of x and y, the filter
// packed KRSC, for the tensor-core tests below.
struct NhwcGapShape {
  int64_t N, G, Cg, Kg, H, W, f;
  int pad_h, pad_w, stride, dil;
  cudnnConvolutionMode_t mode;
  int64_t gap;
};

Problem nhwc_gap_problem(const NhwcGapShape &sh, int iter, Rng &rng) {
  Problem pr;
  pr.dtype = iter % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  pr.compute = CUDNN_DATA_FLOAT;
  ConvParams &p = pr.p;
  p.groups = static_cast<int>(sh.G);
  p.mode = sh.mode;
  p.pad = {sh.pad_h, sh.pad_w};
  p.stride = {sh.stride, sh.stride};
  p.dilation = {sh.dil, sh.dil};
  const int64_t C = sh.G * sh.Cg, K = sh.G * sh.Kg;
  const std::vector<int64_t> xd{sh.N, C, sh.H, sh.W}, wd{K, sh.Cg, sh.f, sh.f};
  const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
  const auto strides = [&](const std::vector<int64_t> &d) {
    const int64_t row = d[3] * d[1] + sh.gap;
    return std::vector<int64_t>{row * d[2], 1, row, d[1]};
  };
  pr.wformat = CUDNN_TENSOR_NHWC;
  pr.x = make_tensor(pr.dtype, xd, strides(xd));
  pr.w = make_tensor(pr.dtype, wd, packed_strides(wd, Layout::nhwc));
  pr.y = make_tensor(pr.dtype, yd, strides(yd));
  fill_random(pr.x, rng, -1, 1);
  fill_random(pr.w, rng, -1, 1);
  fill_random(pr.y, rng, -1, 1);
  pr.text = std::string(type_name(pr.dtype)) + " nhwc N" + std::to_string(sh.N) + " G" + std::to_string(sh.G) +
            " Cg" + std::to_string(sh.Cg) + " Kg" + std::to_string(sh.Kg) + " " + std::to_string(sh.H) + "x" +
            std::to_string(sh.W) + " f" + std::to_string(sh.f) + " p" + std::to_string(sh.pad_h) + "," +
            std::to_string(sh.pad_w) + " s" + std::to_string(sh.stride) + " d" + std::to_string(sh.dil) + " gap " +
            std::to_string(sh.gap) + (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
  return pr;
}

// HALF / BFLOAT16 channels-innermost problems with channel counts that are
// multiples of 8: the GPU's tensor-core implicit GEMM (the mma.sync kernel
// of convolution_mma*.cu for 16-bit outputs) takes these. The shapes reach
// each of its block tiles (forward and data gradient: 128 x 64, 128 x 128,
// 64 x 128; filter gradient: 256 x 128, 64 x 256, 64 x 192, 128 x 192,
// 64 x 64),
// partial tiles at every edge, reductions that are not a multiple of its
// 64-deep step, split reductions (forward and filter gradient; the filter
// gradient's parts summed in the kernel), groups, stride, dilation, both
// modes, and tensors with gaps.
void check_tensor_core_shapes(uint64_t seed) {
  Handle h;
  Rng rng(seed);
  struct Shape {
    int64_t N, G, Cg, Kg, H, W, f;
    int pad, stride, dil;
    int64_t gap;  // extra elements per pixel row of x and y (a multiple of 8)
  };
  const Shape shapes[] = {
      {2, 1, 16, 24, 13, 11, 3, 1, 1, 1, 0}, {2, 1, 72, 136, 9, 10, 3, 1, 2, 1, 0},
      {1, 1, 64, 64, 8, 8, 3, 1, 1, 1, 0},   {2, 2, 24, 160, 7, 9, 1, 0, 1, 1, 0},
      {2, 1, 24, 40, 10, 10, 3, 2, 1, 2, 0}, {4, 1, 16, 8, 16, 16, 3, 1, 1, 1, 8},
      {2, 1, 96, 264, 6, 5, 1, 0, 1, 1, 0}, {2, 1, 64, 128, 8, 8, 3, 1, 1, 1, 0},
      {2, 1, 128, 256, 5, 5, 1, 0, 1, 1, 0},
  };
  int iter = 0;
  for (const Shape &sh : shapes) {
    const cudnnConvolutionMode_t mode = iter % 3 == 1 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    const Problem pr = nhwc_gap_problem(
        {sh.N, sh.G, sh.Cg, sh.Kg, sh.H, sh.W, sh.f, sh.pad, sh.pad, sh.stride, sh.dil, mode, sh.gap}, iter, rng);
    // The implicit GEMM algorithms only (the others are covered above; the
    // float64 reference of these shapes is what costs the time).
    Bound b(pr);
    for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter}) {
      const V7 v7 = query_v7(h, b, dir);
      for (int algo : dir == Dir::fwd ? std::vector<int>{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM}
                                      : std::vector<int>{1})
        check_algorithm(h, rng, pr, b, dir, algo, v7.status[algo], v7.memory[algo]);
    }
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, TensorCoreChannelsLastImplicitGemm) { check_tensor_core_shapes(test_seed(408)); }

// The same shapes through the mma.sync kernel's alternative forms, which the
// GPU picks only when told to (for comparisons): the main loop of the 128 x
// 64, 64 x 128, 256 x 64, 64 x 256, 64 x 192 and 64 x 64 tiles without
// software pipelining (FREEDNN_CONV_MMA_PIPE=0), the filter gradient's
// split parts summed in the kernel by the last block of each tile
// (FREEDNN_CONV_MMA_FUSED=1) and its tiles chosen by the output width alone
// (FREEDNN_CONV_MMA_TILES=old: 128 x 256, 256 x 64 ...). A CPU handle has
// no tiles.
TEST(Convolution, TensorCoreImplicitGemmAlternativeForms) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv pipe("FREEDNN_CONV_MMA_PIPE", "0"), fused("FREEDNN_CONV_MMA_FUSED", "1"),
      tiles("FREEDNN_CONV_MMA_TILES", "old");
  check_tensor_core_shapes(test_seed(409));
}

// Data gradients with unit strides, HALF / BFLOAT16, channels-innermost,
// channel counts that are multiples of 8: the GPU runs these on the mma.sync
// kernel as a forward convolution of dy with a transformed filter
// (convolution_dgrad_as_fwd.hpp: taps reversed for CROSS_CORRELATION, in
// order for CONVOLUTION; pre-padding dil*(f-1) - pad), or, where the padding
// exceeds dil*(f-1) or the filter has one tap, with the data gradient's own
// GEMM view. Pad 0 / 1 / 2
// (different per dimension too), dilation 1 / 2, both modes, groups, 1x1 to
// 5x5, gaps between pixel rows, split reductions of the forward (small
// batches), and every problem with beta = 0 on a NaN-poisoned dx and with
// beta != 0.
void check_dgrad_as_forward_shapes(uint64_t seed) {
  Handle h;
  Rng rng(seed);
  struct Shape {
    int64_t N, G, Cg, Kg, H, W, f;
    int pad_h, pad_w, dil;
    cudnnConvolutionMode_t mode;
    int64_t gap;  // extra elements per pixel row of dx and dy (a multiple of 8)
  };
  const Shape shapes[] = {
      {2, 1, 16, 24, 9, 11, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION, 0},
      {2, 1, 24, 16, 8, 7, 3, 0, 0, 1, CUDNN_CONVOLUTION, 0},
      {1, 1, 40, 72, 10, 9, 3, 2, 1, 1, CUDNN_CROSS_CORRELATION, 8},
      {2, 1, 16, 32, 11, 10, 3, 2, 2, 2, CUDNN_CONVOLUTION, 0},
      {2, 2, 24, 16, 7, 8, 3, 1, 2, 2, CUDNN_CROSS_CORRELATION, 0},
      {2, 3, 8, 16, 6, 9, 3, 1, 0, 1, CUDNN_CONVOLUTION, 8},
      {1, 1, 8, 136, 7, 6, 5, 2, 1, 1, CUDNN_CONVOLUTION, 0},
      {3, 1, 16, 16, 6, 7, 1, 0, 0, 1, CUDNN_CROSS_CORRELATION, 0},
      {2, 1, 72, 24, 12, 12, 3, 1, 1, 1, CUDNN_CONVOLUTION, 0},
      // Padding past dil*(f-1): the data gradient's own view.
      {2, 1, 16, 24, 6, 6, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, 0},
      {1, 1, 16, 8, 7, 7, 3, 3, 1, 1, CUDNN_CONVOLUTION, 0},
  };
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const Shape &sh : shapes) {
    const Problem pr = nhwc_gap_problem(
        {sh.N, sh.G, sh.Cg, sh.Kg, sh.H, sh.W, sh.f, sh.pad_h, sh.pad_w, 1, sh.dil, sh.mode, sh.gap}, iter, rng);
    Bound b(pr);
    const V7 v7 = query_v7(h, b, Dir::bwd_data);
    for (const AlphaBeta &ab : {blends[iter % 2], blends[2 + iter % 2]}) {
      check_algorithm(h, rng, pr, b, Dir::bwd_data, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, v7.status[1], v7.memory[1],
                      &ab);
    }
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, DataGradientAsForward) { check_dgrad_as_forward_shapes(test_seed(410)); }

// The same problems on the data gradient's own GEMM view
// (FREEDNN_CONV_DGRAD_AS_FWD=0; GPU only: the CPU engines have one path).
TEST(Convolution, DataGradientAsForwardSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv off("FREEDNN_CONV_DGRAD_AS_FWD", "0");
  check_dgrad_as_forward_shapes(test_seed(411));
}

// A few-channel problem (C = 1..4, K 32 / 64, HALF / BFLOAT16, x and y
// packed NHWC) of the stem kernels' tests: the shape, its data type and
// filter layout chosen by `iter`.
struct FewChannelShape {
  int64_t N, C, K, H, W, fh, fw;
  int pad_h, pad_w, stride;
  cudnnConvolutionMode_t mode;
};

// Filters 7x7 / 5x5 / 3x3 / 3x5 / 1x1, strides 1-3, both modes; 8 x 16
// output tiles, so odd image sizes give partial tiles at the bottom and right.
const FewChannelShape kFewChannelShapes[] = {
    {2, 3, 64, 23, 29, 7, 7, 3, 3, 2, CUDNN_CROSS_CORRELATION},
    {1, 3, 64, 40, 37, 7, 7, 3, 3, 2, CUDNN_CONVOLUTION},
    {1, 1, 32, 17, 35, 5, 5, 2, 2, 1, CUDNN_CROSS_CORRELATION},
    {2, 4, 64, 19, 13, 3, 3, 1, 1, 2, CUDNN_CONVOLUTION},
    {2, 2, 32, 9, 9, 3, 3, 0, 0, 1, CUDNN_CROSS_CORRELATION},
    {1, 4, 64, 21, 33, 5, 5, 2, 2, 1, CUDNN_CONVOLUTION},
    {1, 3, 32, 14, 26, 3, 5, 1, 2, 3, CUDNN_CROSS_CORRELATION},
    {2, 2, 64, 11, 18, 1, 1, 0, 0, 1, CUDNN_CONVOLUTION},
    {1, 4, 32, 30, 31, 7, 7, 3, 3, 2, CUDNN_CONVOLUTION},
};

Problem few_channel_problem(const FewChannelShape &sh, int iter, bool kcrs, Rng &rng) {
  Problem pr;
  pr.dtype = iter % 2 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  pr.compute = CUDNN_DATA_FLOAT;
  ConvParams &p = pr.p;
  p.mode = sh.mode;
  p.pad = {sh.pad_h, sh.pad_w};
  p.stride = {sh.stride, sh.stride};
  p.dilation = {1, 1};
  const std::vector<int64_t> xd{sh.N, sh.C, sh.H, sh.W}, wd{sh.K, sh.C, sh.fh, sh.fw};
  const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
  pr.wformat = kcrs ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  pr.x = make_tensor(pr.dtype, xd, packed_strides(xd, Layout::nhwc));
  pr.w = make_tensor(pr.dtype, wd, packed_strides(wd, kcrs ? Layout::nchw : Layout::nhwc));
  pr.y = make_tensor(pr.dtype, yd, packed_strides(yd, Layout::nhwc));
  fill_random(pr.x, rng, -1, 1);
  fill_random(pr.w, rng, -1, 1);
  fill_random(pr.y, rng, -1, 1);
  pr.text = std::string(type_name(pr.dtype)) + " nhwc N" + std::to_string(sh.N) + " C" + std::to_string(sh.C) +
            " K" + std::to_string(sh.K) + " " + std::to_string(sh.H) + "x" + std::to_string(sh.W) + " f" +
            std::to_string(sh.fh) + "x" + std::to_string(sh.fw) + " p" + std::to_string(sh.pad_h) + "," +
            std::to_string(sh.pad_w) + " s" + std::to_string(sh.stride) + (kcrs ? " kcrs" : " krsc") +
            (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
  return pr;
}

// Forward convolutions of the few-channel problems: the GPU runs these on
// the stem kernel (convolution_stem.cu), FREEDNN_CONV_STEM=0 on the
// 8-channel copies. KRSC and KCRS filters, each problem with beta = 0 on a
// NaN-poisoned y and with beta != 0, both implicit GEMM algorithms.
void check_few_channel_forward_shapes(uint64_t seed) {
  Handle h;
  Rng rng(seed);
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const FewChannelShape &sh : kFewChannelShapes) {
    const Problem pr = few_channel_problem(sh, iter, iter % 3 == 2, rng);
    Bound b(pr);
    const V7 v7 = query_v7(h, b, Dir::fwd);
    const int algos[] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
    int k = 0;
    for (const AlphaBeta &ab : {blends[iter % 2], blends[2 + iter % 2]}) {
      const int algo = algos[(iter + k++) % 2];
      ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
      check_algorithm(h, rng, pr, b, Dir::fwd, algo, v7.status[algo], v7.memory[algo], &ab);
    }
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, FewChannelForward) { check_few_channel_forward_shapes(test_seed(412)); }

// The same problems on the 8-channel copies (FREEDNN_CONV_STEM=0; GPU only:
// the CPU engines have one path).
TEST(Convolution, FewChannelForwardStemSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv off("FREEDNN_CONV_STEM", "0");
  check_few_channel_forward_shapes(test_seed(413));
}

// Filter gradients of the few-channel problems: the GPU runs these on the
// stem's filter-gradient kernel (convolution_stem.cu: per-block partials
// summed in order by a finalize kernel), FREEDNN_CONV_STEM_WGRAD=0 on the
// 8-channel copies. KRSC and KCRS dw (the taps of CONVOLUTION reversed in
// the finalize), each with beta = 0 on a NaN-poisoned dw and beta != 0,
// BWD_FILTER_ALGO_1 (the implicit GEMM).
void check_few_channel_wgrad_shapes(uint64_t seed) {
  Handle h;
  Rng rng(seed);
  std::vector<FewChannelShape> shapes(std::begin(kFewChannelShapes), std::end(kFewChannelShapes));
  shapes.push_back({3, 3, 64, 45, 47, 7, 7, 3, 3, 2, CUDNN_CROSS_CORRELATION});
  // 384 tiles: more than an H100's blocks, so blocks walk several tiles
  // (GPU handles only: 5 s on the CPU engines, nothing they lack).
  if (gpu_mode()) shapes.push_back({6, 3, 32, 64, 128, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION});
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    const Problem pr = few_channel_problem(sh, iter, iter % 3 == 1, rng);
    Bound b(pr);
    const V7 v7 = query_v7(h, b, Dir::bwd_filter);
    const int algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
    for (const AlphaBeta &ab : {blends[iter % 2], blends[2 + iter % 2]})
      check_algorithm(h, rng, pr, b, Dir::bwd_filter, algo, v7.status[algo], v7.memory[algo], &ab);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, FewChannelFilterGradient) { check_few_channel_wgrad_shapes(test_seed(414)); }

// The same problems on the 8-channel copies (FREEDNN_CONV_STEM_WGRAD=0; GPU
// only: the CPU engines have one path).
TEST(Convolution, FewChannelFilterGradientStemSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv off("FREEDNN_CONV_STEM_WGRAD", "0");
  check_few_channel_wgrad_shapes(test_seed(415));
}

// Data gradients of the few-channel problems (and K = 16): the GPU runs
// these on the tensor-core kernel of convolution_stem_dgrad.cu (per stride
// class: 7x7 / 3x3 stride 2, 5x5 / 3x3 / 1x1 stride 1, 3x5 stride 3),
// FREEDNN_CONV_STEM_DGRAD=0 on the per-pixel kernel (convolution_narrow.cu).
// KRSC and KCRS filters, dx packed NHWC or (every third problem) NCHW, each
// with beta = 0 on a NaN-poisoned dx and with beta != 0, BWD_DATA_ALGO_1.
void check_few_channel_dgrad_shapes(uint64_t seed) {
  Handle h;
  Rng rng(seed);
  std::vector<FewChannelShape> shapes(std::begin(kFewChannelShapes), std::end(kFewChannelShapes));
  shapes.push_back({2, 3, 16, 27, 21, 7, 7, 3, 3, 2, CUDNN_CONVOLUTION});
  shapes.push_back({1, 1, 16, 15, 40, 3, 3, 1, 1, 2, CUDNN_CROSS_CORRELATION});
  shapes.push_back({1, 2, 16, 13, 11, 5, 5, 2, 2, 1, CUDNN_CROSS_CORRELATION});
  // 300 tiles of 32 x 32 dx pixels: more than an H100's blocks (2 per
  // multiprocessor), so blocks walk several tiles (GPU handles only: the
  // float64 reference's time).
  if (gpu_mode()) shapes.push_back({20, 1, 16, 96, 160, 3, 3, 1, 1, 2, CUDNN_CROSS_CORRELATION});
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    Problem pr = few_channel_problem(sh, iter, iter % 3 == 1, rng);
    if (iter % 3 == 2) {
      pr.x = make_tensor(pr.dtype, pr.x.dims, packed_strides(pr.x.dims, Layout::nchw));
      fill_random(pr.x, rng, -1, 1);
      pr.text += " nchw dx";
    }
    Bound b(pr);
    const V7 v7 = query_v7(h, b, Dir::bwd_data);
    const int algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
    for (const AlphaBeta &ab : {blends[iter % 2], blends[2 + iter % 2]})
      check_algorithm(h, rng, pr, b, Dir::bwd_data, algo, v7.status[algo], v7.memory[algo], &ab);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, FewChannelDataGradient) { check_few_channel_dgrad_shapes(test_seed(430)); }

// The same problems on the per-pixel kernel (FREEDNN_CONV_STEM_DGRAD=0; GPU
// only: the CPU engines have one path).
TEST(Convolution, FewChannelDataGradientStemSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv off("FREEDNN_CONV_STEM_DGRAD", "0");
  check_few_channel_dgrad_shapes(test_seed(431));
}

// FLOAT data and filter gradients of few-channel problems with large
// filters (C x R x S of 65-160): what the GPU runs as cuBLASLt GEMMs +
// col2im (cuda/convolution_dgrad_gemm.hpp; dy NCHW-like) and on the
// register-tiled FMA filter-gradient kernel
// (cuda/convolution_narrow_wgrad.cu; any layout). x and dy NCHW, or (every
// third problem) NHWC, padded-row strides once; KCRS and KRSC filters; the
// 7x7 / 2 stem at a reduced size, 5x5 with C = 4 and 7x7 with C = 2 (J
// 100, 98: 4 taps a lane), dilation 2, strides 1-3, both modes; K = 96
// (two 64-k groups, the second part-empty) and 32; each problem with beta
// = 0 on a NaN-poisoned output and beta != 0, ALGO_1 of both directions.
// `chunk_mb` bounds the GEMM's chunk of images (FREEDNN_CONV_DGRAD_GEMM_MB:
// 1 MiB takes one image per GEMM, so N > 1 runs several, with a tail).
void check_float_few_channel_gradients(uint64_t seed, const char *chunk_mb) {
  const ScopedEnv chunk("FREEDNN_CONV_DGRAD_GEMM_MB", chunk_mb);
  Handle h;
  Rng rng(seed);
  struct Shape {
    FewChannelShape sh;
    int dil;
  };
  const Shape shapes[] = {
      {{3, 3, 64, 45, 47, 7, 7, 3, 3, 2, CUDNN_CROSS_CORRELATION}, 1},
      {{2, 4, 32, 21, 33, 5, 5, 2, 2, 1, CUDNN_CONVOLUTION}, 1},
      {{1, 2, 96, 30, 31, 7, 7, 3, 3, 2, CUDNN_CONVOLUTION}, 1},
      {{2, 3, 64, 40, 37, 7, 7, 3, 3, 2, CUDNN_CONVOLUTION}, 1},
      {{3, 3, 64, 19, 23, 5, 5, 4, 4, 1, CUDNN_CROSS_CORRELATION}, 2},
      {{2, 4, 64, 26, 25, 5, 5, 1, 2, 3, CUDNN_CROSS_CORRELATION}, 1},
  };
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const Shape &s : shapes) {
    const FewChannelShape &sh = s.sh;
    Problem pr;
    ConvParams &p = pr.p;
    p.mode = sh.mode;
    p.pad = {sh.pad_h, sh.pad_w};
    p.stride = {sh.stride, sh.stride};
    p.dilation = {s.dil, s.dil};
    const std::vector<int64_t> xd{sh.N, sh.C, sh.H, sh.W}, wd{sh.K, sh.C, sh.fh, sh.fw};
    const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
    const bool nhwc = iter % 3 == 2, krsc = iter % 2 == 1;
    pr.wformat = krsc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    std::vector<int64_t> ys = packed_strides(yd, nhwc ? Layout::nhwc : Layout::nchw);
    if (iter == 3) ys = {yd[1] * yd[2] * (yd[3] + 4), yd[2] * (yd[3] + 4), yd[3] + 4, 1};  // dy rows padded
    pr.x = make_tensor(pr.dtype, xd, packed_strides(xd, nhwc ? Layout::nhwc : Layout::nchw));
    pr.w = make_tensor(pr.dtype, wd, packed_strides(wd, krsc ? Layout::nhwc : Layout::nchw));
    pr.y = make_tensor(pr.dtype, yd, ys);
    fill_random(pr.x, rng, -1, 1);
    fill_random(pr.w, rng, -1, 1);
    fill_random(pr.y, rng, -1, 1);
    pr.text = "float N" + std::to_string(sh.N) + " C" + std::to_string(sh.C) + " K" + std::to_string(sh.K) + " " +
              std::to_string(sh.H) + "x" + std::to_string(sh.W) + " f" + std::to_string(sh.fh) + "x" +
              std::to_string(sh.fw) + " p" + std::to_string(sh.pad_h) + "," + std::to_string(sh.pad_w) + " s" +
              std::to_string(sh.stride) + " d" + std::to_string(s.dil) + (nhwc ? " nhwc" : " nchw") +
              (iter == 3 ? " padded dy rows" : "") + (krsc ? " krsc" : " kcrs") +
              (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
    Bound b(pr);
    for (Dir dir : {Dir::bwd_data, Dir::bwd_filter}) {
      const V7 v7 = query_v7(h, b, dir);
      const int algo = dir == Dir::bwd_data ? static_cast<int>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1)
                                            : static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
      ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
      for (const AlphaBeta &ab : {blends[iter % 2], blends[2 + iter % 2]})
        check_algorithm(h, rng, pr, b, dir, algo, v7.status[algo], v7.memory[algo], &ab);
    }
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, FloatFewChannelGradients) { check_float_few_channel_gradients(test_seed(4111), nullptr); }

// One image per GEMM of the data gradient's GEMM form (GPU only: the CPU
// engines have no chunks).
TEST(Convolution, FloatFewChannelGradientsChunked) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_float_few_channel_gradients(test_seed(4112), "1");
}

// The same problems on the per-pixel data-gradient kernel and the tiled FMA
// filter gradient (GPU only).
TEST(Convolution, FloatFewChannelGradientsSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv gemm("FREEDNN_CONV_DGRAD_GEMM", "0");
  const ScopedEnv fma("FREEDNN_CONV_NARROW_WGRAD", "0");
  check_float_few_channel_gradients(test_seed(4113), nullptr);
}

// Input that no output reads (the last row and column of an even-sized
// image under 3x3 stride 2, pad 0) holds Inf: dw must not see it. The stem
// filter-gradient kernel's partial tiles cover pixels past the output, whose
// im2col rows reach that input; it zeros those rows rather than multiply
// them by dy's zeros (0 * Inf = NaN).
TEST(Convolution, FewChannelFilterGradientIgnoresUnreadInput) {
  Handle h;
  Rng rng(test_seed(418));
  const FewChannelShape shapes[] = {{2, 3, 64, 16, 20, 3, 3, 0, 0, 2, CUDNN_CROSS_CORRELATION},
                                    {1, 4, 32, 18, 34, 5, 5, 0, 0, 2, CUDNN_CONVOLUTION}};
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    Problem pr = few_channel_problem(sh, iter, iter == 1, rng);
    const int64_t unread_h = sh.H - 1, unread_w = sh.W - 1;  // (H - fh) and (W - fw) are odd
    for_each_index(pr.x.dims, [&](const std::vector<int64_t> &i) {
      if (i[2] == unread_h || i[3] == unread_w) pr.x.set(i, std::numeric_limits<double>::infinity());
    });
    Bound b(pr);
    const V7 v7 = query_v7(h, b, Dir::bwd_filter);
    const int algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
    const AlphaBeta ab{1, 0};
    check_algorithm(h, rng, pr, b, Dir::bwd_filter, algo, v7.status[algo], v7.memory[algo], &ab);
    ++iter;
  }
}

// ALGO_1 of `pr`'s filter gradient against the reference, with beta = 0 on
// a NaN-poisoned dw and beta != 0: one blend on a CPU handle (alternating
// with `iter`, to keep the float64 reference's time down), two on a GPU
// handle.
void check_wgrad_algo1(Handle &h, Rng &rng, const Problem &pr, int iter) {
  static const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  Bound b(pr);
  const V7 v7 = query_v7(h, b, Dir::bwd_filter);
  const int algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
  ASSERT_EQ(v7.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
  std::vector<AlphaBeta> use{blends[iter % 4]};
  if (gpu_mode()) use = {blends[iter % 2], blends[2 + iter % 2]};
  for (const AlphaBeta &ab : use)
    check_algorithm(h, rng, pr, b, Dir::bwd_filter, algo, v7.status[algo], v7.memory[algo], &ab);
}

// Filter gradients of HALF / BFLOAT16 problems with small images, C and K
// multiples of 8, x and dy packed NHWC: what the GPU may run as im2col +
// cuBLASLt GEMMs (cuda/convolution_wgrad_gemm.hpp). FREEDNN_CONV_WGRAD_GEMM=1
// takes that form wherever its layout allows (the default rule asks for
// batches too large for the float64 reference). 7x7 and 4x4 images, 3x3
// filters with pad 0 / 1 (stride 2 once), 1x1 filters (x itself as the
// im2col matrix), both modes, KRSC and KCRS dw, beta = 0 on a NaN-poisoned
// dw and beta != 0 (each problem both on a GPU handle; one of the two,
// alternating, on the CPU engines, to keep the float64 reference's time
// down). `chunked` cuts the pixels into chunks of 40 (a shorter tail),
// and every other problem's 3x3 taps into groups of 3: several GEMMs
// accumulating into the float result.
void check_wgrad_gemm_shapes(uint64_t seed, bool chunked) {
  const ScopedEnv chunk("FREEDNN_CONV_WGRAD_GEMM_CHUNK", chunked ? "40" : nullptr);
  Handle h;
  Rng rng(seed);
  const FewChannelShape shapes[] = {
      {2, 64, 128, 7, 7, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},
      {2, 128, 64, 4, 4, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {1, 64, 64, 7, 7, 3, 3, 0, 0, 1, CUDNN_CROSS_CORRELATION},
      {3, 256, 64, 4, 4, 1, 1, 0, 0, 1, CUDNN_CONVOLUTION},
      {1, 64, 256, 7, 7, 1, 1, 0, 0, 1, CUDNN_CROSS_CORRELATION},
      {2, 128, 64, 7, 7, 3, 3, 1, 1, 2, CUDNN_CONVOLUTION},
      {4, 64, 64, 4, 4, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
  };
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    const Problem pr = few_channel_problem(sh, iter, iter % 3 == 1, rng);
    const ScopedEnv taps("FREEDNN_CONV_WGRAD_GEMM_TAPS", chunked && iter % 2 ? "3" : nullptr);
    check_wgrad_algo1(h, rng, pr, iter);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, WgradGemm) {
  const ScopedEnv on("FREEDNN_CONV_WGRAD_GEMM", "1");
  check_wgrad_gemm_shapes(test_seed(416), false);
}

// Several GEMMs per call (GPU only: the CPU engines have no chunks).
TEST(Convolution, WgradGemmChunked) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv on("FREEDNN_CONV_WGRAD_GEMM", "1");
  check_wgrad_gemm_shapes(test_seed(417), true);
}

// The same problems on the mma.sync kernel (FREEDNN_CONV_WGRAD_GEMM=0; GPU
// only: the CPU engines have one path).
TEST(Convolution, WgradGemmSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  const ScopedEnv off("FREEDNN_CONV_WGRAD_GEMM", "0");
  check_wgrad_gemm_shapes(test_seed(418), false);
}

// Filter gradients of 3x3 unit-stride HALF / BFLOAT16 problems with C and
// K multiples of 64, x and dy packed NHWC: what an H100 runs on wgmma
// (cuda/convolution_wgrad_wgmma.hpp). Pixel counts not a multiple of the
// kernel's 64-pixel stages (images cross stage boundaries), pad 0 / 1 / 2
// and unequal pads, both modes, beta = 0 on a NaN-poisoned dw and beta !=
// 0; K = 256 runs the kernel's 256-row tiles, K = 128 its 128-row ones,
// K = 64 and 192 its 64-row ones (two consumers taking stages in turn).
// `on` is FREEDNN_CONV_WGRAD_WGMMA ("1", the default, or "0"),
// `splits` forces that many split parts (more than the pixel chunks: some
// parts empty), `stream_k_blocks` stream-K on that many blocks. One KCRS
// problem (not the kernel's layout) checks the fall back. On CPU handles
// the same problems run on the CPU engines.
void check_wgrad_wgmma_shapes(uint64_t seed, const char *on, const char *splits,
                              const char *stream_k_blocks = nullptr) {
  const ScopedEnv path("FREEDNN_CONV_WGRAD_WGMMA", on);
  const ScopedEnv parts("FREEDNN_CONV_WGRAD_WGMMA_SPLITS", splits);
  const ScopedEnv stream_k("FREEDNN_CONV_WGRAD_WGMMA_STREAM_K", stream_k_blocks ? "1" : nullptr);
  const ScopedEnv grid("FREEDNN_CONV_WGRAD_WGMMA_BLOCKS", stream_k_blocks);
  Handle h;
  Rng rng(seed);
  const FewChannelShape shapes[] = {
      {3, 64, 128, 9, 11, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {2, 128, 128, 6, 7, 3, 3, 0, 0, 1, CUDNN_CONVOLUTION},
      {1, 192, 256, 13, 9, 3, 3, 2, 2, 1, CUDNN_CROSS_CORRELATION},
      {5, 64, 128, 7, 5, 3, 3, 1, 0, 1, CUDNN_CONVOLUTION},
      {4, 64, 128, 12, 12, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {2, 64, 128, 5, 6, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {3, 128, 256, 6, 5, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},
      {3, 64, 64, 10, 9, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},
      {2, 128, 192, 7, 6, 3, 3, 1, 2, 1, CUDNN_CROSS_CORRELATION},
  };
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    const Problem pr = few_channel_problem(sh, iter, iter == 5, rng);  // the fall back: KCRS
    check_wgrad_algo1(h, rng, pr, iter);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, WgradWgmma) { check_wgrad_wgmma_shapes(test_seed(432), "1", nullptr); }

// Several split parts, some empty (GPU only: the CPU engines have no parts).
TEST(Convolution, WgradWgmmaSplit) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_wgrad_wgmma_shapes(test_seed(433), "1", "7");
}

// Stream-K on a grid of 5 blocks: each block's run of (tile, pixel chunk)
// pairs crosses tiles, a tile's parts come from several blocks (GPU only).
TEST(Convolution, WgradWgmmaStreamK) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_wgrad_wgmma_shapes(test_seed(440), "1", nullptr, "5");
}

// Output widths Q that divide 112 in multiples of 8 (8, 16, 56): the GPU
// kernel reads x in row windows there (one box per output row serves its
// 3 taps; a stage is 112 / Q rows, so stages cross images and the last one
// runs past the last image). Pad 0 / 1 / 2 and unequal pads, K = 64 / 128 /
// 256, both modes, both 16-bit types; on CPU handles the CPU engines.
TEST(Convolution, WgradWgmmaRowWindows) {
  const ScopedEnv path("FREEDNN_CONV_WGRAD_WGMMA", "1");
  Handle h;
  Rng rng(test_seed(441));
  const FewChannelShape shapes[] = {
      {3, 64, 64, 8, 8, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},     // Q 8: 14 rows a stage
      {2, 64, 128, 16, 16, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},        // Q 16
      {1, 128, 256, 11, 18, 3, 3, 0, 0, 1, CUDNN_CROSS_CORRELATION}, // Q 16, pad 0
      {2, 64, 64, 5, 56, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},          // Q 56: 2 rows a stage
      {2, 64, 128, 7, 10, 3, 3, 2, 0, 1, CUDNN_CROSS_CORRELATION},   // Q 8, pad 2 / 0
      {1, 64, 64, 3, 14, 3, 3, 0, 2, 1, CUDNN_CONVOLUTION},          // Q 16, pad 0 / 2
  };
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    const Problem pr = few_channel_problem(sh, iter, false, rng);
    check_wgrad_algo1(h, rng, pr, iter);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

// The same problems on the mma.sync kernel (FREEDNN_CONV_WGRAD_WGMMA=0).
TEST(Convolution, WgradWgmmaSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_wgrad_wgmma_shapes(test_seed(434), "0", nullptr);
}

// Forward convolutions and data gradients of HALF / BFLOAT16 problems with
// C and K multiples of 64, x and y packed NHWC: what an H100 runs on the
// wgmma forward kernel (convolution_fwd_wgmma.hpp) when
// FREEDNN_CONV_FWD_WGMMA is `on` ("1", the default; "0" keeps the mma.sync
// kernel), the data gradient with unit strides as a forward of dy with the
// filter read in place (FREEDNN_CONV_DGRAD_WGMMA_IN_PLACE, `in_place`; "0":
// the transformed filter; the KCRS problem takes that one either way).
// Pixel counts that are no multiple of the kernel's
// 128 / 256-row tiles, K = 64 / 128 / 192 / 256 (each tile width), pad 0 /
// 1 / 2, a 1x1 with C = 256 (1x1 with C = 64 stays on mma.sync) and a
// strided problem (the data gradient of that one keeps its own view), both
// modes, one KCRS filter (the fall back), each problem with beta = 0
// on a NaN-poisoned output and with beta != 0, both forward implicit GEMM
// algorithms. On CPU handles the same problems run on the CPU engines, with
// one of the two blends (alternating, for the float64 reference's time).
// `blocks` caps the kernel's grid (FREEDNN_CONV_FWD_WGMMA_BLOCKS): each block
// then runs several tiles, as on problems larger than the float64 reference
// can check in time. `split` forces that many split parts of the last
// wave's tiles (FREEDNN_CONV_FWD_WGMMA_SPLIT; plans made after it is set).
void check_fwd_wgmma_shapes(uint64_t seed, const char *on, const char *blocks, const char *in_place = nullptr,
                            const char *split = nullptr) {
  const ScopedEnv path("FREEDNN_CONV_FWD_WGMMA", on);
  const ScopedEnv grid("FREEDNN_CONV_FWD_WGMMA_BLOCKS", blocks);
  const ScopedEnv filter("FREEDNN_CONV_DGRAD_WGMMA_IN_PLACE", in_place);
  const ScopedEnv parts("FREEDNN_CONV_FWD_WGMMA_SPLIT", split);
  Handle h;
  Rng rng(seed);
  std::vector<FewChannelShape> shapes = {
      {3, 64, 128, 9, 11, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {2, 128, 64, 6, 7, 3, 3, 0, 0, 1, CUDNN_CONVOLUTION},
      {1, 128, 256, 9, 7, 3, 3, 2, 2, 1, CUDNN_CROSS_CORRELATION},
      {2, 256, 192, 11, 10, 1, 1, 0, 0, 1, CUDNN_CONVOLUTION},
      {2, 64, 128, 12, 13, 3, 3, 1, 1, 2, CUDNN_CROSS_CORRELATION},
      {1, 64, 64, 8, 8, 3, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION},
      {2, 192, 256, 5, 5, 3, 3, 1, 1, 1, CUDNN_CONVOLUTION},
  };
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    const Problem pr = few_channel_problem(sh, iter, iter == 5, rng);  // the fall back: KCRS
    Bound b(pr);
    const V7 fwd = query_v7(h, b, Dir::fwd), dgrad = query_v7(h, b, Dir::bwd_data);
    const int algos[] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
    std::vector<AlphaBeta> use{blends[iter % 4]};
    if (gpu_mode()) use = {blends[iter % 2], blends[2 + iter % 2]};
    int k = 0;
    for (const AlphaBeta &ab : use) {
      const int algo = algos[(iter + k++) % 2];
      ASSERT_EQ(fwd.status[algo], CUDNN_STATUS_SUCCESS) << pr.text;
      check_algorithm(h, rng, pr, b, Dir::fwd, algo, fwd.status[algo], fwd.memory[algo], &ab);
      const int dalgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
      ASSERT_EQ(dgrad.status[dalgo], CUDNN_STATUS_SUCCESS) << pr.text;
      check_algorithm(h, rng, pr, b, Dir::bwd_data, dalgo, dgrad.status[dalgo], dgrad.memory[dalgo], &ab);
    }
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, FwdWgmma) { check_fwd_wgmma_shapes(test_seed(435), "1", nullptr); }

// Two blocks in the grid: every block runs several tiles (GPU only).
TEST(Convolution, FwdWgmmaTwoBlocks) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_fwd_wgmma_shapes(test_seed(437), "1", "2");
}

// The split of the last wave forced (GPU only): these problems have fewer
// tiles than multiprocessors, so every tile's reduction runs in 3 parts
// (fewer where its steps or the grid leave no room) on as many blocks, the
// last adding the others' sums from the scratch before it writes y; then
// 2 parts on a grid of 3 blocks, whose tail follows a wave of whole tiles.
// Forward and data gradient (filter in place), beta = 0 on a NaN-poisoned
// output and beta != 0.
TEST(Convolution, FwdWgmmaSplitTail) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_fwd_wgmma_shapes(test_seed(441), "1", nullptr, nullptr, "3");
  check_fwd_wgmma_shapes(test_seed(442), "1", "3", nullptr, "2");
}

// The data gradients on wgmma with the transformed filter (GPU only).
TEST(Convolution, FwdWgmmaDgradFilterTransformed) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_fwd_wgmma_shapes(test_seed(439), "1", nullptr, "0");
}

// The same problems on the mma.sync kernel (FREEDNN_CONV_FWD_WGMMA=0; GPU
// only: the CPU engines have one path).
TEST(Convolution, FwdWgmmaSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_fwd_wgmma_shapes(test_seed(436), "0", nullptr);
}

// The forward GEMM algorithm and the data gradient's ALGO_0 on pointwise
// HALF / BFLOAT16 NHWC problems: one cuBLASLt matrix product on the GPU
// (cuda.conv.gemm_1x1), so they must be supported there. C and K that are
// and are not multiples of 8 (row strides not 16-byte multiples), K = 1
// and 3, images with gaps between them (a batched product), KRSC and KCRS
// filters (the same for 1x1), each problem with beta = 0 on a NaN-poisoned
// output and with beta != 0.
TEST(Convolution, Gemm1x1HalfNhwc) {
  Handle h(pointwise_gemm_engine());
  Rng rng(test_seed(438));
  const FewChannelShape shapes[] = {
      {3, 64, 256, 9, 11, 1, 1, 0, 0, 1, CUDNN_CROSS_CORRELATION},
      {2, 24, 40, 5, 7, 1, 1, 0, 0, 1, CUDNN_CONVOLUTION},
      {1, 20, 3, 6, 5, 1, 1, 0, 0, 1, CUDNN_CROSS_CORRELATION},
      {2, 16, 1, 4, 9, 1, 1, 0, 0, 1, CUDNN_CROSS_CORRELATION},
      {4, 128, 64, 7, 7, 1, 1, 0, 0, 1, CUDNN_CONVOLUTION},
  };
  const AlphaBeta blends[] = {{1, 0}, {-0.5, 2}, {0.75, 0}, {2, -1}};
  int iter = 0;
  for (const FewChannelShape &sh : shapes) {
    Problem pr = few_channel_problem(sh, iter, iter % 2 == 1, rng);
    if (iter % 3 == 1) {  // gaps between the images of x and y
      std::vector<int64_t> xs = pr.x.strides, ys = pr.y.strides;
      xs[0] += 8 * sh.C, ys[0] += 8 * sh.K;
      pr.x = make_tensor(pr.dtype, pr.x.dims, xs);
      pr.y = make_tensor(pr.dtype, pr.y.dims, ys);
      fill_random(pr.x, rng, -1, 1);
      fill_random(pr.y, rng, -1, 1);
      pr.text += " image gaps";
    }
    check_pointwise_gemm_algorithms(h, rng, pr, blends, iter);
    if (::testing::Test::HasFailure()) break;
    ++iter;
  }
}

TEST(Convolution, ReferenceEngineAgreesOnEveryAlgorithm) {
  if (gpu_mode()) GTEST_SKIP() << "the CPU reference engines run on CPU handles";
  Handle h("cpu.reference");
  Rng rng(test_seed(403));
  for (int iter = 0; iter < 4; ++iter) {
    const Problem pr = random_problem(rng, iter % 2 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, 2);
    check_all_algorithms(h, rng, pr);
    if (HasFailure()) break;
  }
}

// Finite differences: with L(x, w) = sum(y .* r), dL/dx = bwd_data(r) and
// dL/dw = bwd_filter(x, r); the convolution is linear, so central
// differences of the forward call are exact up to rounding.
TEST(Convolution, BackwardByFiniteDifferences) {
  Handle h;
  Rng rng(test_seed(404));
  for (int iter = 0; iter < 3; ++iter) {
    Problem pr = random_problem(rng, CUDNN_DATA_DOUBLE, 2);
    SCOPED_TRACE(pr.text);
    Bound b(pr);
    const HostTensor r = pr.y;  // the loss weights
    const auto loss = [&](const HostTensor &x, const HostTensor &w) {
      HostTensor y = pr.y;
      Buffer xb = upload(x), wb = upload(w), yb = upload(y);
      size_t need = 0;
      EXPECT_EQ(workspace_size(h, b, Dir::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &need), CUDNN_STATUS_SUCCESS);
      Buffer ws(need + 1);
      EXPECT_EQ(execute(h, b, Dir::fwd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, xb, wb, yb, ws.get(), need,
                        Scaling(1), Scaling(0), pr.dtype),
                CUDNN_STATUS_SUCCESS);
      download(yb, y);
      double s = 0;
      const std::vector<double> yv = y.values(), rv = r.values();
      for (size_t i = 0; i < yv.size(); ++i) s += yv[i] * rv[i];
      return s;
    };
    for (Dir dir : {Dir::bwd_data, Dir::bwd_filter}) {
      HostTensor grad = dir == Dir::bwd_data ? pr.x : pr.w;
      Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(r);
      Buffer &gb = dir == Dir::bwd_data ? xb : wb;
      size_t need = 0;
      ASSERT_EQ(workspace_size(h, b, dir, 0, &need), CUDNN_STATUS_SUCCESS);
      Buffer ws(need + 1);
      ASSERT_EQ(execute(h, b, dir, 0, xb, wb, yb, ws.get(), need, Scaling(1), Scaling(0), pr.dtype),
                CUDNN_STATUS_SUCCESS)
          << last_error();
      download(gb, grad);
      std::vector<int64_t> idx(grad.rank());
      for (int probe = 0; probe < 4; ++probe) {
        for (int d = 0; d < grad.rank(); ++d) idx[d] = rng.integer(0, grad.dims[d] - 1);
        HostTensor plus = dir == Dir::bwd_data ? pr.x : pr.w, minus = plus;
        const double h0 = 1e-3;
        plus.set(idx, plus.get(idx) + h0);
        minus.set(idx, minus.get(idx) - h0);
        const double fd = dir == Dir::bwd_data ? (loss(plus, pr.w) - loss(minus, pr.w)) / (2 * h0)
                                               : (loss(pr.x, plus) - loss(pr.x, minus)) / (2 * h0);
        EXPECT_NEAR(grad.get(idx), fd, 1e-8 * (1 + std::fabs(fd))) << dir_name(dir);
      }
    }
  }
}

TEST(Convolution, FindTimesEverySupportedAlgorithm) {
  Handle h;
  Rng rng(test_seed(405));
  Problem pr = random_problem(rng, CUDNN_DATA_FLOAT, 2);
  Bound b(pr);
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  ASSERT_EQ(cudnnFindConvolutionForwardAlgorithm(h, b.xd, b.wd, b.cd, b.yd, 8, &n, perf), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(n, 8);
  const V7 v7 = query_v7(h, b, Dir::fwd);
  bool failures = false;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(perf[i].status, v7.status[perf[i].algo]) << perf[i].algo;
    if (perf[i].status == CUDNN_STATUS_SUCCESS) {
      EXPECT_FALSE(failures) << "successful results come first";
      EXPECT_GE(perf[i].time, 0);
      if (i > 0 && perf[i - 1].status == CUDNN_STATUS_SUCCESS) EXPECT_LE(perf[i - 1].time, perf[i].time);
    } else {
      failures = true;
    }
  }
  // Ex with the caller's buffers and no workspace: algorithms that need one
  // report ALLOC_FAILED.
  Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(pr.y);
  cudnnConvolutionBwdFilterAlgoPerf_t fperf[7];
  ASSERT_EQ(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, b.xd, xb.get(), b.yd, yb.get(), b.cd, b.wd, wb.get(), 7,
                                                          &n, fperf, nullptr, 0),
            CUDNN_STATUS_SUCCESS);
  for (int i = 0; i < n; ++i)
    if (fperf[i].memory > 0 && fperf[i].status != CUDNN_STATUS_NOT_SUPPORTED)
      EXPECT_EQ(fperf[i].status, CUDNN_STATUS_ALLOC_FAILED) << fperf[i].algo;
  cudnnConvolutionBwdDataAlgoPerf_t dperf[6];
  ASSERT_EQ(cudnnFindConvolutionBackwardDataAlgorithm(h, b.wd, b.yd, b.cd, b.xd, 6, &n, dperf), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dperf[0].status, CUDNN_STATUS_SUCCESS);
  int count = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_EQ(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  EXPECT_EQ(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
}

TEST(Convolution, BackwardBias) {
  Handle h;
  Rng rng(test_seed(406));
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF}) {
    const std::vector<int64_t> dyd{2, 5, 3, 4};
    HostTensor dy = make_tensor(t, dyd, layout_strides(rng, dyd));
    fill_random(dy, rng, -1, 1);
    HostTensor db = make_tensor(t, {1, 5, 1, 1}, packed_strides({1, 5, 1, 1}, Layout::nchw));
    fill_random(db, rng, -1, 1);
    const HostTensor prior = db;
    TensorDesc dyD(dy), dbD(db);
    Buffer dyb = upload(dy), dbb = upload(db);
    const Scaling alpha(1.5), beta(-0.5);
    ASSERT_EQ(cudnnConvolutionBackwardBias(h, alpha.for_type(t), dyD, dyb.get(), beta.for_type(t), dbD, dbb.get()),
              CUDNN_STATUS_SUCCESS);
    download(dbb, db);
    std::vector<Expect> want(5);
    for (int64_t c = 0; c < 5; ++c) {
      double s = 0, m = 0;
      for_each_index(dyd, [&](const std::vector<int64_t> &i) {
        if (i[1] == c) s += dy.get(i), m += std::fabs(dy.get(i));
      });
      const double prev = prior.get({0, c, 0, 0});
      want[c] = {1.5 * s - 0.5 * prev, 1e-5 * (m + 1)};
    }
    EXPECT_TRUE(matches(db, want)) << type_name(t);
    EXPECT_FAILS_NAMING(cudnnConvolutionBackwardBias(h, alpha.for_type(t), dyD, dyb.get(), beta.for_type(t), dyD,
                                                     dbb.get()),
                        CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardBias", "dbDesc");
  }
}

TEST(Convolution, BiasActivationForward) {
  Handle h;
  Rng rng(test_seed(407));
  for (cudnnActivationMode_t mode : {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_IDENTITY}) {
    Problem pr = random_problem(rng, CUDNN_DATA_FLOAT, 2);
    SCOPED_TRACE(pr.text);
    Bound b(pr);
    const int64_t K = pr.w.dims[0];
    HostTensor z = make_tensor(CUDNN_DATA_FLOAT, pr.y.dims, pr.y.strides);
    fill_random(z, rng, -1, 1);
    HostTensor bias = make_tensor(CUDNN_DATA_FLOAT, {1, K, 1, 1}, packed_strides({1, K, 1, 1}, Layout::nchw));
    fill_random(bias, rng, -1, 1);
    cudnnActivationDescriptor_t act;
    ASSERT_EQ(cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnSetActivationDescriptor(act, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0), CUDNN_STATUS_SUCCESS);
    TensorDesc zD(z), biasD(bias);
    HostTensor y = pr.y;
    poison(y);
    Buffer xb = upload(pr.x), wb = upload(pr.w), zb = upload(z), bb = upload(bias), yb = upload(y);
    const float a1 = 0.75f, a2 = -0.5f;
    const int algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    ASSERT_EQ(workspace_size(h, b, Dir::fwd, algo, &ws_bytes), CUDNN_STATUS_SUCCESS);
    Buffer ws(ws_bytes + 1);
    ASSERT_EQ(cudnnConvolutionBiasActivationForward(h, &a1, b.xd, xb.get(), b.wd, wb.get(), b.cd,
                                                    static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), ws_bytes,
                                                    &a2, zD, zb.get(), biasD, bb.get(), act, b.yd, yb.get()),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    download(yb, y);
    std::vector<Expect> conv = reference_conv_forward(pr.p, pr.x, pr.w, a1, 0, pr.y, CUDNN_DATA_FLOAT, 64);
    int64_t i = 0;
    for_each_index(pr.y.dims, [&](const std::vector<int64_t> &idx) {
      double v = conv[i].value + a2 * z.get(idx) + bias.get({0, idx[1], 0, 0});
      if (mode == CUDNN_ACTIVATION_RELU) v = std::max(v, 0.0);
      conv[i].value = v;
      conv[i].tolerance += 1e-6 * (1 + std::fabs(v));
      ++i;
    });
    EXPECT_TRUE(matches(y, conv));
    // Unsupported activation modes.
    ASSERT_EQ(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0.0),
              CUDNN_STATUS_SUCCESS);
    EXPECT_FAILS_NAMING(cudnnConvolutionBiasActivationForward(h, &a1, b.xd, xb.get(), b.wd, wb.get(), b.cd,
                                                              static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(),
                                                              ws_bytes, &a2, zD, zb.get(), biasD, bb.get(), act, b.yd,
                                                              yb.get()),
                        CUDNN_STATUS_NOT_SUPPORTED, "cudnnConvolutionBiasActivationForward", "activationDesc");
    cudnnDestroyActivationDescriptor(act);
  }
}

TEST(Convolution, BadInputs) {
  Handle h;
  const std::vector<int64_t> xd{1, 4, 6, 6}, wd{8, 4, 3, 3}, yd{1, 8, 4, 4};
  ConvParams p;
  p.pad = {0, 0};
  p.stride = {1, 1};
  p.dilation = {1, 1};
  TensorDesc x(CUDNN_DATA_FLOAT, xd, packed_strides(xd, Layout::nchw)),
      y(CUDNN_DATA_FLOAT, yd, packed_strides(yd, Layout::nchw));
  FilterDesc w(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, wd);
  ConvDesc c(p, CUDNN_DATA_FLOAT);
  Buffer xb(4 * 144), wb(4 * 288), yb(4 * 128), ws(1 << 20);
  float one = 1, zero = 0;
  const auto fwd = [&](cudnnTensorDescriptor_t xD, cudnnFilterDescriptor_t wD, cudnnConvolutionDescriptor_t cD,
                       cudnnTensorDescriptor_t yD, int algo, const void *xp, void *yp) {
    return cudnnConvolutionForward(h, &one, xD, xp, wD, wb.get(), cD, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                   ws.get(), 1 << 20, &zero, yD, yp);
  };
  const char *F = "cudnnConvolutionForward";
  EXPECT_EQ(fwd(x, w, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(fwd(nullptr, w, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_BAD_PARAM, F, "xDesc");
  EXPECT_FAILS_NAMING(fwd(x, w, c, y, 0, nullptr, yb.get()), CUDNN_STATUS_BAD_PARAM, F, "x");
  EXPECT_FAILS_NAMING(fwd(x, w, c, y, 0, xb.get(), nullptr), CUDNN_STATUS_BAD_PARAM, F, "y");
  // Values outside the enum: NOT_SUPPORTED, as cuDNN 9.19 answers.
  EXPECT_FAILS_NAMING(fwd(x, w, c, y, 8, xb.get(), yb.get()), CUDNN_STATUS_NOT_SUPPORTED, F, "algo");
  EXPECT_FAILS_NAMING(fwd(x, w, c, y, -1, xb.get(), yb.get()), CUDNN_STATUS_NOT_SUPPORTED, F, "algo");
  EXPECT_FAILS_NAMING(fwd(x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_FFT, xb.get(), yb.get()), CUDNN_STATUS_NOT_SUPPORTED,
                      F, "FFT");
  // Wrong output extent: BAD_PARAM.
  const std::vector<int64_t> yd_bad{1, 8, 5, 4};
  TensorDesc ybad(CUDNN_DATA_FLOAT, yd_bad, packed_strides(yd_bad, Layout::nchw));
  EXPECT_FAILS_NAMING(fwd(x, w, c, ybad, 0, xb.get(), yb.get()), CUDNN_STATUS_BAD_PARAM, F, "yDesc");
  // Channels that disagree with the filter.
  const std::vector<int64_t> wd_bad{8, 3, 3, 3};
  FilterDesc wbad(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, wd_bad);
  EXPECT_FAILS_NAMING(fwd(x, wbad, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_BAD_PARAM, F, "channels");
  // Mixed data types.
  TensorDesc xd64(CUDNN_DATA_DOUBLE, xd, packed_strides(xd, Layout::nchw));
  EXPECT_FAILS_NAMING(fwd(xd64, w, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_NOT_SUPPORTED, F, "data types");
  // A float problem with a DOUBLE compute type is no configuration.
  ConvDesc c64(p, CUDNN_DATA_DOUBLE);
  EXPECT_FAILS_NAMING(fwd(x, w, c64, y, 0, xb.get(), yb.get()), CUDNN_STATUS_NOT_SUPPORTED, F, "compute type");
  // The filter larger than the padded input.
  const std::vector<int64_t> xd_small{1, 4, 2, 6};
  TensorDesc xsmall(CUDNN_DATA_FLOAT, xd_small, packed_strides(xd_small, Layout::nchw));
  EXPECT_FAILS_NAMING(fwd(xsmall, w, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_BAD_PARAM, F, "larger");
  // 3-d tensors: BAD_PARAM against a 2-d descriptor.
  const std::vector<int64_t> x3{1, 4, 6};
  TensorDesc xthree(CUDNN_DATA_FLOAT, x3, packed_strides(x3, Layout::nchw));
  EXPECT_FAILS_NAMING(fwd(xthree, w, c, y, 0, xb.get(), yb.get()), CUDNN_STATUS_BAD_PARAM, F, "dimensions");
  // Workspace: the GEMM algorithm needs one.
  size_t need = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &need),
            CUDNN_STATUS_SUCCESS);
  if (need > 0)
    EXPECT_FAILS_NAMING(cudnnConvolutionForward(h, &one, x, xb.get(), w, wb.get(), c, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                                nullptr, 0, &zero, y, yb.get()),
                        CUDNN_STATUS_BAD_PARAM, F, "workSpace");
  EXPECT_FAILS_NAMING(cudnnGetConvolutionForwardWorkspaceSize(h, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_FFT, &need),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnGetConvolutionForwardWorkspaceSize", "FFT");
  // Queries.
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  n = -1;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, c, y, 0, &n, perf), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 0);
  EXPECT_FAILS_NAMING(cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, c, y, -1, &n, perf), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetConvolutionForwardAlgorithm_v7", "requestedAlgoCount");
  EXPECT_FAILS_NAMING(cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, c, y, 8, nullptr, perf), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetConvolutionForwardAlgorithm_v7", "returnedAlgoCount");
  EXPECT_FAILS_NAMING(cudnnFindConvolutionForwardAlgorithm(h, x, w, c, y, 8, &n, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnFindConvolutionForwardAlgorithm", "perfResults");
  EXPECT_FAILS_NAMING(cudnnGetConvolutionForwardAlgorithmMaxCount(nullptr, &n), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetConvolutionForwardAlgorithmMaxCount", "handle");
  // Backward calls.
  EXPECT_FAILS_NAMING(cudnnConvolutionBackwardData(h, &one, w, wb.get(), y, yb.get(), c,
                                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws.get(), 1 << 20, &zero, x,
                                                   nullptr),
                      CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardData", "dx");
  EXPECT_FAILS_NAMING(cudnnConvolutionBackwardData(h, &one, w, wb.get(), ybad, yb.get(), c,
                                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, ws.get(), 1 << 20, &zero, x,
                                                   xb.get()),
                      CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardData", "dyDesc");
  EXPECT_FAILS_NAMING(cudnnConvolutionBackwardData(h, &one, w, wb.get(), y, yb.get(), c,
                                                   static_cast<cudnnConvolutionBwdDataAlgo_t>(6), ws.get(), 1 << 20,
                                                   &zero, x, xb.get()),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnConvolutionBackwardData", "algo");
  EXPECT_FAILS_NAMING(cudnnConvolutionBackwardFilter(h, &one, x, xb.get(), y, yb.get(), c,
                                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, ws.get(), 1 << 20, &zero,
                                                     w, wb.get()),
                      CUDNN_STATUS_NOT_SUPPORTED, "cudnnConvolutionBackwardFilter", "FFT");
  EXPECT_FAILS_NAMING(cudnnConvolutionBackwardFilter(h, nullptr, x, xb.get(), y, yb.get(), c,
                                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, ws.get(), 1 << 20, &zero, w,
                                                     wb.get()),
                      CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardFilter", "alpha");
}

}  // namespace
