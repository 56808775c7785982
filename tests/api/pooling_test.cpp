// cudnnPoolingForward / cudnnPoolingBackward through the public API: random
// 2-d and 3-d problems (modes, types, layouts, paddings, strides, windows
// larger than the input, output extents other than the advised ones,
// alpha/beta) against tests/common/pooling_reference, NaN rules, ties,
// finite differences, and bad inputs. On a CPU handle every problem also
// runs on a handle pinned to the reference engines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
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

// Values without ties inside any window: distinct multiples of a step that
// the type represents exactly (a permutation of a range of integers).
void fill_distinct(HostTensor &t, Rng &rng) {
  const int64_t n = t.elements();
  int64_t range = 1000003;
  double scale = 1.0 / 4096;
  if (t.dtype == CUDNN_DATA_HALF) range = 2039, scale = 1.0 / 256;
  if (t.dtype == CUDNN_DATA_BFLOAT16) range = 251, scale = 1.0 / 32;
  if (t.dtype == CUDNN_DATA_INT8) range = 251, scale = 1;
  const int64_t a = 1 + rng.integer(0, range - 2), b = rng.integer(0, range - 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>((i * a + b) % range - range / 2) * scale;
  t.set_values(v);
}

using Filler = std::function<void(HostTensor &, Rng &)>;

// Values from -2 .. 1 with NaNs at `nan_rate`: ties in most windows (the
// first maximum in row-major order takes dy) and both NaN rules at work.
Filler ties_with_nans(double nan_rate) {
  return [nan_rate](HostTensor &t, Rng &r) {
    std::vector<double> v(static_cast<size_t>(t.elements()));
    for (double &e : v) e = r.coin(nan_rate) ? NAN : static_cast<double>(r.integer(-2, 1));
    t.set_values(v);
  };
}

cudnnPoolingMode_t random_mode(Rng &rng) {
  static const std::vector<cudnnPoolingMode_t> modes = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                                        CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                                        CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
  return rng.pick(modes);
}

// A random problem: x dims, params, y dims (usually the advised ones).
struct Problem {
  PoolingParams p;
  std::vector<int64_t> x_dims, y_dims;
};

Problem random_problem(Rng &rng, int spatial) {
  Problem pr;
  pr.p.mode = random_mode(rng);
  pr.p.propagate_nan = rng.coin();
  pr.x_dims = {rng.integer(1, 3), rng.integer(1, 6)};
  for (int d = 0; d < spatial; ++d) {
    const int64_t n = rng.integer(1, spatial == 2 ? 12 : 6);
    pr.x_dims.push_back(n);
    int w = static_cast<int>(rng.integer(1, 4));
    if (rng.coin(0.15)) w = static_cast<int>(n + rng.integer(0, 2));  // a window larger than the input
    int pad = static_cast<int>(rng.integer(0, w - 1));
    while (n + 2 * pad < w) ++pad;
    pr.p.window.push_back(w);
    pr.p.padding.push_back(pad);
    pr.p.stride.push_back(static_cast<int>(rng.integer(1, 3)));
  }
  pr.y_dims = pooling_output_dims(pr.p, pr.x_dims);
  if (rng.coin(0.2))  // cuDNN takes any output extent
    for (int d = 0; d < spatial; ++d) pr.y_dims[2 + d] = std::max<int64_t>(1, pr.y_dims[2 + d] + rng.integer(-1, 1));
  return pr;
}

cudnnDataType_t compute_of(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

void run_forward_case(const EngineHandles &hs, Rng &rng, cudnnDataType_t dt, int spatial, int iter) {
  const Problem pr = random_problem(rng, spatial);
  HostTensor x = random_layout(rng, dt, pr.x_dims);
  fill_distinct(x, rng);
  HostTensor y0 = random_layout(rng, dt, pr.y_dims);
  const bool blend = rng.coin(0.4);
  const double alpha = rng.coin(0.5) ? 1.0 : 0.75, beta = blend ? -0.5 : 0.0;
  if (blend) fill_random(y0, rng, -2, 2);
  else poison(y0);
  const std::vector<Expect> want = reference_pooling_forward(pr.p, x, alpha, beta, y0, compute_of(dt));
  for (size_t e = 0; e < hs.all.size(); ++e) {
    HostTensor y;
    ASSERT_EQ(pooling_forward(hs.all[e], pr.p, alpha, x, beta, y0, &y), CUDNN_STATUS_SUCCESS) << last_error();
    EXPECT_TRUE(matches(y, want)) << "iter " << iter << " engine " << e << " type " << type_name(dt) << " mode "
                                  << pr.p.mode << " spatial " << spatial;
    EXPECT_TRUE(gaps_untouched(y, y0));
  }
}

void run_backward_case(const EngineHandles &hs, Rng &rng, cudnnDataType_t dt, int spatial, int iter) {
  const Problem pr = random_problem(rng, spatial);
  HostTensor x = random_layout(rng, dt, pr.x_dims);
  fill_distinct(x, rng);
  HostTensor y = random_layout(rng, dt, pr.y_dims);
  fill_random(y, rng, -1, 1);  // not read by our engines; cuDNN's contents would be pool(x)
  HostTensor dy = random_layout(rng, dt, pr.y_dims);
  fill_random(dy, rng, -2, 2);
  HostTensor dx0 = random_layout(rng, dt, pr.x_dims);
  const bool blend = rng.coin(0.4);
  const double alpha = rng.coin(0.5) ? 1.0 : 1.5, beta = blend ? 0.25 : 0.0;
  if (blend) fill_random(dx0, rng, -2, 2);
  else poison(dx0);
  // cuDNN's max backward reads y: give it the true forward result.
  {
    const std::vector<Expect> fy = reference_pooling_forward(pr.p, x, 1.0, 0.0, y, compute_of(dt));
    std::vector<double> v;
    for (const Expect &e : fy) v.push_back(e.value);
    y.set_values(v);
  }
  const std::vector<Expect> want = reference_pooling_backward(pr.p, x, dy, alpha, beta, dx0, compute_of(dt));
  for (size_t e = 0; e < hs.all.size(); ++e) {
    HostTensor dx;
    ASSERT_EQ(pooling_backward(hs.all[e], pr.p, alpha, y, dy, x, beta, dx0, &dx), CUDNN_STATUS_SUCCESS)
        << last_error();
    EXPECT_TRUE(matches(dx, want)) << "iter " << iter << " engine " << e << " type " << type_name(dt) << " mode "
                                   << pr.p.mode << " spatial " << spatial;
    EXPECT_TRUE(gaps_untouched(dx, dx0));
  }
}

TEST(PoolingForward, RandomModesTypesLayoutsAndBlending) {
  EngineHandles hs;
  Rng rng(test_seed(301));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                   CUDNN_DATA_INT8};
  int iter = 0;
  for (cudnnDataType_t dt : types)
    for (int spatial : {2, 3})
      for (int k = 0; k < 12; ++k) run_forward_case(hs, rng, dt, spatial, iter++);
}

TEST(PoolingBackward, RandomModesTypesLayoutsAndBlending) {
  EngineHandles hs;
  Rng rng(test_seed(302));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  int iter = 0;
  for (cudnnDataType_t dt : types)
    for (int spatial : {2, 3})
      for (int k = 0; k < 12; ++k) run_backward_case(hs, rng, dt, spatial, iter++);
}

// A few larger problems for the fast engines' vectorised and threaded paths.
TEST(PoolingForward, LargerNchwAndNhwcProblems) {
  EngineHandles hs;
  Rng rng(test_seed(303));
  for (int k = 0; k < 4; ++k) {
    PoolingParams p;
    p.mode = k % 2 ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    p.window = {3, 3};
    p.padding = {1, 1};
    p.stride = {2, 2};
    const std::vector<int64_t> xdims = {2, 24, 29, 31};
    const cudnnDataType_t dt = k < 2 ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    HostTensor x = make_tensor(dt, xdims, packed_strides(xdims, k % 2 ? Layout::nhwc : Layout::nchw));
    fill_random(x, rng, -3, 3);
    const std::vector<int64_t> ydims = pooling_output_dims(p, xdims);
    HostTensor y0 = make_tensor(dt, ydims, packed_strides(ydims, k % 2 ? Layout::nhwc : Layout::nchw));
    poison(y0);
    const auto want = reference_pooling_forward(p, x, 1.0, 0.0, y0, CUDNN_DATA_FLOAT);
    for (size_t e = 0; e < hs.all.size(); ++e) {
      HostTensor y;
      ASSERT_EQ(pooling_forward(hs.all[e], p, 1.0, x, 0.0, y0, &y), CUDNN_STATUS_SUCCESS);
      EXPECT_TRUE(matches(y, want)) << k;
    }
  }
}

// One backward case on every engine: x (distinct values) and y from the
// reference forward, dy random, dx poisoned or blended (at random, or as
// `blend_as` says: 0 poisoned, 1 blended); `strides` gives x's, dy's and dx's
// strides (y is packed in `y_layout`).
void check_backward_case(EngineHandles &hs, Rng &rng, cudnnDataType_t dt, const PoolingParams &p,
                         const std::vector<int64_t> &xdims, Layout y_layout,
                         const std::function<std::vector<int64_t>(const std::vector<int64_t> &)> &strides,
                         const std::string &what,
                         const Filler &fill = fill_distinct, int blend_as = -1) {
  const std::vector<int64_t> ydims = pooling_output_dims(p, xdims);
  HostTensor x = make_tensor(dt, xdims, strides(xdims));
  fill(x, rng);
  HostTensor y = make_tensor(dt, ydims, packed_strides(ydims, y_layout));
  {
    const std::vector<Expect> fy = reference_pooling_forward(p, x, 1.0, 0.0, y, compute_of(dt));
    std::vector<double> v;
    for (const Expect &e : fy) v.push_back(e.value);
    y.set_values(v);
  }
  HostTensor dy = make_tensor(dt, ydims, strides(ydims));
  fill_random(dy, rng, -2, 2);
  HostTensor dx0 = make_tensor(dt, xdims, strides(xdims));
  const bool blend = blend_as < 0 ? rng.coin(0.4) : blend_as == 1;
  const double alpha = rng.coin(0.5) ? 1.0 : 1.5, beta = blend ? 0.25 : 0.0;
  if (blend) fill_random(dx0, rng, -2, 2);
  else poison(dx0);
  const std::vector<Expect> want = reference_pooling_backward(p, x, dy, alpha, beta, dx0, compute_of(dt));
  for (size_t e = 0; e < hs.all.size(); ++e) {
    HostTensor dx;
    ASSERT_EQ(pooling_backward(hs.all[e], p, alpha, y, dy, x, beta, dx0, &dx), CUDNN_STATUS_SUCCESS)
        << last_error();
    EXPECT_TRUE(matches(dx, want)) << what << " engine " << e << " type " << type_name(dt) << " window "
                                   << p.window[0] << " stride " << p.stride[0] << " pad " << p.padding[0] << " dims "
                                   << xdims[1] << "x" << xdims[2] << "x" << xdims[3];
    EXPECT_TRUE(gaps_untouched(dx, dx0));
  }
}

// Max backward, square 2x2 / 3x3 windows of stride 2, channels not innermost
// (NCHW or random strides), planes larger than the CUDA engine's tiles of
// 64 x 16 inputs: its plane-tiled kernel, tile edges and paddings.
TEST(PoolingBackward, MaxStride2NchwTiles) {
  EngineHandles hs;
  Rng rng(test_seed(304));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < 8; ++k) {
    const cudnnDataType_t dt = types[k % 4];
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = rng.coin();
    const int w = static_cast<int>(rng.integer(2, 3));
    const int pad = static_cast<int>(rng.integer(0, w - 1));
    p.window = {w, w};
    p.padding = {pad, pad};
    p.stride = {2, 2};
    const std::vector<int64_t> xdims = {rng.integer(1, 2), rng.integer(1, 3), rng.integer(5, 40), rng.integer(20, 150)};
    check_backward_case(hs, rng, dt, p, xdims, Layout::nchw,
                       [&](const std::vector<int64_t> &d) {
                         return rng.coin(0.7) ? packed_strides(d, Layout::nchw) : random_strides(rng, d);
                       },
                       "case " + std::to_string(k));
  }
}

