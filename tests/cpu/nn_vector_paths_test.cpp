// The vectorised paths of the fast CPU activation and softmax kernels
// (src/cpu/vec_math.hpp, pointwise_kernels.hpp, softmax_math.hpp), through
// the public API against the float64 references of tests/common:
//  - activations on rows of every length around the vector widths (8 and
//    16 lanes: body + scalar tail), contiguous and strided, with special
//    values mixed in (NaN in both NaN modes, huge, tiny, +-0; infinities
//    are in tests/cpu/vec_math_check.cpp), in
//    float (the vec_math kernels) and double;
//  - softmax rows longer than one online chunk (2048 elements): the
//    maximum in a later chunk (the running sum is rescaled), inputs around
//    1e4 (ACCURATE / LOG must not overflow), leading chunks of -inf, a NaN
//    that poisons its row, in place and out of place;
//  - max pooling backward of float NHWC data with channels in 16s.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/activation_desc.hpp"
#include "common/activation_reference.hpp"
#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/pooling_reference.hpp"
#include "common/random_layout.hpp"
#include "common/softmax_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

// Random values in [-12, 12] with special values at random places.
void fill_with_specials(Rng &rng, HostTensor &t, bool finite_only) {
  fill_random(t, rng, -12, 12);
  std::vector<double> v = t.values();
  const std::vector<double> special = finite_only ? std::vector<double>{0.0, -0.0, 1e-30, -1e-30, 80.0, -80.0, 0.3}
                                                  : std::vector<double>{std::nan(""), 0.0, -0.0, 1e-30, -1e-30,
                                                                        200.0, -200.0, 1e30, -1e30};
  for (double &e : v)
    if (rng.coin(0.1)) e = special[rng.integer(0, special.size() - 1)];
  t.set_values(v);
}

// IDENTITY is only for cudnnConvolutionBiasActivationForward.
const std::vector<cudnnActivationMode_t> kModes = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU,
                                                   CUDNN_ACTIVATION_TANH,    CUDNN_ACTIVATION_CLIPPED_RELU,
                                                   CUDNN_ACTIVATION_ELU,     CUDNN_ACTIVATION_SWISH};

}  // namespace

TEST(CpuNnVectorPaths, ActivationForwardEdgeLengthsAndSpecialValues) {
  Rng rng(test_seed(911));
  EngineHandles hs;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE})
    for (cudnnActivationMode_t mode : kModes)
      for (int64_t n : {1, 7, 8, 15, 16, 17, 31, 33, 511, 513, 1031}) {
        const bool strided = rng.coin(0.3);
        const std::vector<int64_t> dims = {1, 1, 1, n};
        HostTensor x = strided ? random_layout(rng, t, {1, 1, 2, n}) : make_tensor(t, dims, packed_strides(dims, Layout::nchw));
        fill_with_specials(rng, x, false);
        ActivationSpec s;
        s.mode = mode;
        s.propagate_nan = rng.coin();
        s.coef = mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 2.5 : (mode == CUDNN_ACTIVATION_ELU ? 0.7 : 0.0);
        s.swish_beta = 1.3;
        const double beta = rng.coin() ? 0.0 : 0.5;
        HostTensor y0 = x;
        fill_random(y0, rng, -1, 1);
        const std::vector<Expect> want = reference_activation_forward(s, 1, x, beta, y0);
        ActDesc ad(s);
        TensorDesc xd(x);
        Buffer xb = upload(x);
        const Scaling one(1), b(beta);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          HostTensor y = y0;
          if (beta == 0) poison(y);
          Buffer yb = upload(y);
          ASSERT_EQ(cudnnActivationForward(hs.all[k], ad, one.for_type(t), xd, xb.get(), b.for_type(t), xd, yb.get()),
                    CUDNN_STATUS_SUCCESS)
              << describe(x) << " " << last_error();
          download(yb, y);
          EXPECT_TRUE(matches(y, want)) << "mode " << mode << " n " << n << " " << describe(x) << " propagate "
                                        << s.propagate_nan << " beta " << beta << " on " << engine_name(k);
        }
      }
}

