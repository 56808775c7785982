// The fast CPU batch-norm engine (cpu.normalization) on the paths the random
// API tests (small shapes) do not reach: problems large enough for the
// thread pool and for several tiles per statistics set, rows longer than a
// tile, large channel counts, NHWC with few and odd channel counts (folded
// rows) and without a fold, per-activation sets cut into column chunks, half
// and bfloat16, data far from zero (the variance must not cancel). Each case
// runs forward training (Ex, add + clipped relu, running and saved stats),
// inference and backward (Ex, from the forward's reserve space) on a handle
// pinned to cpu.normalization, against tests/common/normalization_reference,
// and twice for bitwise-identical results.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/expect_status.hpp"
#include "common/normalization_reference.hpp"
#include "common/normalization_params.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

struct PathCase {
  cudnnDataType_t t;
  std::vector<int64_t> dims;
  Layout layout;
  bool per_activation;
  double lo, hi;  // x's range
  const char *why;
};

bool same_bytes(const HostTensor &a, const HostTensor &b) { return a.bytes == b.bytes; }

// A CPU handle pinned to cpu.normalization (skipped on a GPU), and the loop
// that runs a table of cases on it with consecutive seeds.
class CpuNormalizationPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu_mode()) GTEST_SKIP() << "CPU engine";
    ScopedEnv pin("FREEDNN_ENGINE", "cpu.normalization");
    ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (h) cudnnDestroy(h);
  }

  // Stops at the first case with a fatal failure.
  template <class Case, size_t N>
  void run_all(const Case (&cases)[N], uint64_t seed, void (*run)(cudnnHandle_t, const Case &, uint64_t)) {
    for (const Case &c : cases) {
      run(h, c, seed++);
      if (HasFatalFailure()) break;
    }
  }

  cudnnHandle_t h = nullptr;
};

