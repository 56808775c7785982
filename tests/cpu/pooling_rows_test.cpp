// The channels-innermost (NHWC) float paths of the fast CPU pooling engine,
// through the public API against the float64 references of tests/common:
//  - max backward gathered per dx row (src/cpu/pooling_max_backward_rows.hpp):
//    channel counts in 16s below, at and past the 64-channel blocks (a
//    partial last block), windows 2x2/2, 3x3/2, 3x3/1, 5x5/3, windows larger
//    than the input and strides larger than the window (dx pixels no window
//    covers), paddings, padded pixels (unaligned vectors), x from a few
//    values (ties: the first maximum in row-major order takes dy), NaNs in
//    x with both NaN rules, blending with beta != 0 and NaN-poisoned dx with
//    beta = 0, and one dx of 8 MiB written with beta = 0 (non-temporal
//    stores);
//  - forward with a y of 8 MiB and more written with beta = 0 (the
//    non-temporal stores of the lane path), and with padded pixels, a
//    partial last channel block, 2-d and 3-d, every mode, NaNs and blending.
// On a GPU handle the same cases run through the CUDA engine.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/pooling_desc.hpp"
#include "common/pooling_reference.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

// NHWC strides with `pad` spare elements after each pixel's channels.
std::vector<int64_t> nhwc_padded(const std::vector<int64_t> &d, int64_t pad) {
  const int64_t pixel = d[1] + pad;
  return {pixel * d[2] * d[3], 1, pixel * d[3], pixel};
}

// x from `levels` values (ties in most windows), a fraction `nan_rate` NaN.
void fill_levels(HostTensor &t, Rng &rng, int levels, double nan_rate) {
  std::vector<double> v(static_cast<size_t>(t.elements()));
  for (double &e : v) e = rng.coin(nan_rate) ? std::nan("") : static_cast<double>(rng.integer(0, levels - 1)) - 1.0;
  t.set_values(v);
}

struct BwdCase {
  std::vector<int64_t> dims;  // N, C, H, W
  int win_h, win_w, str_h, str_w, pad_h, pad_w;
  int64_t pixel_pad;  // spare elements after each pixel's channels
  int levels;         // 0: random floats
  double nan_rate;
  bool prop;
  double alpha, beta;
};

void check_max_backward(EngineHandles &hs, Rng &rng, const BwdCase &c, const std::string &what) {
  const cudnnDataType_t dt = CUDNN_DATA_FLOAT;
  PoolingParams p;
  p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
  p.propagate_nan = c.prop;
  p.window = {c.win_h, c.win_w};
  p.padding = {c.pad_h, c.pad_w};
  p.stride = {c.str_h, c.str_w};
  const std::vector<int64_t> ydims = pooling_output_dims(p, c.dims);
  HostTensor x = make_tensor(dt, c.dims, nhwc_padded(c.dims, c.pixel_pad));
  if (c.levels > 0) fill_levels(x, rng, c.levels, c.nan_rate);
  else fill_random(x, rng, -3, 3);
  HostTensor y = make_tensor(dt, ydims, packed_strides(ydims, Layout::nhwc));
  {
    const std::vector<Expect> fy = reference_pooling_forward(p, x, 1.0, 0.0, y, CUDNN_DATA_FLOAT);
    std::vector<double> v;
    for (const Expect &e : fy) v.push_back(e.value);
    y.set_values(v);
  }
  HostTensor dy = make_tensor(dt, ydims, nhwc_padded(ydims, c.pixel_pad));
  fill_random(dy, rng, -2, 2);
  HostTensor dx0 = make_tensor(dt, c.dims, nhwc_padded(c.dims, c.pixel_pad));
  if (c.beta != 0) fill_random(dx0, rng, -2, 2);
  else poison(dx0);
  const std::vector<Expect> want = reference_pooling_backward(p, x, dy, c.alpha, c.beta, dx0, CUDNN_DATA_FLOAT);
  for (size_t e = 0; e < hs.all.size(); ++e) {
    HostTensor dx;
    ASSERT_EQ(pooling_backward(hs.all[e], p, c.alpha, y, dy, x, c.beta, dx0, &dx), CUDNN_STATUS_SUCCESS)
        << last_error();
    EXPECT_TRUE(matches(dx, want)) << what << " on " << engine_name(e) << " C " << c.dims[1] << " " << c.dims[2]
                                   << "x" << c.dims[3] << " window " << c.win_h << "x" << c.win_w << " stride "
                                   << c.str_h << "," << c.str_w << " pad " << c.pad_h << "," << c.pad_w << " prop "
                                   << c.prop << " beta " << c.beta;
    EXPECT_TRUE(gaps_untouched(dx, dx0)) << what;
  }
}

}  // namespace

