// The line and lane paths of the fast CPU pooling engine and the vector row
// kernels of the fast CPU softmax engine, through the public API against the
// float64 references of tests/common:
//  - pooling forward with columns contiguous in x (NCHW): the window's rows
//    folded into a padded line, then its columns (stride 1, stride 2 split
//    into even and odd positions, other strides), every mode, both NaN
//    modes, windows reaching past the input, y with other strides,
//    blending, 2-d and 3-d, float / half / double;
//  - average pooling backward with columns contiguous in dx (the gather
//    form), dy with other strides, a large float dx (streaming stores);
//  - float max pooling forward, NCHW, window width 2 or 3 at column stride
//    2 (the AVX-512 row kernel), widths around its 16- and 32-lane steps;
//  - pooling forward of float NHWC data with channels in 16s (accumulators
//    in registers), with NaNs in x;
//  - softmax forward and backward on float and double rows of every length
//    around the vector widths (8 and 16 lanes: bodies, four-vector unrolls
//    and the masked last vector), with tiny and large values.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/pooling_desc.hpp"
#include "common/pooling_reference.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/softmax_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

struct PoolCase {
  std::vector<int64_t> x_dims;  // N, C, spatial...
  std::vector<int> window, padding, stride;
};

const std::vector<PoolCase> &line_cases() {
  static const std::vector<PoolCase> cases = {
      {{2, 3, 13, 17}, {3, 3}, {1, 1}, {2, 2}},  // the ResNet stem's pooling, odd widths
      {{1, 2, 12, 16}, {2, 2}, {0, 0}, {2, 2}},
      {{1, 2, 9, 10}, {4, 5}, {1, 2}, {2, 2}},  // even and odd window columns
      {{2, 2, 7, 9}, {3, 3}, {1, 1}, {1, 1}},
      {{1, 3, 8, 11}, {2, 4}, {1, 2}, {3, 3}},
      {{1, 2, 5, 40}, {1, 3}, {0, 1}, {1, 2}},
      {{1, 1, 3, 4}, {5, 5}, {2, 2}, {2, 2}},  // windows larger than the input
      {{1, 2, 4, 6, 9}, {2, 3, 3}, {0, 1, 1}, {2, 2, 2}},
  };
  return cases;
}

PoolingParams params_of(const PoolCase &c, cudnnPoolingMode_t mode, bool prop) {
  PoolingParams p;
  p.mode = mode;
  p.propagate_nan = prop;
  p.window = c.window;
  p.padding = c.padding;
  p.stride = c.stride;
  return p;
}

void sprinkle_nans(Rng &rng, HostTensor &t, double rate) {
  std::vector<double> v = t.values();
  for (double &e : v)
    if (rng.coin(rate)) e = std::nan("");
  t.set_values(v);
}

void check_forward(EngineHandles &hs, Rng &rng, const PoolingParams &p, HostTensor x, Layout y_layout,
                   const std::string &what) {
  const std::vector<int64_t> y_dims = pooling_output_dims(p, x.dims);
  HostTensor y0 = make_tensor(x.dtype, y_dims, packed_strides(y_dims, y_layout));
  const double alpha = rng.coin() ? 1.0 : 0.75, beta = rng.coin() ? 0.0 : -0.5;
  if (beta != 0) fill_random(y0, rng, -1, 1);
  else poison(y0);
  const cudnnDataType_t compute = x.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const std::vector<Expect> want = reference_pooling_forward(p, x, alpha, beta, y0, compute);
  PoolDesc pd(p);
  TensorDesc xd(x), yd(y0);
  const Scaling a(alpha), b(beta);
  for (size_t k = 0; k < hs.all.size(); ++k) {
    Buffer xb = upload(x), yb = upload(y0);
    ASSERT_EQ(cudnnPoolingForward(hs.all[k], pd, a.for_type(x.dtype), xd, xb.get(), b.for_type(x.dtype), yd,
                                  yb.get()),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    HostTensor y = y0;
    download(yb, y);
    EXPECT_TRUE(matches(y, want)) << what << " " << describe(x) << " mode " << p.mode << " prop " << p.propagate_nan
                                  << " alpha " << alpha << " beta " << beta << " on " << engine_name(k);
  }
}

}  // namespace