void run_case(cudnnHandle_t h, const PathCase &c, uint64_t seed) {
  Rng rng(test_seed(seed));
  const bool dbl = c.t == CUDNN_DATA_DOUBLE;
  const cudnnDataType_t pt = param_type(c.t);
  const auto mode = c.per_activation ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
  const std::string what = std::string(c.why) + " (" + type_name(c.t) + ")";
  auto tensor = [&](double lo, double hi) {
    HostTensor t = make_tensor(c.t, c.dims, packed_strides(c.dims, c.layout));
    fill_random(t, rng, lo, hi);
    return t;
  };
  HostTensor x = tensor(c.lo, c.hi), z = tensor(-1, 1), y = tensor(-1, 1), dy = tensor(-2, 2), dx = tensor(-1, 1);
  HostTensor dz = tensor(-1, 1), yi_prior = tensor(-1, 1);
  const std::vector<int64_t> pd = param_dims(c.dims, c.per_activation);
  NormRefShape s{c.dims, c.per_activation};
  const size_t sets = static_cast<size_t>(s.sets());
  const double m = static_cast<double>(s.count());
  const std::vector<double> scale = random_values(rng, sets, -2, 2, pt), bias = random_values(rng, sets, -1, 1, pt);
  const std::vector<double> rmean = random_values(rng, sets, -1, 1, pt), rvar = random_values(rng, sets, 0.5, 2, pt);
  const std::vector<double> ds_prior = random_values(rng, sets, -1, 1, pt), db_prior = random_values(rng, sets, -1, 1, pt);
  const double eps = 1e-5, factor = 0.25, clip = 1.5;
  NormRefAct act;
  act.relu = true;
  act.clip = clip;

  TensorDesc xd(x), bnd_src(pt, pd, packed_strides(pd, Layout::nchw));
  cudnnTensorDescriptor_t bnd = bnd_src.get();
  cudnnActivationDescriptor_t ad = nullptr;
  ASSERT_EQ(cudnnCreateActivationDescriptor(&ad), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_PROPAGATE_NAN, clip),
            CUDNN_STATUS_SUCCESS);
  const auto bops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
  size_t rs = 0;
  ASSERT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, bops, ad, xd, &rs), CUDNN_STATUS_SUCCESS);

  // Expected forward results.
  const NormRefStats st = norm_batch_stats(s, x);
  const BnTrainingExpect want = bn_training_expect(st, rmean, rvar, eps, factor, m, dbl);
  const std::vector<double> &inv = want.inv;
  const Scaling one(1), zero(0), half(0.5), minus(-0.5);
  poison(y);
  const std::vector<Expect> want_y = norm_forward_expect(s, x, &z, scale, bias, st.mean, inv, act, 1, 0, y, dbl);
  const std::vector<double> pre = norm_pre_activation(s, x, &z, scale, bias, st.mean, inv);
  const std::vector<Expect> &want_mean = want.mean, &want_inv = want.inv_std, &want_rm = want.running_mean,
                            &want_rv = want.running_var;

  struct Results {
    HostTensor y, mean, inv, rm, rv, mask, yi, dx, dz, ds, db;
  };
  auto run_once = [&](Results &r) {
    TensorDesc td(x);
    Buffer xb = upload(x), zb = upload(z), yb = upload(y), yib = upload(yi_prior), dyb = upload(dy), dxb = upload(dx);
    Buffer dzb = upload(dz);
    Buffer sb = upload(param_tensor(pt, pd, scale)), bb = upload(param_tensor(pt, pd, bias));
    Buffer rmb = upload(param_tensor(pt, pd, rmean)), rvb = upload(param_tensor(pt, pd, rvar));
    HostTensor sm = param_tensor(pt, pd, std::vector<double>(sets, 0));
    poison(sm);
    Buffer smb = upload(sm), sib = upload(sm);
    Buffer dsb = upload(param_tensor(pt, pd, ds_prior)), dbb = upload(param_tensor(pt, pd, db_prior));
    Buffer rsb(rs);
    ASSERT_EQ(cudnnBatchNormalizationForwardTrainingEx(h, mode, bops, one.for_type(c.t), zero.for_type(c.t), td,
                                                       xb.get(), td, zb.get(), td, yb.get(), bnd, sb.get(), bb.get(),
                                                       factor, rmb.get(), rvb.get(), eps, smb.get(), sib.get(), ad,
                                                       nullptr, 0, rsb.get(), rs),
              CUDNN_STATUS_SUCCESS)
        << what << ": " << last_error();
    r.y = y;
    download(yb, r.y);
    r.mean = r.inv = r.rm = r.rv = sm;
    download(smb, r.mean);
    download(sib, r.inv);
    download(rmb, r.rm);
    download(rvb, r.rv);
    r.mask = make_tensor(CUDNN_DATA_UINT8, {static_cast<int64_t>(rs)}, {1});
    download(rsb, r.mask);
    // Inference from the running statistics just written, alpha/beta blend.
    ASSERT_EQ(cudnnBatchNormalizationForwardInference(h, mode, half.for_type(c.t), minus.for_type(c.t), td, xb.get(),
                                                      td, yib.get(), bnd, sb.get(), bb.get(), rmb.get(), rvb.get(),
                                                      eps),
              CUDNN_STATUS_SUCCESS)
        << what << ": " << last_error();
    r.yi = yi_prior;
    download(yib, r.yi);
    // Backward from the saved statistics and the reserve space.
    ASSERT_EQ(cudnnBatchNormalizationBackwardEx(h, mode, bops, one.for_type(c.t), zero.for_type(c.t),
                                                one.for_type(c.t), one.for_type(c.t), td, xb.get(), td, yb.get(), td,
                                                dyb.get(), td, dzb.get(), td, dxb.get(), bnd, sb.get(), bb.get(),
                                                dsb.get(), dbb.get(), eps, smb.get(), sib.get(), ad, nullptr, 0,
                                                rsb.get(), rs),
              CUDNN_STATUS_SUCCESS)
        << what << ": " << last_error();
    r.dx = dx;
    download(dxb, r.dx);
    r.dz = dz;
    download(dzb, r.dz);
    r.ds = r.db = sm;
    download(dsb, r.ds);
    download(dbb, r.db);
  };
  poison(dx);
  poison(dz);
  Results a, b;
  run_once(a);
  if (::testing::Test::HasFatalFailure()) return;
  run_once(b);
  if (::testing::Test::HasFatalFailure()) return;

  EXPECT_TRUE(matches(a.y, want_y)) << "y " << what;
  EXPECT_TRUE(matches(a.mean, want_mean)) << "saved mean " << what;
  EXPECT_TRUE(matches(a.inv, want_inv)) << "saved inv variance " << what;
  EXPECT_TRUE(matches(a.rm, want_rm)) << "running mean " << what;
  EXPECT_TRUE(matches(a.rv, want_rv)) << "running variance " << what;

  // The mask: one byte per element at its own offset (packed x); where the
  // pre-activation sits within rounding of a kink either answer is right.
  std::vector<bool> pass;
  int64_t e = 0, bad = 0;
  const double vtol = dbl ? 1e-9 : 1e-3;
  for_each_index(c.dims, [&](const std::vector<int64_t> &idx) {
    const bool got = a.mask.bytes[static_cast<size_t>(x.lane_offset(idx))] != 0;
    const double v = pre[static_cast<size_t>(e++)];
    const bool ambiguous = std::fabs(v) < vtol * 10 || std::fabs(v - clip) < vtol * 10;
    if (!ambiguous && got != norm_act_passes(act, v)) ++bad;
    pass.push_back(got);
  });
  EXPECT_EQ(bad, 0) << "mask " << what;

  // Inference expectation from the running statistics the forward wrote.
  {
    std::vector<double> rm = a.rm.values(), rv = a.rv.values(), iv(sets);
    for (size_t k = 0; k < sets; ++k) iv[k] = 1 / std::sqrt(rv[k] + eps);
    const std::vector<Expect> want_yi =
        norm_forward_expect(s, x, nullptr, scale, bias, rm, iv, NormRefAct{}, 0.5, -0.5, yi_prior, dbl);
    EXPECT_TRUE(matches(a.yi, want_yi)) << "inference y " << what;
  }

  // Backward expectation from the saved statistics the forward wrote.
  {
    const std::vector<double> mean = a.mean.values(), iv = a.inv.values();
    const NormRefGrad want =
        norm_backward_expect(s, x, dy, &pass, scale, mean, iv, 1, 0, dx, 1, 1, ds_prior, db_prior, dbl);
    EXPECT_TRUE(matches(a.dx, want.dx)) << "dx " << what;
    EXPECT_TRUE(matches(a.dz, want.dz)) << "dz " << what;
    EXPECT_TRUE(matches(a.ds, want.dscale)) << "dscale " << what;
    EXPECT_TRUE(matches(a.db, want.dbias)) << "dbias " << what;
  }

  // Deterministic: a second run gives the same bits.
  EXPECT_TRUE(same_bytes(a.y, b.y) && same_bytes(a.mean, b.mean) && same_bytes(a.inv, b.inv) &&
              same_bytes(a.rm, b.rm) && same_bytes(a.rv, b.rv) && same_bytes(a.mask, b.mask) &&
              same_bytes(a.yi, b.yi) && same_bytes(a.dx, b.dx) && same_bytes(a.dz, b.dz) &&
              same_bytes(a.ds, b.ds) && same_bytes(a.db, b.db))
      << "second run differs: " << what;
  cudnnDestroyActivationDescriptor(ad);
}

