// Dropout through the public API: descriptors and size queries, forward and
// backward against the float64 reference of tests/common (which predicts the
// masks with its own Philox), mask statistics, determinism, the resumption
// of a stream by cudnnRestoreDropoutDescriptor, and bad inputs. On a CPU
// handle every problem also runs pinned to the reference engines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "common/buffer.hpp"
#include "common/dropout_desc.hpp"
#include "common/dropout_reference.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

size_t reserve_size(const HostTensor &x) {
  TensorDesc xd(x);
  size_t bytes = 0;
  EXPECT_EQ(cudnnDropoutGetReserveSpaceSize(xd, &bytes), CUDNN_STATUS_SUCCESS);
  return bytes;
}

// Runs forward on h, returns y and the reserve image.
HostTensor forward(cudnnHandle_t h, const Dropout &dr, const HostTensor &x, HostTensor y, std::vector<uint8_t> &reserve) {
  poison(y);
  TensorDesc xd(x), yd(y);
  Buffer xb = upload(x), yb = upload(y), rb(reserve_size(x));
  EXPECT_EQ(cudnnDropoutForward(h, dr.d, xd, xb.get(), yd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS)
      << last_error();
  download(yb, y);
  reserve = rb.download();
  return y;
}

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};

}  // namespace

TEST(DropoutReference, PhiloxKnownAnswers) {
  // Random123's known-answer vectors for Philox4x32-10.
  const uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
  const uint32_t c1[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, k1[2] = {0xa4093822, 0x299f31d0};
  uint32_t r[4];
  philox4x32_10_ref(c0, k0, r);
  EXPECT_EQ(r[0], 0x6627e8d5u);
  EXPECT_EQ(r[3], 0x9b00dbd8u);
  philox4x32_10_ref(c1, k1, r);
  EXPECT_EQ(r[0], 0xd16cfe09u);
  EXPECT_EQ(r[3], 0x24126ea1u);
}

TEST(DropoutDescriptor, SizesSetGetRestore) {
  EngineHandle h;
  size_t states = 0;
  ASSERT_EQ(cudnnDropoutGetStatesSize(h.h, &states), CUDNN_STATUS_SUCCESS);
  EXPECT_GE(states, 16u);
  // Reserve space: one bit per element in 32-bit words, as cuDNN 9 sizes it.
  const std::vector<std::pair<std::vector<int64_t>, size_t>> cases = {
      {{2, 3, 4, 5}, 16}, {{1, 1, 1, 1}, 4}, {{1, 1, 1, 33}, 8}, {{1, 1, 1, 1000}, 128}, {{2, 3, 4, 5, 7}, 108}};
  for (const auto &c : cases) {
    HostTensor x = make_tensor(CUDNN_DATA_HALF, c.first, packed_strides(c.first, Layout::nchw));
    EXPECT_EQ(reserve_size(x), c.second);
  }
  cudnnDropoutDescriptor_t d;
  ASSERT_EQ(cudnnCreateDropoutDescriptor(&d), CUDNN_STATUS_SUCCESS);
  Buffer sb(states);
  ASSERT_EQ(cudnnSetDropoutDescriptor(d, h.h, 0.25f, sb.get(), states, 77), CUDNN_STATUS_SUCCESS);
  float p = 0;
  void *sp = nullptr;
  unsigned long long seed = 0;
  ASSERT_EQ(cudnnGetDropoutDescriptor(d, h.h, &p, &sp, &seed), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(p, 0.25f);
  EXPECT_EQ(sp, sb.get());
  EXPECT_EQ(seed, 77u);
  ASSERT_EQ(cudnnRestoreDropoutDescriptor(d, h.h, 0.5f, sb.get(), states, 78), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetDropoutDescriptor(d, h.h, &p, &sp, &seed), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(p, 0.5f);
  EXPECT_EQ(seed, 78u);
  // NULL states: only the probability changes.
  ASSERT_EQ(cudnnSetDropoutDescriptor(d, h.h, 0.75f, nullptr, 0, 5), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetDropoutDescriptor(d, h.h, &p, &sp, &seed), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(p, 0.75f);
  EXPECT_EQ(sp, sb.get());
  EXPECT_EQ(cudnnDestroyDropoutDescriptor(d), CUDNN_STATUS_SUCCESS);
}

TEST(DropoutForward, RandomShapesTypesLayoutsMatchPredictedMasks) {
  Rng rng(test_seed(301));
  for (bool ref : engine_kinds()) {
    EngineHandle h(ref);
    for (int it = 0; it < 12; ++it) {
      const cudnnDataType_t t = rng.pick(kTypes);
      const std::vector<int64_t> dims = random_dims(rng, static_cast<int>(rng.integer(4, 5)), 9, 3000);
      const HostTensor x = random_layout(rng, t, dims, -4, 4);
      HostTensor y = random_layout(rng, t, dims, -4, 4);
      const float p = static_cast<float>(rng.pick(std::vector<double>{0.0, 0.1, 0.5, 0.8, 1.0}));
      const unsigned long long seed = rng.next();
      Dropout dr(h.h, p, seed);
      std::vector<uint8_t> reserve;
      // Two calls: offsets 0 and 1.
      for (uint64_t call = 0; call < 2; ++call) {
        const HostTensor before = y;
        HostTensor got = forward(h.h, dr, x, y, reserve);
        const std::vector<bool> keep = dropout_keep_mask(seed, call, x.elements(), p);
        EXPECT_EQ(unpack_mask_bits(reserve, x.elements()), keep) << "mask of call " << call << " p " << p;
        EXPECT_TRUE(matches(got, dropout_expect(x, keep, p, t))) << type_name(t) << " p " << p << " ref " << ref;
      }
    }
  }
}

TEST(DropoutForward, DifferentDimsSameCountAndInPlace) {
  EngineHandle h;
  Rng rng(test_seed(302));
  Dropout dr(h.h, 0.3f, 11);
  const HostTensor x = random_layout(rng, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, -4, 4);
  HostTensor y = make_tensor(CUDNN_DATA_FLOAT, {1, 6, 20, 1}, packed_strides({1, 6, 20, 1}, Layout::nhwc));
  std::vector<uint8_t> reserve;
  HostTensor got = forward(h.h, dr, x, y, reserve);
  EXPECT_TRUE(matches(got, dropout_expect(x, dropout_keep_mask(11, 0, 120, 0.3f), 0.3f, CUDNN_DATA_FLOAT)));
  // In place: y overwrites x.
  TensorDesc xd(x);
  Buffer xb = upload(x), rb(reserve_size(x));
  ASSERT_EQ(cudnnDropoutForward(h.h, dr.d, xd, xb.get(), xd, xb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS);
  HostTensor inplace = x;
  download(xb, inplace);
  EXPECT_TRUE(matches(inplace, dropout_expect(x, dropout_keep_mask(11, 1, 120, 0.3f), 0.3f, CUDNN_DATA_FLOAT)));
}

TEST(DropoutForward, KeptFractionWithinBinomialBounds) {
  EngineHandle h;
  const int64_t n = 1 << 18;
  for (float p : {0.1f, 0.5f, 0.9f}) {
    Dropout dr(h.h, p, 12345);
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, {1, 1, 1, n}, packed_strides({1, 1, 1, n}, Layout::nchw));
    Rng rng(7);
    fill_random(x, rng, 1, 2);
    std::vector<uint8_t> reserve;
    HostTensor y = forward(h.h, dr, x, x, reserve);
    const std::vector<bool> bits = unpack_mask_bits(reserve, n);
    int64_t kept = 0, kept_first_half = 0;
    for (int64_t i = 0; i < n; ++i) {
      kept += bits[static_cast<size_t>(i)];
      if (i < n / 2) kept_first_half += bits[static_cast<size_t>(i)];
    }
    const double mean = n * (1.0 - p), sd = std::sqrt(n * p * (1.0 - p));
    EXPECT_LT(std::fabs(kept - mean), 6 * sd) << "p " << p << " kept " << kept;
    EXPECT_LT(std::fabs(kept_first_half - mean / 2), 6 * sd) << "p " << p;
    // Kept values are scaled by 1 / (1 - p); dropped ones are 0.
    const std::vector<double> yv = y.values(), xv = x.values();
    for (int64_t i = 0; i < n; i += 997)
      EXPECT_NEAR(yv[static_cast<size_t>(i)], bits[static_cast<size_t>(i)] ? xv[static_cast<size_t>(i)] / (1.0 - p) : 0.0,
                  1e-5 * std::fabs(xv[static_cast<size_t>(i)] / (1.0 - p)));
  }
}

// Packed tensors of every type whose counts fall around the CUDA kernels'
// per-thread runs (4, 8 or 16 elements) and mask words (32 elements): the
// vector paths and the per-element tails give the predicted masks, forward
// and backward, with x and y apart (the wide kernel's loads come first).
TEST(DropoutForward, PackedCountsAroundVectorRuns) {
  EngineHandle h;
  Rng rng(test_seed(305));
  for (cudnnDataType_t t : kTypes) {
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{20}, int64_t{33}, int64_t{8204}, int64_t{70001}}) {
      const std::vector<int64_t> dims = {1, 1, 1, n};
      HostTensor x = make_tensor(t, dims, packed_strides(dims, Layout::nchw));
      fill_random(x, rng, -4, 4);
      const uint64_t seed = 1000 + static_cast<uint64_t>(n);
      Dropout dr(h.h, 0.4f, seed);
      std::vector<uint8_t> reserve;
      const HostTensor y = forward(h.h, dr, x, x, reserve);
      const std::vector<bool> keep = dropout_keep_mask(seed, 0, n, 0.4f);
      EXPECT_EQ(unpack_mask_bits(reserve, n), keep) << type_name(t) << " n " << n;
      EXPECT_TRUE(matches(y, dropout_expect(x, keep, 0.4f, t))) << type_name(t) << " n " << n;
      HostTensor dy = x, dx = x;
      fill_random(dy, rng, -4, 4);
      poison(dx);
      TensorDesc dd(dy);
      Buffer dyb = upload(dy), dxb = upload(dx), rb(reserve.size());
      rb.upload(reserve.data(), reserve.size());
      ASSERT_EQ(cudnnDropoutBackward(h.h, dr.d, dd, dyb.get(), dd, dxb.get(), rb.get(), rb.size()),
                CUDNN_STATUS_SUCCESS);
      download(dxb, dx);
      EXPECT_TRUE(matches(dx, dropout_expect(dy, keep, 0.4f, t))) << "backward " << type_name(t) << " n " << n;
    }
  }
}

TEST(DropoutForward, SameSeedSameMasksAndRestoreResumes) {
  EngineHandle h;
  Rng rng(test_seed(303));
  const HostTensor x = random_layout(rng, CUDNN_DATA_FLOAT, {3, 4, 5, 7}, -4, 4);
  std::vector<uint8_t> a0, a1, a2, b0, c1, c2;
  {
    Dropout a(h.h, 0.5f, 99);
    forward(h.h, a, x, x, a0);
    forward(h.h, a, x, x, a1);
    forward(h.h, a, x, x, a2);
  }
  Dropout b(h.h, 0.5f, 99);
  forward(h.h, b, x, x, b0);
  EXPECT_EQ(a0, b0);
  EXPECT_NE(a0, a1);
  EXPECT_NE(a1, a2);
  // Another descriptor restored on b's states continues b's stream.
  cudnnDropoutDescriptor_t c;
  ASSERT_EQ(cudnnCreateDropoutDescriptor(&c), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnRestoreDropoutDescriptor(c, h.h, 0.5f, b.states.get(), b.states.size(), 12345), CUDNN_STATUS_SUCCESS);
  {
    TensorDesc xd(x);
    Buffer xb = upload(x), yb = upload(x), rb(reserve_size(x));
    ASSERT_EQ(cudnnDropoutForward(h.h, c, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS);
    c1 = rb.download();
  }
  EXPECT_EQ(c1, a1);
  forward(h.h, b, x, x, c2);  // b's stream has advanced through c
  EXPECT_EQ(c2, a2);
  // Set re-initialises the buffer: back to the first mask.
  ASSERT_EQ(cudnnSetDropoutDescriptor(c, h.h, 0.5f, b.states.get(), b.states.size(), 99), CUDNN_STATUS_SUCCESS);
  forward(h.h, b, x, x, c2);
  EXPECT_EQ(c2, a0);
  cudnnDestroyDropoutDescriptor(c);
}

TEST(DropoutBackward, AppliesTheForwardMask) {
  Rng rng(test_seed(304));
  for (bool ref : engine_kinds()) {
    EngineHandle h(ref);
    for (int it = 0; it < 8; ++it) {
      const cudnnDataType_t t = rng.pick(kTypes);
      const std::vector<int64_t> dims = random_dims(rng, 4, 9, 2000);
      const float p = static_cast<float>(rng.pick(std::vector<double>{0.0, 0.2, 0.6, 1.0}));
      Dropout dr(h.h, p, rng.next());
      const HostTensor x = random_layout(rng, t, dims, -4, 4);
      std::vector<uint8_t> reserve;
      forward(h.h, dr, x, x, reserve);
      const std::vector<bool> keep = unpack_mask_bits(reserve, x.elements());
      const HostTensor dy = random_layout(rng, t, dims, -4, 4);
      HostTensor dx = random_layout(rng, t, dims, -4, 4);
      poison(dx);
      TensorDesc dyd(dy), dxd(dx);
      Buffer dyb = upload(dy), dxb = upload(dx), rb(reserve.size());
      rb.upload(reserve.data(), reserve.size());
      ASSERT_EQ(cudnnDropoutBackward(h.h, dr.d, dyd, dyb.get(), dxd, dxb.get(), rb.get(), rb.size()),
                CUDNN_STATUS_SUCCESS);
      download(dxb, dx);
      EXPECT_TRUE(matches(dx, dropout_expect(dy, keep, p, t))) << type_name(t) << " p " << p;
      // The reserve is read only; backward does not advance the stream.
      EXPECT_EQ(rb.download(), reserve);
    }
  }
}

TEST(DropoutBadInput, EveryEntryPoint) {
  EngineHandle h;
  size_t bytes = 0;
  EXPECT_FAILS_NAMING(cudnnCreateDropoutDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnCreateDropoutDescriptor",
                      "dropoutDesc");
  EXPECT_EQ(cudnnDestroyDropoutDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnDropoutGetStatesSize(nullptr, &bytes), CUDNN_STATUS_BAD_PARAM, "cudnnDropoutGetStatesSize",
                      "handle");
  EXPECT_FAILS_NAMING(cudnnDropoutGetStatesSize(h.h, nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnDropoutGetStatesSize",
                      "sizeInBytes");
  EXPECT_FAILS_NAMING(cudnnDropoutGetReserveSpaceSize(nullptr, &bytes), CUDNN_STATUS_BAD_PARAM,
                      "cudnnDropoutGetReserveSpaceSize", "xDesc");
  {
    TensorDesc i8(CUDNN_DATA_INT8, {1, 2, 3, 4}, {24, 12, 4, 1});
    EXPECT_FAILS_NAMING(cudnnDropoutGetReserveSpaceSize(i8, &bytes), CUDNN_STATUS_NOT_SUPPORTED,
                        "cudnnDropoutGetReserveSpaceSize", "INT8");
  }
  cudnnDropoutDescriptor_t d;
  ASSERT_EQ(cudnnCreateDropoutDescriptor(&d), CUDNN_STATUS_SUCCESS);
  size_t ss = 0;
  cudnnDropoutGetStatesSize(h.h, &ss);
  Buffer sb(ss);
  EXPECT_FAILS_NAMING(cudnnSetDropoutDescriptor(nullptr, h.h, 0.5f, sb.get(), ss, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetDropoutDescriptor", "dropoutDesc");
  EXPECT_FAILS_NAMING(cudnnSetDropoutDescriptor(d, nullptr, 0.5f, sb.get(), ss, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetDropoutDescriptor", "handle");
  EXPECT_FAILS_NAMING(cudnnSetDropoutDescriptor(d, h.h, std::nanf(""), sb.get(), ss, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetDropoutDescriptor", "dropout");
  // cuDNN 9 answers BAD_PARAM for a small states buffer.
  EXPECT_FAILS_NAMING(cudnnSetDropoutDescriptor(d, h.h, 0.5f, sb.get(), ss - 1, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetDropoutDescriptor", "stateSizeInBytes");
  EXPECT_FAILS_NAMING(cudnnRestoreDropoutDescriptor(d, h.h, 0.5f, sb.get(), 1, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnRestoreDropoutDescriptor", "stateSizeInBytes");
  EXPECT_FAILS_NAMING(cudnnRestoreDropoutDescriptor(d, nullptr, 0.5f, sb.get(), ss, 1), CUDNN_STATUS_BAD_PARAM,
                      "cudnnRestoreDropoutDescriptor", "handle");
  float p;
  void *s;
  unsigned long long seed;
  EXPECT_FAILS_NAMING(cudnnGetDropoutDescriptor(d, h.h, nullptr, &s, &seed), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetDropoutDescriptor", "dropout");
  EXPECT_FAILS_NAMING(cudnnGetDropoutDescriptor(d, h.h, &p, nullptr, &seed), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetDropoutDescriptor", "states");
  EXPECT_FAILS_NAMING(cudnnGetDropoutDescriptor(d, h.h, &p, &s, nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetDropoutDescriptor", "seed");
  EXPECT_FAILS_NAMING(cudnnGetDropoutDescriptor(nullptr, h.h, &p, &s, &seed), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetDropoutDescriptor", "dropoutDesc");

  const std::vector<int64_t> dims = {2, 3, 4, 5};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw));
  TensorDesc xd(x), nhwc(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nhwc));
  TensorDesc hd(CUDNN_DATA_HALF, dims, packed_strides(dims, Layout::nchw));
  TensorDesc small(CUDNN_DATA_FLOAT, {2, 3, 4, 4}, packed_strides({2, 3, 4, 4}, Layout::nchw));
  TensorDesc i8(CUDNN_DATA_INT8, dims, packed_strides(dims, Layout::nchw));
  TensorDesc i32(CUDNN_DATA_INT32, dims, packed_strides(dims, Layout::nchw));
  Buffer xb = upload(x), yb = upload(x), rb(reserve_size(x));
  // Not set with states yet.
  EXPECT_FAILS_NAMING(cudnnDropoutForward(h.h, d, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()),
                      CUDNN_STATUS_BAD_PARAM, "cudnnDropoutForward", "states");
  // Probabilities outside [0, 1] are accepted (as cuDNN 9 does): above 1
  // drops everything.
  ASSERT_EQ(cudnnSetDropoutDescriptor(d, h.h, 1.5f, sb.get(), ss, 1), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnDropoutForward(h.h, d, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS);
  {
    HostTensor y = x;
    download(yb, y);
    for (double v : y.values()) EXPECT_EQ(v, 0.0);
  }
  ASSERT_EQ(cudnnSetDropoutDescriptor(d, h.h, -0.5f, sb.get(), ss, 1), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetDropoutDescriptor(d, h.h, 0.5f, sb.get(), ss, 1), CUDNN_STATUS_SUCCESS);
  for (int bwd = 0; bwd < 2; ++bwd) {
    auto call = [&](cudnnHandle_t hh, cudnnDropoutDescriptor_t dd, cudnnTensorDescriptor_t a, const void *ap,
                    cudnnTensorDescriptor_t b, void *bp, void *r, size_t rs) {
      return bwd ? cudnnDropoutBackward(hh, dd, a, ap, b, bp, r, rs) : cudnnDropoutForward(hh, dd, a, ap, b, bp, r, rs);
    };
    const char *fn = bwd ? "cudnnDropoutBackward" : "cudnnDropoutForward";
    EXPECT_FAILS_NAMING(call(nullptr, d, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "handle");
    EXPECT_FAILS_NAMING(call(h.h, nullptr, xd, xb.get(), xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM,
                        fn, "dropoutDesc");
    EXPECT_FAILS_NAMING(call(h.h, d, nullptr, xb.get(), xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        (bwd ? "dyDesc" : "xDesc"));
    EXPECT_FAILS_NAMING(call(h.h, d, xd, nullptr, xd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        (bwd ? "dy" : "x"));
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), xd, nullptr, rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        (bwd ? "dx" : "y"));
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), hd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "HALF");
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), small, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "elements");
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), nhwc, xb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "in-place");
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), xd, yb.get(), rb.get(), rb.size() - 1), CUDNN_STATUS_BAD_PARAM, fn,
                        "reserveSpaceSizeInBytes");
    EXPECT_FAILS_NAMING(call(h.h, d, xd, xb.get(), xd, yb.get(), nullptr, rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "reserveSpace");
    EXPECT_FAILS_NAMING(call(h.h, d, i8, xb.get(), i8, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_BAD_PARAM, fn,
                        "INT8");
    EXPECT_FAILS_NAMING(call(h.h, d, i32, xb.get(), i32, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_NOT_SUPPORTED,
                        fn, "INT32");
  }
  EXPECT_EQ(cudnnDestroyDropoutDescriptor(d), CUDNN_STATUS_SUCCESS);
}

namespace {

// Packed strides of dims laid out in `order` (innermost dim first).
std::vector<int64_t> strides_in_order(const std::vector<int64_t> &dims, const std::vector<int> &order) {
  std::vector<int64_t> s(dims.size());
  int64_t next = 1;
  for (int d : order) {
    s[static_cast<size_t>(d)] = next;
    next *= dims[static_cast<size_t>(d)];
  }
  return s;
}

// Forward on h with a reserve image poisoned first; returns y (poisoned first).
HostTensor forward_poisoned(cudnnHandle_t h, const Dropout &dr, const HostTensor &x, HostTensor y,
                            std::vector<uint8_t> &reserve) {
  poison(y);
  TensorDesc xd(x), yd(y);
  Buffer xb = upload(x), yb = upload(y), rb(reserve_size(x));
  const std::vector<uint8_t> junk(rb.size(), 0xa5);
  rb.upload(junk.data(), junk.size());
  EXPECT_EQ(cudnnDropoutForward(h, dr.d, xd, xb.get(), yd, yb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS)
      << last_error();
  download(yb, y);
  reserve = rb.download();
  return y;
}

HostTensor backward_poisoned(cudnnHandle_t h, const Dropout &dr, const HostTensor &dy, HostTensor dx,
                             const std::vector<uint8_t> &reserve) {
  poison(dx);
  TensorDesc dyd(dy), dxd(dx);
  Buffer dyb = upload(dy), dxb = upload(dx), rb(reserve.size());
  rb.upload(reserve.data(), reserve.size());
  EXPECT_EQ(cudnnDropoutBackward(h, dr.d, dyd, dyb.get(), dxd, dxb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS)
      << last_error();
  download(dxb, dx);
  return dx;
}

// Bit-identical logical values (a NaN, e.g. an unwritten poisoned element,
// never matches).
::testing::AssertionResult same_values(const HostTensor &got, const HostTensor &want) {
  const std::vector<double> g = got.values(), w = want.values();
  if (g.size() != w.size()) return ::testing::AssertionFailure() << "sizes " << g.size() << " / " << w.size();
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < g.size(); ++i)
    if (!(g[i] == w[i]) || std::signbit(g[i]) != std::signbit(w[i])) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++bad;
    }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << g.size() << " elements differ, first at logical " << first
                                       << ": " << g[static_cast<size_t>(first)] << " vs "
                                       << w[static_cast<size_t>(first)];
}

}  // namespace

// Dense tensors whose memory order is a permutation of the logical order
// (NHWC, NDHWC, N innermost, a memory order splitting the batch dims; on the
// GPU dropout_runs_kernel or dropout_tiled_kernel) against the same logical
// data packed NCHW: the same reserve-space image (masks in logical order),
// bit-identical y, and backward through either reserve gives bit-identical
// dx. Extents around the tiles (C and HW not multiples of 32 / 64 / 8, C
// below a vector, tensors with no batch dim or two), extent-1 dims, 16-bit
// types, poisoned outputs and reserves, in-place, a second call (the next
// offset), and a batch too large for the tiled grid (the per-element path).
TEST(DropoutForward, PermutedDenseLayoutsMatchPackedNchw) {
  EngineHandle h;
  Rng rng(test_seed(306));
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int> order;  // innermost first
  };
  const std::vector<Case> cases = {
      {{2, 37, 5, 7}, {1, 3, 2, 0}},         {{3, 72, 9, 15}, {1, 3, 2, 0}},     {{1, 256, 8, 8}, {1, 3, 2, 0}},
      {{2, 3, 11, 13}, {1, 3, 2, 0}},        {{2, 96, 40, 40}, {1, 3, 2, 0}},    {{2, 40, 3, 5, 7}, {1, 4, 3, 2, 0}},
      {{1, 65, 2, 33, 3}, {1, 4, 3, 2, 0}},  {{33, 5, 6, 7}, {0, 3, 2, 1}},      {{6, 40, 7, 9}, {1, 3, 0, 2}},
      {{1, 48, 1, 50}, {1, 3, 2, 0}},        {{70000, 3, 1, 2}, {1, 3, 2, 0}},
      // Rows that start on mask words (H W a multiple of 32), whole and
      // partial vectors along C, C below one vector, NDHWC, N innermost.
      {{2, 100, 4, 8}, {1, 3, 2, 0}},        {{3, 37, 8, 8}, {1, 3, 2, 0}},      {{1, 3, 64, 64}, {1, 3, 2, 0}},
      {{2, 8, 1, 96}, {1, 3, 2, 0}},         {{2, 20, 2, 3, 32}, {1, 4, 3, 2, 0}}, {{64, 3, 4, 8}, {0, 3, 2, 1}},
      // Rows that start on mask bytes only (H W a multiple of 8, not of
      // 32), some with a last mask word the tensor fills in part.
      {{1, 3, 2, 4}, {1, 3, 2, 0}},          {{2, 37, 4, 6}, {1, 3, 2, 0}},      {{2, 96, 5, 8}, {1, 3, 2, 0}},
      {{2, 16, 2, 3, 4}, {1, 4, 3, 2, 0}},   {{24, 5, 2, 4}, {0, 3, 2, 1}},
      // Rows that start on nibbles (H W = 4 mod 8: a row's last run of 4
      // elements; on the GPU the runs kernel's mask bytes owned across
      // CTAs along A and B), a last mask word in part.
      {{1, 3, 2, 2}, {1, 3, 2, 0}},          {{2, 37, 2, 6}, {1, 3, 2, 0}},      {{2, 24, 10, 30}, {1, 3, 2, 0}},
      {{2, 40, 14, 14}, {1, 3, 2, 0}},       {{3, 200, 2, 50}, {1, 3, 2, 0}},    {{2, 12, 3, 2, 2}, {1, 4, 3, 2, 0}},
      {{20, 5, 3, 4}, {0, 3, 2, 1}},         {{6, 40, 3, 4}, {1, 3, 0, 2}}};
  for (cudnnDataType_t t : kTypes) {
    for (const Case &c : cases) {
      std::ostringstream what;
      what << type_name(t) << " dims";
      for (int64_t d : c.dims) what << ' ' << d;
      SCOPED_TRACE(what.str());
      HostTensor xn = make_tensor(t, c.dims, packed_strides(c.dims, Layout::nchw));
      fill_random(xn, rng, -4, 4);
      HostTensor xp = make_tensor(t, c.dims, strides_in_order(c.dims, c.order));
      xp.set_values(xn.values());
      const int64_t n = xn.elements();
      const unsigned long long seed = rng.next();
      Dropout dn(h.h, 0.4f, seed), dp(h.h, 0.4f, seed);
      for (uint64_t call = 0; call < 2; ++call) {
        std::vector<uint8_t> rn, rp;
        const HostTensor yn = forward_poisoned(h.h, dn, xn, xn, rn);
        const HostTensor yp = forward_poisoned(h.h, dp, xp, xp, rp);
        EXPECT_EQ(rp, rn) << "reserve images, call " << call;
        const std::vector<bool> keep = dropout_keep_mask(seed, call, n, 0.4f);
        EXPECT_EQ(unpack_mask_bits(rp, n), keep) << "call " << call;
        EXPECT_TRUE(same_values(yp, yn)) << "forward, call " << call;
        EXPECT_TRUE(matches(yp, dropout_expect(xp, keep, 0.4f, t))) << "forward, call " << call;
        if (call == 1) {
          HostTensor dyn = make_tensor(t, c.dims, packed_strides(c.dims, Layout::nchw));
          fill_random(dyn, rng, -4, 4);
          HostTensor dyp = xp;
          dyp.set_values(dyn.values());
          const HostTensor dxn = backward_poisoned(h.h, dn, dyn, dyn, rn);
          const HostTensor dxp = backward_poisoned(h.h, dp, dyp, dyp, rn);
          EXPECT_TRUE(same_values(dxp, dxn)) << "backward";
          EXPECT_TRUE(matches(dxp, dropout_expect(dyp, keep, 0.4f, t))) << "backward";
        }
      }
      // In place on the permuted tensor, the third call (offset 2).
      TensorDesc xd(xp);
      Buffer xb = upload(xp), rb(reserve_size(xp));
      ASSERT_EQ(cudnnDropoutForward(h.h, dp.d, xd, xb.get(), xd, xb.get(), rb.get(), rb.size()), CUDNN_STATUS_SUCCESS);
      HostTensor inplace = xp;
      download(xb, inplace);
      EXPECT_TRUE(matches(inplace, dropout_expect(xp, dropout_keep_mask(seed, 2, n, 0.4f), 0.4f, t))) << "in place";
    }
  }
}