TEST(CpuNnVectorPaths, ActivationBackwardEdgeLengths) {
  Rng rng(test_seed(912));
  EngineHandles hs;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE})
    for (cudnnActivationMode_t mode : kModes) {
      for (int64_t n : {1, 9, 16, 17, 33, 515}) {
        const std::vector<int64_t> dims = {1, 1, 1, n};
        HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
        fill_with_specials(rng, x, true);
        ActivationSpec s;
        s.mode = mode;
        s.coef = mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 2.5 : (mode == CUDNN_ACTIVATION_ELU ? 0.7 : 0.0);
        s.swish_beta = 0.8;
        // y = f(x) as the forward stores it; dy random.
        HostTensor y = x, dy = x;
        {
          std::vector<double> yv;
          for (const Expect &e : reference_activation_forward(s, 1, x, 0, x)) yv.push_back(e.value);
          y.set_values(yv);
        }
        fill_random(dy, rng, -2, 2);
        const std::vector<Expect> want = reference_activation_backward(s, 1, y, dy, x, 0, x);
        ActDesc ad(s);
        TensorDesc d(x);
        Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
        const Scaling one(1), zero(0);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          HostTensor dx = x;
          poison(dx);
          Buffer dxb = upload(dx);
          ASSERT_EQ(cudnnActivationBackward(hs.all[k], ad, one.for_type(t), d, yb.get(), d, dyb.get(), d, xb.get(),
                                            zero.for_type(t), d, dxb.get()),
                    CUDNN_STATUS_SUCCESS);
          download(dxb, dx);
          EXPECT_TRUE(matches(dx, want)) << "mode " << mode << " n " << n << " on " << engine_name(k);
        }
      }
    }
}

// Rows of 5000 (three online chunks): row 0 random, row 1 a ramp around
// 1e4 whose maximum is in the last chunk, row 2 with its first 2100
// elements -1e30 (a first chunk whose shift is far below the final one).
TEST(CpuNnVectorPaths, SoftmaxRowsLongerThanAChunk) {
  Rng rng(test_seed(913));
  EngineHandles hs;
  const int64_t C = 5000;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE})
    for (int algo = 0; algo <= 2; ++algo) {
      const std::vector<int64_t> dims = {3, C, 1, 1};
      HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
      fill_random(x, rng, -6, 6);
      for (int64_t c = 0; c < C; ++c) {
        const double base = algo == CUDNN_SOFTMAX_FAST ? 0.0 : 1e4;  // FAST has no shift: it would overflow
        x.set({1, c, 0, 0}, base + 0.004 * static_cast<double>(c) + rng.uniform(-0.5, 0.5));
        if (c < 2100) x.set({2, c, 0, 0}, -1e30);  // exp underflows to 0 after the rescale
      }
      for (bool in_place : {false, true})
        for (double beta : {0.0, 0.5}) {
          if (in_place && beta != 0) continue;
          HostTensor y0 = x;
          if (!in_place) fill_random(y0, rng, -1, 1);
          const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(algo);
          const Scaling alpha(1.5), b(beta);
          const std::vector<Expect> want =
              reference_softmax_forward(A, CUDNN_SOFTMAX_MODE_CHANNEL, alpha.value(t), x, b.value(t), y0);
          TensorDesc d(x);
          for (size_t k = 0; k < hs.all.size(); ++k) {
            Buffer xb = upload(x);
            HostTensor y = y0;
            if (beta == 0 && !in_place) poison(y);
            Buffer yb = upload(y);
            void *out = in_place ? xb.get() : yb.get();
            ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, alpha.for_type(t), d, xb.get(),
                                          b.for_type(t), d, out),
                      CUDNN_STATUS_SUCCESS);
            download(in_place ? xb : yb, y);
            EXPECT_TRUE(matches(y, want)) << "algo " << algo << " type " << type_name(t) << " in place " << in_place
                                          << " beta " << beta << " on " << engine_name(k);
          }
        }
    }
}

// An ACCURATE float backward whose dx (2100 rows of 1001: 8.4 MB) is large
// enough for the streaming stores of cpu.softmax: rows starting at every
// alignment (head and tail lanes written with ordinary stores), beta = 0
// on a NaN-poisoned dx, and in place (dx over dy) too.
TEST(CpuNnVectorPaths, SoftmaxBackwardStreamedRows) {
  Rng rng(test_seed(915));
  EngineHandles hs;
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  const std::vector<int64_t> dims = {2100, 1001, 1, 1};
  HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
  fill_random(x, rng, -4, 4);
  const Scaling alpha(0.75), zero(0.0);
  HostTensor y = x;
  std::vector<double> probs;
  for (const Expect &e : reference_softmax_forward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 1.0, x, 0.0, x))
    probs.push_back(e.value);
  y.set_values(probs);
  HostTensor dy = make_tensor(t, dims, x.strides);
  fill_random(dy, rng, -1, 1);
  const std::vector<Expect> want = reference_softmax_backward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                                                              alpha.value(t), y, dy, 0.0, dy);
  TensorDesc d(x);
  for (bool in_place : {false, true})
    for (size_t k = 0; k < hs.all.size(); ++k) {
      Buffer yb = upload(y), dyb = upload(dy);
      HostTensor dx = dy;
      poison(dx);
      Buffer dxb = upload(dx);
      void *out = in_place ? dyb.get() : dxb.get();
      ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                                     alpha.for_type(t), d, yb.get(), d, dyb.get(), zero.for_type(t), d, out),
                CUDNN_STATUS_SUCCESS);
      download(in_place ? dyb : dxb, dx);
      EXPECT_TRUE(matches(dx, want)) << "in place " << in_place << " on " << engine_name(k);
    }
}