// Max backward, square 2x2 / 3x3 windows of stride 2 (and 3x3 of stride 1),
// packed NHWC with channels a multiple of eight 16-byte vectors: the CUDA
// engine's channel-tiled kernel (one or two channel groups), tile edges and
// paddings.
TEST(PoolingBackward, MaxNhwcTiles) {
  EngineHandles hs;
  Rng rng(test_seed(305));
  const cudnnDataType_t types[] = {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < 6; ++k) {
    const cudnnDataType_t dt = types[k % 3];
    const int64_t vec = dt == CUDNN_DATA_FLOAT ? 4 : 8;
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = rng.coin();
    const int w = k == 5 ? 3 : static_cast<int>(rng.integer(2, 3));
    const int st = k == 5 ? 1 : 2;
    const int pad = static_cast<int>(rng.integer(0, w - 1));
    p.window = {w, w};
    p.padding = {pad, pad};
    p.stride = {st, st};
    const std::vector<int64_t> xdims = {rng.integer(1, 2), vec * 8 * rng.integer(1, 2), rng.integer(9, 36),
                                        rng.integer(9, 36)};
    check_backward_case(hs, rng, dt, p, xdims, Layout::nhwc,
                       [](const std::vector<int64_t> &d) { return packed_strides(d, Layout::nhwc); },
                       "case " + std::to_string(k));
  }
}

