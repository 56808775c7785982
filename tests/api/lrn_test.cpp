// The LRN descriptor, cudnnLRNCrossChannelForward / Backward and
// cudnnDivisiveNormalizationForward / Backward through the public API.
//
// Random problems (shapes, layouts, types, window widths, parameters,
// alpha/beta blending) are checked against the float64 references of
// tests/common/lrn_reference.*; on a CPU handle each problem also runs on a
// handle pinned to the reference engines. Backward passes are also checked by
// finite differences of the forward call on small double problems.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/lrn_desc.hpp"
#include "common/lrn_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class LrnDesc {
 public:
  explicit LrnDesc(const LrnParams &p) {
    EXPECT_EQ(cudnnCreateLRNDescriptor(&d_), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetLRNDescriptor(d_, p.n, p.alpha, p.beta, p.k), CUDNN_STATUS_SUCCESS);
  }
  ~LrnDesc() { cudnnDestroyLRNDescriptor(d_); }
  operator cudnnLRNDescriptor_t() const { return d_; }

 private:
  cudnnLRNDescriptor_t d_ = nullptr;
};

// The types cuDNN 9.19 runs (BFLOAT16 is NOT_SUPPORTED).
const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF};
struct AlphaBeta {
  double alpha, beta;
};
const std::vector<AlphaBeta> kAlphaBeta = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0.25, -1}};

cudnnDataType_t compute_of(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

LrnParams random_params(Rng &rng, bool divisive, int rank) {
  LrnParams p;
  p.divisive = divisive;
  const int64_t max_n = divisive && rank == 5 ? 7 : 16;
  p.n = static_cast<unsigned>(rng.integer(1, max_n));
  p.alpha = rng.pick(std::vector<double>{1e-4, 0.5, 2.0, 7.0});
  p.beta = rng.pick(std::vector<double>{0.75, 0.5, 1.0, 1.3, 0.01});
  p.k = rng.pick(std::vector<double>{2.0, 1.0, 0.5, 1e-5 + 0.1});
  return p;
}

// Cross-channel layouts: 4-d NCHW, NHWC or random positive strides; 5-d
// NCDHW with packed D, H, W (gaps allowed between C planes and images).
std::vector<int64_t> lrn_strides(Rng &rng, const std::vector<int64_t> &dims) {
  if (dims.size() != 4 && dims.size() != 5) return packed_strides(dims, Layout::nchw);
  if (dims.size() == 5) {
    std::vector<int64_t> s(5);
    s[4] = 1;
    s[3] = dims[4];
    s[2] = dims[3] * dims[4];
    s[1] = s[2] * dims[2] + (rng.coin(0.3) ? rng.integer(1, 3) : 0);
    s[0] = s[1] * dims[1] + (rng.coin(0.3) ? rng.integer(1, 5) : 0);
    return s;
  }
  switch (rng.integer(0, 2)) {
    case 0: return packed_strides(dims, Layout::nchw);
    case 1: return packed_strides(dims, Layout::nhwc);
    default: return random_strides(rng, dims);
  }
}

HostTensor tensor_with(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims,
                       const std::vector<int64_t> &strides, double lo, double hi) {
  HostTensor h = make_tensor(t, dims, strides);
  fill_random(h, rng, lo, hi);
  return h;
}

std::string describe(const HostTensor &t, const LrnParams &p, const AlphaBeta &ab) {
  std::string s = std::string(p.divisive ? "divisive" : "cross-channel") + " " + type_name(t.dtype) + " dims";
  for (int64_t d : t.dims) s += " " + std::to_string(d);
  s += " strides";
  for (int64_t d : t.strides) s += " " + std::to_string(d);
  s += " n=" + std::to_string(p.n) + " alpha=" + std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) +
       " k=" + std::to_string(p.k) + " blend " + std::to_string(ab.alpha) + "," + std::to_string(ab.beta);
  return s;
}

std::vector<int64_t> random_lrn_dims(Rng &rng, int rank, int64_t max_elements) {
  std::vector<int64_t> d = random_dims(rng, rank, 12, max_elements);
  if (rng.coin(0.5)) d[1] = std::max<int64_t>(d[1], rng.integer(8, 20));  // windows that fit inside C
  return d;
}

}  // namespace

// ---- Descriptor ---------------------------------------------------------------