const PathCase kCases[] = {
    {CUDNN_DATA_FLOAT, {40, 5, 30, 30}, Layout::nchw, false, -3, 5, "NCHW, several row blocks per channel"},
    {CUDNN_DATA_FLOAT, {2, 3, 100, 100}, Layout::nchw, false, -3, 5, "NCHW, rows longer than a tile"},
    {CUDNN_DATA_FLOAT, {8, 300, 6, 7}, Layout::nchw, false, -3, 5, "NCHW, many channels, short rows"},
    {CUDNN_DATA_FLOAT, {64, 3, 20, 20}, Layout::nhwc, false, -3, 5, "NHWC C=3, folded rows"},
    {CUDNN_DATA_FLOAT, {1, 5, 1, 4099}, Layout::nhwc, false, -3, 5, "NHWC C=5, rows that cannot fold"},
    {CUDNN_DATA_HALF, {4, 1000, 5, 5}, Layout::nhwc, false, -3, 5, "NHWC, 1000 channels, half"},
    {CUDNN_DATA_BFLOAT16, {6, 64, 12, 12}, Layout::nchw, true, -3, 5, "per activation, column chunks, bfloat16"},
    {CUDNN_DATA_FLOAT, {16, 24, 9, 9}, Layout::nhwc, true, -3, 5, "per activation NHWC"},
    {CUDNN_DATA_DOUBLE, {8, 33, 9, 11}, Layout::nhwc, false, -3, 5, "NHWC C=33, double"},
    {CUDNN_DATA_HALF, {32, 7, 16, 16}, Layout::nchw, false, -3, 5, "NCHW, half"},
    {CUDNN_DATA_FLOAT, {16, 4, 40, 40}, Layout::nchw, false, 1000, 1001, "NCHW, data far from zero"},
    {CUDNN_DATA_FLOAT, {32, 6, 20, 20}, Layout::nhwc, false, 1000, 1001, "NHWC, data far from zero"},
    // Float NHWC with C a multiple of 16 up to 128: the register-resident
    // statistics and gradient-sum kernels (chan_stats, chan_grad).
    {CUDNN_DATA_FLOAT, {9, 48, 7, 11}, Layout::nhwc, false, -3, 5, "NHWC C=48, a partial last tile"},
    {CUDNN_DATA_FLOAT, {5, 128, 13, 9}, Layout::nhwc, false, 1000, 1001, "NHWC C=128, data far from zero"},
    {CUDNN_DATA_FLOAT, {7, 16, 31, 17}, Layout::nhwc, false, -3, 5, "NHWC C=16, odd rows"},
    {CUDNN_DATA_FLOAT, {30, 16, 1, 2}, Layout::nhwc, true, -3, 5, "per activation NHWC, 32 sets a row"},
    // Float NHWC with 512 or more channels: chan_stats (and from 1024
    // channels chan_grad) per 128-column block, tiles of at least 64 rows,
    // the finish by blocks of sets.
    {CUDNN_DATA_FLOAT, {6, 2048, 5, 7}, Layout::nhwc, false, 1000, 1001, "NHWC C=2048, data far from zero"},
    {CUDNN_DATA_FLOAT, {5, 1040, 6, 5}, Layout::nhwc, false, -3, 5, "NHWC C=1040, a 16-column last block"},
};

}  // namespace

