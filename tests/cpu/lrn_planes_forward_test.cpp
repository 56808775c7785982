// The AVX-512 planes path of the fast CPU LRN engine for float cross-channel
// forward with beta 0.75 or 1 (src/cpu/lrn_planes_forward.hpp), through the
// public API against the float64 reference of tests/common:
//  - every window width 1..16 (the ring of squares), channel counts below,
//    at and above the window (C = 1, windows wider than C);
//  - planes with a partial last vector, several tiles per plane (split
//    evenly, up to 512 positions), gaps after each plane (unaligned rows);
//  - blending with beta != 0, NaN-poisoned y with beta = 0, a negative LRN
//    alpha that takes S through zero (the std::pow lanes), in place (y == x),
//    and one y of 8 MiB written with beta = 0 (non-temporal stores).
// ctest's FREEDNN_CPU_NO_AVX512=1 run (if it covers this suite) takes the
// generic planes path with the same cases.
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

struct Case {
  std::vector<int64_t> dims;
  int64_t gap;
  LrnParams p;
  double blend_alpha, blend_beta;
  bool in_place;
};

std::string describe(const Case &c) {
  std::string s = "dims";
  for (int64_t v : c.dims) s += " " + std::to_string(v);
  return s + " gap " + std::to_string(c.gap) + " n " + std::to_string(c.p.n) + " alpha " + std::to_string(c.p.alpha) +
         " beta " + std::to_string(c.p.beta) + " k " + std::to_string(c.p.k) + " blend " +
         std::to_string(c.blend_alpha) + "," + std::to_string(c.blend_beta) + (c.in_place ? " in place" : "");
}

void run_case(cudnnHandle_t h, Rng &rng, const Case &c) {
  const cudnnDataType_t t = CUDNN_DATA_FLOAT;
  const std::vector<int64_t> strides = planes_with_gaps(c.dims, c.gap);
  HostTensor x = make_tensor(t, c.dims, strides);
  fill_random(x, rng, -3, 3);
  HostTensor y = make_tensor(t, c.dims, strides);
  if (c.in_place) y = x;
  else fill_random(y, rng, -2, 2);
  const Scaling alpha(c.blend_alpha), beta(c.blend_beta);
  const auto want = reference_lrn_forward(c.p, x, nullptr, alpha.value(t), beta.value(t), y, CUDNN_DATA_FLOAT);
  if (c.blend_beta == 0 && !c.in_place) poison(y);
  const HostTensor before = y;
  const LrnDescriptor nd(c.p);
  const TensorDesc xd(x);
  const Buffer xb = upload(x);
  Buffer yb = upload(y);
  void *yp = c.in_place ? xb.get() : yb.get();
  ASSERT_EQ(cudnnLRNCrossChannelForward(h, nd.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(t), xd, xb.get(),
                                        beta.for_type(t), xd, yp),
            CUDNN_STATUS_SUCCESS)
      << describe(c);
  if (c.in_place) download(xb, y);
  else download(yb, y);
  EXPECT_TRUE(matches(y, want)) << describe(c);
  EXPECT_TRUE(gaps_untouched(y, before)) << describe(c);
}

}  // namespace

TEST(CpuLrnPlanesForward, WindowWidthsChannelsTilesAndBlending) {
  if (gpu_mode()) GTEST_SKIP() << "a test of the CPU engine's own paths";
  Rng rng(test_seed(981));
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  const std::vector<std::vector<int64_t>> shapes = {{2, 7, 9, 13}, {1, 33, 23, 25}, {1, 3, 4, 5},
                                                    {2, 16, 1, 40}, {1, 1, 17, 19},  {1, 20, 32, 48}};
  for (unsigned n = 1; n <= 16; ++n) {
    Case c;
    c.dims = shapes[n % shapes.size()];
    c.gap = n % 3 == 0 ? 5 : 0;
    c.p = LrnParams{false, n, rng.pick(std::vector<double>{1e-4, 0.5, 2.0}), n % 2 == 0 ? 1.0 : 0.75,
                    rng.pick(std::vector<double>{2.0, 1.0, 0.1})};
    c.blend_alpha = rng.pick(std::vector<double>{1.0, -0.5, 2.0});
    c.blend_beta = n % 4 == 1 ? 0.5 : (n % 4 == 2 ? -1.0 : 0.0);
    c.in_place = false;
    run_case(h, rng, c);
  }
  // S through zero under a negative LRN alpha: NaN and inf as std::pow.
  run_case(h, rng, Case{{1, 9, 12, 40}, 0, LrnParams{false, 3, -3.0, 0.75, 1.0}, 1, 0, false});
  run_case(h, rng, Case{{1, 9, 12, 40}, 3, LrnParams{false, 4, -3.0, 1.0, 1.0}, 1, 0, false});
  // In place, both powers.
  run_case(h, rng, Case{{2, 19, 37, 41}, 0, LrnParams{false, 5, 1.5, 0.75, 2.0}, 1, 0, true});
  run_case(h, rng, Case{{1, 12, 20, 30}, 2, LrnParams{false, 6, 0.5, 1.0, 1.0}, 2, 0, true});
  // y of 8 MiB with beta = 0: non-temporal stores.
  run_case(h, rng, Case{{1, 64, 128, 256}, 0, LrnParams{false, 5, 1e-4, 0.75, 2.0}, 1, 0, false});
  cudnnDestroy(h);
}
