// cudnnSoftmaxForward / cudnnSoftmaxBackward through the public API against
// the float64 reference of tests/common/softmax_reference. On a CPU handle
// every problem also runs on a handle pinned to the reference engines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/softmax_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
const std::vector<std::pair<double, double>> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.25, -1}};

// y = softmax of x (or log-softmax), exact, stored in y's type.
void fill_softmax(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const HostTensor &x, HostTensor &y) {
  const std::vector<Expect> e = reference_softmax_forward(algo, mode, 1, x, 0, x);
  std::vector<double> v;
  for (const Expect &x_ : e) v.push_back(x_.value);
  y.set_values(v);
}

}  // namespace

TEST(SoftmaxForward, EveryAlgorithmModeTypeLayoutAndBlend) {
  Rng rng(test_seed(401));
  EngineHandles hs;
  for (int algo = 0; algo <= 2; ++algo)
    for (int mode = 0; mode <= 1; ++mode)
      for (cudnnDataType_t t : kTypes) {
        const int rank = rng.coin() ? 4 : 5;
        std::vector<int64_t> dims = random_dims(rng, rank, 9, 900);
        if (rng.coin(0.3)) dims[1] = rng.integer(20, 70);  // longer rows
        HostTensor x = random_layout(rng, t, dims), y0 = random_layout(rng, t, dims);
        fill_random(x, rng, -6, 6);
        fill_random(y0, rng, -1, 1);
        const auto [alpha, beta] = kAlphaBeta[rng.integer(0, kAlphaBeta.size() - 1)];
        const Scaling a(alpha), b(beta);
        const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(algo);
        const auto M = static_cast<cudnnSoftmaxMode_t>(mode);
        const std::vector<Expect> want = reference_softmax_forward(A, M, a.value(t), x, b.value(t), y0);
        TensorDesc xd(x), yd(y0);
        Buffer xb = upload(x);
        const std::string what = "algo " + std::to_string(algo) + " mode " + std::to_string(mode) + " x " +
                                 describe(x) + " y " + describe(y0) + " beta " + std::to_string(beta);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          HostTensor y = y0;
          if (beta == 0) poison(y);
          const HostTensor before = y;
          Buffer yb = upload(y);
          ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, M, a.for_type(t), xd, xb.get(), b.for_type(t), yd, yb.get()),
                    CUDNN_STATUS_SUCCESS)
              << what << " " << last_error();
          download(yb, y);
          EXPECT_TRUE(matches(y, want)) << what << " on " << engine_name(k);
          EXPECT_TRUE(gaps_untouched(y, before)) << what << " on " << engine_name(k);
        }
      }
}

TEST(SoftmaxBackward, EveryAlgorithmModeTypeLayoutAndBlend) {
  Rng rng(test_seed(402));
  EngineHandles hs;
  for (int algo = 0; algo <= 2; ++algo)
    for (int mode = 0; mode <= 1; ++mode)
      for (cudnnDataType_t t : kTypes) {
        const int rank = rng.coin() ? 4 : 5;
        std::vector<int64_t> dims = random_dims(rng, rank, 9, 900);
        if (rng.coin(0.3)) dims[1] = rng.integer(20, 70);
        const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(algo);
        const auto M = static_cast<cudnnSoftmaxMode_t>(mode);
        // y and dy share their strides (cuDNN's rule for this call).
        HostTensor x = random_layout(rng, t, dims), y = random_layout(rng, t, dims);
        HostTensor dy = make_tensor(t, dims, y.strides);
        fill_random(x, rng, -3, 3);
        fill_softmax(A, M, x, y);
        fill_random(dy, rng, -1, 1);
        HostTensor dx0 = random_layout(rng, t, dims);  // dx: any layout
        fill_random(dx0, rng, -1, 1);
        const auto [alpha, beta] = kAlphaBeta[rng.integer(0, kAlphaBeta.size() - 1)];
        const Scaling a(alpha), b(beta);
        const std::vector<Expect> want = reference_softmax_backward(A, M, a.value(t), y, dy, b.value(t), dx0);
        TensorDesc yd(y), dyd(dy), dxd(dx0);
        Buffer yb = upload(y), dyb = upload(dy);
        const std::string what = "algo " + std::to_string(algo) + " mode " + std::to_string(mode) + " y " +
                                 describe(y) + " dx " + describe(dx0) + " beta " + std::to_string(beta);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          HostTensor dx = dx0;
          if (beta == 0) poison(dx);
          const HostTensor before = dx;
          Buffer dxb = upload(dx);
          ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], A, M, a.for_type(t), yd, yb.get(), dyd, dyb.get(), b.for_type(t),
                                         dxd, dxb.get()),
                    CUDNN_STATUS_SUCCESS)
              << what << " " << last_error();
          download(dxb, dx);
          EXPECT_TRUE(matches(dx, want)) << what << " on " << engine_name(k);
          EXPECT_TRUE(gaps_untouched(dx, before)) << what << " on " << engine_name(k);
        }
      }
}