TEST_F(CpuNormalizationPaths, LargeShapesLayoutsTypes) { run_all(kCases, 901, run_case); }

// ---- One-pass forward kernels --------------------------------------------------
// Plain forward training and inference (no fused ops, beta = 0) of layouts
// whose channels are innermost run y = (alpha a) x + alpha b through the
// storage type's row kernel, and training gathers the statistics by
// Welford's update in one sweep, or for float with C a multiple of 16 up to
// 128 by the register two-pass chan_stats (normalization_kernels.hpp); a
// plain backward follows (dx along the row, chan_grad's sums). Shapes reach
// the vector bodies and the tails (odd channel counts), folded and unfolded
// rows, per-activation sets, data far from zero, and an output large enough
// to be streamed, one element off a cache line's start. y and dx are
// NaN-poisoned.

namespace {

struct PlainCase {
  cudnnDataType_t t;
  std::vector<int64_t> dims;
  Layout layout;
  bool per_activation;
  double lo, hi, alpha;
  size_t y_offset;  // bytes between the allocation and y
  const char *why;
};

void run_plain(cudnnHandle_t h, const PlainCase &c, uint64_t seed) {
  Rng rng(test_seed(seed));
  const bool dbl = c.t == CUDNN_DATA_DOUBLE;
  const cudnnDataType_t pt = param_type(c.t);
  const auto mode = c.per_activation ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  const std::string what = std::string(c.why) + " (" + type_name(c.t) + ")";
  HostTensor x = make_tensor(c.t, c.dims, packed_strides(c.dims, c.layout));
  fill_random(x, rng, c.lo, c.hi);
  HostTensor y = make_tensor(c.t, c.dims, packed_strides(c.dims, c.layout));
  poison(y);
  const std::vector<int64_t> pd = param_dims(c.dims, c.per_activation);
  NormRefShape s{c.dims, c.per_activation};
  const size_t sets = static_cast<size_t>(s.sets());
  const double m = static_cast<double>(s.count());
  const std::vector<double> scale = random_values(rng, sets, -2, 2, pt), bias = random_values(rng, sets, -1, 1, pt);
  const std::vector<double> rmean = random_values(rng, sets, -1, 1, pt), rvar = random_values(rng, sets, 0.5, 2, pt);
  const double eps = 1e-5, factor = 0.5;

  const NormRefStats st = norm_batch_stats(s, x);
  const BnTrainingExpect want = bn_training_expect(st, rmean, rvar, eps, factor, m, dbl);
  const std::vector<double> &inv = want.inv;
  const std::vector<Expect> want_y =
      norm_forward_expect(s, x, nullptr, scale, bias, st.mean, inv, NormRefAct{}, c.alpha, 0, y, dbl);
  const std::vector<Expect> &want_mean = want.mean, &want_inv = want.inv_std, &want_rm = want.running_mean,
                            &want_rv = want.running_var;

  TensorDesc td(x), bnd(pt, pd, packed_strides(pd, Layout::nchw));
  const Scaling alpha(c.alpha), zero(0);
  Buffer xb = upload(x), sb = upload(param_tensor(pt, pd, scale)), bb = upload(param_tensor(pt, pd, bias));
  Buffer rmb = upload(param_tensor(pt, pd, rmean)), rvb = upload(param_tensor(pt, pd, rvar));
  HostTensor sm = param_tensor(pt, pd, std::vector<double>(sets, 0));
  poison(sm);
  Buffer smb = upload(sm), sib = upload(sm);
  // y at y_offset bytes into its allocation, poisoned.
  Buffer yb(y.bytes.size() + c.y_offset);
  std::vector<uint8_t> image(c.y_offset, 0);
  image.insert(image.end(), y.bytes.begin(), y.bytes.end());
  yb.upload(image.data(), image.size());
  void *yp = static_cast<char *>(yb.get()) + c.y_offset;
  auto y_result = [&] {
    HostTensor r = y;
    const std::vector<uint8_t> all = yb.download();
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(c.y_offset), all.end(), r.bytes.begin());
    return r;
  };
  ASSERT_EQ(cudnnBatchNormalizationForwardTraining(h, mode, alpha.for_type(c.t), zero.for_type(c.t), td, xb.get(), td,
                                                   yp, bnd, sb.get(), bb.get(), factor, rmb.get(), rvb.get(), eps,
                                                   smb.get(), sib.get()),
            CUDNN_STATUS_SUCCESS)
      << what << ": " << last_error();
  HostTensor mean = sm, iv = sm, rm = sm, rv = sm;
  download(smb, mean);
  download(sib, iv);
  download(rmb, rm);
  download(rvb, rv);
  EXPECT_TRUE(matches(y_result(), want_y)) << "y " << what;
  EXPECT_TRUE(matches(mean, want_mean)) << "saved mean " << what;
  EXPECT_TRUE(matches(iv, want_inv)) << "saved inv variance " << what;
  EXPECT_TRUE(matches(rm, want_rm)) << "running mean " << what;
  EXPECT_TRUE(matches(rv, want_rv)) << "running variance " << what;