TEST(LrnDescriptor, DefaultsSetGetDestroy) {
  cudnnLRNDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateLRNDescriptor(&d), CUDNN_STATUS_SUCCESS);
  unsigned n = 0;
  double a = 0, b = 0, k = 0;
  ASSERT_EQ(cudnnGetLRNDescriptor(d, &n, &a, &b, &k), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(a, 1e-4);
  EXPECT_EQ(b, 0.75);
  EXPECT_EQ(k, 2.0);
  EXPECT_EQ(cudnnGetLRNDescriptor(d, nullptr, nullptr, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetLRNDescriptor(d, 16, -3.0, CUDNN_LRN_MIN_BETA, CUDNN_LRN_MIN_K), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetLRNDescriptor(d, &n, &a, nullptr, &k), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 16u);
  EXPECT_EQ(a, -3.0);
  EXPECT_EQ(k, CUDNN_LRN_MIN_K);
  ASSERT_EQ(cudnnSetLRNDescriptor(d, 1, 1, 1, 1), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyLRNDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyLRNDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(LrnDescriptor, RejectsOutOfRangeAndKeepsValues) {
  cudnnLRNDescriptor_t d = nullptr;
  ASSERT_EQ(cudnnCreateLRNDescriptor(&d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetLRNDescriptor(d, 3, 1, 1, 1), CUDNN_STATUS_SUCCESS);
  // Measured on cuDNN 9.19: n outside 1..16, beta < 0.01 and k < 1e-5 are
  // BAD_PARAM and leave the descriptor as it was; NaN and any alpha pass.
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(d, 0, 1e-4, 0.75, 2), CUDNN_STATUS_BAD_PARAM, "cudnnSetLRNDescriptor",
                      "lrnN");
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(d, 17, 1e-4, 0.75, 2), CUDNN_STATUS_BAD_PARAM, "cudnnSetLRNDescriptor",
                      "lrnN");
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(d, 5, 1e-4, 0.0099, 2), CUDNN_STATUS_BAD_PARAM, "cudnnSetLRNDescriptor",
                      "lrnBeta");
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(d, 5, 1e-4, -1, 2), CUDNN_STATUS_BAD_PARAM, "cudnnSetLRNDescriptor",
                      "lrnBeta");
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(d, 5, 1e-4, 0.75, 0.99e-5), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetLRNDescriptor", "lrnK");
  unsigned n = 0;
  double a = 0, b = 0, k = 0;
  ASSERT_EQ(cudnnGetLRNDescriptor(d, &n, &a, &b, &k), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(a, 1.0);
  EXPECT_EQ(b, 1.0);
  EXPECT_EQ(k, 1.0);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, 5, std::nan(""), 0.75, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, 5, 1e-4, 0.75, INFINITY), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetLRNDescriptor(d, 4, 0, 0.01, 1e-5), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyLRNDescriptor(d), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnSetLRNDescriptor(nullptr, 5, 1e-4, 0.75, 2), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSetLRNDescriptor", "normDesc");
  EXPECT_FAILS_NAMING(cudnnGetLRNDescriptor(nullptr, &n, &a, &b, &k), CUDNN_STATUS_BAD_PARAM,
                      "cudnnGetLRNDescriptor", "normDesc");
  EXPECT_FAILS_NAMING(cudnnCreateLRNDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM, "cudnnCreateLRNDescriptor",
                      "normDesc");
}

// ---- Cross-channel forward ----------------------------------------------------------

TEST(LrnCrossChannelForward, RandomShapesLayoutsTypesBlend) {
  EngineHandles hs;
  Rng rng(test_seed(301));
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    // cuDNN runs 3-d to 8-d tensors; mostly 4-d and 5-d here.
    const int rank = rng.coin(0.15) ? static_cast<int>(rng.pick(std::vector<int64_t>{3, 6})) : static_cast<int>(rng.integer(4, 5));
    const std::vector<int64_t> dims = random_lrn_dims(rng, rank, 1500);
    const LrnParams p = random_params(rng, false, rank);
    const HostTensor x = tensor_with(rng, t, dims, lrn_strides(rng, dims), -3, 3);
    const HostTensor y0 = tensor_with(rng, t, dims, lrn_strides(rng, dims), -2, 2);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    const auto want = reference_lrn_forward(p, x, nullptr, alpha.value(t), beta.value(t), y0, compute_of(t));
    const LrnDesc nd(p);
    const TensorDesc xd(x), yd(y0);
    const Buffer xb = upload(x);
    for (size_t h = 0; h < hs.all.size(); ++h) {
      HostTensor y = y0;
      if (ab.beta == 0) poison(y);
      const HostTensor before = y;
      Buffer yb = upload(y);
      ASSERT_EQ(cudnnLRNCrossChannelForward(hs.all[h], nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(t), xd,
                                            xb.get(), beta.for_type(t), yd, yb.get()),
                CUDNN_STATUS_SUCCESS)
          << describe(x, p, ab);
      download(yb, y);
      EXPECT_TRUE(matches(y, want)) << describe(x, p, ab) << " on " << engine_name(h);
      EXPECT_TRUE(gaps_untouched(y, before)) << describe(x, p, ab) << " on " << engine_name(h);
    }
  }
}

// In place (x == y) with beta = 0 is allowed: each element is read before its
// block is written.
TEST(LrnCrossChannelForward, InPlace) {
  EngineHandles hs;
  Rng rng(test_seed(302));
  const LrnParams p{false, 5, 1.5, 0.75, 2.0};
  const std::vector<int64_t> dims = {2, 13, 5, 7};
  const HostTensor x = tensor_with(rng, CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw), -3, 3);
  const auto want = reference_lrn_forward(p, x, nullptr, 1, 0, x, CUDNN_DATA_FLOAT);
  const LrnDesc nd(p);
  const TensorDesc xd(x);
  for (size_t h = 0; h < hs.all.size(); ++h) {
    HostTensor y = x;
    Buffer b = upload(y);
    const float one = 1, zero = 0;
    ASSERT_EQ(cudnnLRNCrossChannelForward(hs.all[h], nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, b.get(), &zero, xd,
                                          b.get()),
              CUDNN_STATUS_SUCCESS);
    download(b, y);
    EXPECT_TRUE(matches(y, want)) << engine_name(h);
  }
}

// ---- Cross-channel backward ---------------------------------------------------------

