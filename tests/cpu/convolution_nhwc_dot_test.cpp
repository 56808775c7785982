// cpu.conv.nhwc_dot (forward on NHWC activations with the KRSC filter read
// in place), pinned with FREEDNN_ENGINE, against the float64 reference of
// tests/common/convolution_reference.*. FREEDNN_CONV_NHWC_DOT=1 lets small
// problems in, so that every path is reached cheaply: pixel tiles with 1-4
// pixels, channel tiles with 1-6 channels, several groups of 64 pixels (and
// images), channel chunks (C > 512), padding, stride, dilation, 1x1 and 5x5,
// CONVOLUTION mode (reversed taps), alpha/beta with NaN-poisoned outputs.
// The size rule without forcing, and the layouts the engine refuses.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/convolution_reference.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

constexpr const char *kEngine = "cpu.conv.nhwc_dot";

class PinnedHandle {
 public:
  PinnedHandle() {
    ScopedEnv pin("FREEDNN_ENGINE", kEngine);
    EXPECT_EQ(cudnnCreate(&h_), CUDNN_STATUS_SUCCESS);
  }
  ~PinnedHandle() { cudnnDestroy(h_); }
  operator cudnnHandle_t() const { return h_; }

 private:
  cudnnHandle_t h_ = nullptr;
};

struct Problem {
  ConvParams p;
  HostTensor x, w, y;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NHWC;
  std::string text;
};

Problem make_problem(Rng &rng, int64_t N, int64_t C, int64_t H, int64_t W, int64_t K, int64_t f, int stride,
                     int dil, int pad, cudnnConvolutionMode_t mode, cudnnTensorFormat_t format = CUDNN_TENSOR_NHWC) {
  Problem pr;
  pr.p.mode = mode;
  pr.p.pad = {pad, pad};
  pr.p.stride = {stride, stride};
  pr.p.dilation = {dil, dil};
  pr.format = format;
  const std::vector<int64_t> xd{N, C, H, W}, wd{K, C, f, f};
  const std::vector<int64_t> yd = conv_output_dims(pr.p, xd, wd);
  const Layout l = format == CUDNN_TENSOR_NHWC ? Layout::nhwc : Layout::nchw;
  pr.x = make_tensor(CUDNN_DATA_FLOAT, xd, packed_strides(xd, l));
  pr.w = make_tensor(CUDNN_DATA_FLOAT, wd, packed_strides(wd, l));
  pr.y = make_tensor(CUDNN_DATA_FLOAT, yd, packed_strides(yd, l));
  fill_random(pr.x, rng, -1, 1);
  fill_random(pr.w, rng, -1, 1);
  fill_random(pr.y, rng, -1, 1);
  pr.text = "x " + std::to_string(N) + "x" + std::to_string(C) + "x" + std::to_string(H) + "x" + std::to_string(W) +
            " K " + std::to_string(K) + " f" + std::to_string(f) + " s" + std::to_string(stride) + " d" +
            std::to_string(dil) + " p" + std::to_string(pad) + (mode == CUDNN_CONVOLUTION ? " conv" : " xcorr");
  return pr;
}