TEST(CpuPoolingNhwcRows, MaxBackwardGatheredRows) {
  if (gpu_mode()) GTEST_SKIP() << "a test of the CPU engine's own paths";
  EngineHandles hs;
  Rng rng(test_seed(971));
  const std::vector<BwdCase> cases = {
      // dims, window, stride, pad, pixel pad, levels, NaN rate, prop, alpha, beta
      {{2, 64, 13, 17}, 3, 3, 2, 2, 1, 1, 0, 0, 0, false, 1, 0},      // the ResNet stem pooling
      {{1, 16, 12, 16}, 2, 2, 2, 2, 0, 0, 0, 0, 0, false, 1.5, 0.25},  // 2x2/2, blended
      {{2, 80, 9, 11}, 3, 3, 2, 2, 1, 1, 0, 3, 0, false, 1, 0},       // a partial last block, ties
      {{1, 128, 7, 9}, 3, 3, 1, 1, 1, 1, 16, 2, 0, false, 1, 0},      // stride 1, padded pixels, ties
      {{1, 48, 10, 12}, 5, 5, 3, 3, 2, 2, 0, 0, 0, false, 1, -0.5},   // 5x5/3
      {{2, 32, 8, 9}, 3, 2, 2, 3, 1, 0, 0, 4, 0.05, true, 1, 0},     // NaNs propagated, uncovered columns
      {{2, 32, 8, 9}, 3, 3, 2, 2, 1, 1, 0, 4, 0.05, false, 1, 0.5},  // NaNs skipped
      {{1, 16, 3, 4}, 5, 6, 2, 2, 2, 2, 0, 0, 0, false, 1, 0},        // windows larger than the input
      {{1, 64, 9, 10}, 1, 1, 3, 3, 0, 0, 0, 0, 0, false, 2, 0},       // strides past the window: zeros
      {{1, 32, 11, 7}, 2, 3, 1, 2, 1, 2, 8, 2, 0, true, 1, 1},        // rectangular, mixed strides and pads
      {{1, 64, 128, 256}, 3, 3, 2, 2, 1, 1, 0, 0, 0, false, 1, 0},    // dx of 8 MiB: non-temporal stores
  };
  for (size_t i = 0; i < cases.size(); ++i) check_max_backward(hs, rng, cases[i], "case " + std::to_string(i));
}

