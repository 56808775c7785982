// The fused cross-channel paths of the fast CPU LRN engine
// (src/cpu/lrn_cross_fast.hpp), through the public API against the float64
// references of tests/common, with shapes large enough to reach them:
//  - planes (NCHW-like): planes longer than one tile (tiles of up to 1024
//    positions, a partial last tile), gaps between channel planes and
//    images, 5-d NCDHW, rows shorter than a plane (W contiguous, H not);
//  - channel rows (NHWC-like): more pixels than one group of rows, channel
//    counts around the vector widths, padded pixels;
//  - beta = 0.75 (the reciprocal-square-root power, with the std::pow
//    fallback for S <= 0 under a negative alpha), beta = 1 and others;
//  - FLOAT and HALF, alpha/beta blending with NaN-poisoned outputs for beta 0;
//  - in place (x == y): inputs are read before the output is written;
//  - forward and backward with channels contiguous, pixel by pixel
//    (lrn_rows_avx512.hpp).
// ctest also runs this suite with FREEDNN_CPU_NO_AVX512=1 (the AVX2 paths).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/lrn_desc.hpp"
#include "common/lrn_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

// NHWC strides with `pad` spare elements after each pixel's channels.
std::vector<int64_t> channel_rows_with_pad(const std::vector<int64_t> &d, int64_t pad) {
  const int64_t pixel = d[1] + pad;
  return {pixel * d[2] * d[3], 1, pixel * d[3], pixel};
}

// W contiguous, rows of H padded: planes of one row each.
std::vector<int64_t> padded_rows(const std::vector<int64_t> &d) {
  const int64_t row = d[3] + 3;
  return {row * d[2] * d[1], row * d[2], row, 1};
}

struct Case {
  std::vector<int64_t> dims, strides;
  LrnParams p;
  cudnnDataType_t t;
  double blend_alpha, blend_beta;
};

std::string describe(const Case &c) {
  std::string s = std::string(type_name(c.t)) + " dims";
  for (int64_t v : c.dims) s += " " + std::to_string(v);
  s += " strides";
  for (int64_t v : c.strides) s += " " + std::to_string(v);
  return s + " n " + std::to_string(c.p.n) + " alpha " + std::to_string(c.p.alpha) + " beta " +
         std::to_string(c.p.beta) + " k " + std::to_string(c.p.k) + " blend " + std::to_string(c.blend_alpha) + "," +
         std::to_string(c.blend_beta);
}

std::vector<Case> cases(Rng &rng) {
  const std::vector<std::vector<int64_t>> shapes4 = {{2, 7, 40, 41}, {1, 20, 33, 35}, {3, 64, 5, 7}, {2, 17, 9, 11},
                                                     {1, 3, 13, 160}};
  std::vector<Case> out;
  int i = 0;
  for (const auto &d : shapes4) {
    for (int layout = 0; layout < 4; ++layout, ++i) {
      Case c;
      c.dims = d;
      switch (layout) {
        case 0: c.strides = planes_with_gaps(d, 0); break;
        case 1: c.strides = planes_with_gaps(d, 5); break;
        case 2: c.strides = channel_rows_with_pad(d, i % 2 == 0 ? 0 : 3); break;
        default: c.strides = padded_rows(d); break;
      }
      c.t = i % 3 == 2 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
      c.p.n = static_cast<unsigned>(rng.pick(std::vector<int64_t>{1, 2, 5, 5, 8, 16}));
      c.p.beta = rng.pick(std::vector<double>{0.75, 0.75, 1.0, 0.5, 1.3});
      c.p.alpha = rng.pick(std::vector<double>{1e-4, 0.5, 2.0});
      c.p.k = rng.pick(std::vector<double>{2.0, 1.0, 0.1});
      c.blend_alpha = rng.pick(std::vector<double>{1.0, -0.5, 2.0});
      c.blend_beta = rng.pick(std::vector<double>{0.0, 0.0, 1.0, -1.0});
      out.push_back(c);
    }
  }
  // 5-d planes with gaps; a negative alpha that takes S through zero (the
  // std::pow fallback of the beta = 0.75 power: NaN and inf like pow).
  Case c5;
  c5.dims = {2, 6, 3, 9, 13};
  c5.strides = planes_with_gaps(c5.dims, 2);
  c5.t = CUDNN_DATA_FLOAT;
  c5.p = LrnParams{false, 5, 1.0, 0.75, 2.0};
  c5.blend_alpha = 1;
  c5.blend_beta = 0;
  out.push_back(c5);
  Case neg = c5;
  neg.dims = {1, 9, 12, 40};
  neg.strides = planes_with_gaps(neg.dims, 0);
  neg.p = LrnParams{false, 3, -3.0, 0.75, 1.0};
  out.push_back(neg);
  neg.strides = channel_rows_with_pad(neg.dims, 0);
  out.push_back(neg);
  return out;
}

HostTensor random_tensor(Rng &rng, const Case &c, double lo, double hi) {
  HostTensor h = make_tensor(c.t, c.dims, c.strides);
  fill_random(h, rng, lo, hi);
  return h;
}

}  // namespace