// One cross-channel backward case on every engine: x, dy, y (the forward's
// values, rounded to the type) and dx in layouts from `strides`, a random
// alpha/beta pair.
using StridesFn = std::vector<int64_t> (*)(Rng &, const std::vector<int64_t> &);
void check_backward_case(EngineHandles &hs, Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims,
                         const LrnParams &p, StridesFn strides) {
  const HostTensor x = tensor_with(rng, t, dims, strides(rng, dims), -3, 3);
  const HostTensor dy = tensor_with(rng, t, dims, strides(rng, dims), -2, 2);
  HostTensor y = make_tensor(t, dims, strides(rng, dims));
  // y as the forward pass gives it (rounded to the type).
  y.set_values(lrn_forward_values(p, x, nullptr));
  const HostTensor dx0 = tensor_with(rng, t, dims, strides(rng, dims), -2, 2);
  const AlphaBeta ab = rng.pick(kAlphaBeta);
  const Scaling alpha(ab.alpha), beta(ab.beta);
  const auto want = reference_lrn_backward(p, x, nullptr, dy, alpha.value(t), beta.value(t), dx0, compute_of(t));
  const LrnDesc nd(p);
  const TensorDesc xd(x), yd(y), dyd(dy), dxd(dx0);
  const Buffer xb = upload(x), yb = upload(y), dyb = upload(dy);
  for (size_t h = 0; h < hs.all.size(); ++h) {
    HostTensor dx = dx0;
    if (ab.beta == 0) poison(dx);
    const HostTensor before = dx;
    Buffer dxb = upload(dx);
    ASSERT_EQ(cudnnLRNCrossChannelBackward(hs.all[h], nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(t), yd,
                                           yb.get(), dyd, dyb.get(), xd, xb.get(), beta.for_type(t), dxd,
                                           dxb.get()),
              CUDNN_STATUS_SUCCESS)
        << describe(x, p, ab);
    download(dxb, dx);
    EXPECT_TRUE(matches(dx, want)) << describe(x, p, ab) << " on " << engine_name(h);
    EXPECT_TRUE(gaps_untouched(dx, before)) << describe(x, p, ab) << " on " << engine_name(h);
  }
}

TEST(LrnCrossChannelBackward, RandomShapesLayoutsTypesBlend) {
  EngineHandles hs;
  Rng rng(test_seed(303));
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const int rank = static_cast<int>(rng.integer(4, 5));
    const std::vector<int64_t> dims = random_lrn_dims(rng, rank, 1500);
    const LrnParams p = random_params(rng, false, rank);
    check_backward_case(hs, rng, t, dims, p, lrn_strides);
  }
}

// Channels contiguous in every operand (NHWC, gaps between positions)
// and at least 32 channels: the CUDA engine's row kernels (a warp per
// position, the channel window in shared memory).
std::vector<int64_t> channels_last_strides(Rng &rng, const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size());
  s[1] = 1;
  int64_t next = dims[1] + (rng.coin(0.3) ? rng.integer(1, 3) : 0);
  for (size_t d = dims.size() - 1; d >= 2; --d) {
    s[d] = next;
    next = s[d] * dims[d] + (rng.coin(0.2) ? rng.integer(1, 3) : 0);
  }
  s[0] = next;
  return s;
}

// One cross-channel forward case on every engine: x and y (or y = x in
// place) laid out by `strides`, alpha / beta drawn, y poisoned when beta = 0.
void check_forward_case(EngineHandles &hs, Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims,
                        const LrnParams &p, StridesFn strides) {
  const bool in_place = rng.coin(0.25);
  const HostTensor x = tensor_with(rng, t, dims, strides(rng, dims), -3, 3);
  const HostTensor y0 = in_place ? x : tensor_with(rng, t, dims, strides(rng, dims), -2, 2);
  const AlphaBeta ab = in_place ? AlphaBeta{1, 0} : rng.pick(kAlphaBeta);
  const Scaling alpha(ab.alpha), beta(ab.beta);
  const auto want = reference_lrn_forward(p, x, nullptr, alpha.value(t), beta.value(t), y0, compute_of(t));
  const LrnDesc nd(p);
  const TensorDesc xd(x), yd(y0);
  for (size_t h = 0; h < hs.all.size(); ++h) {
    HostTensor y = y0;
    if (ab.beta == 0 && !in_place) poison(y);
    const HostTensor before = y;
    Buffer yb = upload(y);
    const Buffer xb = upload(x);
    ASSERT_EQ(cudnnLRNCrossChannelForward(hs.all[h], nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, alpha.for_type(t), xd,
                                          in_place ? yb.get() : xb.get(), beta.for_type(t), yd, yb.get()),
              CUDNN_STATUS_SUCCESS)
        << describe(x, p, ab);
    download(yb, y);
    EXPECT_TRUE(matches(y, want)) << describe(x, p, ab) << (in_place ? " in place" : "") << " on " << engine_name(h);
    if (!in_place) EXPECT_TRUE(gaps_untouched(y, before)) << describe(x, p, ab) << " on " << engine_name(h);
  }
}

TEST(LrnCrossChannelForward, ChannelsLastRows) {
  EngineHandles hs;
  Rng rng(test_seed(304));
  for (int it = 0; it < 16; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const int rank = 4;  // cuDNN takes 5-d LRN tensors in NCDHW order only
    std::vector<int64_t> dims = random_dims(rng, rank, 6, 400);
    dims[1] = rng.integer(32, 100);
    const LrnParams p = random_params(rng, false, rank);
    check_forward_case(hs, rng, t, dims, p, channels_last_strides);
  }
}

TEST(LrnCrossChannelBackward, ChannelsLastRows) {
  EngineHandles hs;
  Rng rng(test_seed(305));
  for (int it = 0; it < 16; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const int rank = 4;  // cuDNN takes 5-d LRN tensors in NCDHW order only
    std::vector<int64_t> dims = random_dims(rng, rank, 6, 400);
    dims[1] = rng.integer(32, 100);
    const LrnParams p = random_params(rng, false, rank);
    check_backward_case(hs, rng, t, dims, p, channels_last_strides);
  }
}

// Packed NHWC with channel counts that allow 16-byte row loads (f32: 4,
// half: 8, double: 2 channels per load): the CUDA row kernels' vector path,
// short and long rows (fewer warps per CTA when rows are long).
std::vector<int64_t> packed_channels_last(Rng &, const std::vector<int64_t> &dims) {
  return packed_strides(dims, Layout::nhwc);
}

TEST(LrnCrossChannelForward, ChannelsLastVectorRows) {
  EngineHandles hs;
  Rng rng(test_seed(306));
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 32, 5, 7}, {1, 64, 3, 9}, {1, 256, 4, 5}, {2, 40, 9, 11}, {1, 1032, 2, 3}, {2, 520, 2, 2}};
  for (size_t it = 0; it < shapes.size() * 2; ++it) {
    const std::vector<int64_t> &dims = shapes[it % shapes.size()];
    const cudnnDataType_t t = rng.pick(kTypes);
    const LrnParams p = random_params(rng, false, 4);
    check_forward_case(hs, rng, t, dims, p, packed_channels_last);
  }
}