struct Bound {
  TensorDesc xd, yd;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  explicit Bound(const Problem &pr) : xd(pr.x), yd(pr.y) {
    std::vector<int> w(pr.w.dims.begin(), pr.w.dims.end());
    EXPECT_EQ(cudnnCreateFilterDescriptor(&wd), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, pr.format, 4, w.data()), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&cd), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(cd, 2, pr.p.pad.data(), pr.p.stride.data(), pr.p.dilation.data(),
                                              pr.p.mode, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
  }
  ~Bound() {
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
};

cudnnStatus_t forward(cudnnHandle_t h, const Problem &pr, int algo, const Buffer &x, const Buffer &w, Buffer &y,
                      double alpha, double beta) {
  Bound b(pr);
  const Scaling a(alpha), bt(beta);
  return cudnnConvolutionForward(h, a.for_type(CUDNN_DATA_FLOAT), b.xd, x.get(), b.wd, w.get(), b.cd,
                                 static_cast<cudnnConvolutionFwdAlgo_t>(algo), nullptr, 0,
                                 bt.for_type(CUDNN_DATA_FLOAT), b.yd, y.get());
}

void run_and_compare(cudnnHandle_t h, const Problem &pr, int algo, double alpha, double beta) {
  SCOPED_TRACE(pr.text + " algo " + std::to_string(algo) + " alpha " + std::to_string(alpha) + " beta " +
               std::to_string(beta));
  HostTensor out = pr.y;
  if (beta == 0) poison(out);
  Buffer xb = upload(pr.x), wb = upload(pr.w), yb = upload(out);
  {
    Bound b(pr);
    size_t ws = 1;
    ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, b.xd, b.wd, b.cd, b.yd,
                                                      static_cast<cudnnConvolutionFwdAlgo_t>(algo), &ws),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    EXPECT_EQ(ws, 0u);
  }
  ASSERT_EQ(forward(h, pr, algo, xb, wb, yb, alpha, beta), CUDNN_STATUS_SUCCESS) << last_error();
  const HostTensor prior = out;
  download(yb, out);
  EXPECT_TRUE(matches(out, reference_conv_forward(pr.p, pr.x, pr.w, alpha, beta, prior, CUDNN_DATA_FLOAT, 64)));
}

class NhwcDotConvolution : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu_mode()) GTEST_SKIP() << kEngine << " is a CPU engine";
    // As the library decides (src/cpu/cpu_features.hpp): the CPU has it and
    // FREEDNN_CPU_NO_AVX512 does not turn it off.
    const char *off = std::getenv("FREEDNN_CPU_NO_AVX512");
    __builtin_cpu_init();
    if ((off != nullptr && off[0] != '\0' && off[0] != '0') || !__builtin_cpu_supports("avx512f") ||
        !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl"))
      GTEST_SKIP() << kEngine << " needs AVX-512 (F, DQ, BW, VL)";
  }
};

// Forced onto small problems: every tile shape, groups, chunks and taps.
TEST_F(NhwcDotConvolution, ForcedAgainstReference) {
  ScopedEnv force("FREEDNN_CONV_NHWC_DOT", "1");
  PinnedHandle h;
  Rng rng(4242);
  const cudnnConvolutionMode_t X = CUDNN_CROSS_CORRELATION, CV = CUDNN_CONVOLUTION;
  struct Case {
    int64_t N, C, H, W, K, f;
    int stride, dil, pad;
    cudnnConvolutionMode_t mode;
    double alpha, beta;
  };
  const std::vector<Case> cases = {
      {1, 32, 7, 7, 16, 3, 1, 1, 1, X, 1, 0},     // 49 pixels: tiles of 4 and a tile of 1; K: 6, 6, 4
      {2, 16, 9, 6, 13, 3, 1, 1, 1, X, -0.5, 2},  // 108 pixels over two images: one group
      {3, 32, 9, 10, 9, 3, 1, 1, 1, X, 1, 0.5},   // 270 pixels over three images: three groups of 90
      {1, 48, 6, 5, 7, 3, 2, 1, 1, CV, 2, 0},     // stride 2, reversed taps, K = 6 + 1
      {1, 16, 8, 8, 5, 3, 1, 2, 2, X, 1, 1},      // dilation 2
      {3, 16, 5, 5, 11, 1, 1, 1, 0, X, 1, 0},     // 1x1, 75 pixels
      {1, 16, 6, 6, 3, 5, 1, 1, 2, CV, 0.5, -1},  // 5x5, pixels with few valid taps
      {1, 528, 3, 3, 8, 3, 1, 1, 1, X, 1, 0},     // C > 512: two chunks of channels
      {1, 16, 1, 1, 2, 3, 1, 1, 1, X, 1, 0},      // one pixel, one tap valid
      {1, 16, 3, 3, 5, 1, 1, 1, 1, X, 1, 0},      // 1x1 padded: border pixels reach no input (0)
      {1, 16, 3, 3, 5, 1, 1, 1, 1, X, 2, 0.5},    // ... blended with beta
  };
  for (const Case &c : cases) {
    const Problem pr = make_problem(rng, c.N, c.C, c.H, c.W, c.K, c.f, c.stride, c.dil, c.pad, c.mode);
    run_and_compare(h, pr, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, c.alpha, c.beta);
  }
  // "Any algorithm" reaches it through the heuristic's first choice too.
  const Problem pr = make_problem(rng, 1, 16, 5, 5, 6, 3, 1, 1, 1, X);
  Bound b(pr);
  int n = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  ASSERT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(h, b.xd, b.wd, b.cd, b.yd, 8, &n, perf), CUDNN_STATUS_SUCCESS);
  ASSERT_GT(n, 0);
  EXPECT_EQ(perf[0].algo, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  run_and_compare(h, pr, perf[0].algo, 1, 0);
}

