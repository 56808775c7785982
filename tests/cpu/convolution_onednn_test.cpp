// cpu.conv.onednn, pinned (FREEDNN_ENGINE=cpu.conv.onednn), against the
// float64 references of tests/common/convolution_reference.*: forward,
// backward data and backward filter, each with its algorithm (forward
// IMPLICIT_PRECOMP_GEMM, backward ALGO_1) and with "any" (the v7 heuristic's
// first choice), over problems that reach every path of the engine: the
// caller's layouts used in place (NHWC), reordered activations (NCHW 3x3,
// strided tensors with gaps), groups and depthwise, dilation, strides, pre
// padding, 1-d to 3-d, CONVOLUTION mode (flipped filter on the way in, and on
// the way out for the filter gradient), KCRS and KRSC filters, FLOAT and
// BFLOAT16, alpha/beta with NaN-poisoned outputs (the blending reorder).
// CPU handles only; skipped where the build has no oneDNN.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <string>
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

class PinnedHandle {
 public:
  PinnedHandle() {
    ScopedEnv pin("FREEDNN_ENGINE", "cpu.conv.onednn");
    EXPECT_EQ(cudnnCreate(&h_), CUDNN_STATUS_SUCCESS);
  }
  ~PinnedHandle() { cudnnDestroy(h_); }
  operator cudnnHandle_t() const { return h_; }

 private:
  cudnnHandle_t h_ = nullptr;
};

struct Problem {
  ConvParams p;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t wformat = CUDNN_TENSOR_NCHW;
  HostTensor x, w, y;
  std::string text;
};

enum class Act { nchw, nhwc, strided };

Problem make_problem(Rng &rng, cudnnDataType_t dtype, int nsp, int64_t G, int64_t Cg, int64_t Kg, int64_t f,
                     int stride, int dil, int pad, Act act, cudnnConvolutionMode_t mode, cudnnTensorFormat_t wformat,
                     bool smallest = false) {
  Problem pr;
  pr.dtype = dtype;
  pr.p.groups = static_cast<int>(G);
  pr.p.mode = mode;
  pr.wformat = wformat;
  // `smallest`: one image whose output extents are 1 (large filters stay cheap for the reference).
  std::vector<int64_t> xd{smallest ? 1 : rng.integer(1, 3), G * Cg}, wd{G * Kg, Cg};
  for (int d = 0; d < nsp; ++d) {
    const int64_t span = (f - 1) * dil + 1;
    xd.push_back(std::max<int64_t>(span - 2 * pad, 1) + (smallest ? 0 : rng.integer(0, nsp == 3 ? 3 : 6)));
    wd.push_back(f);
    pr.p.pad.push_back(pad);
    pr.p.stride.push_back(stride);
    pr.p.dilation.push_back(dil);
  }
  const std::vector<int64_t> yd = conv_output_dims(pr.p, xd, wd);
  const auto strides = [&](const std::vector<int64_t> &dims) {
    switch (act) {
      case Act::nchw: return packed_strides(dims, Layout::nchw);
      case Act::nhwc: return packed_strides(dims, Layout::nhwc);
      default: return random_strides(rng, dims, 0.8);
    }
  };
  pr.x = make_tensor(dtype, xd, strides(xd));
  pr.w = make_tensor(dtype, wd, packed_strides(wd, wformat == CUDNN_TENSOR_NHWC ? Layout::nhwc : Layout::nchw));
  pr.y = make_tensor(dtype, yd, strides(yd));
  fill_random(pr.x, rng, -1, 1);
  fill_random(pr.w, rng, -1, 1);
  fill_random(pr.y, rng, -1, 1);
  const char *acts[] = {"nchw", "nhwc", "strided"};
  pr.text = std::string(type_name(dtype)) + " " + acts[static_cast<int>(act)] + " x";
  for (int64_t v : xd) pr.text += " " + std::to_string(v);
  pr.text += " w";
  for (int64_t v : wd) pr.text += " " + std::to_string(v);
  pr.text += std::string(wformat == CUDNN_TENSOR_NHWC ? "(krsc)" : "(kcrs)") + " g" + std::to_string(G) +
             (mode == CUDNN_CONVOLUTION ? " conv" : " xcorr") + " p" + std::to_string(pad) + "s" +
             std::to_string(stride) + "d" + std::to_string(dil);
  return pr;
}