// CHANNEL mode on planes (NCHW, H x W > 1): a pixel's channels lie a plane
// apart, neighbouring pixels are neighbouring floats. The CPU engine takes
// a vector of pixels at a time there (FLOAT, beta = 0: the lanes kernels),
// the last pixels of each image row fewer than a vector through the row
// kernels. Packed and gapped strides, W no multiple of the vector, every
// algorithm, forward and backward, beta 0 (poisoned output) and not.
TEST(SoftmaxForwardBackward, ChannelsOfPlanes) {
  Rng rng(test_seed(408));
  EngineHandles hs;
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t N = rng.integer(1, 3), C = iter % 3 == 0 ? 3 : rng.integer(5, 40), H = rng.integer(1, 6),
                  W = rng.integer(14, 70);
    const std::vector<int64_t> dims{N, C, H, W};
    const bool gaps = iter % 2 == 1;
    const int64_t ws = 1, hs_ = gaps ? W + 3 : W, cs = gaps ? H * hs_ + 5 : H * W, ns = gaps ? C * cs + 7 : C * cs;
    const std::vector<int64_t> strides{ns, cs, hs_, ws};
    const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(iter % 3);
    const double alpha = iter % 4 == 3 ? -0.5 : 1.5, beta = iter % 4 == 2 ? 0.5 : 0.0;
    const Scaling a(alpha), b(beta);
    const std::string what = "algo " + std::to_string(iter % 3) + " N" + std::to_string(N) + " C" + std::to_string(C) +
                             " " + std::to_string(H) + "x" + std::to_string(W) + (gaps ? " gapped" : " packed") +
                             " beta " + std::to_string(beta);
    HostTensor x = make_tensor(t, dims, strides), y0 = make_tensor(t, dims, strides);
    fill_random(x, rng, -6, 6);
    fill_random(y0, rng, -1, 1);
    TensorDesc xd(x);
    Buffer xb = upload(x);
    const std::vector<Expect> want = reference_softmax_forward(A, CUDNN_SOFTMAX_MODE_CHANNEL, a.value(t), x, b.value(t), y0);
    // Backward from the exact softmax of x, dy random, dx in the same layout.
    HostTensor y = make_tensor(t, dims, strides), dy = make_tensor(t, dims, strides), dx0 = make_tensor(t, dims, strides);
    fill_softmax(A, CUDNN_SOFTMAX_MODE_CHANNEL, x, y);
    fill_random(dy, rng, -1, 1);
    fill_random(dx0, rng, -1, 1);
    const std::vector<Expect> want_dx = reference_softmax_backward(A, CUDNN_SOFTMAX_MODE_CHANNEL, a.value(t), y, dy, b.value(t), dx0);
    Buffer yb = upload(y), dyb = upload(dy);
    for (size_t k = 0; k < hs.all.size(); ++k) {
      HostTensor out = y0;
      if (beta == 0) poison(out);
      const HostTensor before = out;
      Buffer ob = upload(out);
      ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, a.for_type(t), xd, xb.get(),
                                    b.for_type(t), xd, ob.get()),
                CUDNN_STATUS_SUCCESS)
          << what << " " << last_error();
      download(ob, out);
      EXPECT_TRUE(matches(out, want)) << "forward " << what << " on " << engine_name(k);
      EXPECT_TRUE(gaps_untouched(out, before)) << "forward " << what << " on " << engine_name(k);
      HostTensor dx = dx0;
      if (beta == 0) poison(dx);
      const HostTensor dx_before = dx;
      Buffer dxb = upload(dx);
      ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, a.for_type(t), xd, yb.get(), xd,
                                     dyb.get(), b.for_type(t), xd, dxb.get()),
                CUDNN_STATUS_SUCCESS)
          << what << " " << last_error();
      download(dxb, dx);
      EXPECT_TRUE(matches(dx, want_dx)) << "backward " << what << " on " << engine_name(k);
      EXPECT_TRUE(gaps_untouched(dx, dx_before)) << "backward " << what << " on " << engine_name(k);
    }
  }
}