// Max backward, 2x2 / 3x3 windows of stride 2 with paddings 0 or 1 chosen
// per dimension, packed NHWC with an even number of 16-byte channel
// vectors: the CUDA engine's row-strip gather (lane columns of 4 channel
// vectors, or of their 8-byte halves when the count is not a multiple of 4;
// strips of 4 pair rows, warps' helper
// columns, the pair row and column before the first for padding 0 with 3x3
// windows, odd extents).
TEST(PoolingBackward, MaxNhwcRowStrips) {
  EngineHandles hs;
  Rng rng(test_seed(306));
  const cudnnDataType_t types[] = {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < 9; ++k) {
    const cudnnDataType_t dt = types[k % 3];
    const int64_t vec = dt == CUDNN_DATA_FLOAT ? 4 : 8;
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = rng.coin();
    const int w = k < 6 ? 3 : 2;
    p.window = {w, w};
    p.padding = {static_cast<int>(rng.integer(0, 1)), static_cast<int>(rng.integer(0, 1))};
    p.stride = {2, 2};
    const std::vector<int64_t> xdims = {rng.integer(1, 2), vec * 2 * rng.integer(1, 6), rng.integer(3, 23),
                                        rng.integer(3, 45)};
    check_backward_case(hs, rng, dt, p, xdims, Layout::nhwc,
                       [](const std::vector<int64_t> &d) { return packed_strides(d, Layout::nhwc); },
                       "case " + std::to_string(k) + " pads " + std::to_string(p.padding[0]) + "," +
                           std::to_string(p.padding[1]));
  }
}

// Max backward, 2x2 / 3x3 windows of stride 2, paddings below the window,
// NHWC (16-byte channel vectors or single channels), NCHW and random
// strides, with x drawn from four values and a few NaNs: ties in most
// windows (the first maximum in row-major order takes dy) and both NaN rules.
// The CUDA engine's two-pass kernels (first-maximum codes, then the pair
// gather).
TEST(PoolingBackward, MaxStride2TiesAndNanTwoPass) {
  EngineHandles hs;
  Rng rng(test_seed(307));
  const cudnnDataType_t types[] = {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE};
  const auto few_values = ties_with_nans(0.02);
  for (int k = 0; k < 12; ++k) {
    const cudnnDataType_t dt = types[k % 4];
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = k % 2 == 1;
    const int w = static_cast<int>(rng.integer(2, 3));
    p.window = {w, w};
    p.padding = {static_cast<int>(rng.integer(0, w - 1)), static_cast<int>(rng.integer(0, w - 1))};
    p.stride = {2, 2};
    const int layout = k % 3;  // NHWC, NCHW, random strides
    const int64_t channels = layout == 0 ? rng.pick(std::vector<int64_t>{8, 16, 24, 64, 3}) : rng.integer(1, 3);
    const std::vector<int64_t> xdims = {rng.integer(1, 2), channels, rng.integer(2, 19), rng.integer(2, 40)};
    check_backward_case(hs, rng, dt, p, xdims, layout == 0 ? Layout::nhwc : Layout::nchw,
                       [&](const std::vector<int64_t> &d) {
                         if (layout == 2) return random_strides(rng, d);
                         return packed_strides(d, layout == 0 ? Layout::nhwc : Layout::nchw);
                       },
                       "case " + std::to_string(k) + " pads " + std::to_string(p.padding[0]) + "," +
                           std::to_string(p.padding[1]) + " nan " + std::to_string(p.propagate_nan),
                       few_values);
  }
}