struct Bound {
  TensorDesc xd, yd;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  explicit Bound(const Problem &pr) : xd(pr.x), yd(pr.y) {
    std::vector<int> w(pr.w.dims.begin(), pr.w.dims.end());
    EXPECT_EQ(cudnnCreateFilterDescriptor(&wd), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetFilterNdDescriptor(wd, pr.dtype, pr.wformat, static_cast<int>(w.size()), w.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&cd), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(cd, static_cast<int>(pr.p.pad.size()), pr.p.pad.data(),
                                              pr.p.stride.data(), pr.p.dilation.data(), pr.p.mode, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionGroupCount(cd, pr.p.groups), CUDNN_STATUS_SUCCESS);
  }
  ~Bound() {
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
};

// The engine's algorithm of a direction.
int engine_algo(Dir d) {
  return d == Dir::fwd        ? static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
         : d == Dir::bwd_data ? static_cast<int>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1)
                              : static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1);
}

// The heuristic's first algorithm (its order is the default engines' on a
// plain handle; on the pinned handle it must still be the engine's).
int first_v7(cudnnHandle_t h, const Bound &b, Dir d) {
  int n = 0;
  if (d == Dir::fwd) {
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, b.xd, b.wd, b.cd, b.yd, 8, &n, perf), CUDNN_STATUS_SUCCESS);
    return perf[0].status == CUDNN_STATUS_SUCCESS ? perf[0].algo : -1;
  }
  if (d == Dir::bwd_data) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[6];
    EXPECT_EQ(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, b.wd, b.yd, b.cd, b.xd, 6, &n, perf),
              CUDNN_STATUS_SUCCESS);
    return perf[0].status == CUDNN_STATUS_SUCCESS ? perf[0].algo : -1;
  }
  cudnnConvolutionBwdFilterAlgoPerf_t perf[7];
  EXPECT_EQ(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, b.xd, b.yd, b.cd, b.wd, 7, &n, perf),
            CUDNN_STATUS_SUCCESS);
  return perf[0].status == CUDNN_STATUS_SUCCESS ? perf[0].algo : -1;
}

