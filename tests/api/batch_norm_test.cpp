// Batch normalization through the public API: cudnnBatchNormalizationForward
// Inference / Training / Backward, the Ex variants with fused add and
// activation, and their size queries. Random shapes (4-d and 5-d), layouts
// (NCHW, NHWC, random strides, x and y independently), data types and
// alpha/beta are checked against tests/common/normalization_reference; on a
// CPU handle every problem also runs pinned to cpu.reference. Backward is
// also checked by finite differences of the forward training pass.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/normalization_reference.hpp"
#include "common/normalization_params.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                             CUDNN_DATA_BFLOAT16};

// A like-shaped tensor with its own random layout.
HostTensor like(Rng &rng, const HostTensor &x, double lo, double hi) { return random_layout(rng, x.dtype, x.dims, lo, hi); }

struct Case {
  cudnnDataType_t t;
  bool per_activation;
  cudnnBatchNormMode_t mode;
  std::vector<int64_t> dims;
  std::string text;
  bool force_nhwc = false;  // big cases: NHWC always (else a coin picks)
  bool force_nchw = false;  // big cases: NCHW always
};

Case random_case(Rng &rng, int max_elems = 1500) {
  Case c;
  c.t = rng.pick(kTypes);
  const int mode = static_cast<int>(rng.integer(0, 2));
  c.mode = static_cast<cudnnBatchNormMode_t>(mode);
  c.per_activation = mode == CUDNN_BATCHNORM_PER_ACTIVATION;
  const int rank = static_cast<int>(rng.integer(4, 5));
  do {
    c.dims = random_dims(rng, rank, 7, max_elems);
  } while (c.per_activation ? c.dims[0] < 2 : c.dims[0] * (c.dims[2] * c.dims[3] * (rank == 5 ? c.dims[4] : 1)) < 2);
  c.text = std::string(type_name(c.t)) + " mode " + std::to_string(mode) + " dims";
  for (int64_t d : c.dims) c.text += " " + std::to_string(d);
  return c;
}

// A large per-channel case with packed NCHW or NHWC dims whose extents suit
// the vectorised forms (C a multiple of 8, W of 8): over a MB, enough for the
// CUDA engine's persistent form (several channel groups) when it is enabled.
// many_channels: 320 to 640 channels of a few hundred elements each (more
// sets than the CUDA engine's persistent cluster grid has clusters, so each
// cluster walks several sets).
// wide: packed NHWC, float with 128 or half with 256 channels and 8192
// rows: the CUDA engine cuts each channel's reduction into 64 parts or more
// (its block-per-channel finalize kernels) and its channel tile spans whole
// rows.
Case wide_case(Rng &rng) {
  Case c;
  c.t = rng.coin(0.5) ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
  c.mode = rng.coin(0.5) ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  c.per_activation = false;
  c.force_nhwc = true;
  c.dims = {4, c.t == CUDNN_DATA_FLOAT ? 128 : 256, 256, 8};
  c.text = std::string(type_name(c.t)) + " wide NHWC mode " + std::to_string(static_cast<int>(c.mode));
  return c;
}

Case big_case(Rng &rng, bool many_channels = false) {
  Case c;
  c.t = rng.pick(kTypes);
  c.mode = rng.coin(0.5) ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  c.per_activation = false;
  const int64_t esize = c.t == CUDNN_DATA_DOUBLE ? 8 : c.t == CUDNN_DATA_FLOAT ? 4 : 2;
  const int64_t target = (int64_t{9} << 17) / esize;  // 1.1 MB
  const int64_t n = many_channels ? 2 : rng.integer(2, 6);
  const int64_t ch = 8 * (many_channels ? rng.integer(40, 80) : rng.integer(1, 12));
  const int64_t w = many_channels ? 8 : 8 * rng.integer(1, 6);
  const int64_t h = (target + n * ch * w - 1) / (n * ch * w);
  c.dims = {n, ch, h, w};
  c.text = std::string(type_name(c.t)) + " big mode " + std::to_string(static_cast<int>(c.mode)) + " dims";
  for (int64_t d : c.dims) c.text += " " + std::to_string(d);
  return c;
}

// huge: packed NHWC float, 256 channels, 45 MB on a GPU handle (more than
// the CUDA engine's grid form keeps on chip, forward and backward: it
// re-reads the rest of each thread's rows from memory), a small tensor of
// the same channels on the CPU.
Case huge_case(Rng &rng) {
  Case c;
  c.t = CUDNN_DATA_FLOAT;
  c.mode = rng.coin(0.5) ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  c.per_activation = false;
  c.force_nhwc = true;
  c.dims = {gpu_mode() ? 56 : 2, 256, 28, 28};
  c.text = std::string(type_name(c.t)) + " huge NHWC mode " + std::to_string(static_cast<int>(c.mode));
  return c;
}