// A NaN anywhere in a long row makes its whole row NaN; other rows are
// unaffected.
TEST(CpuNnVectorPaths, SoftmaxNanPoisonsItsRow) {
  Rng rng(test_seed(914));
  EngineHandles hs;
  const int64_t C = 4500;
  const std::vector<int64_t> dims = {2, C, 1, 1};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  fill_random(x, rng, -3, 3);
  x.set({0, 3000, 0, 0}, std::nan(""));
  for (int algo = 0; algo <= 2; ++algo) {
    const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(algo);
    TensorDesc d(x);
    Buffer xb = upload(x);
    const float one = 1, zero = 0;
    for (size_t k = 0; k < hs.all.size(); ++k) {
      HostTensor y = x;
      poison(y);
      Buffer yb = upload(y);
      ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, xb.get(), &zero, d, yb.get()),
                CUDNN_STATUS_SUCCESS);
      download(yb, y);
      int64_t nan0 = 0, nan1 = 0;
      for (int64_t c = 0; c < C; ++c) {
        nan0 += std::isnan(y.get({0, c, 0, 0}));
        nan1 += std::isnan(y.get({1, c, 0, 0}));
      }
      EXPECT_EQ(nan0, C) << "algo " << algo << " on " << engine_name(k);
      EXPECT_EQ(nan1, 0) << "algo " << algo << " on " << engine_name(k);
    }
  }
}

// Max pooling backward of float NHWC data whose channels come in 16s: the
// vector path of cpu.pooling (blocks of up to 64 channels handled 16 at a
// time), 2-d and 3-d, padded windows, both NaN modes, blending.
TEST(CpuNnVectorPaths, MaxPoolingBackwardChannelsInSixteens) {
  Rng rng(test_seed(915));
  EngineHandles hs;
  struct Case {
    std::vector<int64_t> x_dims;  // N, C, spatial...
    std::vector<int> window, padding, stride;
  };
  const std::vector<Case> cases = {{{2, 16, 9, 11}, {3, 3}, {1, 1}, {2, 2}},
                                   {{1, 48, 8, 7}, {2, 2}, {0, 0}, {2, 2}},
                                   {{2, 80, 7, 9}, {3, 2}, {1, 0}, {2, 1}},
                                   {{1, 128, 5, 6}, {3, 3}, {1, 1}, {1, 1}},
                                   {{1, 32, 4, 5, 6}, {2, 3, 3}, {0, 1, 1}, {2, 2, 2}}};
  for (const Case &c : cases)
    for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC})
      for (bool prop : {false, true}) {
        PoolingParams p;
        p.mode = mode;
        p.propagate_nan = prop;
        p.window = c.window;
        p.padding = c.padding;
        p.stride = c.stride;
        const std::vector<int64_t> y_dims = pooling_output_dims(p, c.x_dims);
        const Layout nhwc = Layout::nhwc;
        HostTensor x = make_tensor(CUDNN_DATA_FLOAT, c.x_dims, packed_strides(c.x_dims, nhwc));
        HostTensor y = make_tensor(CUDNN_DATA_FLOAT, y_dims, packed_strides(y_dims, nhwc));
        HostTensor dy = y, dx0 = x;
        fill_random(x, rng, -3, 3);
        fill_random(dy, rng, -2, 2);
        const double beta = rng.coin() ? 0.0 : 0.5, alpha = 1.25;
        if (beta != 0) fill_random(dx0, rng, -1, 1);
        else poison(dx0);
        {
          std::vector<double> v;
          for (const Expect &e : reference_pooling_forward(p, x, 1.0, 0.0, y, CUDNN_DATA_FLOAT)) v.push_back(e.value);
          y.set_values(v);
        }
        const std::vector<Expect> want = reference_pooling_backward(p, x, dy, alpha, beta, dx0, CUDNN_DATA_FLOAT);
        cudnnPoolingDescriptor_t pd;
        ASSERT_EQ(cudnnCreatePoolingDescriptor(&pd), CUDNN_STATUS_SUCCESS);
        const int nd = static_cast<int>(c.window.size());
        ASSERT_EQ(cudnnSetPoolingNdDescriptor(pd, mode, prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, nd,
                                              c.window.data(), c.padding.data(), c.stride.data()),
                  CUDNN_STATUS_SUCCESS);
        TensorDesc xd(x), yd(y);
        const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), dxb = upload(dx0);
          ASSERT_EQ(cudnnPoolingBackward(hs.all[k], pd, &a, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &b, xd,
                                         dxb.get()),
                    CUDNN_STATUS_SUCCESS)
              << last_error();
          HostTensor dx = dx0;
          download(dxb, dx);
          EXPECT_TRUE(matches(dx, want)) << describe(x) << " mode " << mode << " prop " << prop << " on "
                                         << engine_name(k);
        }
        cudnnDestroyPoolingDescriptor(pd);
      }
}