TEST(LrnCrossChannelBackward, ChannelsLastVectorRows) {
  EngineHandles hs;
  Rng rng(test_seed(307));
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 32, 5, 7}, {1, 64, 3, 9}, {1, 256, 4, 5}, {2, 40, 9, 11}, {1, 1032, 2, 3}, {2, 520, 2, 2}};
  for (size_t it = 0; it < shapes.size() * 2; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const LrnParams p = random_params(rng, false, 4);
    check_backward_case(hs, rng, t, shapes[it % shapes.size()], p, packed_channels_last);
  }
}

// Channels contiguous and 16-byte aligned rows of at most 128 vectors with
// n = 3 or 5: the CUDA engine's register row kernels (8, 16 or 32 lanes per
// row, 1, 2 or 4 vectors per lane, rows past the last position in a warp's
// step). Positions packed, or one 8-element vector apart; the innermost
// dim's lines packed, or a vector apart (positions no longer evenly spaced:
// the kernels' per-row offsets by divisions instead of a multiply).
std::vector<int64_t> vector_gap_channels_last(Rng &rng, const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size());
  s[1] = 1;
  int64_t next = dims[1] + (rng.coin(0.5) ? 8 : 0);
  const int64_t line_gap = rng.coin(0.5) ? 8 : 0;
  for (size_t d = dims.size() - 1; d >= 2; --d) {
    s[d] = next;
    next = s[d] * dims[d] + (d == dims.size() - 1 ? line_gap : 0);
  }
  s[0] = next;
  return s;
}

const std::vector<std::vector<int64_t>> kRegisterRowShapes = {
    {2, 4, 3, 5},  {1, 8, 3, 3},   {1, 24, 5, 3},  {3, 48, 2, 5},  {1, 96, 3, 7},
    {2, 200, 3, 3}, {1, 256, 4, 5}, {1, 384, 2, 5}, {1, 512, 3, 3}, {1, 1024, 2, 2}};

TEST(LrnCrossChannelForward, ChannelsLastRegisterRows) {
  EngineHandles hs;
  Rng rng(test_seed(308));
  for (const auto &dims : kRegisterRowShapes)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      LrnParams p = random_params(rng, false, 4);
      p.n = rng.coin() ? 5 : 3;
      check_forward_case(hs, rng, t, dims, p, vector_gap_channels_last);
    }
}

TEST(LrnCrossChannelBackward, ChannelsLastRegisterRows) {
  EngineHandles hs;
  Rng rng(test_seed(309));
  for (const auto &dims : kRegisterRowShapes)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      LrnParams p = random_params(rng, false, 4);
      p.n = rng.coin() ? 5 : 3;
      check_backward_case(hs, rng, t, dims, p, vector_gap_channels_last);
    }
}

// Half NHWC rows of 256 channels at more positions than the CUDA engine's
// persistent register-row grid holds at once on an H100 (about 5300 rows
// forward, 4200 backward): its warps take several steps, each loading the
// next step's rows before writing the current ones. GPU handles only (about
// 3 s on a 2-core CPU, where nothing of the sort exists).
TEST(LrnCrossChannelForward, ChannelsLastPersistentRows) {
  if (!gpu_mode()) GTEST_SKIP() << "a test of the CUDA engine's persistent grid";
  EngineHandles hs;
  Rng rng(test_seed(312));
  const LrnParams p{false, 5, 2.0, 0.75, 2.0};
  check_forward_case(hs, rng, CUDNN_DATA_HALF, {2, 256, 48, 64}, p, packed_channels_last);
}

TEST(LrnCrossChannelBackward, ChannelsLastPersistentRows) {
  if (!gpu_mode()) GTEST_SKIP() << "a test of the CUDA engine's persistent grid";
  EngineHandles hs;
  Rng rng(test_seed(313));
  const LrnParams p{false, 5, 2.0, 0.75, 2.0};
  check_backward_case(hs, rng, CUDNN_DATA_HALF, {2, 256, 48, 64}, p, packed_channels_last);
}

// NCHW-like planes with n = 3 or 5: the CUDA engine's plane kernels (V
// neighbouring positions of a channel per access along W, or along H x W
// merged when the planes are packed; 16-, 8- or 4-byte accesses as W, the
// gaps and the strides allow; channels in chunks, several per line). W a
// multiple of 8, of 4, of 2 only, odd; planes packed, 8 elements apart
// (vector path kept), 3 apart (no vector path); 4-d and 5-d.
std::vector<int64_t> plane_strides(Rng &rng, const std::vector<int64_t> &dims) {
  return planes_with_gaps(dims, rng.pick(std::vector<int64_t>{0, 0, 8, 3}));
}

const std::vector<std::vector<int64_t>> kPlaneShapes = {
    {2, 8, 3, 8},  {1, 70, 2, 16}, {2, 5, 4, 4},    {1, 3, 3, 6},     {3, 2, 2, 7},
    {1, 130, 1, 24}, {2, 17, 7, 7}, {1, 33, 14, 14}, {1, 1, 2, 8},     {2, 9, 2, 2, 8}};

TEST(LrnCrossChannelForward, PlaneVectors) {
  EngineHandles hs;
  Rng rng(test_seed(310));
  for (const auto &dims : kPlaneShapes)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      LrnParams p = random_params(rng, false, static_cast<int>(dims.size()));
      p.n = rng.coin() ? 5 : 3;
      check_forward_case(hs, rng, t, dims, p, plane_strides);
    }
}

