// Spatial transformer through the public API: the descriptor, the grid
// generator and the bilinear sampler, forward and backward, against the
// float64 references of tests/common over random shapes, layouts, types and
// alpha/beta; backward also against finite differences of the forward
// calls; bad inputs for every entry point. On a CPU handle every problem
// also runs pinned to the reference engines.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/buffer.hpp"
#include "common/engine_handles.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/random_layout.hpp"
#include "common/spatial_transformer_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

struct StDesc {
  cudnnSpatialTransformerDescriptor_t d = nullptr;
  StDesc(cudnnDataType_t t, const StShape &s) {
    EXPECT_EQ(cudnnCreateSpatialTransformerDescriptor(&d), CUDNN_STATUS_SUCCESS);
    const int dims[4] = {static_cast<int>(s.n), static_cast<int>(s.c), static_cast<int>(s.h), static_cast<int>(s.w)};
    EXPECT_EQ(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, t, 4, dims), CUDNN_STATUS_SUCCESS);
  }
  ~StDesc() { cudnnDestroySpatialTransformerDescriptor(d); }
};

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF};

double unit(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? 0x1p-50 : (t == CUDNN_DATA_HALF ? 0x1p-9 : 0x1p-21); }

HostTensor packed(cudnnDataType_t t, const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return make_tensor(t, dims, s);
}

StShape random_shape(Rng &rng) {
  StShape s;
  s.n = rng.integer(1, 3);
  s.c = rng.integer(1, 4);
  s.h = rng.integer(1, 9);
  s.w = rng.integer(1, 9);
  s.hi = rng.integer(1, 9);
  s.wi = rng.integer(1, 9);
  return s;
}

// Theta near the identity, so most samples land inside x and some outside.
HostTensor random_theta(Rng &rng, cudnnDataType_t t, int64_t n) {
  HostTensor th = packed(t, {n, 2, 3});
  std::vector<double> v;
  for (int64_t b = 0; b < n; ++b) {
    const double a[6] = {1 + rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), rng.uniform(-0.3, 0.3),
                         rng.uniform(-0.4, 0.4), 1 + rng.uniform(-0.4, 0.4), rng.uniform(-0.3, 0.3)};
    for (double e : a) v.push_back(round_to_type(t, e));
  }
  th.set_values(v);
  return th;
}

// Grid values in [-1.2, 1.2], kept away from pixel centres' exact positions
// only by chance (random).
HostTensor random_grid(Rng &rng, cudnnDataType_t t, const StShape &s) {
  HostTensor g = packed(t, {s.n, s.h, s.w, 2});
  fill_random(g, rng, -1.2, 1.2);
  return g;
}

std::vector<Expect> expect(const std::vector<double> &v, double tol_abs) {
  std::vector<Expect> e(v.size());
  for (size_t i = 0; i < v.size(); ++i) e[i] = {v[i], tol_abs};
  return e;
}

}  // namespace

TEST(SpatialTransformerGrid, ForwardAndBackwardMatchReference) {
  Rng rng(test_seed(401));
  for (bool ref : engine_kinds()) {
    EngineHandle h(ref);
    for (int it = 0; it < 10; ++it) {
      const cudnnDataType_t t = rng.pick(kTypes);
      const StShape s = random_shape(rng);
      StDesc sd(t, s);
      const HostTensor theta = random_theta(rng, t, s.n);
      HostTensor grid = packed(t, {s.n, s.h, s.w, 2});
      poison(grid);
      Buffer tb = upload(theta), gb = upload(grid);
      ASSERT_EQ(cudnnSpatialTfGridGeneratorForward(h.h, sd.d, tb.get(), gb.get()), CUDNN_STATUS_SUCCESS);
      download(gb, grid);
      EXPECT_TRUE(matches(grid, expect(st_grid_forward(s, theta.values()), 4 * unit(t) * 3))) << type_name(t);

      HostTensor dgrid = random_grid(rng, t, s), dtheta = packed(t, {s.n, 2, 3});
      poison(dtheta);
      Buffer dgb = upload(dgrid), dtb = upload(dtheta);
      ASSERT_EQ(cudnnSpatialTfGridGeneratorBackward(h.h, sd.d, dgb.get(), dtb.get()), CUDNN_STATUS_SUCCESS);
      download(dtb, dtheta);
      const double tol = 2.0 * (s.h * s.w) * unit(t) * 1.2 * (t == CUDNN_DATA_HALF ? 2 : 1);
      EXPECT_TRUE(matches(dtheta, expect(st_grid_backward(s, dgrid.values()), tol))) << type_name(t);
    }
  }
}