// resident: packed NCHW, float, half or bfloat16, channels of 60-400 KB
// (x alone) in planes of random size (H*W a multiple of 8), about 20 MB of
// x on a GPU handle: the CUDA engine's resident cluster form (forward and
// backward; FREEDNN_NORM_TUNE=nrfwd: the forward on its older cluster
// kernel) runs with 2-16 blocks per channel (one or two channels per
// block), block slices ending inside planes, a shorter last block, and
// more channels than resident clusters (each walks several, its buffers
// refilled). A few channels of the same shapes on the CPU.
Case resident_case(Rng &rng) {
  Case c;
  c.t = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16});
  c.mode = rng.coin(0.5) ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  c.per_activation = false;
  c.force_nchw = true;
  const int64_t esize = c.t == CUDNN_DATA_FLOAT ? 4 : 2;
  const int64_t channel_bytes = rng.integer(60, 400) * 1024;
  const int64_t w = 8 * rng.integer(1, 6), h = rng.integer(2, 40);
  const int64_t n = (channel_bytes + h * w * esize - 1) / (h * w * esize);
  const int64_t ch = gpu_mode() ? std::max<int64_t>(8, (int64_t{20} << 20) / (n * h * w * esize)) : 3;
  c.dims = {n, ch, h, w};
  c.text = std::string(type_name(c.t)) + " resident NCHW mode " + std::to_string(static_cast<int>(c.mode)) + " dims";
  for (int64_t d : c.dims) c.text += " " + std::to_string(d);
  return c;
}

// A tensor with x's strides and random values in [lo, hi].
HostTensor same_layout(Rng &rng, const HostTensor &x, double lo, double hi) {
  HostTensor t = make_tensor(x.dtype, x.dims, x.strides);
  fill_random(t, rng, lo, hi);
  return t;
}

HostTensor big_layout(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims, double lo, double hi,
                      bool force_nhwc = false, bool force_nchw = false) {
  const bool nchw = force_nchw || (rng.coin(0.5) && !force_nhwc);
  HostTensor x = make_tensor(t, dims, packed_strides(dims, nchw ? Layout::nchw : Layout::nhwc));
  fill_random(x, rng, lo, hi);
  return x;
}

// Tolerance for a statistic computed in float (or double).
struct Scal {
  Scaling a, b;
  Scal(double x, double y) : a(x), b(y) {}
};

cudnnActivationDescriptor_t make_activation(cudnnActivationMode_t m, double coef) {
  cudnnActivationDescriptor_t a = nullptr;
  EXPECT_EQ(cudnnCreateActivationDescriptor(&a), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetActivationDescriptor(a, m, CUDNN_PROPAGATE_NAN, coef), CUDNN_STATUS_SUCCESS);
  return a;
}

// x of case c: a big case's packed layout (pick_case), else a random one.
HostTensor case_x(Rng &rng, const Case &c, int big, double lo, double hi) {
  return big ? big_layout(rng, c.t, c.dims, lo, hi, c.force_nhwc, c.force_nchw) : random_layout(rng, c.t, c.dims, lo, hi);
}
// Another operand of x's case: x's strides for big cases, else any layout.
HostTensor case_like(Rng &rng, const HostTensor &x, int big, double lo, double hi) {
  return big ? same_layout(rng, x, lo, hi) : like(rng, x, lo, hi);
}

// The fused activation of a training call with `ops` (0: none): RELU,
// CLIPPED_RELU (at 1.5) or IDENTITY, as a descriptor's mode and coefficient
// and as the reference's.
struct FusedActivation {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
  double coef = 0;
  NormRefAct ref;
};
FusedActivation pick_fused_activation(Rng &rng, int ops) {
  FusedActivation f;
  if (ops == 0) return f;
  f.mode = rng.pick(std::vector<cudnnActivationMode_t>{CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
                                                       CUDNN_ACTIVATION_IDENTITY});
  f.ref.relu = f.mode != CUDNN_ACTIVATION_IDENTITY;
  if (f.mode == CUDNN_ACTIVATION_CLIPPED_RELU) f.ref.clip = f.coef = 1.5;
  return f;
}

// ---- Forward training (plain, Ex with fused ops, generic API) -------------

enum class Api { legacy, ex, generic };

// big: 1 big_case, 2 many channels, 3 wide, 4 huge, 5 resident
Case pick_case(Rng &rng, int big) {
  switch (big) {
    case 5: return resident_case(rng);
    case 4: return huge_case(rng);
    case 3: return wide_case(rng);
    case 0: return random_case(rng);
    default: return big_case(rng, big == 2);
  }
}