TEST(LrnCrossChannelBackward, PlaneVectors) {
  EngineHandles hs;
  Rng rng(test_seed(311));
  for (const auto &dims : kPlaneShapes)
    for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}) {
      LrnParams p = random_params(rng, false, static_cast<int>(dims.size()));
      p.n = rng.coin() ? 5 : 3;
      check_backward_case(hs, rng, t, dims, p, plane_strides);
    }
}

// ---- Divisive normalization ------------------------------------------------------------

TEST(DivisiveNormalizationForward, RandomShapesLayoutsTypesMeansBlend) {
  EngineHandles hs;
  Rng rng(test_seed(304));
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const int rank = static_cast<int>(rng.integer(4, 5));
    const std::vector<int64_t> dims = random_lrn_dims(rng, rank, 1200);
    const LrnParams p = random_params(rng, true, rank);
    // x, means, temps and y share one descriptor layout (x and y strides must match).
    const std::vector<int64_t> strides = rng.coin(0.5) ? random_strides(rng, dims) : packed_strides(dims, Layout::nchw);
    const HostTensor x = tensor_with(rng, t, dims, strides, -3, 3);
    const bool with_means = rng.coin(0.6);
    const HostTensor m = tensor_with(rng, t, dims, strides, -1, 1);
    const HostTensor y0 = tensor_with(rng, t, dims, strides, -2, 2);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    const auto want = reference_lrn_forward(p, x, with_means ? &m : nullptr, alpha.value(t), beta.value(t), y0,
                                            compute_of(t));
    const LrnDesc nd(p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x), mb = upload(m), t1(x.bytes.size()), t2(x.bytes.size());
    for (size_t h = 0; h < hs.all.size(); ++h) {
      HostTensor y = y0;
      if (ab.beta == 0) poison(y);
      const HostTensor before = y;
      Buffer yb = upload(y);
      ASSERT_EQ(cudnnDivisiveNormalizationForward(hs.all[h], nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, alpha.for_type(t),
                                                  xd, xb.get(), with_means ? mb.get() : nullptr, t1.get(), t2.get(),
                                                  beta.for_type(t), xd, yb.get()),
                CUDNN_STATUS_SUCCESS)
          << describe(x, p, ab);
      download(yb, y);
      EXPECT_TRUE(matches(y, want)) << describe(x, p, ab) << " means " << with_means << " on " << engine_name(h);
      EXPECT_TRUE(gaps_untouched(y, before)) << describe(x, p, ab) << " on " << engine_name(h);
    }
  }
}

TEST(DivisiveNormalizationBackward, RandomShapesLayoutsTypesMeansBlend) {
  EngineHandles hs;
  Rng rng(test_seed(305));
  for (int it = 0; it < 40; ++it) {
    const cudnnDataType_t t = rng.pick(kTypes);
    const int rank = static_cast<int>(rng.integer(4, 5));
    const std::vector<int64_t> dims = random_lrn_dims(rng, rank, 1200);
    const LrnParams p = random_params(rng, true, rank);
    const std::vector<int64_t> strides = rng.coin(0.5) ? random_strides(rng, dims) : packed_strides(dims, Layout::nchw);
    const HostTensor x = tensor_with(rng, t, dims, strides, -3, 3);
    const bool with_means = rng.coin(0.6), with_dmeans = rng.coin(0.7);
    const HostTensor m = tensor_with(rng, t, dims, strides, -1, 1);
    const HostTensor dy = tensor_with(rng, t, dims, strides, -2, 2);
    const HostTensor dx0 = tensor_with(rng, t, dims, strides, -2, 2);
    const HostTensor dm0 = tensor_with(rng, t, dims, strides, -2, 2);
    const AlphaBeta ab = rng.pick(kAlphaBeta);
    const Scaling alpha(ab.alpha), beta(ab.beta);
    std::vector<Expect> want_dm;
    const auto want = reference_lrn_backward(p, x, with_means ? &m : nullptr, dy, alpha.value(t),
                                             beta.value(t), dx0, compute_of(t), &dm0, &want_dm);
    const LrnDesc nd(p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x), mb = upload(m), dyb = upload(dy), t1(x.bytes.size()), t2(x.bytes.size());
    for (size_t h = 0; h < hs.all.size(); ++h) {
      HostTensor dx = dx0, dm = dm0;
      if (ab.beta == 0) {
        poison(dx);
        poison(dm);
      }
      const HostTensor before = dx, dm_before = dm;
      Buffer dxb = upload(dx), dmb = upload(dm);
      ASSERT_EQ(cudnnDivisiveNormalizationBackward(hs.all[h], nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, alpha.for_type(t),
                                                   xd, xb.get(), with_means ? mb.get() : nullptr, dyb.get(), t1.get(),
                                                   t2.get(), beta.for_type(t), xd, dxb.get(),
                                                   with_dmeans ? dmb.get() : nullptr),
                CUDNN_STATUS_SUCCESS)
          << describe(x, p, ab);
      download(dxb, dx);
      download(dmb, dm);
      const std::string what = describe(x, p, ab) + " means " + std::to_string(with_means) + " dmeans " +
                               std::to_string(with_dmeans) + " on " + engine_name(h);
      EXPECT_TRUE(matches(dx, want)) << what;
      EXPECT_TRUE(gaps_untouched(dx, before)) << what;
      if (with_dmeans) EXPECT_TRUE(matches(dm, want_dm)) << what;
      else EXPECT_EQ(dm.bytes, dm_before.bytes) << what;
    }
  }
}

// ---- Finite differences -----------------------------------------------------------------

