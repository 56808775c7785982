// Activation descriptors and cudnnActivationForward / cudnnActivationBackward
// through the public API, against the float64 reference of
// tests/common/activation_reference. On a CPU handle every problem also runs
// on a handle pinned to the reference engines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/activation_desc.hpp"
#include "common/activation_reference.hpp"
#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
const std::vector<std::pair<double, double>> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.25, -1}};

ActivationSpec random_spec(Rng &rng, cudnnActivationMode_t mode) {
  ActivationSpec s;
  s.mode = mode;
  s.propagate_nan = rng.coin();
  s.coef = mode == CUDNN_ACTIVATION_CLIPPED_RELU ? rng.uniform(0.5, 3) : (mode == CUDNN_ACTIVATION_ELU ? rng.uniform(0.2, 2) : 0.0);
  s.swish_beta = rng.uniform(0.3, 2);
  return s;
}

// y stored in y's type: f(x) rounded.
void fill_forward(const ActivationSpec &s, const HostTensor &x, HostTensor &y) {
  for_each_index(x.dims, [&](const std::vector<int64_t> &i) { y.set(i, activation_value(s, x.get(i))); });
}

}  // namespace

TEST(ActivationDescriptor, SetGetAndSwishBetaLikeCudnn) {
  cudnnActivationDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateActivationDescriptor(&d), CUDNN_STATUS_SUCCESS);
  cudnnActivationMode_t m = CUDNN_ACTIVATION_TANH;
  cudnnNanPropagation_t n = CUDNN_PROPAGATE_NAN;
  double coef = -1, beta = -1;
  // A fresh descriptor reads as zeros, swish beta 1 (cuDNN 9.19, measured).
  EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, &n, &coef), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, CUDNN_ACTIVATION_SIGMOID);
  EXPECT_EQ(n, CUDNN_NOT_PROPAGATE_NAN);
  EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(d, &beta), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(beta, 1.0);
  // Every mode 0..6 and any coef (negative, inf, NaN) is accepted and kept.
  for (int mode = 0; mode <= 6; ++mode)
    for (double c : {-1.0, 0.0, 1e300, double(INFINITY)}) {
      EXPECT_EQ(cudnnSetActivationDescriptor(d, static_cast<cudnnActivationMode_t>(mode), CUDNN_PROPAGATE_NAN, c),
                CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, &n, &coef), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(m, mode);
      EXPECT_EQ(n, CUDNN_PROPAGATE_NAN);
      EXPECT_EQ(coef, c);
    }
  EXPECT_EQ(cudnnSetActivationDescriptor(d, CUDNN_ACTIVATION_ELU, CUDNN_NOT_PROPAGATE_NAN, std::nan("")),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, &n, &coef), CUDNN_STATUS_SUCCESS);
  EXPECT_TRUE(std::isnan(coef));
  // Bad enumerants: BAD_PARAM, descriptor unchanged.
  EXPECT_FAILS_NAMING(cudnnSetActivationDescriptor(d, static_cast<cudnnActivationMode_t>(7), CUDNN_PROPAGATE_NAN, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor", "mode");
  EXPECT_FAILS_NAMING(cudnnSetActivationDescriptor(d, static_cast<cudnnActivationMode_t>(-1), CUDNN_PROPAGATE_NAN, 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor", "mode");
  EXPECT_FAILS_NAMING(cudnnSetActivationDescriptor(d, CUDNN_ACTIVATION_RELU, static_cast<cudnnNanPropagation_t>(2), 1),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetActivationDescriptor", "reluNanOpt");
  EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, &n, &coef), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, CUDNN_ACTIVATION_ELU);
  // Swish beta: any value, kept across cudnnSetActivationDescriptor.
  for (double b : {2.5, -1.0, 0.0, double(INFINITY)}) {
    EXPECT_EQ(cudnnSetActivationDescriptorSwishBeta(d, b), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(d, &beta), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(beta, b);
  }
  EXPECT_EQ(cudnnSetActivationDescriptor(d, CUDNN_ACTIVATION_SWISH, CUDNN_PROPAGATE_NAN, 3.0), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(d, &beta), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(beta, INFINITY);
  // NULL arguments.
  EXPECT_EQ(cudnnCreateActivationDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptor(nullptr, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptor(nullptr, &m, &n, &coef), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptor(d, nullptr, &n, &coef), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, nullptr, &coef), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptor(d, &m, &n, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetActivationDescriptorSwishBeta(nullptr, 1.0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(nullptr, &beta), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetActivationDescriptorSwishBeta(d, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyActivationDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyActivationDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(ActivationForward, EveryModeTypeLayoutAndBlend) {
  Rng rng(test_seed(301));
  EngineHandles hs;
  for (int mode = 0; mode <= 6; ++mode) {
    if (mode == CUDNN_ACTIVATION_IDENTITY) continue;  // BAD_PARAM (see the bad-input tests)
    for (cudnnDataType_t t : kTypes) {
      const ActivationSpec s = random_spec(rng, static_cast<cudnnActivationMode_t>(mode));
      ActDesc ad(s);
      const int rank = rng.coin() ? 4 : 5;
      const std::vector<int64_t> dims = random_dims(rng, rank, 7, 600);
      HostTensor x = random_layout(rng, t, dims);
      fill_random(x, rng, -4, 4);
      HostTensor y0 = random_layout(rng, t, dims);
      fill_random(y0, rng, -2, 2);
      const auto [alpha, beta] = kAlphaBeta[rng.integer(0, kAlphaBeta.size() - 1)];
      const Scaling a(alpha), b(beta);
      const std::vector<Expect> want = reference_activation_forward(s, a.value(t), x, b.value(t), y0);
      TensorDesc xd(x), yd(y0);
      Buffer xb = upload(x);
      const std::string what = "mode " + std::to_string(mode) + " x " + describe(x) + " y " + describe(y0) +
                               " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
      for (size_t k = 0; k < hs.all.size(); ++k) {
        HostTensor y = y0;
        if (beta == 0) poison(y);
        const HostTensor before = y;
        Buffer yb = upload(y);
        ASSERT_EQ(cudnnActivationForward(hs.all[k], ad, a.for_type(t), xd, xb.get(), b.for_type(t), yd, yb.get()),
                  CUDNN_STATUS_SUCCESS)
            << what << " " << last_error();
        download(yb, y);
        EXPECT_TRUE(matches(y, want)) << what << " on " << engine_name(k);
        EXPECT_TRUE(gaps_untouched(y, before)) << what << " on " << engine_name(k);
      }
    }
  }
}

TEST(ActivationBackward, EveryModeTypeLayoutAndBlend) {
  Rng rng(test_seed(302));
  EngineHandles hs;
  for (int mode = 0; mode <= 6; ++mode) {
    if (mode == CUDNN_ACTIVATION_IDENTITY) continue;
    for (cudnnDataType_t t : kTypes) {
      const ActivationSpec s = random_spec(rng, static_cast<cudnnActivationMode_t>(mode));
      ActDesc ad(s);
      const int rank = rng.coin() ? 4 : 5;
      const std::vector<int64_t> dims = random_dims(rng, rank, 7, 600);
      // cuDNN's rule: y, dy, x and dx share their strides.
      HostTensor x = random_layout(rng, t, dims), y = make_tensor(t, dims, x.strides);
      HostTensor dy = make_tensor(t, dims, y.strides);
      fill_random(x, rng, -4, 4);
      fill_forward(s, x, y);
      fill_random(dy, rng, -2, 2);
      HostTensor dx0 = make_tensor(t, dims, x.strides);
      fill_random(dx0, rng, -2, 2);
      const auto [alpha, beta] = kAlphaBeta[rng.integer(0, kAlphaBeta.size() - 1)];
      const Scaling a(alpha), b(beta);
      const std::vector<Expect> want = reference_activation_backward(s, a.value(t), y, dy, x, b.value(t), dx0);
      TensorDesc xd(x), yd(y), dyd(dy), dxd(dx0);
      Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
      const std::string what = "mode " + std::to_string(mode) + " x " + describe(x) + " dx " + describe(dx0) +
                               " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
      for (size_t k = 0; k < hs.all.size(); ++k) {
        HostTensor dx = dx0;
        if (beta == 0) poison(dx);
        const HostTensor before = dx;
        Buffer dxb = upload(dx);
        ASSERT_EQ(cudnnActivationBackward(hs.all[k], ad, a.for_type(t), yd, yb.get(), dyd, dyb.get(), xd, xb.get(),
                                          b.for_type(t), dxd, dxb.get()),
                  CUDNN_STATUS_SUCCESS)
            << what << " " << last_error();
        download(dxb, dx);
        EXPECT_TRUE(matches(dx, want)) << what << " on " << engine_name(k);
        EXPECT_TRUE(gaps_untouched(dx, before)) << what << " on " << engine_name(k);
      }
    }
  }
}

// In-place forward (x == y) and backward (dy == dx); the backward of SIGMOID,
// TANH, ELU and the ReLUs reads y, so it is right even when x was
// overwritten by an in-place forward (x passed = y).
TEST(ActivationInPlace, ForwardAndBackwardFromOutput) {
  Rng rng(test_seed(303));
  EngineHandles hs;
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  for (int mode : {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_RELU,
                   CUDNN_ACTIVATION_CLIPPED_RELU}) {
    const ActivationSpec s = random_spec(rng, static_cast<cudnnActivationMode_t>(mode));
    ActDesc ad(s);
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
    fill_random(x, rng, -3, 3);
    HostTensor y = x;
    fill_forward(s, x, y);
    HostTensor dy = x;
    fill_random(dy, rng, -1, 1);
    const std::vector<Expect> want_y = reference_activation_forward(s, 1, x, 0, x);
    const std::vector<Expect> want_dx = reference_activation_backward(s, 1, y, dy, x, 0, dy);
    TensorDesc d(x);
    const float one = 1, zero = 0;
    for (size_t k = 0; k < hs.all.size(); ++k) {
      Buffer xy = upload(x);
      ASSERT_EQ(cudnnActivationForward(hs.all[k], ad, &one, d, xy.get(), &zero, d, xy.get()), CUDNN_STATUS_SUCCESS);
      HostTensor got = x;
      download(xy, got);
      EXPECT_TRUE(matches(got, want_y)) << "mode " << mode << " on " << engine_name(k);
      Buffer g = upload(dy);
      // x is the overwritten buffer: it holds y.
      ASSERT_EQ(cudnnActivationBackward(hs.all[k], ad, &one, d, xy.get(), d, g.get(), d, xy.get(), &zero, d, g.get()),
                CUDNN_STATUS_SUCCESS);
      download(g, got);
      EXPECT_TRUE(matches(got, want_dx)) << "mode " << mode << " on " << engine_name(k);
    }
  }
}

TEST(ActivationForward, NanPropagationOfTheRelus) {
  EngineHandles hs;
  const std::vector<int64_t> dims = {1, 1, 1, 4};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  x.set_values({std::nan(""), -1.0, 0.5, 7.0});
  for (int mode : {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_SIGMOID})
    for (bool prop : {false, true}) {
      ActivationSpec s;
      s.mode = static_cast<cudnnActivationMode_t>(mode);
      s.propagate_nan = prop;
      s.coef = 2.0;
      ActDesc ad(s);
      const std::vector<Expect> want = reference_activation_forward(s, 1, x, 0, x);
      TensorDesc d(x);
      Buffer xb = upload(x);
      const float one = 1, zero = 0;
      for (size_t k = 0; k < hs.all.size(); ++k) {
        HostTensor y = x;
        poison(y);
        Buffer yb = upload(y);
        ASSERT_EQ(cudnnActivationForward(hs.all[k], ad, &one, d, xb.get(), &zero, d, yb.get()), CUDNN_STATUS_SUCCESS);
        download(yb, y);
        EXPECT_TRUE(matches(y, want)) << "mode " << mode << " propagate " << prop << " on " << engine_name(k);
      }
    }
}

// dx of the backward call against central differences of the forward call
// (double tensors, smooth modes, points away from the ReLU kinks).
TEST(ActivationBackward, MatchesFiniteDifferences) {
  Rng rng(test_seed(304));
  EngineHandles hs;
  const std::vector<int64_t> dims = {2, 3, 2, 2};
  for (int mode = 0; mode <= 6; ++mode) {
    if (mode == CUDNN_ACTIVATION_IDENTITY) continue;
    ActivationSpec s = random_spec(rng, static_cast<cudnnActivationMode_t>(mode));
    ActDesc ad(s);
    HostTensor x = make_tensor(CUDNN_DATA_DOUBLE, dims, packed_strides(dims, Layout::nchw));
    fill_random(x, rng, -3, 3);
    for_each_index(dims, [&](const std::vector<int64_t> &i) {  // keep away from kinks at 0 and coef
      double v = x.get(i);
      if (std::fabs(v) < 0.05 || std::fabs(v - s.coef) < 0.05) x.set(i, v + 0.2);
    });
    HostTensor dy = x;
    fill_random(dy, rng, -1, 1);
    TensorDesc d(x);
    const double one = 1, zero = 0, h = 1e-6;
    for (size_t k = 0; k < hs.all.size(); ++k) {
      auto forward = [&](const HostTensor &in) {
        Buffer ib = upload(in), ob = upload(in);
        EXPECT_EQ(cudnnActivationForward(hs.all[k], ad, &one, d, ib.get(), &zero, d, ob.get()), CUDNN_STATUS_SUCCESS);
        HostTensor out = in;
        download(ob, out);
        return out;
      };
      const HostTensor y = forward(x);
      Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), dxb = upload(x);
      ASSERT_EQ(cudnnActivationBackward(hs.all[k], ad, &one, d, yb.get(), d, dyb.get(), d, xb.get(), &zero, d,
                                        dxb.get()),
                CUDNN_STATUS_SUCCESS);
      HostTensor dx = x;
      download(dxb, dx);
      for_each_index(dims, [&](const std::vector<int64_t> &i) {
        HostTensor xp = x, xm = x;
        xp.set(i, x.get(i) + h);
        xm.set(i, x.get(i) - h);
        const double fd = (forward(xp).get(i) - forward(xm).get(i)) / (2 * h) * dy.get(i);
        EXPECT_NEAR(dx.get(i), fd, 1e-6 * (1 + std::fabs(fd))) << "mode " << mode << " on " << engine_name(k);
      });
    }
  }
}

class ActivationBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    buf = Buffer(1 << 16);
    buf2 = Buffer(1 << 16);
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
  }
  void TearDown() override {
    cudnnDestroyActivationDescriptor(ad);
    cudnnDestroy(h);
  }
  cudnnHandle_t h = nullptr;
  cudnnActivationDescriptor_t ad = nullptr;
  Buffer buf, buf2;
  const float one = 1, zero = 0;
};

TEST_F(ActivationBadInput, Forward) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  TensorDesc x(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  TensorDesc x_nhwc(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  TensorDesc other(CUDNN_DATA_FLOAT, {2, 3, 4, 6}, packed_strides({2, 3, 4, 6}, Layout::nchw));
  TensorDesc half(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  void *p = buf.get(), *q = buf2.get();
  const char *fn = "cudnnActivationForward";
  EXPECT_EQ(cudnnActivationForward(nullptr, ad, &one, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, nullptr, &one, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "activationDesc");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, nullptr, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "alpha");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, nullptr, x, q), CUDNN_STATUS_BAD_PARAM, fn, "beta");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, nullptr, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, &zero, nullptr, q), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, nullptr, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "x");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, &zero, x, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "y");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, &zero, other, q), CUDNN_STATUS_BAD_PARAM, fn, "dimensions");
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, &zero, half, q), CUDNN_STATUS_BAD_PARAM, fn, "data type");
  TensorDesc i32(CUDNN_DATA_INT32, dims, packed_strides(dims, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, i32, p, &zero, i32, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "INT32");
  EXPECT_EQ(cudnnActivationForward(h, ad, &one, i8, p, &zero, i8, q), CUDNN_STATUS_SUCCESS);  // INT8 forward: accepted
  // IDENTITY is for cudnnConvolutionBiasActivationForward only.
  cudnnActivationDescriptor_t id;
  cudnnCreateActivationDescriptor(&id);
  cudnnSetActivationDescriptor(id, CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0);
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, id, &one, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "IDENTITY");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, id, &one, x, p, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM,
                      "cudnnActivationBackward", "IDENTITY");
  cudnnDestroyActivationDescriptor(id);
  // In place needs identical strides.
  EXPECT_FAILS_NAMING(cudnnActivationForward(h, ad, &one, x, p, &zero, x_nhwc, p), CUDNN_STATUS_BAD_PARAM, fn, "strides");
  EXPECT_EQ(cudnnActivationForward(h, ad, &one, x, p, &zero, x_nhwc, q), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnActivationForward(h, ad, &one, x, p, &zero, x, p), CUDNN_STATUS_SUCCESS);
}