void run_forward_training(Api api, uint64_t seed, int iterations, int big = 0) {
  EngineHandles hs;
  Rng rng(test_seed(seed));
  for (int it = 0; it < iterations; ++it) {
    Case c = pick_case(rng, big);
    const bool dbl = c.t == CUDNN_DATA_DOUBLE;
    const int ops = api == Api::legacy ? 0 : static_cast<int>(rng.integer(0, 2));
    const FusedActivation fa = pick_fused_activation(rng, ops);
    const NormRefAct &act = fa.ref;
    const cudnnActivationMode_t amode = fa.mode;
    const double coef = fa.coef;
    HostTensor x = case_x(rng, c, big, -3, 5), y = case_like(rng, x, big, -2, 2), z = case_like(rng, x, big, -1, 1);
    const std::vector<int64_t> pd = param_dims(c.dims, c.per_activation);
    const cudnnDataType_t pt = param_type(c.t);
    NormRefShape s{c.dims, c.per_activation};
    const size_t sets = static_cast<size_t>(s.sets());
    std::vector<double> scale = random_values(rng, sets, -2, 2, pt), bias = random_values(rng, sets, -1, 1, pt);
    std::vector<double> rmean = random_values(rng, sets, -1, 1, pt), rvar = random_values(rng, sets, 0.5, 2, pt);
    const bool running = rng.coin(0.7), saved = rng.coin(0.7);
    const double factor = rng.pick(std::vector<double>{1.0, 0.1, 0.5, 0.0});
    const double eps = rng.pick(std::vector<double>{1e-5, 1e-3, 0.0, 0.1});
    const Scal ab = rng.pick(std::vector<Scal>{{1, 0}, {1, 0}, {0.5, 0}, {1, 1}, {2, -0.5}});
    const bool poison_y = ab.b.d == 0;
    if (poison_y) poison(y);

    const NormRefStats st = norm_batch_stats(s, x);
    const double m = static_cast<double>(s.count());
    const BnTrainingExpect want = bn_training_expect(st, rmean, rvar, eps, factor, m, dbl);
    const std::vector<double> &inv = want.inv;
    const std::vector<Expect> want_y =
        norm_forward_expect(s, x, ops == 2 ? &z : nullptr, scale, bias, st.mean, inv, act, ab.a.value(c.t),
                            ab.b.value(c.t), y, dbl);
    const std::vector<Expect> &want_mean = want.mean, &want_inv = want.inv_std, &want_rm = want.running_mean,
                              &want_rv = want.running_var;
    TensorDesc xd(x), yd(y), zd(z);
    cudnnTensorDescriptor_t bnd = nullptr;
    ASSERT_EQ(cudnnCreateTensorDescriptor(&bnd), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bnd, xd, c.mode), CUDNN_STATUS_SUCCESS);
    cudnnActivationDescriptor_t ad = ops > 0 ? make_activation(amode, coef) : nullptr;
    const std::string what = c.text + " ops " + std::to_string(ops) + " act " + std::to_string(amode) + " running " +
                             std::to_string(running) + " saved " + std::to_string(saved) + " f " +
                             std::to_string(factor) + " eps " + std::to_string(eps) + " alpha " +
                             std::to_string(ab.a.d) + " beta " + std::to_string(ab.b.d);
    // Large cases: the default engines only (the float64 reference engines are slow there).
    for (size_t hk = 0; hk < (big ? 1 : hs.all.size()); ++hk) {
      cudnnHandle_t h = hs.all[hk];
      Buffer xb = upload(x), zb = upload(z), yb = upload(y);
      Buffer sb = upload(param_tensor(pt, pd, scale)), bb = upload(param_tensor(pt, pd, bias));
      Buffer rmb = upload(param_tensor(pt, pd, rmean)), rvb = upload(param_tensor(pt, pd, rvar));
      HostTensor sm = param_tensor(pt, pd, std::vector<double>(sets, 0)), si = sm;
      poison(sm);
      poison(si);
      Buffer smb = upload(sm), sib = upload(si);
      size_t ws = 0, rs = 0;
      cudnnStatus_t st_call;
      if (api == Api::legacy) {
        st_call = cudnnBatchNormalizationForwardTraining(
            h, c.mode, ab.a.for_type(c.t), ab.b.for_type(c.t), xd, xb.get(), yd, yb.get(), bnd, sb.get(), bb.get(),
            factor, running ? rmb.get() : nullptr, running ? rvb.get() : nullptr, eps, saved ? smb.get() : nullptr,
            saved ? sib.get() : nullptr);
      } else if (api == Api::ex) {
        const auto bops = static_cast<cudnnBatchNormOps_t>(ops);
        ASSERT_EQ(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, c.mode, bops, xd, ops == 2 ? zd.get() : nullptr,
                                                                           yd, bnd, ad, &ws),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, c.mode, bops, ad, xd, &rs), CUDNN_STATUS_SUCCESS);
        Buffer wsb(ws + 1), rsb(rs + 1);
        st_call = cudnnBatchNormalizationForwardTrainingEx(
            h, c.mode, bops, ab.a.for_type(c.t), ab.b.for_type(c.t), xd, xb.get(), ops == 2 ? zd.get() : nullptr,
            ops == 2 ? zb.get() : nullptr, yd, yb.get(), bnd, sb.get(), bb.get(), factor,
            running ? rmb.get() : nullptr, running ? rvb.get() : nullptr, eps, saved ? smb.get() : nullptr,
            saved ? sib.get() : nullptr, ad, wsb.get(), ws, rsb.get(), rs);
      } else {
        const auto nmode = c.per_activation ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL;
        const auto nops = static_cast<cudnnNormOps_t>(ops);
        ASSERT_EQ(cudnnGetNormalizationForwardTrainingWorkspaceSize(h, nmode, nops, CUDNN_NORM_ALGO_STANDARD, xd,
                                                                    ops == 2 ? zd.get() : nullptr, yd, bnd, ad, bnd,
                                                                    &ws, 1),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(cudnnGetNormalizationTrainingReserveSpaceSize(h, nmode, nops, CUDNN_NORM_ALGO_STANDARD, ad, xd, &rs, 1),
                  CUDNN_STATUS_SUCCESS);
        Buffer wsb(ws + 1), rsb(rs + 1);
        st_call = cudnnNormalizationForwardTraining(
            h, nmode, nops, CUDNN_NORM_ALGO_STANDARD, ab.a.for_type(c.t), ab.b.for_type(c.t), xd, xb.get(), bnd,
            sb.get(), bb.get(), factor, bnd, running ? rmb.get() : nullptr, running ? rvb.get() : nullptr, eps,
            saved ? smb.get() : nullptr, saved ? sib.get() : nullptr, ad, ops == 2 ? zd.get() : nullptr,
            ops == 2 ? zb.get() : nullptr, yd, yb.get(), wsb.get(), ws, rsb.get(), rs, 1);
      }
      ASSERT_EQ(st_call, CUDNN_STATUS_SUCCESS) << what << " on " << engine_name(hk) << ": " << last_error();
      HostTensor got = y;
      download(yb, got);
      EXPECT_TRUE(matches(got, want_y)) << what << " on " << engine_name(hk);
      EXPECT_TRUE(gaps_untouched(got, y)) << what << " on " << engine_name(hk);
      if (saved) {
        download(smb, sm);
        download(sib, si);
        EXPECT_TRUE(matches(sm, want_mean)) << "saved mean " << what << " on " << engine_name(hk);
        EXPECT_TRUE(matches(si, want_inv)) << "saved inv variance " << what << " on " << engine_name(hk);
      }
      if (running) {
        HostTensor rm = param_tensor(pt, pd, rmean), rv = param_tensor(pt, pd, rvar);
        download(rmb, rm);
        download(rvb, rv);
        EXPECT_TRUE(matches(rm, want_rm)) << "running mean " << what << " on " << engine_name(hk);
        EXPECT_TRUE(matches(rv, want_rv)) << "running variance " << what << " on " << engine_name(hk);
      }
    }
    if (ad) cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(bnd);
  }
}