// Unforced, the engine takes C >= 512 with a filter of 2 MB or more and 4x
// the activations (here a 1x1 filter of 2 MB against 24 KB), and
// leaves the others to other engines.
TEST_F(NhwcDotConvolution, SizeRuleWithoutForcing) {
  ScopedEnv unforced("FREEDNN_CONV_NHWC_DOT", nullptr);
  PinnedHandle h;
  Rng rng(77);
  const Problem big = make_problem(rng, 1, 512, 2, 2, 1024, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION);
  run_and_compare(h, big, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1, 0);
  run_and_compare(h, big, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, -0.5, 2);
  // Expanding (K >= 4 C): taken from a filter 4x the activations in every
  // build (4 MB against 490 KB here, ResNet-50's 512 -> 2048 at batch 1).
  const Problem expanding = make_problem(rng, 1, 512, 7, 7, 2048, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION);
  run_and_compare(h, expanding, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1, 0);
  // Too small a filter; C below 512 (2 MB of filter against 36 KB); an
  // expanding layer whose activations are half its filter (batch 4).
  for (const Problem &other : {make_problem(rng, 1, 16, 5, 5, 8, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION),
                               make_problem(rng, 1, 256, 2, 2, 2048, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION),
                               make_problem(rng, 4, 512, 7, 7, 2048, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION)}) {
    Buffer xb = upload(other.x), wb = upload(other.w), yb = upload(other.y);
    EXPECT_EQ(forward(h, other, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, xb, wb, yb, 1, 0),
              CUDNN_STATUS_NOT_SUPPORTED)
        << other.text;
  }
}

// Forced or not, what the kernel cannot read in place goes elsewhere: NCHW,
// C not a multiple of 16, other algorithms; FREEDNN_CONV_NHWC_DOT=0 turns it off.
TEST_F(NhwcDotConvolution, RefusedProblems) {
  Rng rng(5);
  struct Refused {
    Problem pr;
    int algo;
    const char *mode;
  };
  const int ipg = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  const std::vector<Refused> refused = {
      {make_problem(rng, 1, 16, 5, 5, 8, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_TENSOR_NCHW), ipg, "1"},
      {make_problem(rng, 1, 24, 5, 5, 8, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION), ipg, "1"},
      {make_problem(rng, 1, 16, 5, 5, 8, 3, 1, 1, 1, CUDNN_CROSS_CORRELATION), CUDNN_CONVOLUTION_FWD_ALGO_GEMM, "1"},
      {make_problem(rng, 1, 512, 2, 2, 1024, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION), ipg, "0"},
  };
  for (const Refused &r : refused) {
    ScopedEnv mode("FREEDNN_CONV_NHWC_DOT", r.mode);
    PinnedHandle h;
    Buffer xb = upload(r.pr.x), wb = upload(r.pr.w), yb = upload(r.pr.y);
    EXPECT_EQ(forward(h, r.pr, r.algo, xb, wb, yb, 1, 0), CUDNN_STATUS_NOT_SUPPORTED) << r.pr.text << " " << r.mode;
  }
}

}  // namespace