// Forward with y large enough (8 MiB, beta = 0) for the non-temporal stores
// (blending and smaller outputs: pool_softmax_paths_test.cpp).
TEST(CpuPoolingNhwcRows, ForwardLargeOutputs) {
  if (gpu_mode()) GTEST_SKIP() << "a test of the CPU engine's own paths";
  EngineHandles hs;
  Rng rng(test_seed(972));
  const cudnnDataType_t dt = CUDNN_DATA_FLOAT;
  const std::vector<int64_t> xdims = {1, 32, 257, 257};
  HostTensor x = make_tensor(dt, xdims, packed_strides(xdims, Layout::nhwc));
  fill_random(x, rng, -3, 3);
  int k = 1;
  for (cudnnPoolingMode_t mode : {CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
    PoolingParams p;
    p.mode = mode;
    p.window = {2, 2};
    p.padding = {k, k};
    p.stride = {1, 1};  // y of 256 x 256 (258 x 258) pixels of 32 channels: 8 MiB
    const std::vector<int64_t> ydims = pooling_output_dims(p, xdims);
    const double beta = 0.0;
    ++k;
    HostTensor y0 = make_tensor(dt, ydims, packed_strides(ydims, Layout::nhwc));
    if (beta != 0) fill_random(y0, rng, -1, 1);
    else poison(y0);
    const std::vector<Expect> want = reference_pooling_forward(p, x, 1.0, beta, y0, CUDNN_DATA_FLOAT);
    for (size_t e = 0; e < hs.all.size(); ++e) {
      HostTensor y;
      ASSERT_EQ(pooling_forward(hs.all[e], p, 1.0, x, beta, y0, &y), CUDNN_STATUS_SUCCESS) << last_error();
      EXPECT_TRUE(matches(y, want)) << "mode " << mode << " beta " << beta << " on " << engine_name(e);
    }
  }
}

// Forward with padded pixels (vectors not 64-byte aligned), a partial last
// block of channels (80 = 64 + 16), 2-d and 3-d, every mode, NaNs in x for
// max, blending (beta != 0) and NaN-poisoned y (beta = 0).
TEST(CpuPoolingNhwcRows, ForwardPaddedPixelsAndPartialBlocks) {
  if (gpu_mode()) GTEST_SKIP() << "a test of the CPU engine's own paths";
  EngineHandles hs;
  Rng rng(test_seed(973));
  const cudnnDataType_t dt = CUDNN_DATA_FLOAT;
  struct FwdCase {
    std::vector<int64_t> dims;
    std::vector<int> window, padding, stride;
    int64_t pixel_pad;
  };
  const std::vector<FwdCase> cases = {{{2, 80, 9, 11}, {3, 3}, {1, 1}, {2, 2}, 16},
                                      {{1, 48, 7, 6}, {2, 3}, {0, 1}, {1, 2}, 3},
                                      {{1, 32, 3, 5, 7}, {2, 3, 3}, {1, 1, 1}, {1, 2, 2}, 0}};
  int k = 0;
  for (const FwdCase &c : cases)
    for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING})
      for (bool prop : {false, true}) {
        if (mode != CUDNN_POOLING_MAX && prop) continue;
        PoolingParams p;
        p.mode = mode;
        p.propagate_nan = prop;
        p.window = c.window;
        p.padding = c.padding;
        p.stride = c.stride;
        std::vector<int64_t> xs;
        if (c.dims.size() == 4) {
          xs = nhwc_padded(c.dims, c.pixel_pad);
        } else {
          xs = packed_strides(c.dims, Layout::nhwc);
        }
        HostTensor x = make_tensor(dt, c.dims, xs);
        if (mode == CUDNN_POOLING_MAX) fill_levels(x, rng, 50, 0.03);
        else fill_random(x, rng, -3, 3);
        const std::vector<int64_t> ydims = pooling_output_dims(p, c.dims);
        HostTensor y0 = make_tensor(
            dt, ydims, ydims.size() == 4 ? nhwc_padded(ydims, c.pixel_pad) : packed_strides(ydims, Layout::nhwc));
        const double alpha = (k % 3 == 1) ? -0.5 : 1.0, beta = (k % 2 == 1) ? 0.75 : 0.0;
        ++k;
        if (beta != 0) fill_random(y0, rng, -1, 1);
        else poison(y0);
        const std::vector<Expect> want = reference_pooling_forward(p, x, alpha, beta, y0, CUDNN_DATA_FLOAT);
        for (size_t e = 0; e < hs.all.size(); ++e) {
          HostTensor y;
          ASSERT_EQ(pooling_forward(hs.all[e], p, alpha, x, beta, y0, &y), CUDNN_STATUS_SUCCESS) << last_error();
          EXPECT_TRUE(matches(y, want)) << "case " << k << " mode " << mode << " prop " << prop << " beta " << beta
                                        << " on " << engine_name(e);
          EXPECT_TRUE(gaps_untouched(y, y0));
        }
      }
}
