// The WINOGRAD_NONFUSED algorithms of the three directions (and the fused
// WINOGRAD of forward and backward data) on problems
// large enough to reach every tile position (several 4x4 tiles per image,
// partial edge tiles, channel counts that are not multiples of anything),
// against the float64 references of tests/common/convolution_reference.*:
// FLOAT and DOUBLE, both modes, paddings 0-3, NCHW / NHWC / strided data,
// NCHW / NHWC filters, alpha/beta with NaN-poisoned outputs. On a GPU handle
// these run cuda.conv.winograd (F(4x4,3x3) transforms and batched GEMMs),
// also with a small FREEDNN_WINOGRAD_PASS_BYTES so that a batch runs in
// several passes; on a CPU handle the CPU's Winograd engines answer where
// they implement the algorithm (the others must refuse consistently): the
// fused WINOGRAD also pinned to cpu.conv.onednn (oneDNN's F(4x4,3x3)).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
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

struct Descs {
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t c = nullptr;
  Descs(cudnnDataType_t t, cudnnTensorFormat_t wf, const std::vector<int64_t> &wd, int pad, cudnnConvolutionMode_t mode) {
    EXPECT_EQ(cudnnCreateFilterDescriptor(&w), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetFilter4dDescriptor(w, t, wf, static_cast<int>(wd[0]), static_cast<int>(wd[1]), 3, 3),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&c), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolution2dDescriptor(c, pad, pad, 1, 1, 1, 1, mode, t), CUDNN_STATUS_SUCCESS);
  }
  ~Descs() {
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(c);
  }
};

std::vector<int64_t> some_layout(Rng &rng, const std::vector<int64_t> &dims) {
  switch (rng.integer(0, 2)) {
    case 0: return packed_strides(dims, Layout::nchw);
    case 1: return packed_strides(dims, Layout::nhwc);
    default: return random_strides(rng, dims);
  }
}