namespace {

// Forward through the API on double data; returns y in logical order.
std::vector<double> api_forward(cudnnHandle_t h, const LrnParams &p, const HostTensor &x, const HostTensor *m) {
  const LrnDesc nd(p);
  const TensorDesc xd(x);
  HostTensor y = x;
  const Buffer xb = upload(x), t1(x.bytes.size()), t2(x.bytes.size());
  Buffer yb = upload(y), mb = m ? upload(*m) : Buffer();
  const double one = 1, zero = 0;
  cudnnStatus_t st =
      p.divisive ? cudnnDivisiveNormalizationForward(h, nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, xd, xb.get(),
                                                     m ? mb.get() : nullptr, t1.get(), t2.get(), &zero, xd, yb.get())
                 : cudnnLRNCrossChannelForward(h, nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, xb.get(), &zero, xd,
                                               yb.get());
  EXPECT_EQ(st, CUDNN_STATUS_SUCCESS);
  download(yb, y);
  return y.values();
}

void finite_difference_case(const EngineHandles &hs, const LrnParams &p, const std::vector<int64_t> &dims, bool with_means,
                            uint64_t seed) {
  Rng rng(seed);
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  const std::vector<int64_t> s = packed_strides(dims, Layout::nchw);
  const HostTensor x = tensor_with(rng, t, dims, s, -2, 2), dy = tensor_with(rng, t, dims, s, -1, 1);
  const HostTensor m = tensor_with(rng, t, dims, s, -0.5, 0.5);
  const HostTensor *mp = with_means ? &m : nullptr;
  const cudnnHandle_t h = hs.main();
  // Analytic gradients through the API.
  HostTensor y = x, dx = x, dm = x;
  y.set_values(api_forward(h, p, x, mp));
  {
    const LrnDesc nd(p);
    const TensorDesc xd(x);
    const Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), mb = upload(m), t1(x.bytes.size()),
                 t2(x.bytes.size());
    Buffer dxb = upload(dx), dmb = upload(dm);
    const double one = 1, zero = 0;
    cudnnStatus_t st =
        p.divisive ? cudnnDivisiveNormalizationBackward(h, nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &one, xd, xb.get(),
                                                        mp ? mb.get() : nullptr, dyb.get(), t1.get(), t2.get(), &zero,
                                                        xd, dxb.get(), dmb.get())
                   : cudnnLRNCrossChannelBackward(h, nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, yb.get(), xd,
                                                  dyb.get(), xd, xb.get(), &zero, xd, dxb.get());
    ASSERT_EQ(st, CUDNN_STATUS_SUCCESS);
    download(dxb, dx);
    download(dmb, dm);
  }
  // L = sum(dy * y); dL/dx_i by central differences.
  const std::vector<double> dyv = dy.values(), dxv = dx.values(), dmv = dm.values();
  auto loss = [&](const HostTensor &xx, const HostTensor *mm) {
    const std::vector<double> yy = api_forward(h, p, xx, mm);
    double l = 0;
    for (size_t i = 0; i < yy.size(); ++i) l += dyv[i] * yy[i];
    return l;
  };
  const double eps = 1e-6;
  std::vector<double> xv = x.values(), mv = m.values();
  for (size_t i = 0; i < xv.size(); ++i) {
    HostTensor xp = x, xm = x;
    std::vector<double> v = xv;
    v[i] += eps;
    xp.set_values(v);
    v[i] -= 2 * eps;
    xm.set_values(v);
    const double fd = (loss(xp, mp) - loss(xm, mp)) / (2 * eps);
    EXPECT_NEAR(dxv[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "dx element " << i << " n=" << p.n;
    if (with_means) {
      HostTensor mpl = m, mmi = m;
      std::vector<double> w = mv;
      w[i] += eps;
      mpl.set_values(w);
      w[i] -= 2 * eps;
      mmi.set_values(w);
      const double fdm = (loss(x, &mpl) - loss(x, &mmi)) / (2 * eps);
      EXPECT_NEAR(dmv[i], fdm, 1e-6 * std::max(1.0, std::fabs(fdm))) << "dmeans element " << i << " n=" << p.n;
    }
  }
}

}  // namespace

TEST(LrnCrossChannelBackward, MatchesFiniteDifferences) {
  EngineHandles hs;
  finite_difference_case(hs, {false, 5, 2.0, 0.75, 1.0}, {2, 7, 2, 3}, false, 311);
  finite_difference_case(hs, {false, 4, 3.0, 1.3, 0.5}, {1, 6, 3, 2}, false, 312);
  finite_difference_case(hs, {false, 1, 1.0, 0.5, 2.0}, {1, 3, 2, 2, 2}, false, 313);
}

TEST(DivisiveNormalizationBackward, MatchesFiniteDifferences) {
  EngineHandles hs;
  finite_difference_case(hs, {true, 3, 2.0, 0.75, 1.0}, {1, 2, 4, 5}, true, 321);
  // Odd windows only: for even n cuDNN's dx sums over the mirrored window
  // (graph/op_lrn.hpp), which the random tests hold against the reference.
  finite_difference_case(hs, {true, 5, 3.0, 1.3, 0.5}, {2, 1, 3, 4}, false, 322);
  finite_difference_case(hs, {true, 1, 1.0, 0.5, 2.0}, {1, 2, 2, 3, 2}, true, 323);
}

// ---- Bad inputs ------------------------------------------------------------------------------

namespace {

struct BadCallSetup {
  cudnnHandle_t h = nullptr;
  cudnnLRNDescriptor_t nd = nullptr;
  cudnnTensorDescriptor_t x4 = nullptr, x3 = nullptr, x6 = nullptr, other_dims = nullptr, other_type = nullptr,
                          int8 = nullptr, neg = nullptr, nhwc5 = nullptr, strided = nullptr, bf16 = nullptr;
  Buffer a{4096}, b{4096}, c{4096}, d{4096}, e{4096};
  float one = 1, zero = 0;
  BadCallSetup() {
    EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateLRNDescriptor(&nd), CUDNN_STATUS_SUCCESS);
    make(&x4, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 20, 5, 1});
    make(&x3, CUDNN_DATA_FLOAT, {2, 3, 4}, {12, 4, 1});
    make(&x6, CUDNN_DATA_FLOAT, {2, 3, 2, 2, 2, 2}, {48, 16, 8, 4, 2, 1});
    make(&other_dims, CUDNN_DATA_FLOAT, {2, 3, 4, 6}, {72, 24, 6, 1});
    make(&other_type, CUDNN_DATA_HALF, {2, 3, 4, 5}, {60, 20, 5, 1});
    make(&int8, CUDNN_DATA_INT8, {2, 3, 4, 5}, {60, 20, 5, 1});
    make(&neg, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 20, -5, 1});
    make(&nhwc5, CUDNN_DATA_FLOAT, {2, 3, 2, 2, 2}, {24, 1, 12, 6, 3});
    make(&strided, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 1, 15, 3});
    make(&bf16, CUDNN_DATA_BFLOAT16, {2, 3, 4, 5}, {60, 20, 5, 1});
  }
  void make(cudnnTensorDescriptor_t *t, cudnnDataType_t type, std::vector<int> dims, std::vector<int> strides) {
    EXPECT_EQ(cudnnCreateTensorDescriptor(t), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetTensorNdDescriptor(*t, type, static_cast<int>(dims.size()), dims.data(), strides.data()),
              CUDNN_STATUS_SUCCESS);
  }
  ~BadCallSetup() {
    for (auto t : {x4, x3, x6, other_dims, other_type, int8, neg, nhwc5, strided, bf16}) cudnnDestroyTensorDescriptor(t);
    cudnnDestroyLRNDescriptor(nd);
    cudnnDestroy(h);
  }
};

}  // namespace