TEST(SpatialTransformerSampler, ForwardMatchesReferenceWithBlending) {
  Rng rng(test_seed(402));
  for (bool ref : engine_kinds()) {
    EngineHandle h(ref);
    for (int it = 0; it < 12; ++it) {
      const cudnnDataType_t t = rng.pick(kTypes);
      const StShape s = random_shape(rng);
      StDesc sd(t, s);
      const HostTensor x = random_layout(rng, t, {s.n, s.c, s.hi, s.wi}, -2, 2);
      const HostTensor grid = random_grid(rng, t, s);
      HostTensor y = random_layout(rng, t, {s.n, s.c, s.h, s.w}, -2, 2);
      const double alpha = rng.pick(std::vector<double>{1, 0.5, -2}), beta = rng.pick(std::vector<double>{0, 1, -0.5});
      const std::vector<double> prior = y.values();
      if (beta == 0) poison(y);
      const HostTensor before = y;
      TensorDesc xd(x), yd(y);
      Buffer xb = upload(x), gb = upload(grid), yb = upload(y);
      const Scaling a(alpha), b(beta);
      ASSERT_EQ(cudnnSpatialTfSamplerForward(h.h, sd.d, a.for_type(t), xd, xb.get(), gb.get(), b.for_type(t), yd,
                                             yb.get()),
                CUDNN_STATUS_SUCCESS)
          << last_error();
      download(yb, y);
      std::vector<double> want = st_sample(s, x.values(), grid.values());
      for (size_t i = 0; i < want.size(); ++i) want[i] = alpha * want[i] + (beta != 0 ? beta * prior[i] : 0.0);
      // Bilinear weights come from a grid coordinate scaled by the extent:
      // its rounding moves a sample by up to extent * unit pixels.
      const double tol = 8 * unit(t) * (2 + std::max(s.hi, s.wi)) * 2 * (std::fabs(alpha) + std::fabs(beta));
      EXPECT_TRUE(matches(y, expect(want, tol))) << type_name(t) << " ref " << ref;
      EXPECT_TRUE(gaps_untouched(y, before));
    }
  }
}

TEST(SpatialTransformerSampler, BackwardMatchesReferenceWithBlending) {
  Rng rng(test_seed(403));
  for (bool ref : engine_kinds()) {
    EngineHandle h(ref);
    for (int it = 0; it < 12; ++it) {
      const cudnnDataType_t t = rng.pick(kTypes);
      const StShape s = random_shape(rng);
      StDesc sd(t, s);
      const HostTensor x = random_layout(rng, t, {s.n, s.c, s.hi, s.wi}, -2, 2);
      const HostTensor grid = random_grid(rng, t, s);
      const HostTensor dy = random_layout(rng, t, {s.n, s.c, s.h, s.w}, -2, 2);
      HostTensor dx = random_layout(rng, t, {s.n, s.c, s.hi, s.wi}, -2, 2);
      HostTensor dgrid = random_grid(rng, t, s);
      const double alpha = rng.pick(std::vector<double>{1, 0.5}), beta = rng.pick(std::vector<double>{0, 1, -0.5});
      const double ga = rng.pick(std::vector<double>{1, -1.5}), gbeta = rng.pick(std::vector<double>{0, 2});
      const std::vector<double> dx_prior = dx.values(), dg_prior = dgrid.values();
      if (beta == 0) poison(dx);
      if (gbeta == 0) poison(dgrid);
      TensorDesc xd(x), dxd(dx), dyd(dy);
      Buffer xb = upload(x), gb = upload(grid), dyb = upload(dy), dxb = upload(dx), dgb = upload(dgrid);
      const Scaling a(alpha), b(beta), a2(ga), b2(gbeta);
      ASSERT_EQ(cudnnSpatialTfSamplerBackward(h.h, sd.d, a.for_type(t), xd, xb.get(), b.for_type(t), dxd, dxb.get(),
                                              a2.for_type(t), dyd, dyb.get(), gb.get(), b2.for_type(t), dgb.get()),
                CUDNN_STATUS_SUCCESS)
          << last_error();
      download(dxb, dx);
      download(dgb, dgrid);
      std::vector<double> wdx, wdg;
      st_sample_backward(s, x.values(), grid.values(), dy.values(), wdx, wdg);
      for (size_t i = 0; i < wdx.size(); ++i) wdx[i] = alpha * wdx[i] + (beta != 0 ? beta * dx_prior[i] : 0.0);
      for (size_t i = 0; i < wdg.size(); ++i) wdg[i] = ga * wdg[i] + (gbeta != 0 ? gbeta * dg_prior[i] : 0.0);
      const double fan = static_cast<double>(s.c * (1 + (s.h * s.w) / std::max<int64_t>(1, s.hi * s.wi)) * 4);
      const double ext = 2.0 + std::max(s.hi, s.wi);
      const double tol_dx = 16 * unit(t) * fan * ext * 4 + 4 * unit(t) * std::fabs(beta) * 2;
      const double tol_dg = 16 * unit(t) * s.c * ext * ext * 16 * 2 + 4 * unit(t) * std::fabs(gbeta) * 2;
      EXPECT_TRUE(matches(dx, expect(wdx, tol_dx))) << type_name(t) << " ref " << ref;
      EXPECT_TRUE(matches(dgrid, expect(wdg, tol_dg))) << type_name(t) << " ref " << ref;
    }
  }
}