// One direction of one random problem through WINOGRAD_NONFUSED (or the
// fused WINOGRAD); false when the handle's engines refuse it (allowed where
// noted below).
bool check_winograd(cudnnHandle_t h, Rng &rng, cudnnDataType_t t, Dir dir, bool fused = false) {
  const cudnnConvolutionFwdAlgo_t fwd_algo =
      fused ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD : CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  const cudnnConvolutionBwdDataAlgo_t bwd_algo =
      fused ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD : CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
  ConvParams p;
  const int pad = static_cast<int>(rng.integer(0, 3));
  p.pad = {pad, pad};
  p.stride = {1, 1};
  p.dilation = {1, 1};
  p.mode = rng.coin() ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
  const int64_t N = rng.integer(1, 3), C = rng.integer(1, 21), K = rng.integer(1, 21);
  const std::vector<int64_t> xd{N, C, rng.integer(std::max(1, 3 - 2 * pad), 14), rng.integer(std::max(1, 3 - 2 * pad), 14)};
  const std::vector<int64_t> wd{K, C, 3, 3};
  const std::vector<int64_t> yd = conv_output_dims(p, xd, wd);
  const cudnnTensorFormat_t wf = rng.coin(0.3) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  HostTensor x = make_tensor(t, xd, some_layout(rng, xd));
  HostTensor w = make_tensor(t, wd, packed_strides(wd, wf == CUDNN_TENSOR_NHWC ? Layout::nhwc : Layout::nchw));
  HostTensor y = make_tensor(t, yd, some_layout(rng, yd));
  fill_random(x, rng, -1, 1);
  fill_random(w, rng, -1, 1);
  fill_random(y, rng, -1, 1);
  const std::string text = std::string(type_name(t)) + " N" + std::to_string(N) + " C" + std::to_string(C) + " K" +
                           std::to_string(K) + " " + std::to_string(xd[2]) + "x" + std::to_string(xd[3]) + " pad " +
                           std::to_string(pad) + (p.mode == CUDNN_CONVOLUTION ? " conv" : " xcorr") +
                           (wf == CUDNN_TENSOR_NHWC ? " w nhwc" : "") +
                           (dir == Dir::fwd ? " fwd" : dir == Dir::bwd_data ? " bwd_data" : " bwd_filter");
  SCOPED_TRACE(text);
  TensorDesc xD(x), yD(y);
  Descs d(t, wf, wd, pad, p.mode);
  size_t ws_bytes = 0;
  cudnnStatus_t st;
  switch (dir) {
    case Dir::fwd:
      st = cudnnGetConvolutionForwardWorkspaceSize(h, xD, d.w, d.c, yD, fwd_algo, &ws_bytes);
      break;
    case Dir::bwd_data:
      st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, yD, d.c, xD, bwd_algo, &ws_bytes);
      break;
    default:
      st = cudnnGetConvolutionBackwardFilterWorkspaceSize(
          h, xD, yD, d.c, d.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, &ws_bytes);
      break;
  }
  // The CPU lacks it (or this padding); the GPU has no fused WINOGRAD.
  if (st == CUDNN_STATUS_NOT_SUPPORTED && (!gpu_mode() || fused)) {
    last_error();
    return false;
  }
  EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
  if (st != CUDNN_STATUS_SUCCESS) return false;
  HostTensor &out = dir == Dir::fwd ? y : dir == Dir::bwd_data ? x : w;
  static const std::vector<std::pair<double, double>> blends = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.75, -1}};
  const auto [alpha, beta] = rng.pick(blends);
  if (beta == 0) poison(out);
  const HostTensor prior = out;
  Buffer xb = upload(x), wb = upload(w), yb = upload(y), ws(ws_bytes);
  const Scaling a(alpha), b(beta);
  const void *ap = a.for_type(t), *bp = b.for_type(t);
  switch (dir) {
    case Dir::fwd:
      st = cudnnConvolutionForward(h, ap, xD, xb.get(), d.w, wb.get(), d.c, fwd_algo, ws.get(), ws_bytes, bp, yD,
                                   yb.get());
      break;
    case Dir::bwd_data:
      st = cudnnConvolutionBackwardData(h, ap, d.w, wb.get(), yD, yb.get(), d.c, bwd_algo, ws.get(), ws_bytes, bp, xD,
                                        xb.get());
      break;
    default:
      st = cudnnConvolutionBackwardFilter(h, ap, xD, xb.get(), yD, yb.get(), d.c,
                                          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, ws.get(), ws_bytes, bp,
                                          d.w, wb.get());
      break;
  }
  EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
  if (st != CUDNN_STATUS_SUCCESS) return false;
  download(dir == Dir::fwd ? yb : dir == Dir::bwd_data ? xb : wb, out);
  // F(4x4,3x3) rounding: see the slack note in convolution_test.cpp.
  const double slack = 128;
  std::vector<Expect> want;
  if (dir == Dir::fwd) want = reference_conv_forward(p, x, w, alpha, beta, prior, t, slack);
  else if (dir == Dir::bwd_data) want = reference_conv_backward_data(p, w, y, alpha, beta, prior, t, slack);
  else want = reference_conv_backward_filter(p, x, y, alpha, beta, prior, t, slack);
  // Rounding follows a whole tile's magnitudes (see convolution_test.cpp):
  // the largest tolerance is every element's floor.
  double floor = 0;
  for (const Expect &e : want) floor = std::max(floor, e.tolerance);
  for (Expect &e : want) e.tolerance = std::max(e.tolerance, floor);
  EXPECT_TRUE(matches(out, want)) << "alpha " << alpha << " beta " << beta;
  EXPECT_TRUE(gaps_untouched(out, prior));
  return true;
}

// `problems` random problems in each direction; returns how many calls ran.
int sweep(cudnnHandle_t h, uint64_t seed, int problems, bool fused = false, bool with_double = true) {
  Rng rng(test_seed(seed));
  int ran = 0;
  for (int i = 0; i < problems; ++i) {
    const cudnnDataType_t t = with_double && i % 3 == 2 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    for (Dir dir : {Dir::fwd, Dir::bwd_data, Dir::bwd_filter}) {
      if (fused && dir == Dir::bwd_filter) continue;  // cuDNN has no fused WINOGRAD filter gradient
      ran += check_winograd(h, rng, t, dir, fused) ? 1 : 0;
      if (::testing::Test::HasFailure()) return ran;
    }
  }
  return ran;
}

TEST(ConvolutionWinograd, NonfusedAgainstReference) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  sweep(h, 411, 12);
  cudnnDestroy(h);
}