// Max backward, 2x2 / 3x3 windows of stride 2, paddings below the window
// (column padding 0 or 1), NCHW with rows of a multiple of 8 elements,
// packed or 8 apart: the CUDA engine's two passes on rows (16-byte row
// vectors; the second pass where pairs start at even dx columns: 3x3 with
// column padding 1, 2x2 with 0), widths past 32 vectors, strips cut by the
// height, ties from four values with a few NaNs or distinct values, both
// NaN rules, blending.
TEST(PoolingBackward, MaxStride2NchwRowsTwoPass) {
  EngineHandles hs;
  Rng rng(test_seed(314));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  const auto few_values = ties_with_nans(0.02);
  for (int k = 0; k < 12; ++k) {
    const cudnnDataType_t dt = types[k % 3];
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = k % 2 == 1;
    const int w = k % 4 < 2 ? 3 : 2;
    p.window = {w, w};
    p.padding = {static_cast<int>(rng.integer(0, w - 1)), static_cast<int>(rng.integer(0, 1))};
    p.stride = {2, 2};
    const std::vector<int64_t> xdims = {rng.integer(1, 2), rng.integer(1, 3), rng.integer(3, 37),
                                        8 * rng.integer(1, k < 4 ? 6 : 40)};
    const int64_t gap = rng.coin() ? 8 : 0;
    check_backward_case(hs, rng, dt, p, xdims, Layout::nchw,
                       [&](const std::vector<int64_t> &d) {
                         const int64_t row = d[3] + gap;
                         return std::vector<int64_t>{d[1] * d[2] * row, d[2] * row, row, 1};
                       },
                       "case " + std::to_string(k) + " pads " + std::to_string(p.padding[0]) + "," +
                           std::to_string(p.padding[1]) + " nan " + std::to_string(p.propagate_nan) + " gap " +
                           std::to_string(gap),
                       k % 3 == 2 ? fill_distinct : few_values);
  }
}

// Average backward, 2x2 / 3x3 windows of stride 2 with paddings 0 or 1 per
// dimension, float / half / bfloat16, both padding rules: the CUDA engine's
// strips (pooling_avg_backward_rows on NCHW-like rows, 16-byte dx row
// vectors, tails where the width is no multiple of the vector, dy rows
// aligned for vector loads or not; pooling_avg_backward_nhwc on packed NHWC
// with 1-4 channel vectors), strips cut by the height (past 16 rows), first
// and last rows and columns outside the windows, blending and poisoned dx.
TEST(PoolingBackward, AverageStride2Strips) {
  EngineHandles hs;
  Rng rng(test_seed(323));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < 24; ++k) {
    const cudnnDataType_t dt = types[k % 3];
    const bool nhwc = k >= 16;
    PoolingParams p;
    p.mode = k % 2 ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    const int w = k % 4 < 2 ? 3 : 2;
    p.window = {w, w};
    p.padding = {static_cast<int>(rng.integer(0, 1)), static_cast<int>(rng.integer(0, 1))};
    p.stride = {2, 2};
    // NCHW: k % 3 == 0 widths a multiple of 8 with rows 0 or 8 apart (dy
    // rows often unaligned), else any width, rows rounded up to 8 (+ 8).
    const bool whole = k % 3 == 0;
    const int64_t width = nhwc ? rng.integer(2, 70) : whole ? 8 * rng.integer(1, 40) : rng.integer(2, 300);
    const int64_t channels = nhwc ? 8 * rng.integer(1, 4) : rng.integer(1, 3);
    const std::vector<int64_t> xdims = {rng.integer(1, 2), channels, rng.integer(2, 40), width};
    const int64_t extra = rng.coin() ? 8 : 0;
    const auto strides = [&](const std::vector<int64_t> &d) {
      if (nhwc) return packed_strides(d, Layout::nhwc);
      const int64_t row = (whole ? d[3] : (d[3] + 7) / 8 * 8) + extra;
      return std::vector<int64_t>{d[1] * d[2] * row, d[2] * row, row, 1};
    };
    check_backward_case(hs, rng, dt, p, xdims, nhwc ? Layout::nhwc : Layout::nchw, strides,
                        "case " + std::to_string(k) + " pads " + std::to_string(p.padding[0]) + "," +
                            std::to_string(p.padding[1]) + " width " + std::to_string(width) + " extra " +
                            std::to_string(extra));
  }
}

// Max backward, 3x3 windows of stride 2 with paddings 0 or 1 per dimension,
// half / bfloat16 packed NHWC with 4, 8, 12 or 16 16-byte channel vectors:
// the CUDA engine's streaming kernel (CTAs of 8 vectors and 28 pair columns,
// or of 4 and 56), its chunk edges (widths past 56 and 112 columns), the
// runs of pair rows it cuts small batches into, odd extents, x from distinct
// values or from four values with a few NaNs (ties in most windows), both
// NaN rules and blending.
// `stream` is FREEDNN_POOL_STREAM: "1" (the default) runs the streaming
// kernel, "0" the two-pass codes kernels on the same problems.
void check_max_backward_nhwc_3x3(uint64_t seed, const char *stream) {
  const ScopedEnv path("FREEDNN_POOL_STREAM", stream);
  EngineHandles hs;
  Rng rng(test_seed(seed));
  const cudnnDataType_t types[] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  const auto few_values = ties_with_nans(0.01);
  for (int k = 0; k < 12; ++k) {
    const cudnnDataType_t dt = types[k % 2];
    PoolingParams p;
    p.mode = rng.coin() ? CUDNN_POOLING_MAX : CUDNN_POOLING_MAX_DETERMINISTIC;
    p.propagate_nan = k % 4 >= 2;
    p.window = {3, 3};
    p.padding = {static_cast<int>(rng.integer(0, 1)), static_cast<int>(rng.integer(0, 1))};
    p.stride = {2, 2};
    const int64_t channels = rng.pick(std::vector<int64_t>{32, 64, 96, 128});
    const int64_t width = k < 4 ? rng.integer(2, 40) : k < 8 ? rng.integer(55, 70) : rng.integer(110, 131);
    const std::vector<int64_t> xdims = {rng.integer(1, 2), channels, rng.integer(2, 24), width};
    check_backward_case(hs, rng, dt, p, xdims, Layout::nhwc,
                       [](const std::vector<int64_t> &d) { return packed_strides(d, Layout::nhwc); },
                       "case " + std::to_string(k) + " pads " + std::to_string(p.padding[0]) + "," +
                           std::to_string(p.padding[1]) + " nan " + std::to_string(p.propagate_nan),
                       k % 3 == 0 ? Filler(fill_distinct) : few_values);
  }
}