  // Plain backward (no activation, no dz, beta 0: dx along the row, and
  // for float NHWC with 16-128 channels the register gradient sums) from
  // the saved statistics, dx alpha c.alpha, into a poisoned dx at y's offset.
  {
    HostTensor dy = make_tensor(c.t, c.dims, packed_strides(c.dims, c.layout)), dx = dy;
    fill_random(dy, rng, -2, 2);
    poison(dx);
    const std::vector<double> zeros(sets, 0.0);
    const NormRefGrad wg = norm_backward_expect(s, x, dy, nullptr, scale, mean.values(), iv.values(), c.alpha, 0, dx,
                                                1, 0, zeros, zeros, dbl);
    Buffer dyb = upload(dy), dsb = upload(sm), dbb = upload(sm);
    const Scaling one(1);
    ASSERT_EQ(cudnnBatchNormalizationBackward(h, mode, alpha.for_type(c.t), zero.for_type(c.t), one.for_type(c.t),
                                              zero.for_type(c.t), td, xb.get(), td, dyb.get(), td, yp, bnd, sb.get(),
                                              dsb.get(), dbb.get(), eps, smb.get(), sib.get()),
              CUDNN_STATUS_SUCCESS)
        << what << ": " << last_error();
    HostTensor ds = sm, db = sm;
    download(dsb, ds);
    download(dbb, db);
    EXPECT_TRUE(matches(y_result(), wg.dx)) << "backward dx " << what;
    EXPECT_TRUE(matches(ds, wg.dscale)) << "backward dscale " << what;
    EXPECT_TRUE(matches(db, wg.dbias)) << "backward dbias " << what;
  }