// Long contiguous rows (CHANNEL mode on N x C x 1 x 1, INSTANCE mode on
// C x H x W): the CUDA engine's warp-per-row kernel for 16-bit rows of 264 to
// 4096 elements (2, 4, 8 or 16 vectors per lane, lanes past the row's end),
// next to rows that stay on the block kernels (longer, or not a multiple of 8).
TEST(SoftmaxForwardBackward, LongContiguousRows) {
  Rng rng(test_seed(406));
  EngineHandles hs;
  struct Case {
    cudnnSoftmaxMode_t mode;
    std::vector<int64_t> dims;
  };
  const std::vector<Case> cases = {{CUDNN_SOFTMAX_MODE_CHANNEL, {3, 4096, 1, 1}},
                                   {CUDNN_SOFTMAX_MODE_CHANNEL, {2, 2056, 1, 1}},
                                   {CUDNN_SOFTMAX_MODE_CHANNEL, {5, 1000, 1, 1}},
                                   {CUDNN_SOFTMAX_MODE_CHANNEL, {2, 520, 1, 1}},
                                   {CUDNN_SOFTMAX_MODE_CHANNEL, {2, 6000, 1, 1}},
                                   {CUDNN_SOFTMAX_MODE_INSTANCE, {3, 4, 8, 9}},
                                   {CUDNN_SOFTMAX_MODE_INSTANCE, {2, 8, 16, 16}}};
  for (const Case &c : cases)
    for (cudnnDataType_t t : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16})
      for (auto A : {CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG}) {
        const std::vector<int64_t> &dims = c.dims;
        HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
        fill_random(x, rng, -8, 8);
        HostTensor y0 = x, dy = x, y = x;
        fill_random(y0, rng, -1, 1);
        fill_random(dy, rng, -1, 1);
        fill_softmax(A, c.mode, x, y);
        const auto [alpha, beta] = kAlphaBeta[rng.integer(0, kAlphaBeta.size() - 1)];
        const Scaling a(alpha), b(beta);
        const std::vector<Expect> want_y = reference_softmax_forward(A, c.mode, a.value(t), x, b.value(t), y0);
        const std::vector<Expect> want_dx = reference_softmax_backward(A, c.mode, a.value(t), y, dy, b.value(t), y0);
        TensorDesc d(x);
        Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
        const std::string what = "algo " + std::to_string(A) + " mode " + std::to_string(c.mode) + " " + describe(x) +
                                 " beta " + std::to_string(beta);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          HostTensor out = y0;
          if (beta == 0) poison(out);
          Buffer ob = upload(out);
          ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, c.mode, a.for_type(t), d, xb.get(), b.for_type(t), d, ob.get()),
                    CUDNN_STATUS_SUCCESS)
              << what << " " << last_error();
          download(ob, out);
          EXPECT_TRUE(matches(out, want_y)) << "forward " << what << " on " << engine_name(k);
          out = y0;
          if (beta == 0) poison(out);
          ob = upload(out);
          ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], A, c.mode, a.for_type(t), d, yb.get(), d, dyb.get(), b.for_type(t),
                                         d, ob.get()),
                    CUDNN_STATUS_SUCCESS)
              << what << " " << last_error();
          download(ob, out);
          EXPECT_TRUE(matches(out, want_dx)) << "backward " << what << " on " << engine_name(k);
        }
      }
}

// ACCURATE and LOG subtract the maximum: inputs around 1e4 do not overflow.
TEST(SoftmaxForward, AccurateAndLogDoNotOverflow) {
  Rng rng(test_seed(403));
  EngineHandles hs;
  const std::vector<int64_t> dims = {3, 50, 1, 1};
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF})
    for (auto algo : {CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG}) {
      HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
      fill_random(x, rng, t == CUDNN_DATA_HALF ? 30000 : 1e4, t == CUDNN_DATA_HALF ? 30010 : 1e4 + 10);
      const std::vector<Expect> want = reference_softmax_forward(algo, CUDNN_SOFTMAX_MODE_CHANNEL, 1, x, 0, x);
      TensorDesc d(x);
      Buffer xb = upload(x);
      const float one = 1, zero = 0;
      for (size_t k = 0; k < hs.all.size(); ++k) {
        HostTensor y = x;
        poison(y);
        Buffer yb = upload(y);
        ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], algo, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, xb.get(), &zero, d, yb.get()),
                  CUDNN_STATUS_SUCCESS);
        download(yb, y);
        EXPECT_TRUE(matches(y, want)) << "algo " << algo << " " << type_name(t) << " on " << engine_name(k);
      }
    }
}