TEST(CpuPoolingLinePaths, ForwardNchwEveryModeStrideAndType) {
  Rng rng(test_seed(931));
  EngineHandles hs;
  for (const PoolCase &c : line_cases())
    for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING})
      for (bool prop : {false, true}) {
        if (mode != CUDNN_POOLING_MAX && prop) continue;
        const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE};
        const cudnnDataType_t t = types[rng.integer(0, 2)];
        const PoolingParams p = params_of(c, mode, prop);
        HostTensor x = make_tensor(t, c.x_dims, packed_strides(c.x_dims, Layout::nchw));
        fill_random(x, rng, -3, 3);
        if (mode == CUDNN_POOLING_MAX) sprinkle_nans(rng, x, 0.03);
        // y in NCHW, or NHWC (its columns strided: the strided store).
        check_forward(hs, rng, p, x, rng.coin() ? Layout::nchw : Layout::nhwc, "nchw x");
      }
}

TEST(CpuPoolingLinePaths, ForwardNhwcFloatChannelsInSixteens) {
  Rng rng(test_seed(932));
  EngineHandles hs;
  const std::vector<PoolCase> cases = {{{2, 16, 9, 11}, {3, 3}, {1, 1}, {2, 2}},
                                       {{1, 64, 8, 7}, {2, 2}, {0, 0}, {2, 2}},
                                       {{1, 96, 7, 9}, {3, 2}, {1, 0}, {2, 1}},
                                       {{1, 32, 4, 5, 6}, {2, 3, 3}, {0, 1, 1}, {2, 2, 2}}};
  for (const PoolCase &c : cases)
    for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING})
      for (bool prop : {false, true}) {
        if (mode != CUDNN_POOLING_MAX && prop) continue;
        const PoolingParams p = params_of(c, mode, prop);
        HostTensor x = make_tensor(CUDNN_DATA_FLOAT, c.x_dims, packed_strides(c.x_dims, Layout::nhwc));
        fill_random(x, rng, -3, 3);
        if (mode == CUDNN_POOLING_MAX) sprinkle_nans(rng, x, 0.03);
        check_forward(hs, rng, p, x, Layout::nhwc, "nhwc x");
      }
}

TEST(CpuPoolingLinePaths, AverageBackwardNchw) {
  Rng rng(test_seed(933));
  EngineHandles hs;
  for (const PoolCase &c : line_cases())
    for (cudnnPoolingMode_t mode :
         {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
      const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE};
      const cudnnDataType_t t = types[rng.integer(0, 2)];
      const PoolingParams p = params_of(c, mode, false);
      const std::vector<int64_t> y_dims = pooling_output_dims(p, c.x_dims);
      HostTensor x = make_tensor(t, c.x_dims, packed_strides(c.x_dims, Layout::nchw));
      HostTensor dy = make_tensor(t, y_dims, packed_strides(y_dims, rng.coin() ? Layout::nchw : Layout::nhwc));
      HostTensor y = make_tensor(t, y_dims, packed_strides(y_dims, Layout::nchw));
      fill_random(x, rng, -3, 3);
      fill_random(dy, rng, -2, 2);
      fill_random(y, rng, -1, 1);  // not read by the average modes
      HostTensor dx0 = x;
      const double alpha = rng.coin() ? 1.0 : 1.25, beta = rng.coin() ? 0.0 : 0.5;
      if (beta != 0) fill_random(dx0, rng, -1, 1);
      else poison(dx0);
      const cudnnDataType_t compute = t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
      const std::vector<Expect> want = reference_pooling_backward(p, x, dy, alpha, beta, dx0, compute);
      PoolDesc pd(p);
      TensorDesc xd(x), yd(y), dyd(dy);
      const Scaling a(alpha), b(beta);
      for (size_t k = 0; k < hs.all.size(); ++k) {
        Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), dxb = upload(dx0);
        ASSERT_EQ(cudnnPoolingBackward(hs.all[k], pd, a.for_type(t), yd, yb.get(), dyd, dyb.get(), xd, xb.get(),
                                       b.for_type(t), xd, dxb.get()),
                  CUDNN_STATUS_SUCCESS)
            << last_error();
        HostTensor dx = dx0;
        download(dxb, dx);
        EXPECT_TRUE(matches(dx, want)) << describe(x) << " dy " << describe(dy) << " mode " << mode << " alpha "
                                       << alpha << " beta " << beta << " on " << engine_name(k);
      }
    }
}