TEST(LrnCrossChannelForward, BadInputs) {
  BadCallSetup s;
  const auto M = CUDNN_LRN_CROSS_CHANNEL_DIM1;
  const char *fn = "cudnnLRNCrossChannelForward";
  auto call = [&](cudnnHandle_t h, cudnnLRNDescriptor_t nd, int mode, const void *al, cudnnTensorDescriptor_t xd,
                  const void *x, const void *be, cudnnTensorDescriptor_t yd, void *y) {
    return cudnnLRNCrossChannelForward(h, nd, static_cast<cudnnLRNMode_t>(mode), al, xd, x, be, yd, y);
  };
  void *x = s.a.get(), *y = s.b.get();
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, s.x4, x, &s.zero, s.x4, y), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(nullptr, s.nd, M, &s.one, s.x4, x, &s.zero, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "handle");
  EXPECT_FAILS_NAMING(call(s.h, nullptr, M, &s.one, s.x4, x, &s.zero, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "normDesc");
  // cuDNN 9.19 ignores lrnMode.
  EXPECT_EQ(call(s.h, s.nd, 1, &s.one, s.x4, x, &s.zero, s.x4, y), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, nullptr, s.x4, x, &s.zero, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "alpha");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x4, x, nullptr, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "beta");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, nullptr, x, &s.zero, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x4, nullptr, &s.zero, s.x4, y), CUDNN_STATUS_BAD_PARAM, fn, "x");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x4, x, &s.zero, s.x4, nullptr), CUDNN_STATUS_BAD_PARAM, fn, "y");
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, s.x3, x, &s.zero, s.x3, y), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, s.x6, x, &s.zero, s.x6, y), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x4, x, &s.zero, s.other_dims, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "dimensions");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x4, x, &s.zero, s.other_type, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "type");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.bf16, x, &s.zero, s.bf16, y), CUDNN_STATUS_NOT_SUPPORTED, fn,
                      "BFLOAT16");
  // cuDNN 9.19 runs INT8 here; FreeDNN does not (yet).
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.int8, x, &s.zero, s.int8, y), CUDNN_STATUS_NOT_SUPPORTED, fn,
                      "INT8");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.neg, x, &s.zero, s.x4, y), CUDNN_STATUS_NOT_SUPPORTED, fn,
                      "negative");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.nhwc5, x, &s.zero, s.nhwc5, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "packed");
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, s.strided, x, &s.zero, s.x4, y), CUDNN_STATUS_SUCCESS);
}

TEST(LrnCrossChannelBackward, BadInputs) {
  BadCallSetup s;
  const auto M = CUDNN_LRN_CROSS_CHANNEL_DIM1;
  const char *fn = "cudnnLRNCrossChannelBackward";
  void *y = s.a.get(), *dy = s.b.get(), *x = s.c.get(), *dx = s.d.get();
  auto call = [&](cudnnHandle_t h, cudnnLRNDescriptor_t nd, int mode, const void *al, cudnnTensorDescriptor_t yd,
                  const void *yp, cudnnTensorDescriptor_t dyd, const void *dyp, cudnnTensorDescriptor_t xd,
                  const void *xp, const void *be, cudnnTensorDescriptor_t dxd, void *dxp) {
    return cudnnLRNCrossChannelBackward(h, nd, static_cast<cudnnLRNMode_t>(mode), al, yd, yp, dyd, dyp, xd, xp, be,
                                        dxd, dxp);
  };
  const auto X = s.x4;
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, y, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(nullptr, s.nd, M, &s.one, X, y, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_BAD_PARAM, fn,
                      "handle");
  EXPECT_FAILS_NAMING(call(s.h, nullptr, M, &s.one, X, y, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_BAD_PARAM, fn,
                      "normDesc");
  EXPECT_EQ(call(s.h, s.nd, 3, &s.one, X, y, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, nullptr, X, y, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_BAD_PARAM, fn,
                      "alpha");
  // y is not read (cuDNN recomputes it), so it may be NULL.
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, nullptr, X, dy, X, x, &s.zero, X, dx), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, nullptr, X, x, &s.zero, X, dx), CUDNN_STATUS_BAD_PARAM, fn,
                      "dy");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, dy, X, nullptr, &s.zero, X, dx), CUDNN_STATUS_BAD_PARAM, fn,
                      "x");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, dy, X, x, &s.zero, X, nullptr), CUDNN_STATUS_BAD_PARAM, fn,
                      "dx");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, dy, s.x3, x, &s.zero, X, dx), CUDNN_STATUS_NOT_SUPPORTED, fn,
                      "dimensions");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.nhwc5, y, s.nhwc5, dy, s.nhwc5, x, &s.zero, s.nhwc5, dx),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "packed");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, s.other_dims, dy, X, x, &s.zero, X, dx),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "dimensions");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, dy, X, x, &s.zero, s.other_type, dx),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "type");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, y, X, dy, s.neg, x, &s.zero, X, dx), CUDNN_STATUS_NOT_SUPPORTED,
                      fn, "negative");
}