cudnnStatus_t execute(cudnnHandle_t h, const Bound &b, Dir dir, int algo, const Buffer &x, const Buffer &w,
                      const Buffer &y, const Scaling &alpha, const Scaling &beta, void *ws, size_t ws_bytes) {
  const void *a = alpha.for_type(CUDNN_DATA_FLOAT), *bt = beta.for_type(CUDNN_DATA_FLOAT);
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

size_t workspace(cudnnHandle_t h, const Bound &b, Dir dir, int algo) {
  size_t bytes = 0;
  cudnnStatus_t s;
  if (dir == Dir::fwd)
    s = cudnnGetConvolutionForwardWorkspaceSize(h, b.xd, b.wd, b.cd, b.yd, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                                &bytes);
  else if (dir == Dir::bwd_data)
    s = cudnnGetConvolutionBackwardDataWorkspaceSize(h, b.wd, b.yd, b.cd, b.xd,
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
  else
    s = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, b.xd, b.yd, b.cd, b.wd,
                                                       static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
  EXPECT_EQ(s, CUDNN_STATUS_SUCCESS) << last_error();
  return bytes;
}

struct AlphaBeta {
  double alpha, beta;
};

void run_and_compare(cudnnHandle_t h, const Problem &pr, Dir dir, int algo, AlphaBeta ab) {
  SCOPED_TRACE(std::string(dir_name(dir)) + " algo " + std::to_string(algo) + " alpha " + std::to_string(ab.alpha) +
               " beta " + std::to_string(ab.beta) + ": " + pr.text);
  Bound b(pr);
  HostTensor out = dir == Dir::fwd ? pr.y : dir == Dir::bwd_data ? pr.x : pr.w;
  if (ab.beta == 0) poison(out);
  Buffer xb = upload(dir == Dir::bwd_data ? out : pr.x), wb = upload(dir == Dir::bwd_filter ? out : pr.w),
         yb = upload(dir == Dir::fwd ? out : pr.y);
  // The engine keeps everything in the handle's scratch: no workspace.
  EXPECT_EQ(workspace(h, b, dir, algo), 0u);
  const Scaling alpha(ab.alpha), beta(ab.beta);
  ASSERT_EQ(execute(h, b, dir, algo, xb, wb, yb, alpha, beta, nullptr, 0), CUDNN_STATUS_SUCCESS) << last_error();
  const HostTensor prior = out;
  download(dir == Dir::fwd ? yb : dir == Dir::bwd_data ? xb : wb, out);
  const double slack = 64;
  std::vector<Expect> want;
  if (dir == Dir::fwd)
    want = reference_conv_forward(pr.p, pr.x, pr.w, ab.alpha, ab.beta, prior, CUDNN_DATA_FLOAT, slack);
  else if (dir == Dir::bwd_data)
    want = reference_conv_backward_data(pr.p, pr.w, pr.y, ab.alpha, ab.beta, prior, CUDNN_DATA_FLOAT, slack);
  else want = reference_conv_backward_filter(pr.p, pr.x, pr.y, ab.alpha, ab.beta, prior, CUDNN_DATA_FLOAT, slack);
  EXPECT_TRUE(matches(out, want));
  EXPECT_TRUE(gaps_untouched(out, prior));
}

// Whether this build has the engine: a plain float convolution on the pinned
// handle runs, or is refused by the engine itself (named in the message; the
// tests then fail), rather than by the absence of any engine.
bool engine_present(cudnnHandle_t h) {
  Rng rng(7);
  const Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 4, 4, 3, 1, 1, 1, Act::nhwc, CUDNN_CROSS_CORRELATION,
                                  CUDNN_TENSOR_NCHW);
  Bound b(pr);
  Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(pr.y);
  const cudnnStatus_t s = execute(h, b, Dir::fwd, engine_algo(Dir::fwd), xb, wb, yb, Scaling(1), Scaling(0), nullptr, 0);
  const std::string why = last_error();
  return s == CUDNN_STATUS_SUCCESS || why.find("cpu.conv.onednn") != std::string::npos;
}

class OnednnConvolution : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu_mode()) GTEST_SKIP() << "cpu.conv.onednn is a CPU engine";
    if (!engine_present(h_)) GTEST_SKIP() << "this build has no oneDNN (cpu.conv.onednn not registered)";
  }
  PinnedHandle h_;
};

const std::vector<AlphaBeta> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}};

// Every direction over the structured cases: each layout, mode, filter format
// and group kind once, with 2-d problems.
TEST_F(OnednnConvolution, EveryPathAgainstReference) {
  Rng rng(2024);
  struct Case {
    int64_t G, Cg, Kg, f;
    int stride, dil, pad;
    Act act;
    cudnnConvolutionMode_t mode;
    cudnnTensorFormat_t wformat;
  };
  const cudnnConvolutionMode_t X = CUDNN_CROSS_CORRELATION, C = CUDNN_CONVOLUTION;
  const cudnnTensorFormat_t KCRS = CUDNN_TENSOR_NCHW, KRSC = CUDNN_TENSOR_NHWC;
  const std::vector<Case> cases = {
      {1, 16, 16, 3, 1, 1, 1, Act::nhwc, X, KRSC},     // in place on the caller's NHWC
      {1, 16, 16, 3, 1, 1, 1, Act::nchw, X, KCRS},     // NCHW 3x3: reordered activations
      {1, 8, 24, 1, 1, 1, 0, Act::nchw, X, KCRS},      // NCHW 1x1: oneDNN's GEMM in place
      {1, 5, 7, 3, 2, 1, 1, Act::strided, X, KCRS},    // gaps between dimensions
      {1, 6, 4, 3, 1, 2, 2, Act::nhwc, C, KCRS},       // CONVOLUTION mode, dilation 2
      {1, 3, 8, 5, 2, 1, 2, Act::nchw, C, KRSC},       // flipped KRSC filter, stride 2
      {2, 4, 6, 3, 1, 1, 1, Act::nhwc, X, KCRS},       // groups
      {8, 1, 1, 3, 1, 1, 1, Act::nchw, X, KCRS},       // depthwise
      {4, 1, 2, 3, 2, 1, 0, Act::strided, C, KRSC},    // depthwise multiplier 2, strided, flipped
      {1, 3, 16, 7, 2, 1, 3, Act::nchw, X, KCRS},      // ResNet's first layer, small
  };
  for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter})
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case &c = cases[i];
      const Problem pr =
          make_problem(rng, CUDNN_DATA_FLOAT, 2, c.G, c.Cg, c.Kg, c.f, c.stride, c.dil, c.pad, c.act, c.mode, c.wformat);
      run_and_compare(h_, pr, dir, engine_algo(dir), kAlphaBeta[i % kAlphaBeta.size()]);
    }
}