// Backward against central differences of the library's own forward calls
// (double data), for L = sum(dy * y): dgrid, dx and dtheta.
TEST(SpatialTransformerSampler, BackwardMatchesFiniteDifferences) {
  EngineHandle h;
  Rng rng(test_seed(404));
  const cudnnDataType_t t = CUDNN_DATA_DOUBLE;
  const StShape s{2, 2, 3, 4, 4, 5};
  StDesc sd(t, s);
  const HostTensor theta = random_theta(rng, t, s.n);
  HostTensor x = packed(t, {s.n, s.c, s.hi, s.wi});
  fill_random(x, rng, -2, 2);
  HostTensor dy = packed(t, {s.n, s.c, s.h, s.w});
  fill_random(dy, rng, -2, 2);
  TensorDesc xd(x), yd(dy);
  const double one = 1, zero = 0;
  // L(theta, x) through the grid generator and the sampler.
  auto loss = [&](const HostTensor &th, const HostTensor &xv) {
    HostTensor grid = packed(t, {s.n, s.h, s.w, 2}), y = packed(t, {s.n, s.c, s.h, s.w});
    Buffer tb = upload(th), gb = upload(grid), xb = upload(xv), yb = upload(y);
    EXPECT_EQ(cudnnSpatialTfGridGeneratorForward(h.h, sd.d, tb.get(), gb.get()), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSpatialTfSamplerForward(h.h, sd.d, &one, xd, xb.get(), gb.get(), &zero, yd, yb.get()),
              CUDNN_STATUS_SUCCESS);
    download(yb, y);
    const std::vector<double> a = y.values(), b = dy.values();
    double l = 0;
    for (size_t i = 0; i < a.size(); ++i) l += a[i] * b[i];
    return l;
  };
  // Analytic: sampler backward then grid backward.
  HostTensor grid = packed(t, {s.n, s.h, s.w, 2}), dx = packed(t, {s.n, s.c, s.hi, s.wi});
  HostTensor dgrid = packed(t, {s.n, s.h, s.w, 2}), dtheta = packed(t, {s.n, 2, 3});
  Buffer tb = upload(theta), gb = upload(grid), xb = upload(x), dyb = upload(dy), dxb = upload(dx), dgb = upload(dgrid),
         dtb = upload(dtheta);
  ASSERT_EQ(cudnnSpatialTfGridGeneratorForward(h.h, sd.d, tb.get(), gb.get()), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSpatialTfSamplerBackward(h.h, sd.d, &one, xd, xb.get(), &zero, xd, dxb.get(), &one, yd, dyb.get(),
                                          gb.get(), &zero, dgb.get()),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSpatialTfGridGeneratorBackward(h.h, sd.d, dgb.get(), dtb.get()), CUDNN_STATUS_SUCCESS);
  download(dxb, dx);
  download(dtb, dtheta);
  const double eps = 1e-6;
  const std::vector<double> tv = theta.values(), dtv = dtheta.values();
  for (size_t k = 0; k < tv.size(); ++k) {
    HostTensor p = theta, m = theta;
    std::vector<double> a = tv, b = tv;
    a[k] += eps;
    b[k] -= eps;
    p.set_values(a);
    m.set_values(b);
    const double fd = (loss(p, x) - loss(m, x)) / (2 * eps);
    EXPECT_NEAR(dtv[k], fd, 1e-5 * (1 + std::fabs(fd))) << "dtheta " << k;
  }
  const std::vector<double> xv = x.values(), dxv = dx.values();
  for (size_t k = 0; k < xv.size(); k += 7) {
    HostTensor p = x, m = x;
    std::vector<double> a = xv, b = xv;
    a[k] += eps;
    b[k] -= eps;
    p.set_values(a);
    m.set_values(b);
    const double fd = (loss(theta, p) - loss(theta, m)) / (2 * eps);
    EXPECT_NEAR(dxv[k], fd, 1e-6 * (1 + std::fabs(fd))) << "dx " << k;
  }
}