// ---- Backward (plain, Ex, generic), fed by the forward's reserve space -------

void run_backward(Api api, uint64_t seed, int iterations, int big = 0) {
  EngineHandles hs;
  Rng rng(test_seed(seed));
  for (int it = 0; it < iterations; ++it) {
    Case c = pick_case(rng, big);
    const bool dbl = c.t == CUDNN_DATA_DOUBLE;
    const int ops = api == Api::legacy ? 0 : static_cast<int>(rng.integer(0, 2));
    const FusedActivation fa = pick_fused_activation(rng, ops);
    const NormRefAct &act = fa.ref;
    const cudnnActivationMode_t amode = fa.mode;
    const double coef = fa.coef;
    HostTensor x = case_x(rng, c, big, -3, 5);
    HostTensor dy = case_like(rng, x, big, -2, 2), dx = case_like(rng, x, big, -2, 2), z = case_like(rng, x, big, -1, 1),
               y = case_like(rng, x, big, 0, 1);
    HostTensor dz = case_like(rng, x, big, 0, 1);
    const std::vector<int64_t> pd = param_dims(c.dims, c.per_activation);
    const cudnnDataType_t pt = param_type(c.t);
    NormRefShape s{c.dims, c.per_activation};
    const size_t sets = static_cast<size_t>(s.sets());
    std::vector<double> scale = random_values(rng, sets, -2, 2, pt), bias = random_values(rng, sets, -1, 1, pt);
    std::vector<double> ds_prior = random_values(rng, sets, -1, 1, pt), db_prior = random_values(rng, sets, -1, 1, pt);
    const bool saved = ops > 0 || rng.coin(0.6);
    const double eps = rng.pick(std::vector<double>{1e-5, 1e-3, 0.1});
    const Scal data = rng.pick(std::vector<Scal>{{1, 0}, {1, 0}, {0.5, 0}, {1, 1}, {2, -0.5}});
    const Scal param = rng.pick(std::vector<Scal>{{1, 0}, {1, 0}, {1, 1}, {0.5, 2}});
    if (data.b.d == 0) poison(dx);
    poison(dz);

    // Statistics as the forward would save them (rounded to the parameter type).
    const NormRefStats st = norm_batch_stats(s, x);
    std::vector<double> mean(sets), inv(sets);
    for (size_t k = 0; k < sets; ++k) {
      mean[k] = round_to_type(pt, st.mean[k]);
      inv[k] = round_to_type(pt, 1 / std::sqrt(st.var[k] + eps));
    }
    std::vector<bool> pass;
    std::vector<bool> *passp = nullptr;
    if (ops > 0) {
      // The mask the forward computes from the exact statistics.
      std::vector<double> ex_inv(sets);
      for (size_t k = 0; k < sets; ++k) ex_inv[k] = 1 / std::sqrt(st.var[k] + eps);
      const std::vector<double> v =
          norm_pre_activation(s, x, ops == 2 ? &z : nullptr, scale, bias, st.mean, ex_inv);
      for (double e : v) pass.push_back(norm_act_passes(act, e));
      passp = &pass;
    }
    NormRefGrad want =
        saved ? norm_backward_expect(s, x, dy, passp, scale, mean, inv, data.a.value(c.t), data.b.value(c.t), dx,
                                     param.a.value(c.t), param.b.value(c.t), ds_prior, db_prior, dbl)
              : norm_backward_expect(s, x, dy, passp, scale, st.mean, [&] {
                  std::vector<double> e(sets);
                  for (size_t k = 0; k < sets; ++k) e[k] = 1 / std::sqrt(st.var[k] + eps);
                  return e;
                }(),
                                     data.a.value(c.t), data.b.value(c.t), dx, param.a.value(c.t), param.b.value(c.t),
                                     ds_prior, db_prior, dbl);
    TensorDesc xd(x), dyd(dy), dxd(dx), zd(z), yd(y), dzd(dz);
    cudnnTensorDescriptor_t bnd = nullptr;
    ASSERT_EQ(cudnnCreateTensorDescriptor(&bnd), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bnd, xd, c.mode), CUDNN_STATUS_SUCCESS);
    cudnnActivationDescriptor_t ad = ops > 0 ? make_activation(amode, coef) : nullptr;
    const std::string what = c.text + " ops " + std::to_string(ops) + " act " + std::to_string(amode) + " saved " +
                             std::to_string(saved) + " eps " + std::to_string(eps) + " data " +
                             std::to_string(data.a.d) + "/" + std::to_string(data.b.d) + " param " +
                             std::to_string(param.a.d) + "/" + std::to_string(param.b.d);
    const auto nmode = c.per_activation ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL;
    // Large cases: the default engines only (the float64 reference engines are slow there).
    for (size_t hk = 0; hk < (big ? 1 : hs.all.size()); ++hk) {
      cudnnHandle_t h = hs.all[hk];
      Buffer xb = upload(x), dyb = upload(dy), dxb = upload(dx), zb = upload(z), yb = upload(y), dzb = upload(dz);
      Buffer sb = upload(param_tensor(pt, pd, scale)), bb = upload(param_tensor(pt, pd, bias));
      Buffer dsb = upload(param_tensor(pt, pd, ds_prior)), dbb = upload(param_tensor(pt, pd, db_prior));
      Buffer mb = upload(param_tensor(pt, pd, mean)), ib = upload(param_tensor(pt, pd, inv));
      size_t rs = 0, ws = 0;
      Buffer rsb;
      const Scaling one(1), zero(0);
      if (ops > 0) {
        // The forward training pass writes the reserve space backward reads.
        const auto bops = static_cast<cudnnBatchNormOps_t>(ops);
        ASSERT_EQ(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, c.mode, bops, ad, xd, &rs), CUDNN_STATUS_SUCCESS);
        rsb = Buffer(rs);
        Buffer tmp_mean = upload(param_tensor(pt, pd, mean)), tmp_inv = upload(param_tensor(pt, pd, inv));
        ASSERT_EQ(cudnnBatchNormalizationForwardTrainingEx(h, c.mode, bops, one.for_type(c.t), zero.for_type(c.t), xd,
                                                           xb.get(), ops == 2 ? zd.get() : nullptr,
                                                           ops == 2 ? zb.get() : nullptr, yd, yb.get(), bnd, sb.get(),
                                                           bb.get(), 0.0, nullptr, nullptr, eps, tmp_mean.get(),
                                                           tmp_inv.get(), ad, nullptr, 0, rsb.get(), rs),
                  CUDNN_STATUS_SUCCESS)
            << what << ": " << last_error();
      }
      cudnnStatus_t st_call;
      const void *sm = saved ? mb.get() : nullptr, *si = saved ? ib.get() : nullptr;
      if (api == Api::legacy) {
        st_call = cudnnBatchNormalizationBackward(h, c.mode, data.a.for_type(c.t), data.b.for_type(c.t),
                                                  param.a.for_type(c.t), param.b.for_type(c.t), xd, xb.get(), dyd,
                                                  dyb.get(), dxd, dxb.get(), bnd, sb.get(), dsb.get(), dbb.get(), eps,
                                                  sm, si);
      } else if (api == Api::ex) {
        const auto bops = static_cast<cudnnBatchNormOps_t>(ops);
        ASSERT_EQ(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, c.mode, bops, xd, ops ? yd.get() : nullptr, dyd,
                                                                    ops == 2 ? dzd.get() : nullptr, dxd, bnd, ad, &ws),
                  CUDNN_STATUS_SUCCESS);
        Buffer wsb(ws + 1);
        st_call = cudnnBatchNormalizationBackwardEx(
            h, c.mode, bops, data.a.for_type(c.t), data.b.for_type(c.t), param.a.for_type(c.t), param.b.for_type(c.t),
            xd, xb.get(), ops ? yd.get() : nullptr, ops ? yb.get() : nullptr, dyd, dyb.get(),
            ops == 2 ? dzd.get() : nullptr, ops == 2 ? dzb.get() : nullptr, dxd, dxb.get(), bnd, sb.get(), bb.get(),
            dsb.get(), dbb.get(), eps, sm, si, ad, wsb.get(), ws, rsb.get(), rs);
      } else {
        const auto nops = static_cast<cudnnNormOps_t>(ops);
        ASSERT_EQ(cudnnGetNormalizationBackwardWorkspaceSize(h, nmode, nops, CUDNN_NORM_ALGO_STANDARD, xd,
                                                             ops ? yd.get() : nullptr, dyd,
                                                             ops == 2 ? dzd.get() : nullptr, dxd, bnd, ad, bnd, &ws, 1),
                  CUDNN_STATUS_SUCCESS);
        Buffer wsb(ws + 1);
        st_call = cudnnNormalizationBackward(
            h, nmode, nops, CUDNN_NORM_ALGO_STANDARD, data.a.for_type(c.t), data.b.for_type(c.t),
            param.a.for_type(c.t), param.b.for_type(c.t), xd, xb.get(), ops ? yd.get() : nullptr,
            ops ? yb.get() : nullptr, dyd, dyb.get(), ops == 2 ? dzd.get() : nullptr, ops == 2 ? dzb.get() : nullptr,
            dxd, dxb.get(), bnd, sb.get(), bb.get(), dsb.get(), dbb.get(), eps, bnd, sm, si, ad, wsb.get(), ws,
            rsb.get(), rs, 1);
      }
      ASSERT_EQ(st_call, CUDNN_STATUS_SUCCESS) << what << " on " << engine_name(hk) << ": " << last_error();
      HostTensor got = dx;
      download(dxb, got);
      EXPECT_TRUE(matches(got, want.dx)) << "dx " << what << " on " << engine_name(hk);
      EXPECT_TRUE(gaps_untouched(got, dx)) << what << " on " << engine_name(hk);
      HostTensor ds = param_tensor(pt, pd, ds_prior), db = ds;
      download(dsb, ds);
      download(dbb, db);
      EXPECT_TRUE(matches(ds, want.dscale)) << "dscale " << what << " on " << engine_name(hk);
      EXPECT_TRUE(matches(db, want.dbias)) << "dbias " << what << " on " << engine_name(hk);
      if (ops == 2) {
        HostTensor gz = dz;
        download(dzb, gz);
        EXPECT_TRUE(matches(gz, want.dz)) << "dz " << what << " on " << engine_name(hk);
      }
    }
    if (ad) cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(bnd);
  }
}

}  // namespace