TEST(PoolingBackward, MaxNhwcStreaming) { check_max_backward_nhwc_3x3(320, "1"); }

// The same problems with the streaming kernel switched off.
TEST(PoolingBackward, MaxNhwcStreamingSwitchedOff) {
  if (!gpu_mode()) GTEST_SKIP() << "GPU kernel variants";
  check_max_backward_nhwc_3x3(321, "0");
}

// Average backward of float data with columns contiguous in dy and dx
// (packed NCHW / NCDHW, or rows padded apart), column strides 1 and 2: the
// CPU engine's AVX-512 row kernel (pooling_avg_backward_rows.hpp) with
// rows from one to several vectors and odd tails, windows of 1-5 columns
// (some wider than the stride allows gaps for), paddings, both padding
// rules, blending; the last problem has a dx of 8.9 MB written with
// beta = 0, which takes its streaming stores. Each problem also runs with
// the kernel switched off (FREEDNN_CPU_POOL_AVG_ROWS=0, the generic gather).
TEST(PoolingBackward, AverageRowsNchw) {
  Rng rng(test_seed(322));
  for (int k = 0; k < 14; ++k) {
    const bool big = k == 13;
    const int spatial = k % 4 == 3 ? 3 : 2;
    PoolingParams p;
    p.mode = k % 2 ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    std::vector<int64_t> xdims = {rng.integer(1, 2), rng.integer(1, 3)};
    for (int d = 0; d < spatial; ++d) {
      const bool columns = d == spatial - 1;
      const int w = big ? 3 : static_cast<int>(rng.integer(1, 5));
      p.window.push_back(w);
      p.padding.push_back(big ? 1 : static_cast<int>(rng.integer(0, w - 1)));
      p.stride.push_back(big || (columns && k % 3 != 0) ? 2 : static_cast<int>(rng.integer(1, columns ? 1 : 3)));
      xdims.push_back(columns ? rng.integer(w, 90) : rng.integer(std::max(w, 2), spatial == 3 ? 6 : 20));
    }
    if (big) xdims = {2, 16, 256, 272};
    const int64_t row_pad = !big && rng.coin(0.4) ? rng.integer(1, 9) : 0;
    const auto strides = [&](const std::vector<int64_t> &d) {
      std::vector<int64_t> s(d.size());
      int64_t step = 1;
      for (size_t i = d.size(); i-- > 0;) {
        s[i] = step;
        step *= d[i] + (i + 1 == d.size() ? row_pad : 0);
      }
      return s;
    };
    const std::string what = "case " + std::to_string(k) + " window " + std::to_string(p.window.back()) + " stride " +
                             std::to_string(p.stride.back()) + " pad " + std::to_string(p.padding.back()) + " width " +
                             std::to_string(xdims.back());
    for (const char *rows : {"1", "0"}) {
      const ScopedEnv path("FREEDNN_CPU_POOL_AVG_ROWS", rows);
      EngineHandles hs;
      Rng case_rng(test_seed(1000 + k));
      check_backward_case(hs, case_rng, CUDNN_DATA_FLOAT, p, xdims, Layout::nchw, strides,
                          what + " rows kernel " + rows, fill_distinct, big ? 0 : -1);
    }
  }
}