TEST_F(ActivationBadInput, Backward) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  TensorDesc x(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  TensorDesc x_nhwc(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  TensorDesc other(CUDNN_DATA_FLOAT, {2, 3, 4, 6}, packed_strides({2, 3, 4, 6}, Layout::nchw));
  TensorDesc half(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  void *p = buf.get(), *q = buf2.get();
  const char *fn = "cudnnActivationBackward";
  EXPECT_EQ(cudnnActivationBackward(nullptr, ad, &one, x, p, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM);
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, nullptr, &one, x, p, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "activationDesc");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, nullptr, x, p, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "alpha");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, p, nullptr, x, q), CUDNN_STATUS_BAD_PARAM, fn, "beta");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, nullptr, p, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "yDesc");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, nullptr, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "dyDesc");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, nullptr, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, p, &zero, nullptr, q), CUDNN_STATUS_BAD_PARAM, fn, "dxDesc");
  // RELU reads x, not y: y may be NULL (as in cuDNN); SIGMOID reads y.
  EXPECT_EQ(cudnnActivationBackward(h, ad, &one, x, nullptr, x, p, x, p, &zero, x, q), CUDNN_STATUS_SUCCESS);
  cudnnActivationDescriptor_t sig;
  cudnnCreateActivationDescriptor(&sig);
  cudnnSetActivationDescriptor(sig, CUDNN_ACTIVATION_SIGMOID, CUDNN_PROPAGATE_NAN, 0);
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, sig, &one, x, nullptr, x, p, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "y");
  cudnnDestroyActivationDescriptor(sig);
  // y/dy and x/dx strides must match.
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x_nhwc, p, x, p, &zero, x, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "strides");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, p, &zero, x_nhwc, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "strides");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x_nhwc, p, x_nhwc, p, x, p, &zero, x, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "strides");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, nullptr, x, p, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "dy");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, nullptr, &zero, x, q), CUDNN_STATUS_BAD_PARAM, fn, "x");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, p, &zero, x, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "dx");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, other, p, x, p, &zero, x, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "dimensions");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, p, x, p, &zero, half, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "data type");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, i8, p, i8, p, i8, p, &zero, i8, q), CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8");
  EXPECT_FAILS_NAMING(cudnnActivationBackward(h, ad, &one, x, p, x, q, x, p, &zero, x_nhwc, q), CUDNN_STATUS_BAD_PARAM, fn, "strides");
  EXPECT_EQ(cudnnActivationBackward(h, ad, &one, x, p, x, q, x, p, &zero, x, q), CUDNN_STATUS_SUCCESS);
}