TEST(BatchNormForwardTraining, RandomShapesLayoutsTypes) { run_forward_training(Api::legacy, 501, 30); }
TEST(BatchNormForwardTrainingEx, FusedAddActivation) { run_forward_training(Api::ex, 502, 30); }
TEST(NormalizationForwardTraining, FusedAddActivation) { run_forward_training(Api::generic, 503, 25); }
TEST(BatchNormBackward, RandomShapesLayoutsTypes) { run_backward(Api::legacy, 511, 30); }
TEST(BatchNormBackwardEx, FusedAddActivation) { run_backward(Api::ex, 512, 30); }
TEST(NormalizationBackward, FusedAddActivation) { run_backward(Api::generic, 513, 25); }
// Large packed NCHW / NHWC tensors: the CUDA engine's vectorised forms (and its
// persistent form with FREEDNN_NORM_PERSISTENT=1).
TEST(BatchNormForwardTraining, LargePackedTensors) { run_forward_training(Api::legacy, 521, 2, true); }
TEST(BatchNormForwardTrainingEx, LargePackedTensorsFused) { run_forward_training(Api::ex, 522, 1, true); }
TEST(BatchNormBackward, LargePackedTensors) { run_backward(Api::legacy, 523, 2, true); }
TEST(BatchNormBackwardEx, LargePackedTensorsFused) { run_backward(Api::ex, 524, 1, true); }
TEST(BatchNormForwardTraining, ManyChannelsPacked) { run_forward_training(Api::legacy, 525, 2, 2); }
TEST(BatchNormBackward, ManyChannelsPacked) { run_backward(Api::legacy, 526, 2, 2); }
TEST(BatchNormForwardTraining, WideNhwcPacked) { run_forward_training(Api::legacy, 527, 1, 3); }
TEST(BatchNormBackward, WideNhwcPacked) { run_backward(Api::legacy, 528, 1, 3); }
TEST(BatchNormForwardTraining, HugeNhwcPacked) { run_forward_training(Api::legacy, 529, 1, 4); }
TEST(BatchNormBackward, HugeNhwcPacked) { run_backward(Api::legacy, 530, 1, 4); }
TEST(BatchNormBackwardEx, HugeNhwcPackedFused) { run_backward(Api::ex, 532, 1, 4); }
// Packed NCHW channels of 60-400 KB: the CUDA engine's resident cluster form
// (forward: FREEDNN_NORM_TUNE=nrfwd for the older cluster kernel) and its
// cluster kernels.
TEST(BatchNormForwardTraining, ResidentNchw) { run_forward_training(Api::legacy, 533, 3, 5); }
TEST(BatchNormForwardTrainingEx, ResidentNchwFused) { run_forward_training(Api::ex, 534, 2, 5); }
TEST(BatchNormBackward, ResidentNchw) { run_backward(Api::legacy, 535, 2, 5); }
TEST(BatchNormBackwardEx, ResidentNchwFused) { run_backward(Api::ex, 536, 2, 5); }