TEST(SpatialTransformerBadInput, EveryEntryPoint) {
  EngineHandle h;
  cudnnSpatialTransformerDescriptor_t d;
  const int dims[4] = {2, 3, 4, 5};
  EXPECT_FAILS_NAMING(cudnnCreateSpatialTransformerDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM,
                      "cudnnCreateSpatialTransformerDescriptor", "stDesc");
  EXPECT_EQ(cudnnDestroySpatialTransformerDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateSpatialTransformerDescriptor(&d), CUDNN_STATUS_SUCCESS);
  const char *set = "cudnnSetSpatialTransformerNdDescriptor";
  EXPECT_FAILS_NAMING(cudnnSetSpatialTransformerNdDescriptor(nullptr, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims),
                      CUDNN_STATUS_BAD_PARAM, set, "stDesc");
  EXPECT_FAILS_NAMING(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, nullptr),
                      CUDNN_STATUS_BAD_PARAM, set, "dimA");
  EXPECT_FAILS_NAMING(
      cudnnSetSpatialTransformerNdDescriptor(d, static_cast<cudnnSamplerType_t>(1), CUDNN_DATA_FLOAT, 4, dims),
      CUDNN_STATUS_BAD_PARAM, set, "samplerType");
  EXPECT_FAILS_NAMING(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_BFLOAT16, 4, dims),
                      CUDNN_STATUS_BAD_PARAM, set, "dataType");
  EXPECT_FAILS_NAMING(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_INT8, 4, dims),
                      CUDNN_STATUS_NOT_SUPPORTED, set, "INT8");
  // Not set yet.
  float buf[256] = {};
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(h.h, d, buf, buf), CUDNN_STATUS_BAD_PARAM,
                      "cudnnSpatialTfGridGeneratorForward", "stDesc");
  // 5-d: accepted by Set, refused by the compute calls.
  const int d5[5] = {1, 1, 2, 2, 2};
  ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 5, d5),
            CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(h.h, d, buf, buf), CUDNN_STATUS_NOT_SUPPORTED,
                      "cudnnSpatialTfGridGeneratorForward", "4-d");
  ASSERT_EQ(cudnnSetSpatialTransformerNdDescriptor(d, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4, dims),
            CUDNN_STATUS_SUCCESS);

  const StShape s{2, 3, 4, 5, 6, 7};
  HostTensor x = packed(CUDNN_DATA_FLOAT, {2, 3, 6, 7}), y = packed(CUDNN_DATA_FLOAT, {2, 3, 4, 5});
  HostTensor grid = packed(CUDNN_DATA_FLOAT, {2, 4, 5, 2}), theta = packed(CUDNN_DATA_FLOAT, {2, 2, 3});
  // x and y smaller than stDesc says (larger ones run on stDesc's extents, as in cuDNN 9).
  TensorDesc xd(x), yd(y), bad_c(CUDNN_DATA_FLOAT, {2, 2, 6, 7}, {84, 42, 7, 1});
  TensorDesc bad_y(CUDNN_DATA_FLOAT, {2, 3, 4, 4}, {48, 16, 4, 1}), hy(CUDNN_DATA_HALF, {2, 3, 4, 5}, {60, 20, 5, 1});
  TensorDesc big_y(CUDNN_DATA_FLOAT, {2, 3, 4, 6}, {72, 24, 6, 1});
  Buffer xb = upload(x), yb = upload(y), gb = upload(grid), tb = upload(theta);
  const float one = 1, zero = 0;
  const char *gf = "cudnnSpatialTfGridGeneratorForward", *gbw = "cudnnSpatialTfGridGeneratorBackward";
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(nullptr, d, tb.get(), gb.get()), CUDNN_STATUS_BAD_PARAM, gf,
                      "handle");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(h.h, nullptr, tb.get(), gb.get()), CUDNN_STATUS_BAD_PARAM, gf,
                      "stDesc");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(h.h, d, nullptr, gb.get()), CUDNN_STATUS_BAD_PARAM, gf, "theta");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorForward(h.h, d, tb.get(), nullptr), CUDNN_STATUS_BAD_PARAM, gf, "grid");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorBackward(nullptr, d, gb.get(), tb.get()), CUDNN_STATUS_BAD_PARAM, gbw,
                      "handle");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorBackward(h.h, d, nullptr, tb.get()), CUDNN_STATUS_BAD_PARAM, gbw,
                      "dgrid");
  EXPECT_FAILS_NAMING(cudnnSpatialTfGridGeneratorBackward(h.h, d, gb.get(), nullptr), CUDNN_STATUS_BAD_PARAM, gbw,
                      "dtheta");

  const char *sf = "cudnnSpatialTfSamplerForward";
  auto fwd = [&](cudnnHandle_t hh, cudnnTensorDescriptor_t a, const void *ap, const void *g, cudnnTensorDescriptor_t b,
                 void *bp) { return cudnnSpatialTfSamplerForward(hh, d, &one, a, ap, g, &zero, b, bp); };
  EXPECT_FAILS_NAMING(fwd(nullptr, xd, xb.get(), gb.get(), yd, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "handle");
  EXPECT_FAILS_NAMING(fwd(h.h, xd, nullptr, gb.get(), yd, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "x");
  EXPECT_FAILS_NAMING(fwd(h.h, xd, xb.get(), nullptr, yd, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "grid");
  EXPECT_FAILS_NAMING(fwd(h.h, xd, xb.get(), gb.get(), yd, nullptr), CUDNN_STATUS_BAD_PARAM, sf, "y");
  EXPECT_FAILS_NAMING(fwd(h.h, bad_c, xb.get(), gb.get(), yd, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "xDesc");
  EXPECT_FAILS_NAMING(fwd(h.h, xd, xb.get(), gb.get(), bad_y, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "yDesc");
  EXPECT_FAILS_NAMING(fwd(h.h, xd, xb.get(), gb.get(), hy, yb.get()), CUDNN_STATUS_BAD_PARAM, sf, "yDesc");
  {
    Buffer big(2 * 3 * 4 * 6 * sizeof(float));
    EXPECT_EQ(fwd(h.h, xd, xb.get(), gb.get(), big_y, big.get()), CUDNN_STATUS_SUCCESS);
  }
  EXPECT_FAILS_NAMING(cudnnSpatialTfSamplerForward(h.h, d, nullptr, xd, xb.get(), gb.get(), &zero, yd, yb.get()),
                      CUDNN_STATUS_BAD_PARAM, sf, "alpha");

  const char *sb = "cudnnSpatialTfSamplerBackward";
  Buffer dxb = upload(x), dgb = upload(grid);
  auto bwd = [&](cudnnTensorDescriptor_t dxd_, void *dxp, cudnnTensorDescriptor_t dyd_, const void *dyp, void *dgp) {
    return cudnnSpatialTfSamplerBackward(h.h, d, &one, xd, xb.get(), &zero, dxd_, dxp, &one, dyd_, dyp, gb.get(), &zero,
                                         dgp);
  };
  EXPECT_FAILS_NAMING(bwd(xd, nullptr, yd, yb.get(), dgb.get()), CUDNN_STATUS_BAD_PARAM, sb, "dx");
  EXPECT_FAILS_NAMING(bwd(xd, dxb.get(), yd, nullptr, dgb.get()), CUDNN_STATUS_BAD_PARAM, sb, "dy");
  EXPECT_FAILS_NAMING(bwd(xd, dxb.get(), yd, yb.get(), nullptr), CUDNN_STATUS_BAD_PARAM, sb, "dgrid");
  EXPECT_FAILS_NAMING(bwd(xd, dxb.get(), bad_y, yb.get(), dgb.get()), CUDNN_STATUS_BAD_PARAM, sb, "dyDesc");
  EXPECT_FAILS_NAMING(bwd(xd, dxb.get(), big_y, yb.get(), dgb.get()), CUDNN_STATUS_BAD_PARAM, sb, "dyDesc");
  EXPECT_FAILS_NAMING(bwd(yd, dxb.get(), yd, yb.get(), dgb.get()), CUDNN_STATUS_BAD_PARAM, sb, "dxDesc");
  EXPECT_FAILS_NAMING(cudnnSpatialTfSamplerBackward(nullptr, d, &one, xd, xb.get(), &zero, xd, dxb.get(), &one, yd,
                                                    yb.get(), gb.get(), &zero, dgb.get()),
                      CUDNN_STATUS_BAD_PARAM, sb, "handle");
  EXPECT_EQ(cudnnDestroySpatialTransformerDescriptor(d), CUDNN_STATUS_SUCCESS);
  (void)s;
}