// The "any" choice of the heuristic on the pinned handle is the engine's
// algorithm, and 3-d problems run.
TEST_F(OnednnConvolution, HeuristicChoiceAndOtherRanks) {
  Rng rng(99);
  for (Act act : {Act::nchw, Act::nhwc})
    for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter}) {
      const Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 3, act == Act::nchw ? 2 : 1, 4, 5, 2, 1, 1, 1, act,
                                      CUDNN_CONVOLUTION, CUDNN_TENSOR_NCHW);
      Bound b(pr);
      EXPECT_EQ(first_v7(h_, b, dir), engine_algo(dir)) << dir_name(dir) << " " << pr.text;
      run_and_compare(h_, pr, dir, engine_algo(dir), {1, 0});
    }
}

// BFLOAT16 where oneDNN takes it (this CPU's bf16 kernels): compared like
// FLOAT with the output rounded to bfloat16.
TEST_F(OnednnConvolution, Bfloat16) {
  Rng rng(5);
  for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter})
    for (Act act : {Act::nhwc, Act::nchw}) {
      const Problem pr = make_problem(rng, CUDNN_DATA_BFLOAT16, 2, 1, 16, 16, 3, 1, 1, 1, act,
                                      act == Act::nchw ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, CUDNN_TENSOR_NCHW);
      Bound b(pr);
      HostTensor out = dir == Dir::fwd ? pr.y : dir == Dir::bwd_data ? pr.x : pr.w;
      Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(pr.y);
      const cudnnStatus_t s =
          execute(h_, b, dir, engine_algo(dir), xb, wb, yb, Scaling(1), Scaling(0), nullptr, 0);
      if (s == CUDNN_STATUS_NOT_SUPPORTED) {
        std::string why = last_error();
        EXPECT_NE(why.find("oneDNN"), std::string::npos) << why;
        continue;  // a CPU without bf16 kernels: refused, never wrong
      }
      run_and_compare(h_, pr, dir, engine_algo(dir), {1, 0});
      run_and_compare(h_, pr, dir, engine_algo(dir), {0.5, 1});
    }
}