TEST(CpuLrnVectorPaths, ForwardTilesGroupsLayoutsAndPowers) {
  Rng rng(test_seed(961));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  for (const Case &c : cases(rng)) {
    const HostTensor x = random_tensor(rng, c, -3, 3);
    HostTensor y = random_tensor(rng, c, -2, 2);
    const Scaling alpha(c.blend_alpha), beta(c.blend_beta);
    const auto want = reference_lrn_forward(c.p, x, nullptr, alpha.value(c.t), beta.value(c.t), y, CUDNN_DATA_FLOAT);
    if (c.blend_beta == 0) poison(y);
    const HostTensor before = y;
    const LrnDescriptor nd(c.p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x);
    Buffer yb = upload(y);
    ASSERT_EQ(cudnnLRNCrossChannelForward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(c.t), xd, xb.get(),
                                          beta.for_type(c.t), xd, yb.get()),
              CUDNN_STATUS_SUCCESS)
        << describe(c);
    download(yb, y);
    EXPECT_TRUE(matches(y, want)) << describe(c);
    EXPECT_TRUE(gaps_untouched(y, before)) << describe(c);
  }
  cudnnDestroy(h);
}

TEST(CpuLrnVectorPaths, BackwardTilesGroupsLayoutsAndPowers) {
  Rng rng(test_seed(962));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  for (const Case &c : cases(rng)) {
    // tests/common's backward tolerance assumes alpha >= 0 (it scales by
    // 2 alpha beta without an absolute value).
    if (c.p.alpha < 0) continue;
    const HostTensor x = random_tensor(rng, c, -3, 3), dy = random_tensor(rng, c, -2, 2);
    HostTensor y = make_tensor(c.t, c.dims, c.strides);
    y.set_values(lrn_forward_values(c.p, x, nullptr));
    HostTensor dx = random_tensor(rng, c, -2, 2);
    const Scaling alpha(c.blend_alpha), beta(c.blend_beta);
    const auto want =
        reference_lrn_backward(c.p, x, nullptr, dy, alpha.value(c.t), beta.value(c.t), dx, CUDNN_DATA_FLOAT);
    if (c.blend_beta == 0) poison(dx);
    const HostTensor before = dx;
    const LrnDescriptor nd(c.p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
    Buffer dxb = upload(dx);
    ASSERT_EQ(cudnnLRNCrossChannelBackward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(c.t), xd, yb.get(),
                                           xd, dyb.get(), xd, xb.get(), beta.for_type(c.t), xd, dxb.get()),
              CUDNN_STATUS_SUCCESS)
        << describe(c);
    download(dxb, dx);
    EXPECT_TRUE(matches(dx, want)) << describe(c);
    EXPECT_TRUE(gaps_untouched(dx, before)) << describe(c);
  }
  cudnnDestroy(h);
}

// x == y: every tile's (group's) inputs are read before its outputs are written.
TEST(CpuLrnVectorPaths, ForwardInPlaceLargeTensors) {
  Rng rng(test_seed(963));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  const LrnParams p{false, 5, 1.5, 0.75, 2.0};
  const std::vector<int64_t> dims = {2, 19, 37, 41};
  for (int layout = 0; layout < 2; ++layout)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      HostTensor x = make_tensor(t, dims, layout == 0 ? planes_with_gaps(dims, 0) : channel_rows_with_pad(dims, 0));
      fill_random(x, rng, -3, 3);
      const auto want = reference_lrn_forward(p, x, nullptr, 1, 0, x, CUDNN_DATA_FLOAT);
      const LrnDescriptor nd(p);
      const TensorDesc xd(x);
      Buffer b = upload(x);
      const float one = 1, zero = 0;
      ASSERT_EQ(cudnnLRNCrossChannelForward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, b.get(), &zero, xd,
                                            b.get()),
                CUDNN_STATUS_SUCCESS);
      HostTensor y = x;
      download(b, y);
      EXPECT_TRUE(matches(y, want)) << type_name(t) << " layout " << layout;
    }
  cudnnDestroy(h);
}