// The fused WINOGRAD of forward and backward data, with the engines' own
// choice (CPU: oneDNN's Winograd where the filter does not outweigh the
// activations, else cpu.conv.winograd; these small problems take both).
TEST(ConvolutionWinograd, FusedAgainstReference) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  const int ran = sweep(h, 413, 12, true);
  if (!gpu_mode()) EXPECT_GE(ran, 12);  // all but some paddings of 3 (no CPU engine has them)
  cudnnDestroy(h);
}

// The same on cpu.conv.onednn alone, its size rule off: oneDNN's F(4x4,3x3)
// Winograd, the filter staged through packed KCRS (KRSC filters) and the
// flipped copy (CONVOLUTION mode). FLOAT only (oneDNN's Winograd is f32).
TEST(ConvolutionWinograd, FusedOnOnednn) {
  if (gpu_mode()) GTEST_SKIP() << "cpu.conv.onednn is a CPU engine";
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
#else
  GTEST_SKIP() << "oneDNN's Winograd kernels are x86-64's";
#endif
  ScopedEnv all("FREEDNN_ONEDNN_WINOGRAD", "1");
  ScopedEnv pin("FREEDNN_ENGINE", "cpu.conv.onednn");
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  const int ran = sweep(h, 414, 16, true, false);
  cudnnDestroy(h);
  if (ran == 0) {
    // Either no oneDNN in this build, or a oneDNN without these kernels:
    // then the pinned engine must have refused every call, which the sweep
    // allowed; say so rather than pass silently.
    GTEST_SKIP() << "cpu.conv.onednn ran none of the fused WINOGRAD calls (no oneDNN in this build?)";
  }
  EXPECT_GE(ran, 8);  // oneDNN takes some paddings and sizes: 14-22 of 32 calls on seeds 1-20
}

// A tiny pass budget: every image (or few) in a pass of its own, the filter
// gradient accumulating across passes.
TEST(ConvolutionWinograd, NonfusedInSeveralPasses) {
  if (!gpu_mode()) GTEST_SKIP() << "passes are the GPU engine's (cuda.conv.winograd)";
  ScopedEnv budget("FREEDNN_WINOGRAD_PASS_BYTES", "20000");
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  sweep(h, 412, 6);
  cudnnDestroy(h);
}

// Too little workspace, and shapes outside the algorithm's domain.
TEST(ConvolutionWinograd, RefusesWhatItCannotRun) {
  if (!gpu_mode()) GTEST_SKIP() << "the GPU engine's limits";
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  TensorDesc xD(t, {2, 8, 9, 9}, packed_strides({2, 8, 9, 9}, Layout::nchw));
  TensorDesc yD(t, {2, 4, 9, 9}, packed_strides({2, 4, 9, 9}, Layout::nchw));
  Descs d(t, CUDNN_TENSOR_NCHW, {4, 8, 3, 3}, 1, CUDNN_CROSS_CORRELATION);
  size_t ws_bytes = 0;
  ASSERT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, xD, d.w, d.c, yD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
                                                    &ws_bytes),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GT(ws_bytes, 0u);
  Buffer xb(2 * 8 * 81 * 4), wb(4 * 8 * 9 * 4), yb(2 * 4 * 81 * 4), ws(ws_bytes);
  const float one = 1, zero = 0;
  EXPECT_EQ(cudnnConvolutionForward(h, &one, xD, xb.get(), d.w, wb.get(), d.c,
                                    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, ws.get(), ws_bytes - 1, &zero, yD,
                                    yb.get()),
            CUDNN_STATUS_BAD_PARAM);
  last_error();
  EXPECT_EQ(cudnnConvolutionForward(h, &one, xD, xb.get(), d.w, wb.get(), d.c,
                                    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, nullptr, 0, &zero, yD, yb.get()),
            CUDNN_STATUS_BAD_PARAM);
  last_error();
  // Stride 2: not Winograd's.
  cudnnConvolutionDescriptor_t c2 = nullptr;
  ASSERT_EQ(cudnnCreateConvolutionDescriptor(&c2), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(c2, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, t), CUDNN_STATUS_SUCCESS);
  TensorDesc y2D(t, {2, 4, 5, 5}, packed_strides({2, 4, 5, 5}, Layout::nchw));
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(h, xD, d.w, c2, y2D, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
                                                    &ws_bytes),
            CUDNN_STATUS_NOT_SUPPORTED);
  last_error();
  cudnnDestroyConvolutionDescriptor(c2);
  cudnnDestroy(h);
}

}  // namespace