// 2x2 / 3x3 windows of stride 2 in the shapes the row-strip kernels take:
// `cases` problems, the first `nchw_cases` NCHW-like (rows with gaps), the
// rest NHWC; modes drawn from `modes`.
void check_stride2_row_strips(uint64_t seed, const std::vector<cudnnPoolingMode_t> &modes, int cases, int nchw_cases) {
  EngineHandles hs;
  Rng rng(test_seed(seed));
  const cudnnDataType_t types[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
  for (int k = 0; k < cases; ++k) {
    const cudnnDataType_t dt = types[k % 3];
    const bool nhwc = k >= nchw_cases;
    PoolingParams p;
    p.mode = rng.pick(modes);
    p.propagate_nan = rng.coin();
    const int w = static_cast<int>(rng.integer(2, 3));
    p.window = {w, w};
    p.padding = {static_cast<int>(rng.integer(0, w - 1)), static_cast<int>(rng.integer(0, 1))};
    p.stride = {2, 2};
    // Widths a multiple of 8, some above 32 vectors of 4 / 8 elements.
    const int64_t width = nhwc ? rng.integer(3, 40) : 8 * rng.integer(1, k < 3 ? 6 : 40);
    const int64_t channels = nhwc ? rng.pick(std::vector<int64_t>{8, 16, 32, 64, 128, 24}) : rng.integer(1, 3);
    const std::vector<int64_t> xdims = {rng.integer(1, 2), channels, rng.integer(3, nhwc ? 20 : 37), width};
    std::vector<int64_t> ydims = pooling_output_dims(p, xdims);
    if (rng.coin(0.3))
      for (int d = 2; d < 4; ++d) ydims[d] = std::max<int64_t>(1, ydims[d] + rng.integer(-1, 1));
    const int64_t row = width + 8 * rng.integer(0, 1);
    HostTensor x = nhwc ? make_tensor(dt, xdims, packed_strides(xdims, Layout::nhwc))
                        : make_tensor(dt, xdims, {xdims[1] * xdims[2] * row, xdims[2] * row, row, 1});
    fill_distinct(x, rng);
    if (rng.coin(0.3)) {
      std::vector<double> v = x.values();
      for (int i = 0; i < 3; ++i) v[static_cast<size_t>(rng.integer(0, static_cast<int64_t>(v.size()) - 1))] = NAN;
      x.set_values(v);
    }
    HostTensor y0 = make_tensor(dt, ydims, packed_strides(ydims, nhwc ? Layout::nhwc : Layout::nchw));
    const bool blend = rng.coin(0.4);
    const double alpha = rng.coin(0.5) ? 1.0 : 0.75, beta = blend ? -0.5 : 0.0;
    if (blend) fill_random(y0, rng, -2, 2);
    else poison(y0);
    const std::vector<Expect> want = reference_pooling_forward(p, x, alpha, beta, y0, compute_of(dt));
    for (size_t e = 0; e < hs.all.size(); ++e) {
      HostTensor y;
      ASSERT_EQ(pooling_forward(hs.all[e], p, alpha, x, beta, y0, &y), CUDNN_STATUS_SUCCESS) << last_error();
      EXPECT_TRUE(matches(y, want)) << "case " << k << " engine " << e << " type " << type_name(dt) << " window " << w
                                    << " pad " << p.padding[0] << "," << p.padding[1] << " dims " << xdims[2] << "x"
                                    << xdims[3];
      EXPECT_TRUE(gaps_untouched(y, y0));
    }
  }
}

// Max forward, square 2x2 / 3x3 windows of stride 2, rows of stride 1
// (NCHW, rows padded or not) and NHWC: the CUDA engine's row-strip kernels
// (16-byte vectors, neighbours through shuffles, direct loads at warp edges
// when a row is wider than 32 vectors or a warp's first column), paddings
// of 0 or 1, output extents other than the advised ones, NaN rules and
// blending.
TEST(PoolingForward, MaxStride2NchwRowStrips) {
  check_stride2_row_strips(305, {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC}, 18, 9);
}

// The average form of the NCHW row-strip kernel: padding counted in or out,
// windows that reach past the input (and, with ydims changed, past the
// padding).
TEST(PoolingForward, AverageStride2NchwRowStrips) {
  check_stride2_row_strips(
      306, {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}, 12, 12);
}

// NaN: PROPAGATE gives NaN where a window holds one; NOT_PROPAGATE skips it.
TEST(PoolingForward, MaxNanPropagation) {
  EngineHandles hs;
  for (bool prop : {false, true}) {
    PoolingParams p;
    p.mode = CUDNN_POOLING_MAX;
    p.propagate_nan = prop;
    p.window = {2, 2};
    p.padding = {0, 0};
    p.stride = {2, 2};
    const std::vector<int64_t> dims = {1, 1, 4, 4};
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i - 7.5;
    v[5] = std::nan("");
    x.set_values(v);
    const std::vector<int64_t> yd_dims = {1, 1, 2, 2};
    HostTensor y0 = make_tensor(CUDNN_DATA_FLOAT, yd_dims, packed_strides(yd_dims, Layout::nchw));
    poison(y0);
    PoolDesc pd(p);
    TensorDesc xd(x), yd(y0);
    const float one = 1, zero = 0;
    for (cudnnHandle_t h : hs.all) {
      Buffer xb = upload(x), yb = upload(y0);
      ASSERT_EQ(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
      HostTensor y = y0;
      download(yb, y);
      if (prop) EXPECT_TRUE(std::isnan(y.get({0, 0, 0, 0})));
      else EXPECT_EQ(y.get({0, 0, 0, 0}), 4 - 7.5);
      EXPECT_EQ(y.get({0, 0, 1, 1}), 15 - 7.5);
    }
  }
}

// Windows that hold no input position (padding as large as the window):
// max gives -FLT_MAX (HALF data: -65504, half's lowest finite value, not
// -FLT_MAX rounded to -inf), the average 0/0 = NaN when padding is excluded
// and 0 when it is included (cuDNN 9.19 on the H100).
TEST(PoolingForward, WindowsWithoutInputPositions) {
  EngineHandles hs;
  for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF})
    for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                    CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
      SCOPED_TRACE(std::string(type_name(t)) + " mode " + std::to_string(static_cast<int>(mode)));
      const PoolingParams p{mode, false, {2, 2}, {2, 2}, {1, 1}};  // window, padding, stride
      const std::vector<int64_t> dims = {1, 1, 2, 2};
      const std::vector<int64_t> ydims = pooling_output_dims(p, dims);  // 5 x 5
      HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
      x.set_values({1, 2, 3, 4});
      HostTensor y0 = make_tensor(t, ydims, packed_strides(ydims, Layout::nchw));
      poison(y0);
      PoolDesc pd(p);
      TensorDesc xd(x), yd(y0);
      const float one = 1, zero = 0, half = 0.5f;
      for (cudnnHandle_t h : hs.all) {
        Buffer xb = upload(x), yb = upload(y0);
        ASSERT_EQ(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
        HostTensor y = y0;
        download(yb, y);
        const double corner = y.get({0, 0, 0, 0}), middle = y.get({0, 0, 2, 2});
        if (mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_MAX_DETERMINISTIC) {
          const double lowest = t == CUDNN_DATA_HALF ? -65504.0 : -3.4028234663852886e38;
          EXPECT_EQ(corner, lowest);
          EXPECT_EQ(middle, 4);
          // alpha scales the window's start like any maximum.
          ASSERT_EQ(cudnnPoolingForward(h, pd.d, &half, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
          download(yb, y);
          EXPECT_EQ(y.get({0, 0, 0, 0}), lowest / 2);
        } else if (mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) {
          EXPECT_TRUE(std::isnan(corner));
          EXPECT_EQ(middle, 2.5);
        } else {
          EXPECT_EQ(corner, 0);
          EXPECT_EQ(middle, 2.5);
        }
      }
    }
}

// y larger than the advised output: windows past the end. cuDNN's counts
// are not clamped at 0, so an average over a window that starts past the
// input (a negative count) is -0, and one whose count is 0 is NaN when
// padding is excluded (NVIDIA cuDNN 9.19 on the H100: x 7 x 8, window 3 x 2,
// padding 1 x 0, stride 2 x 3, y 5 x 4 instead of 4 x 3).
TEST(PoolingForward, WindowsPastTheEnd) {
  EngineHandles hs;
  for (cudnnPoolingMode_t mode :
       {CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING}) {
    const PoolingParams p{mode, false, {3, 2}, {1, 0}, {2, 3}};  // window, padding, stride
    const std::vector<int64_t> dims = {1, 1, 7, 8}, ydims = {1, 1, 5, 4};
    ASSERT_EQ(pooling_output_dims(p, dims), (std::vector<int64_t>{1, 1, 4, 3}));
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
    std::vector<double> values(56);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 1.0 + static_cast<double>(i % 5);
    x.set_values(values);
    HostTensor y0 = make_tensor(CUDNN_DATA_FLOAT, ydims, packed_strides(ydims, Layout::nchw));
    poison(y0);
    PoolDesc pd(p);
    TensorDesc xd(x), yd(y0);
    const float one = 1, zero = 0;
    const bool exclude = mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    for (cudnnHandle_t h : hs.all) {
      Buffer xb = upload(x), yb = upload(y0);
      ASSERT_EQ(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
      HostTensor y = y0;
      download(yb, y);
      for (int64_t r = 0; r < 4; ++r) {  // column 3 starts at 9, past the 8 columns: count -1
        const double v = y.get({0, 0, r, 3});
        EXPECT_TRUE(v == 0 && std::signbit(v)) << "row " << r << ": " << v;
      }
      // Row 4 starts at 7: 0 input rows (NaN excluding padding), 1 padded
      // row including it (the sum of nothing over a positive count: +0).
      const double row4 = y.get({0, 0, 4, 0});
      if (exclude) EXPECT_TRUE(std::isnan(row4)) << row4;
      else EXPECT_TRUE(row4 == 0 && !std::signbit(row4)) << row4;
      EXPECT_GT(y.get({0, 0, 1, 1}), 0);  // an ordinary window
    }
  }
}

// Ties: the gradient goes to one position per window (the first in
// row-major order), never split.
TEST(PoolingBackward, MaxTiesGoToTheFirstPosition) {
  EngineHandles hs;
  PoolingParams p;
  p.mode = CUDNN_POOLING_MAX;
  p.window = {2, 2};
  p.padding = {0, 0};
  p.stride = {2, 2};
  const std::vector<int64_t> dims = {1, 1, 2, 4}, ydims = {1, 1, 1, 2};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  x.set_values({1, 1, 2, 3, 1, 1, 3, 3});
  HostTensor y = make_tensor(CUDNN_DATA_FLOAT, ydims, packed_strides(ydims, Layout::nchw));
  y.set_values({1, 3});
  HostTensor dy = y;
  dy.set_values({10, 20});
  HostTensor dx0 = x;
  poison(dx0);
  PoolDesc pd(p);
  TensorDesc xd(x), yd(y);
  const float one = 1, zero = 0;
  for (cudnnHandle_t h : hs.all) {
    Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), dxb = upload(dx0);
    ASSERT_EQ(cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, xd, dxb.get()),
              CUDNN_STATUS_SUCCESS);
    HostTensor dx = dx0;
    download(dxb, dx);
    EXPECT_EQ(dx.values(), (std::vector<double>{10, 0, 0, 20, 0, 0, 0, 0}));
  }
}

// dx against central differences of sum(dy * pool(x)) (double, small).
TEST(PoolingBackward, FiniteDifferences) {
  EngineHandles hs;
  Rng rng(test_seed(304));
  for (cudnnPoolingMode_t mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                  CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
    PoolingParams p;
    p.mode = mode;
    p.window = {3, 2};
    p.padding = {1, 1};
    p.stride = {2, 1};
    const std::vector<int64_t> dims = {1, 2, 5, 4};
    const std::vector<int64_t> ydims = pooling_output_dims(p, dims);
    const cudnnDataType_t dt = CUDNN_DATA_DOUBLE;
    HostTensor x = make_tensor(dt, dims, packed_strides(dims, Layout::nchw));
    fill_distinct(x, rng);  // spacing far above the step: no ties cross
    HostTensor dy = make_tensor(dt, ydims, packed_strides(ydims, Layout::nchw));
    fill_random(dy, rng, -1, 1);
    PoolDesc pd(p);
    TensorDesc xd(x), yd(dy);
    const double one = 1, zero = 0;
    cudnnHandle_t h = hs.all.front();
    auto objective = [&](const HostTensor &xin) {
      Buffer xb = upload(xin);
      HostTensor y = dy;
      Buffer yb = upload(y);
      EXPECT_EQ(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
      download(yb, y);
      double s = 0;
      const auto yv = y.values(), gv = dy.values();
      for (size_t i = 0; i < yv.size(); ++i) s += yv[i] * gv[i];
      return s;
    };
    HostTensor y = dy;
    {
      Buffer xb = upload(x), yb = upload(y);
      ASSERT_EQ(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_SUCCESS);
      download(yb, y);
    }
    Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
    HostTensor dx = x;
    Buffer dxb = upload(dx);
    ASSERT_EQ(cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, xd, dxb.get()),
              CUDNN_STATUS_SUCCESS);
    download(dxb, dx);
    const double step = 1e-6;
    std::vector<double> xv = x.values();
    const std::vector<double> g = dx.values();
    for (size_t i = 0; i < xv.size(); ++i) {
      HostTensor xp = x, xm = x;
      std::vector<double> v = xv;
      v[i] += step;
      xp.set_values(v);
      v[i] -= 2 * step;
      xm.set_values(v);
      const double fd = (objective(xp) - objective(xm)) / (2 * step);
      EXPECT_NEAR(g[i], fd, 1e-6) << "mode " << mode << " element " << i;
    }
  }
}

// Bad inputs, with the statuses of cuDNN.
TEST(PoolingForward, BadInputs) {
  EngineHandles hs;
  cudnnHandle_t h = hs.all.front();
  PoolingParams p;
  p.window = {2, 2};
  p.padding = {0, 0};
  p.stride = {2, 2};
  PoolDesc pd(p);
  const std::vector<int64_t> dims = {1, 2, 4, 4}, ydims = {1, 2, 2, 2};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  HostTensor y = make_tensor(CUDNN_DATA_FLOAT, ydims, packed_strides(ydims, Layout::nchw));
  Buffer xb = upload(x), yb = upload(y);
  TensorDesc xd(x), yd(y);
  const float one = 1, zero = 0;
  const char *fn = "cudnnPoolingForward";
  EXPECT_FAILS_NAMING(cudnnPoolingForward(nullptr, pd.d, &one, xd, xb.get(), &zero, yd, yb.get()),
                      CUDNN_STATUS_BAD_PARAM, fn, "handle");
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, nullptr, &one, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM,
                      fn, "poolingDesc");
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, nullptr, xb.get(), &zero, yd, yb.get()),
                      CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, nullptr, xd, xb.get(), &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM,
                      fn, "alpha");
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, xd, nullptr, &zero, yd, yb.get()), CUDNN_STATUS_BAD_PARAM, fn,
                      "x");
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yd, nullptr), CUDNN_STATUS_BAD_PARAM, fn,
                      "y");
  // N or C differ.
  const std::vector<int64_t> yc = {1, 3, 2, 2};
  TensorDesc ycd(CUDNN_DATA_FLOAT, yc, packed_strides(yc, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, ycd, yb.get()), CUDNN_STATUS_BAD_PARAM,
                      fn, "yDesc");
  // Types differ.
  TensorDesc yh(CUDNN_DATA_HALF, ydims, packed_strides(ydims, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, xd, xb.get(), &zero, yh, yb.get()), CUDNN_STATUS_BAD_PARAM, fn,
                      "yDesc");
  // Rank differs from the descriptor's.
  const std::vector<int64_t> d5 = {1, 2, 4, 4, 1}, y5 = {1, 2, 2, 2, 1};
  TensorDesc x5(CUDNN_DATA_FLOAT, d5, packed_strides(d5, Layout::nchw));
  TensorDesc y5d(CUDNN_DATA_FLOAT, y5, packed_strides(y5, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, x5, xb.get(), &zero, y5d, yb.get()), CUDNN_STATUS_BAD_PARAM,
                      fn, "xDesc");
  // Types pooling does not take.
  TensorDesc xi(CUDNN_DATA_INT32, dims, packed_strides(dims, Layout::nchw));
  TensorDesc yi(CUDNN_DATA_INT32, ydims, packed_strides(ydims, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd.d, &one, xi, xb.get(), &zero, yi, yb.get()),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "INT32");
  // 1 or 4 spatial dimensions.
  PoolingParams p1;
  p1.window = {2};
  p1.padding = {0};
  p1.stride = {1};
  PoolDesc pd1(p1);
  const std::vector<int64_t> d3 = {1, 2, 4};
  TensorDesc x3(CUDNN_DATA_FLOAT, d3, packed_strides(d3, Layout::nchw));
  EXPECT_FAILS_NAMING(cudnnPoolingForward(h, pd1.d, &one, x3, xb.get(), &zero, x3, yb.get()),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "spatial");
}