// Float dx of 8 MiB and more: the rows are written with streaming stores.
TEST(CpuPoolingLinePaths, AverageBackwardNchwLargeFloat) {
  Rng rng(test_seed(935));
  EngineHandle h;  // the default engines only: the reference engine would take long here
  const PoolCase c = {{2, 4, 512, 512}, {3, 3}, {1, 1}, {2, 2}};
  const PoolingParams p = params_of(c, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, false);
  const std::vector<int64_t> y_dims = pooling_output_dims(p, c.x_dims);
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, c.x_dims, packed_strides(c.x_dims, Layout::nchw));
  HostTensor dy = make_tensor(CUDNN_DATA_FLOAT, y_dims, packed_strides(y_dims, Layout::nchw));
  fill_random(x, rng, -3, 3);
  fill_random(dy, rng, -2, 2);
  HostTensor dx0 = x;
  poison(dx0);
  const std::vector<Expect> want = reference_pooling_backward(p, x, dy, 1.5, 0.0, dx0, CUDNN_DATA_FLOAT);
  PoolDesc pd(p);
  TensorDesc xd(x), yd(dy);
  const float a = 1.5f, b = 0.0f;
  Buffer xb = upload(x), yb = upload(dy), dyb = upload(dy), dxb = upload(dx0);
  ASSERT_EQ(cudnnPoolingBackward(h, pd, &a, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &b, xd, dxb.get()),
            CUDNN_STATUS_SUCCESS)
      << last_error();
  HostTensor dx = dx0;
  download(dxb, dx);
  EXPECT_TRUE(matches(dx, want)) << describe(x);
}