// Forward in slices of output channels and backward data in slices of input
// channels (the split, forced with FREEDNN_ONEDNN_CONV_SPLIT=1 so that small
// problems take it): every activation layout, both filter formats,
// CONVOLUTION mode (slices of the flipped copy), alpha/beta blending of each
// slice into the caller's output.
TEST_F(OnednnConvolution, SplitOverChannels) {
  ScopedEnv force("FREEDNN_ONEDNN_CONV_SPLIT", "1");
  PinnedHandle h;
  Rng rng(31);
  struct Case {
    int nsp;
    int64_t Cg, Kg, f;
    int stride, dil, pad;
    Act act;
    cudnnConvolutionMode_t mode;
    cudnnTensorFormat_t wformat;
  };
  const cudnnConvolutionMode_t X = CUDNN_CROSS_CORRELATION, C = CUDNN_CONVOLUTION;
  const cudnnTensorFormat_t KCRS = CUDNN_TENSOR_NCHW, KRSC = CUDNN_TENSOR_NHWC;
  const std::vector<Case> cases = {
      {2, 16, 48, 3, 1, 1, 1, Act::nhwc, X, KRSC},    // the bench's layouts
      {2, 8, 32, 3, 2, 1, 1, Act::nchw, X, KCRS},     // reordered activations, y slices of NCHW
      {2, 5, 32, 3, 1, 2, 2, Act::strided, C, KRSC},  // gaps, flipped KRSC slices, dilation
      {2, 16, 40, 1, 1, 1, 0, Act::nhwc, C, KCRS},    // 1x1, slices of 8 channels
      {3, 4, 32, 2, 1, 1, 1, Act::nhwc, X, KRSC},     // 3-d
      {2, 16, 7, 3, 1, 1, 1, Act::nhwc, X, KRSC},     // prime K: slices of one channel (or no split)
  };
  for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter})  // backward filter: never split, still right
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case &c = cases[i];
      // Backward data slices C: the same cases with C and K swapped.
      const bool bd = dir == Dir::bwd_data;
      const Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, c.nsp, 1, bd ? c.Kg : c.Cg, bd ? c.Cg : c.Kg, c.f,
                                      c.stride, c.dil, c.pad, c.act, c.mode, c.wformat);
      for (const AlphaBeta &ab : {kAlphaBeta[i % kAlphaBeta.size()], AlphaBeta{1, 0}})
        run_and_compare(h, pr, dir, engine_algo(dir), ab);
    }
}

// The split as chosen without forcing: a filter of 2.4 MB against a few KB
// of activations, NHWC, with and without beta (forward splits; backward data
// keeps one convolution unless forced).
TEST_F(OnednnConvolution, SplitChosenForLargeFilters) {
  ScopedEnv unforced("FREEDNN_ONEDNN_CONV_SPLIT", nullptr);
  PinnedHandle h;
  Rng rng(37);
  const Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 256, 256, 3, 1, 1, 0, Act::nhwc,
                                  CUDNN_CROSS_CORRELATION, CUDNN_TENSOR_NHWC, true);
  for (Dir dir : {Dir::fwd, Dir::bwd_data}) {
    run_and_compare(h, pr, dir, engine_algo(dir), {1, 0});
    run_and_compare(h, pr, dir, engine_algo(dir), {-0.5, 2});
  }
}

// Three forward calls on h, each after new random filter values were
// uploaded into the same buffer wb: each result must match the reference
// of that step's filter (no reordered copy kept across calls).
void forward_sees_new_filters(cudnnHandle_t h, const Bound &b, Problem &pr, Buffer &xb, Buffer &wb, Buffer &yb,
                              Rng &rng, const std::string &what) {
  for (int step = 0; step < 3; ++step) {
    fill_random(pr.w, rng, -1, 1);
    wb.upload(pr.w.bytes.data(), pr.w.bytes.size());
    ASSERT_EQ(execute(h, b, Dir::fwd, engine_algo(Dir::fwd), xb, wb, yb, Scaling(1), Scaling(0), nullptr, 0),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    HostTensor out = pr.y;
    download(yb, out);
    EXPECT_TRUE(matches(out, reference_conv_forward(pr.p, pr.x, pr.w, 1, 0, pr.y, CUDNN_DATA_FLOAT, 64)))
        << what << " step " << step;
  }
}

// The filter changes between calls with the same pointer (every training
// step does this): the engine must not reuse a reordered copy.
TEST_F(OnednnConvolution, FilterUpdatedInPlaceIsReread) {
  Rng rng(11);
  Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 16, 16, 3, 1, 1, 1, Act::nhwc, CUDNN_CROSS_CORRELATION,
                            CUDNN_TENSOR_NCHW);
  Bound b(pr);
  Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(pr.y);
  for (const char *split : {"0", "1"}) {  // whole filter, and slices of it (K split)
    ScopedEnv mode("FREEDNN_ONEDNN_CONV_SPLIT", split);
    PinnedHandle h;
    forward_sees_new_filters(h, b, pr, xb, wb, yb, rng, std::string("split ") + split);
  }
}