// ---- Inference ------------------------------------------------------------------

// big as for run_forward_training; big cases run on the first handle only
// (the GPU's in GPU mode).
void run_inference(uint64_t seed, int iterations, int big = 0) {
  EngineHandles hs;
  Rng rng(test_seed(seed));
  for (int it = 0; it < iterations; ++it) {
    Case c = pick_case(rng, big);
    const bool dbl = c.t == CUDNN_DATA_DOUBLE;
    const bool generic = it % 2 == 1;
    const int ops = generic ? static_cast<int>(rng.integer(0, 2)) : 0;
    NormRefAct act;
    act.relu = ops > 0;
    HostTensor x = case_x(rng, c, big, -3, 5), y = case_like(rng, x, big, -2, 2), z = case_like(rng, x, big, -1, 1);
    const std::vector<int64_t> pd = param_dims(c.dims, c.per_activation);
    const cudnnDataType_t pt = param_type(c.t);
    NormRefShape s{c.dims, c.per_activation};
    const size_t sets = static_cast<size_t>(s.sets());
    std::vector<double> scale = random_values(rng, sets, -2, 2, pt), bias = random_values(rng, sets, -1, 1, pt);
    std::vector<double> mean = random_values(rng, sets, -1, 2, pt), var = random_values(rng, sets, 0.2, 3, pt);
    const double eps = rng.pick(std::vector<double>{1e-5, 0.0, 0.1});
    const Scal ab = rng.pick(std::vector<Scal>{{1, 0}, {0.5, 0}, {1, 1}, {2, -0.5}});
    if (ab.b.d == 0) poison(y);
    std::vector<double> inv(sets);
    for (size_t k = 0; k < sets; ++k) inv[k] = 1 / std::sqrt(var[k] + eps);
    const auto want = norm_forward_expect(s, x, ops == 2 ? &z : nullptr, scale, bias, mean, inv, act,
                                          ab.a.value(c.t), ab.b.value(c.t), y, dbl);
    TensorDesc xd(x), yd(y), zd(z);
    cudnnTensorDescriptor_t bnd = nullptr;
    ASSERT_EQ(cudnnCreateTensorDescriptor(&bnd), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bnd, xd, c.mode), CUDNN_STATUS_SUCCESS);
    cudnnActivationDescriptor_t ad = ops > 0 ? make_activation(CUDNN_ACTIVATION_RELU, 0) : nullptr;
    const std::string what = c.text + (generic ? " generic ops " + std::to_string(ops) : std::string(" legacy"));
    for (size_t hk = 0; hk < (big ? 1 : hs.all.size()); ++hk) {
      Buffer xb = upload(x), yb = upload(y), zb = upload(z);
      Buffer sb = upload(param_tensor(pt, pd, scale)), bb = upload(param_tensor(pt, pd, bias));
      Buffer mb = upload(param_tensor(pt, pd, mean)), vb = upload(param_tensor(pt, pd, var));
      cudnnStatus_t st;
      if (!generic) {
        st = cudnnBatchNormalizationForwardInference(hs.all[hk], c.mode, ab.a.for_type(c.t), ab.b.for_type(c.t), xd,
                                                     xb.get(), yd, yb.get(), bnd, sb.get(), bb.get(), mb.get(),
                                                     vb.get(), eps);
      } else {
        st = cudnnNormalizationForwardInference(
            hs.all[hk], c.per_activation ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL,
            static_cast<cudnnNormOps_t>(ops), CUDNN_NORM_ALGO_PERSIST, ab.a.for_type(c.t), ab.b.for_type(c.t), xd,
            xb.get(), bnd, sb.get(), bb.get(), bnd, mb.get(), vb.get(), ops == 2 ? zd.get() : nullptr,
            ops == 2 ? zb.get() : nullptr, ad, yd, yb.get(), eps, 1);
      }
      ASSERT_EQ(st, CUDNN_STATUS_SUCCESS) << what << ": " << last_error();
      HostTensor got = y;
      download(yb, got);
      EXPECT_TRUE(matches(got, want)) << what << " on " << engine_name(hk);
      EXPECT_TRUE(gaps_untouched(got, y)) << what << " on " << engine_name(hk);
    }
    if (ad) cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(bnd);
  }
}