TEST(CpuSoftmaxVectorRows, EveryLengthAroundTheVectorWidths) {
  Rng rng(test_seed(934));
  EngineHandles hs;
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 72; ++n) lengths.push_back(n);
  for (int64_t n : {127, 128, 129, 1000}) lengths.push_back(n);
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE})
    for (int64_t n : lengths)
      for (int algo = 0; algo <= 2; ++algo) {
        const auto A = static_cast<cudnnSoftmaxAlgorithm_t>(algo);
        const std::vector<int64_t> dims = {3, n, 1, 1};
        HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
        fill_random(x, rng, -8, 8);
        if (algo != CUDNN_SOFTMAX_FAST) {
          x.set({1, n - 1, 0, 0}, 80.0);  // the maximum in the last (partial) vector
          x.set({2, 0, 0, 0}, -1e30);  // its exponential underflows to 0
        }
        const double beta = rng.coin() ? 0.0 : 0.5;
        const Scaling a(1.5), b(beta);
        HostTensor y0 = x, dy = x;
        fill_random(dy, rng, -1, 1);
        if (beta != 0) fill_random(y0, rng, -1, 1);
        const std::vector<Expect> want =
            reference_softmax_forward(A, CUDNN_SOFTMAX_MODE_CHANNEL, a.value(t), x, b.value(t), y0);
        // Backward from the forward's exact result (y of softmax or of log-softmax).
        HostTensor y = x;
        {
          std::vector<double> v;
          for (const Expect &e : reference_softmax_forward(A, CUDNN_SOFTMAX_MODE_CHANNEL, 1.0, x, 0.0, x))
            v.push_back(e.value);
          y.set_values(v);
        }
        const std::vector<Expect> want_dx =
            reference_softmax_backward(A, CUDNN_SOFTMAX_MODE_CHANNEL, a.value(t), y, dy, b.value(t), y0);
        TensorDesc d(x);
        for (size_t k = 0; k < hs.all.size(); ++k) {
          Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
          HostTensor out = y0;
          if (beta == 0) poison(out);
          Buffer ob = upload(out);
          ASSERT_EQ(cudnnSoftmaxForward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, a.for_type(t), d, xb.get(),
                                        b.for_type(t), d, ob.get()),
                    CUDNN_STATUS_SUCCESS);
          download(ob, out);
          EXPECT_TRUE(matches(out, want)) << "forward n " << n << " algo " << algo << " type " << type_name(t)
                                          << " beta " << beta << " on " << engine_name(k);
          HostTensor dx = y0;
          if (beta == 0) poison(dx);
          Buffer dxb = upload(dx);
          ASSERT_EQ(cudnnSoftmaxBackward(hs.all[k], A, CUDNN_SOFTMAX_MODE_CHANNEL, a.for_type(t), d, yb.get(), d,
                                         dyb.get(), b.for_type(t), d, dxb.get()),
                    CUDNN_STATUS_SUCCESS);
          download(dxb, dx);
          EXPECT_TRUE(matches(dx, want_dx)) << "backward n " << n << " algo " << algo << " type " << type_name(t)
                                            << " beta " << beta << " on " << engine_name(k);
        }
      }
}

// Float max pooling forward, NaNs not propagated, column stride 2 and
// window width 2 or 3, NCHW x and y (src/cpu/pooling_max_rows.hpp on an
// AVX-512 CPU: 16 outputs from 32 + 1 columns per step): widths around
// the 16 and 32 lane steps, left padding 0 and 1 (masked loads past either
// edge), vertical windows and strides of every kind, 3-d, NaNs in x,
// blending (check_forward draws alpha and beta).
TEST(CpuPoolingLinePaths, ForwardNchwFloatMaxStride2Rows) {
  Rng rng(test_seed(933));
  EngineHandles hs;
  const std::vector<PoolCase> cases = {
      {{1, 2, 5, 1}, {3, 3}, {1, 1}, {2, 2}},      {{1, 2, 4, 2}, {2, 2}, {0, 0}, {2, 2}},
      {{2, 3, 7, 5}, {3, 3}, {1, 1}, {2, 2}},      {{1, 2, 6, 16}, {2, 3}, {0, 0}, {1, 2}},
      {{1, 2, 9, 31}, {3, 3}, {1, 1}, {2, 2}},     {{1, 1, 8, 32}, {2, 2}, {1, 0}, {2, 2}},
      {{1, 2, 5, 33}, {3, 3}, {0, 1}, {3, 2}},     {{1, 2, 6, 34}, {1, 3}, {0, 0}, {1, 2}},
      {{1, 1, 7, 47}, {4, 3}, {2, 1}, {2, 2}},     {{2, 2, 8, 65}, {3, 2}, {1, 1}, {2, 2}},
      {{1, 2, 12, 112}, {3, 3}, {1, 1}, {2, 2}},   {{1, 2, 4, 6, 33}, {2, 3, 3}, {1, 1, 1}, {2, 2, 2}},
  };
  for (const PoolCase &c : cases) {
    const PoolingParams p = params_of(c, CUDNN_POOLING_MAX, false);
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, c.x_dims, packed_strides(c.x_dims, Layout::nchw));
    fill_random(x, rng, -3, 3);
    sprinkle_nans(rng, x, 0.03);
    check_forward(hs, rng, p, x, Layout::nchw, "nchw float max stride-2 rows");
  }
}