  // Inference from the running statistics just written, into a poisoned y
  // (not for the streamed case: the same row kernel as training's, and the
  // reference is most of this test's time).
  if (x.elements() > (int64_t{1} << 20)) return;
  yb.upload(image.data(), image.size());
  ASSERT_EQ(cudnnBatchNormalizationForwardInference(h, mode, alpha.for_type(c.t), zero.for_type(c.t), td, xb.get(),
                                                    td, yp, bnd, sb.get(), bb.get(), rmb.get(), rvb.get(), eps),
            CUDNN_STATUS_SUCCESS)
      << what << ": " << last_error();
  std::vector<double> rmv = rm.values(), rvv = rv.values(), iv2(sets);
  for (size_t k = 0; k < sets; ++k) iv2[k] = 1 / std::sqrt(rvv[k] + eps);
  EXPECT_TRUE(matches(y_result(),
                      norm_forward_expect(s, x, nullptr, scale, bias, rmv, iv2, NormRefAct{}, c.alpha, 0, y, dbl)))
      << "inference y " << what;
}

const PlainCase kPlainCases[] = {
    {CUDNN_DATA_FLOAT, {16, 64, 14, 14}, Layout::nhwc, false, -3, 5, 1, 0, "NHWC C=64, folded rows"},
    {CUDNN_DATA_BFLOAT16, {16, 64, 14, 14}, Layout::nhwc, false, -3, 5, 0.5, 0, "NHWC C=64, folded rows"},
    {CUDNN_DATA_HALF, {16, 64, 14, 14}, Layout::nhwc, false, -3, 5, 1, 2, "NHWC C=64, folded rows, y off 2 bytes"},
    {CUDNN_DATA_BFLOAT16, {8, 1000, 3, 5}, Layout::nhwc, false, -3, 5, 1, 0, "NHWC C=1000, column chunks"},
    {CUDNN_DATA_FLOAT, {7, 37, 11, 13}, Layout::nhwc, false, -3, 5, 2, 4, "NHWC C=37, tails, y off 4 bytes"},
    {CUDNN_DATA_HALF, {9, 45, 7, 7}, Layout::nhwc, false, -3, 5, 0.5, 0, "NHWC C=45, tails"},
    {CUDNN_DATA_BFLOAT16, {24, 32, 20, 20}, Layout::nhwc, false, 1000, 1001, 1, 0, "NHWC, data far from zero"},
    {CUDNN_DATA_FLOAT, {24, 32, 20, 20}, Layout::nhwc, false, 1000, 1001, 1, 0, "NHWC, data far from zero"},
    {CUDNN_DATA_BFLOAT16, {12, 3, 9, 9}, Layout::nchw, true, -3, 5, 1, 0, "per activation"},
    {CUDNN_DATA_DOUBLE, {12, 40, 9, 9}, Layout::nhwc, false, 100, 101, 0.5, 0, "NHWC, generic double loops"},
    {CUDNN_DATA_FLOAT, {16, 64, 64, 64}, Layout::nhwc, false, -3, 5, 0.5, 4, "NHWC, streamed output off 4 bytes"},
    {CUDNN_DATA_FLOAT, {9, 48, 7, 11}, Layout::nhwc, false, -3, 5, 1, 4, "NHWC C=48, y off 4 bytes"},
    {CUDNN_DATA_FLOAT, {5, 128, 13, 9}, Layout::nhwc, false, 1000, 1001, 0.5, 0, "NHWC C=128, far from zero"},
    {CUDNN_DATA_FLOAT, {30, 16, 1, 2}, Layout::nhwc, true, -3, 5, 1, 0, "per activation NHWC, 32 sets a row"},
    {CUDNN_DATA_FLOAT, {6, 2048, 5, 7}, Layout::nhwc, false, 1000, 1001, 0.5, 0, "NHWC C=2048, far from zero"},
    {CUDNN_DATA_FLOAT, {5, 1040, 6, 5}, Layout::nhwc, false, -3, 5, 1, 4, "NHWC C=1040, 16-column last block"},
    {CUDNN_DATA_FLOAT, {5, 528, 6, 5}, Layout::nhwc, false, 1000, 1001, 1, 0, "NHWC C=528, blocked statistics only"},
    {CUDNN_DATA_FLOAT, {3, 4096, 3, 5}, Layout::nhwc, false, 1000, 1001, 1, 0, "NHWC C=4096, two column chunks"},
    // 25 tiles of 64 rows: the pool threads' second passes (y, dx) take
    // their own tiles of the first pass, then the others' (TileLog).
    {CUDNN_DATA_FLOAT, {32, 512, 7, 7}, Layout::nhwc, false, -3, 5, 1, 0, "NHWC C=512, 25 tiles"},
};

}  // namespace

TEST_F(CpuNormalizationPaths, OnePassForwardKernels) { run_all(kPlainCases, 951, run_plain); }