// The backward calls against central differences of the forward calls
// (double): dx_i = sum_j dy_j * d y_j / d x_i.
TEST(SoftmaxBackward, MatchesFiniteDifferences) {
  Rng rng(test_seed(404));
  EngineHandles hs;
  const std::vector<int64_t> dims = {2, 3, 2, 1};
  const double one = 1, zero = 0, h = 1e-6;
  for (auto algo : {CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG})
    for (auto mode : {CUDNN_SOFTMAX_MODE_INSTANCE, CUDNN_SOFTMAX_MODE_CHANNEL}) {
      HostTensor x = make_tensor(CUDNN_DATA_DOUBLE, dims, packed_strides(dims, Layout::nchw));
      fill_random(x, rng, -2, 2);
      HostTensor dy = x;
      fill_random(dy, rng, -1, 1);
      TensorDesc d(x);
      for (size_t k = 0; k < hs.all.size(); ++k) {
        auto forward = [&](const HostTensor &in) {
          Buffer ib = upload(in), ob = upload(in);
          EXPECT_EQ(cudnnSoftmaxForward(hs.all[k], algo, mode, &one, d, ib.get(), &zero, d, ob.get()),
                    CUDNN_STATUS_SUCCESS);
          HostTensor out = in;
          download(ob, out);
          return out;
        };
        const HostTensor y = forward(x);
        Buffer yb = upload(y), dyb = upload(dy), dxb = upload(x);
        ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], algo, mode, &one, d, yb.get(), d, dyb.get(), &zero, d, dxb.get()),
                  CUDNN_STATUS_SUCCESS);
        HostTensor dx = x;
        download(dxb, dx);
        for_each_index(dims, [&](const std::vector<int64_t> &i) {
          HostTensor xp = x, xm = x;
          xp.set(i, x.get(i) + h);
          xm.set(i, x.get(i) - h);
          const std::vector<double> yp = forward(xp).values(), ym = forward(xm).values(), g = dy.values();
          double fd = 0;
          for (size_t j = 0; j < g.size(); ++j) fd += g[j] * (yp[j] - ym[j]) / (2 * h);
          EXPECT_NEAR(dx.get(i), fd, 1e-6 * (1 + std::fabs(fd))) << "algo " << algo << " mode " << mode << " on "
                                                                 << engine_name(k);
        });
      }
    }
}

TEST(SoftmaxInPlace, ForwardAndBackward) {
  Rng rng(test_seed(405));
  EngineHandles hs;
  const std::vector<int64_t> dims = {2, 7, 3, 2};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  fill_random(x, rng, -3, 3);
  HostTensor dy = x;
  fill_random(dy, rng, -1, 1);
  const auto M = CUDNN_SOFTMAX_MODE_CHANNEL;
  const std::vector<Expect> want_y = reference_softmax_forward(CUDNN_SOFTMAX_ACCURATE, M, 1, x, 0, x);
  HostTensor y = x;
  fill_softmax(CUDNN_SOFTMAX_ACCURATE, M, x, y);
  const std::vector<Expect> want_dx = reference_softmax_backward(CUDNN_SOFTMAX_ACCURATE, M, 1, y, dy, 0, dy);
  TensorDesc d(x);
  const float one = 1, zero = 0;
  for (size_t k = 0; k < hs.all.size(); ++k) {
    Buffer xy = upload(x);
    ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], CUDNN_SOFTMAX_ACCURATE, M, &one, d, xy.get(), &zero, d, xy.get()),
              CUDNN_STATUS_SUCCESS);
    HostTensor got = x;
    download(xy, got);
    EXPECT_TRUE(matches(got, want_y)) << engine_name(k);
    Buffer yb = upload(y), g = upload(dy);
    ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], CUDNN_SOFTMAX_ACCURATE, M, &one, d, yb.get(), d, g.get(), &zero, d,
                                   g.get()),
              CUDNN_STATUS_SUCCESS);
    download(g, got);
    EXPECT_TRUE(matches(got, want_dx)) << engine_name(k);
  }
}

class SoftmaxBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    buf = Buffer(1 << 16);
    buf2 = Buffer(1 << 16);
    buf3 = Buffer(1 << 16);
  }
  void TearDown() override { cudnnDestroy(h); }
  cudnnHandle_t h = nullptr;
  Buffer buf, buf2, buf3;
  const float one = 1, zero = 0;
};

TEST_F(SoftmaxBadInput, Forward) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  TensorDesc x(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  TensorDesc x_nhwc(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  TensorDesc other(CUDNN_DATA_FLOAT, {2, 3, 4, 6}, packed_strides({2, 3, 4, 6}, Layout::nchw));
  TensorDesc half(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  void *p = buf.get(), *q = buf2.get();
  const auto A = CUDNN_SOFTMAX_ACCURATE;
  const auto M = CUDNN_SOFTMAX_MODE_CHANNEL;
  const char *fn = "cudnnSoftmaxForward";
  EXPECT_EQ(cudnnSoftmaxForward(nullptr, A, M, &one, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, static_cast<cudnnSoftmaxAlgorithm_t>(3), M, &one, x, p, &zero, x, q),
                      CUDNN_STATUS_BAD_PARAM, fn, "algorithm");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, static_cast<cudnnSoftmaxMode_t>(2), &one, x, p, &zero, x, q),
                      CUDNN_STATUS_BAD_PARAM, fn, "mode");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, nullptr, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "alpha");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, p, nullptr, x, q), CUDNN_STATUS_BAD_PARAM, fn, "beta");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, nullptr, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, p, &zero, nullptr, q), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, nullptr, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "x");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, p, &zero, x, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "y");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, p, &zero, other, q), CUDNN_STATUS_BAD_PARAM, fn, "dimensions");
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, x, p, &zero, half, q), CUDNN_STATUS_BAD_PARAM, fn, "data type");
  TensorDesc i32(CUDNN_DATA_INT32, dims, packed_strides(dims, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnSoftmaxForward(h, A, M, &one, i32, p, &zero, i32, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "INT32");
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, i8, p, &zero, i8, q), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSoftmaxForward(h, A, M, &one, x, p, &zero, x_nhwc, q), CUDNN_STATUS_SUCCESS);
}

TEST_F(SoftmaxBadInput, Backward) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  TensorDesc x(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  TensorDesc x_nhwc(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  TensorDesc other(CUDNN_DATA_FLOAT, {2, 3, 4, 6}, packed_strides({2, 3, 4, 6}, Layout::nchw));
  TensorDesc half(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  void *p = buf.get(), *q = buf2.get();
  const auto A = CUDNN_SOFTMAX_LOG;
  const auto M = CUDNN_SOFTMAX_MODE_INSTANCE;
  const char *fn = "cudnnSoftmaxBackward";
  EXPECT_EQ(cudnnSoftmaxBackward(nullptr, A, M, &one, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, static_cast<cudnnSoftmaxAlgorithm_t>(-1), M, &one, x, p, x, p, &zero, x, q),
                      CUDNN_STATUS_BAD_PARAM, fn, "algorithm");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, static_cast<cudnnSoftmaxMode_t>(5), &one, x, p, x, p, &zero, x, q),
                      CUDNN_STATUS_BAD_PARAM, fn, "mode");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, nullptr, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "alpha");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, p, nullptr, x, q), CUDNN_STATUS_BAD_PARAM, fn, "beta");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, nullptr, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, nullptr, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "dyDesc");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, p, &zero, nullptr, q), CUDNN_STATUS_BAD_PARAM, fn, "dxDesc");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, nullptr, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "y");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, nullptr, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "dy");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, p, &zero, x, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "dx");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, other, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "dimensions");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, p, &zero, half, q), CUDNN_STATUS_BAD_PARAM, fn, "data type");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, i8, p, i8, p, &zero, i8, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8");
  EXPECT_FAILS_NAMING(cudnnSoftmaxBackward(h, A, M, &one, x, p, x_nhwc, q, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "strides");
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, q, &zero, x_nhwc, buf3.get()), CUDNN_STATUS_SUCCESS);  // dx: any layout
  EXPECT_EQ(cudnnSoftmaxBackward(h, A, M, &one, x, p, x, q, &zero, x, q), CUDNN_STATUS_SUCCESS);
}