TEST(BatchNormForwardInference, RandomShapesLayoutsTypes) { run_inference(521, 40); }
// Tensors of 1-45 MB: the CUDA engine's inference form with blocks that
// walk several steps of rows (NHWC) or vectors (NCHW), the tile of channel
// coefficients of 128 or 256 channels, with and without the fused ops.
TEST(BatchNormForwardInference, BigPacked) { run_inference(537, 4, 1); }
TEST(BatchNormForwardInference, WideNhwc) { run_inference(538, 2, 3); }
TEST(BatchNormForwardInference, HugeNhwcPacked) { run_inference(539, 2, 4); }
TEST(BatchNormForwardInference, ResidentNchw) { run_inference(540, 3, 5); }

// ---- Finite differences -----------------------------------------------------------

// L = sum(w * y) with y the training forward output (double data); backward's
// dx, dscale and dbias must be its derivatives.
TEST(BatchNormBackward, MatchesFiniteDifferences) {
  EngineHandles hs;
  Rng rng(test_seed(531));
  for (int it = 0; it < 4; ++it) {
    const bool per_act = it % 2 == 1;
    const auto mode = per_act ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
    const std::vector<int64_t> dims = {3, 2, 2, it < 2 ? 2 : 3};
    HostTensor x = random_layout(rng, CUDNN_DATA_DOUBLE, dims, -2, 2), w = like(rng, x, -1, 1);
    HostTensor y = make_tensor(CUDNN_DATA_DOUBLE, dims, packed_strides(dims, Layout::nchw));
    const auto pd = param_dims(dims, per_act);
    NormRefShape s{dims, per_act};
    const size_t sets = static_cast<size_t>(s.sets());
    std::vector<double> scale = random_values(rng, sets, 0.5, 2, CUDNN_DATA_DOUBLE);
    std::vector<double> bias = random_values(rng, sets, -1, 1, CUDNN_DATA_DOUBLE);
    TensorDesc xd(x), yd(y), wd(w);
    cudnnTensorDescriptor_t bnd = nullptr;
    ASSERT_EQ(cudnnCreateTensorDescriptor(&bnd), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bnd, xd, mode), CUDNN_STATUS_SUCCESS);
    const double eps = 1e-3, one = 1, zero = 0;
    for (cudnnHandle_t h : hs.all) {
      auto loss = [&](const HostTensor &xv, const std::vector<double> &sc, const std::vector<double> &bi) {
        Buffer xb = upload(xv), yb = upload(y), sb = upload(param_tensor(CUDNN_DATA_DOUBLE, pd, sc)),
               bb = upload(param_tensor(CUDNN_DATA_DOUBLE, pd, bi));
        EXPECT_EQ(cudnnBatchNormalizationForwardTraining(h, mode, &one, &zero, xd, xb.get(), yd, yb.get(), bnd,
                                                         sb.get(), bb.get(), 1.0, nullptr, nullptr, eps, nullptr,
                                                         nullptr),
                  CUDNN_STATUS_SUCCESS);
        HostTensor out = y;
        download(yb, out);
        const auto yv = out.values(), wv = w.values();
        double l = 0;
        for (size_t e = 0; e < yv.size(); ++e) l += yv[e] * wv[e];
        return l;
      };
      Buffer xb = upload(x), wb = upload(w), dxb = upload(x), sb = upload(param_tensor(CUDNN_DATA_DOUBLE, pd, scale));
      HostTensor ds = param_tensor(CUDNN_DATA_DOUBLE, pd, std::vector<double>(sets, 0)), db = ds;
      Buffer dsb = upload(ds), dbb = upload(db);
      ASSERT_EQ(cudnnBatchNormalizationBackward(h, mode, &one, &zero, &one, &zero, xd, xb.get(), wd, wb.get(), xd,
                                                dxb.get(), bnd, sb.get(), dsb.get(), dbb.get(), eps, nullptr, nullptr),
                CUDNN_STATUS_SUCCESS);
      HostTensor dx = x;
      download(dxb, dx);
      download(dsb, ds);
      download(dbb, db);
      const double hstep = 1e-5;
      const auto dxv = dx.values();
      for (int64_t e = 0; e < x.elements(); e += 3) {
        std::vector<double> v = x.values();
        HostTensor xp = x, xm = x;
        v[e] += hstep;
        xp.set_values(v);
        v[e] -= 2 * hstep;
        xm.set_values(v);
        const double fd = (loss(xp, scale, bias) - loss(xm, scale, bias)) / (2 * hstep);
        EXPECT_NEAR(dxv[e], fd, 1e-6 * (1 + std::fabs(fd))) << "dx element " << e;
      }
      const auto dsv = ds.values(), dbv = db.values();
      for (size_t k = 0; k < sets; ++k) {
        auto sp = scale, sm = scale, bp = bias, bm = bias;
        sp[k] += hstep;
        sm[k] -= hstep;
        bp[k] += hstep;
        bm[k] -= hstep;
        EXPECT_NEAR(dsv[k], (loss(x, sp, bias) - loss(x, sm, bias)) / (2 * hstep), 1e-6) << "dscale " << k;
        EXPECT_NEAR(dbv[k], (loss(x, scale, bp) - loss(x, scale, bm)) / (2 * hstep), 1e-6) << "dbias " << k;
      }
    }
    cudnnDestroyTensorDescriptor(bnd);
  }
}