TEST(DivisiveNormalizationForward, BadInputs) {
  BadCallSetup s;
  const auto M = CUDNN_DIVNORM_PRECOMPUTED_MEANS;
  const char *fn = "cudnnDivisiveNormalizationForward";
  void *x = s.a.get(), *m = s.b.get(), *t1 = s.c.get(), *t2 = s.d.get(), *y = s.e.get();
  auto call = [&](cudnnHandle_t h, cudnnLRNDescriptor_t nd, int mode, const void *al, cudnnTensorDescriptor_t xd,
                  const void *xp, const void *mp, void *a1, void *a2, const void *be, cudnnTensorDescriptor_t yd,
                  void *yp) {
    return cudnnDivisiveNormalizationForward(h, nd, static_cast<cudnnDivNormMode_t>(mode), al, xd, xp, mp, a1, a2, be,
                                             yd, yp);
  };
  const auto X = s.x4;
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, x, nullptr, t1, t2, &s.zero, X, y), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(nullptr, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "handle");
  EXPECT_FAILS_NAMING(call(s.h, nullptr, M, &s.one, X, x, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "normDesc");
  EXPECT_EQ(call(s.h, s.nd, 1, &s.one, X, x, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_SUCCESS);  // mode ignored
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, s.other_type, y), CUDNN_STATUS_BAD_PARAM,
                      fn, "type");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.bf16, x, m, t1, t2, &s.zero, s.bf16, y),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "BFLOAT16");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, nullptr, X, x, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "alpha");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, nullptr, m, t1, t2, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "x");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, nullptr, t2, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "temp");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, t1, nullptr, &s.zero, X, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "temp2");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, X, nullptr), CUDNN_STATUS_BAD_PARAM, fn,
                      "y");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x3, x, m, t1, t2, &s.zero, s.x3, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "xDesc");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x6, x, m, t1, t2, &s.zero, s.x6, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "xDesc");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, s.other_dims, y), CUDNN_STATUS_BAD_PARAM,
                      fn, "dimensions");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, t1, t2, &s.zero, s.strided, y), CUDNN_STATUS_NOT_SUPPORTED,
                      fn, "strides");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.neg, x, m, t1, t2, &s.zero, s.neg, y), CUDNN_STATUS_BAD_PARAM, fn,
                      "negative");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.int8, x, m, t1, t2, &s.zero, s.int8, y),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "INT8");
}

TEST(DivisiveNormalizationBackward, BadInputs) {
  BadCallSetup s;
  const auto M = CUDNN_DIVNORM_PRECOMPUTED_MEANS;
  const char *fn = "cudnnDivisiveNormalizationBackward";
  void *x = s.a.get(), *dy = s.b.get(), *t1 = s.c.get(), *t2 = s.d.get(), *dx = s.e.get();
  Buffer mb(4096), dmb(4096);
  void *m = mb.get(), *dm = dmb.get();
  auto call = [&](cudnnHandle_t h, cudnnLRNDescriptor_t nd, int mode, const void *al, cudnnTensorDescriptor_t xd,
                  const void *xp, const void *mp, const void *dyp, void *a1, void *a2, const void *be,
                  cudnnTensorDescriptor_t dxd, void *dxp, void *dmp) {
    return cudnnDivisiveNormalizationBackward(h, nd, static_cast<cudnnDivNormMode_t>(mode), al, xd, xp, mp, dyp, a1,
                                              a2, be, dxd, dxp, dmp);
  };
  const auto X = s.x4;
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, X, dx, dm), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(call(s.h, s.nd, M, &s.one, X, x, nullptr, dy, t1, t2, &s.zero, X, dx, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(call(nullptr, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, X, dx, dm), CUDNN_STATUS_BAD_PARAM,
                      fn, "handle");
  EXPECT_FAILS_NAMING(call(s.h, nullptr, M, &s.one, X, x, m, dy, t1, t2, &s.zero, X, dx, dm), CUDNN_STATUS_BAD_PARAM,
                      fn, "normDesc");
  EXPECT_EQ(call(s.h, s.nd, 2, &s.one, X, x, m, dy, t1, t2, &s.zero, X, dx, dm), CUDNN_STATUS_SUCCESS);  // mode ignored
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, s.other_type, dx, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "type");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, nullptr, X, dx, dm), CUDNN_STATUS_BAD_PARAM, fn,
                      "beta");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, nullptr, t1, t2, &s.zero, X, dx, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "dy");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, X, nullptr, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "dx");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, nullptr, t2, &s.zero, X, dx, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "temp");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, s.other_dims, dx, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "dimensions");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, s.x6, x, m, dy, t1, t2, &s.zero, s.x6, dx, dm),
                      CUDNN_STATUS_BAD_PARAM, fn, "xDesc");
  EXPECT_FAILS_NAMING(call(s.h, s.nd, M, &s.one, X, x, m, dy, t1, t2, &s.zero, s.strided, dx, dm),
                      CUDNN_STATUS_NOT_SUPPORTED, fn, "strides");
}