// The per-pixel cases of the channel-rows paths (src/cpu/lrn_rows_avx512.hpp,
// AVX-512; the generic channel-rows path under FREEDNN_CPU_NO_AVX512):
// channel counts below, at and around the 16-lane width (masked tails),
// windows wider than C, every window width's instantiation class (1, even,
// odd, 16), the staged power (beta not 0.75 or 1), padded pixels, HALF
// (the legacy API takes no BFLOAT16 LRN), in place (the output over an
// input), and one float output of 8 MiB written with beta = 0 (the
// non-temporal stores; a padded copy of it takes the ordinary stores).
namespace {

struct RowCase {
  std::vector<int64_t> dims;
  int64_t pad;
  unsigned n;
  double beta;
  cudnnDataType_t t;
  double blend_alpha, blend_beta;
  bool in_place;
};

std::vector<RowCase> row_cases() {
  const cudnnDataType_t F = CUDNN_DATA_FLOAT, H = CUDNN_DATA_HALF;
  return {
      {{2, 3, 9, 11}, 0, 5, 0.75, F, 1, 0, false},     {{1, 15, 7, 13}, 2, 16, 0.75, F, -0.5, 1, false},
      {{2, 16, 5, 9}, 0, 1, 1.0, F, 2, 0, false},      {{1, 17, 6, 7}, 1, 6, 0.5, F, 1, -1, false},
      {{1, 31, 4, 9}, 0, 9, 0.75, H, 1, 0, false},     {{2, 64, 5, 6}, 3, 5, 0.75, F, 1, 0, false},
      {{1, 100, 3, 7}, 0, 12, 1.3, H, 2, 1, false},    {{1, 2, 20, 21}, 0, 7, 0.75, F, 1, 0, false},
      {{1, 48, 6, 10}, 0, 4, 0.75, F, 1, 0, true},     {{1, 20, 5, 11}, 1, 3, 1.0, H, 1, 0, true},
      {{1, 40, 5, 7}, 0, 5, 0.75, H, 1, 0.5, false},   {{1, 33, 4, 5}, 2, 2, 0.6, H, 1, 0, true},
      {{1, 64, 128, 256}, 0, 2, 1.0, F, 1, 0, false}, {{1, 64, 64, 64}, 1, 5, 0.75, F, 1, 0, false},
  };
}

// The Case of a RowCase, with a random LRN alpha.
Case case_of(const RowCase &rc, Rng &rng) {
  Case c;
  c.dims = rc.dims;
  c.strides = channel_rows_with_pad(rc.dims, rc.pad);
  c.t = rc.t;
  c.p = LrnParams{false, rc.n, rng.pick(std::vector<double>{1e-4, 0.5, 2.0}), rc.beta, 2.0};
  c.blend_alpha = rc.blend_alpha;
  c.blend_beta = rc.blend_beta;
  return c;
}

}  // namespace

TEST(CpuLrnVectorPaths, ForwardChannelRowsPerPixel) {
  Rng rng(test_seed(965));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  for (const RowCase &rc : row_cases()) {
    const Case c = case_of(rc, rng);
    const HostTensor x = random_tensor(rng, c, -3, 3);
    HostTensor y = rc.in_place ? x : random_tensor(rng, c, -2, 2);
    const Scaling alpha(c.blend_alpha), beta(c.blend_beta);
    const auto want = reference_lrn_forward(c.p, x, nullptr, alpha.value(c.t), beta.value(c.t), y, CUDNN_DATA_FLOAT);
    if (c.blend_beta == 0 && !rc.in_place) poison(y);
    const HostTensor before = y;
    const LrnDescriptor nd(c.p);
    const TensorDesc xd(x);
    Buffer xb = upload(x), yb = upload(y);
    void *y_ptr = rc.in_place ? xb.get() : yb.get();
    ASSERT_EQ(cudnnLRNCrossChannelForward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(c.t), xd, xb.get(),
                                          beta.for_type(c.t), xd, y_ptr),
              CUDNN_STATUS_SUCCESS)
        << describe(c);
    download(rc.in_place ? xb : yb, y);
    EXPECT_TRUE(matches(y, want)) << describe(c) << (rc.in_place ? " in place" : "");
    if (!rc.in_place) EXPECT_TRUE(gaps_untouched(y, before)) << describe(c);
  }
  cudnnDestroy(h);
}

TEST(CpuLrnVectorPaths, BackwardChannelRowsPerPixel) {
  Rng rng(test_seed(964));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  for (const RowCase &rc : row_cases()) {
    const Case c = case_of(rc, rng);
    const HostTensor x = random_tensor(rng, c, -3, 3), dy = random_tensor(rng, c, -2, 2);
    HostTensor y = make_tensor(c.t, c.dims, c.strides);
    y.set_values(lrn_forward_values(c.p, x, nullptr));
    HostTensor dx = rc.in_place ? dy : random_tensor(rng, c, -2, 2);
    const Scaling alpha(c.blend_alpha), beta(c.blend_beta);
    const auto want =
        reference_lrn_backward(c.p, x, nullptr, dy, alpha.value(c.t), beta.value(c.t), dx, CUDNN_DATA_FLOAT);
    if (c.blend_beta == 0 && !rc.in_place) poison(dx);
    const HostTensor before = dx;
    const LrnDescriptor nd(c.p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x), yb = upload(y);
    Buffer dyb = upload(dy), dxb = upload(dx);
    void *dx_ptr = rc.in_place ? dyb.get() : dxb.get();
    ASSERT_EQ(cudnnLRNCrossChannelBackward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(c.t), xd, yb.get(),
                                           xd, dyb.get(), xd, xb.get(), beta.for_type(c.t), xd, dx_ptr),
              CUDNN_STATUS_SUCCESS)
        << describe(c);
    download(rc.in_place ? dyb : dxb, dx);
    EXPECT_TRUE(matches(dx, want)) << describe(c) << (rc.in_place ? " in place" : "");
    if (!rc.in_place) EXPECT_TRUE(gaps_untouched(dx, before)) << describe(c);
  }
  cudnnDestroy(h);
}