// Forward convolutions as per-thread slices (convolution_onednn_slices.cpp,
// forced with FREEDNN_ONEDNN_CONV_SLICES=1 so that small problems take the
// smallest slices and unit groups): NHWC activations (the path's domain),
// KRSC and KCRS filters, CONVOLUTION mode (slices of the flipped copy),
// strides, dilation, padding, 1x1 (units of pixels), 3-d, alpha/beta
// into each slice of the caller's output; a K that is no multiple of 16
// keeps the whole-problem path. Then the rule's own choice for a large
// filter, and a filter updated in place between calls.
TEST_F(OnednnConvolution, ForwardSlicesPerThread) {
  Rng rng(41);
  struct Case {
    int nsp;
    int64_t C, K, f;
    int stride, dil, pad;
    cudnnConvolutionMode_t mode;
    cudnnTensorFormat_t wformat;
  };
  const cudnnConvolutionMode_t X = CUDNN_CROSS_CORRELATION, C = CUDNN_CONVOLUTION;
  const cudnnTensorFormat_t KCRS = CUDNN_TENSOR_NCHW, KRSC = CUDNN_TENSOR_NHWC;
  const std::vector<Case> cases = {
      {2, 16, 48, 3, 1, 1, 1, X, KRSC},  // three slices of 16 channels
      {2, 24, 32, 3, 2, 1, 1, C, KCRS},  // flipped filter, stride 2
      {2, 8, 64, 3, 1, 2, 2, X, KRSC},   // dilation 2
      {2, 16, 32, 1, 1, 1, 0, C, KRSC},  // 1x1: units of pixels
      {2, 32, 32, 3, 1, 1, 0, C, KRSC},  // unpadded, flipped KRSC
      {3, 8, 32, 2, 1, 1, 1, X, KCRS},   // 3-d
      {2, 16, 40, 3, 1, 1, 1, X, KRSC},  // K = 40: not sliced
      {2, 24, 16, 1, 1, 1, 0, X, KRSC},  // one slice of all K: y written in place (alpha 1, beta 0)
  };
  {
    ScopedEnv force("FREEDNN_ONEDNN_CONV_SLICES", "1");
    PinnedHandle h;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case &c = cases[i];
      const Problem pr =
          make_problem(rng, CUDNN_DATA_FLOAT, c.nsp, 1, c.C, c.K, c.f, c.stride, c.dil, c.pad, Act::nhwc, c.mode, c.wformat);
      for (const AlphaBeta &ab : {AlphaBeta{1, 0}, kAlphaBeta[1 + i % (kAlphaBeta.size() - 1)]})
        run_and_compare(h, pr, Dir::fwd, engine_algo(Dir::fwd), ab);
    }
  }
  {
    ScopedEnv unforced("FREEDNN_ONEDNN_CONV_SLICES", nullptr);
    PinnedHandle h;
    const Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 256, 256, 3, 1, 1, 0, Act::nhwc,
                                    CUDNN_CROSS_CORRELATION, CUDNN_TENSOR_NHWC, true);
    run_and_compare(h, pr, Dir::fwd, engine_algo(Dir::fwd), {1, 0});
    run_and_compare(h, pr, Dir::fwd, engine_algo(Dir::fwd), {-0.5, 2});
    // 1x1 convolutions split their pixels, all K channels in one slice.
    for (int i = 0; i < 3; ++i) {
      const Problem pw = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 32, 64, 1, 1, 1, 0, Act::nhwc,
                                      CUDNN_CROSS_CORRELATION, CUDNN_TENSOR_NHWC);
      run_and_compare(h, pw, Dir::fwd, engine_algo(Dir::fwd), kAlphaBeta[i]);
    }
  }
  {
    ScopedEnv force("FREEDNN_ONEDNN_CONV_SLICES", "1");
    PinnedHandle h;
    Problem pr = make_problem(rng, CUDNN_DATA_FLOAT, 2, 1, 16, 32, 3, 1, 1, 1, Act::nhwc, CUDNN_CROSS_CORRELATION,
                              CUDNN_TENSOR_NHWC);
    Bound b(pr);
    Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(pr.y);
    forward_sees_new_filters(h, b, pr, xb, wb, yb, rng, "slices");
  }
}

}  // namespace