TEST(PoolingBackward, BadInputs) {
  EngineHandles hs;
  cudnnHandle_t h = hs.all.front();
  PoolingParams p;
  p.window = {2, 2};
  p.padding = {0, 0};
  p.stride = {2, 2};
  PoolDesc pd(p);
  const std::vector<int64_t> dims = {1, 2, 4, 4}, ydims = {1, 2, 2, 2};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  HostTensor y = make_tensor(CUDNN_DATA_FLOAT, ydims, packed_strides(ydims, Layout::nchw));
  Buffer xb = upload(x), yb = upload(y), dyb = upload(y), dxb = upload(x);
  TensorDesc xd(x), yd(y);
  const float one = 1, zero = 0;
  const char *fn = "cudnnPoolingBackward";
  EXPECT_FAILS_NAMING(cudnnPoolingBackward(nullptr, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, xd,
                                           dxb.get()),
                      CUDNN_STATUS_BAD_PARAM, fn, "handle");
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, nullptr, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, xd, dxb.get()),
      CUDNN_STATUS_BAD_PARAM, fn, "poolingDesc");
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, nullptr, xd, xb.get(), &zero, xd, dxb.get()),
      CUDNN_STATUS_BAD_PARAM, fn, "dy");
  EXPECT_FAILS_NAMING(cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, xd, nullptr),
                      CUDNN_STATUS_BAD_PARAM, fn, "dx");
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), nullptr, xd, dxb.get()),
      CUDNN_STATUS_BAD_PARAM, fn, "beta");
  // dy's dims differ from y's.
  const std::vector<int64_t> y3 = {1, 2, 3, 2};
  TensorDesc y3d(CUDNN_DATA_FLOAT, y3, packed_strides(y3, Layout::nchw));
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), y3d, dyb.get(), xd, xb.get(), &zero, xd, dxb.get()),
      CUDNN_STATUS_BAD_PARAM, fn, "dyDesc");
  // dx's type differs.
  TensorDesc dxh(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, pd.d, &one, yd, yb.get(), yd, dyb.get(), xd, xb.get(), &zero, dxh, dxb.get()),
      CUDNN_STATUS_BAD_PARAM, fn, "dxDesc");
  // INT8 has no backward.
  TensorDesc x8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  TensorDesc y8(CUDNN_DATA_INT8, ydims, packed_strides(ydims, Layout::nchw));
  EXPECT_FAILS_NAMING(
      cudnnPoolingBackward(h, pd.d, &one, y8, yb.get(), y8, dyb.get(), x8, xb.get(), &zero, x8, dxb.get()),
      CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8");
}

}  // namespace
