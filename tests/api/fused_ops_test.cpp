// The fused-ops API (cudnn*FusedOps*) through the public API: param packs
// (label rules, copies, defaults), plans and execution of every fused-op
// kind on random small NCHW / NHWC problems in float and half, against the
// float64 references of tests/common (convolution, normalization and
// fused_ops_reference), with NaN-poisoned outputs; misuse statuses.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/convolution_reference.hpp"
#include "common/expect_status.hpp"
#include "common/fused_ops_reference.hpp"
#include "common/normalization_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

struct Handle {
  cudnnHandle_t h = nullptr;
  Handle() { EXPECT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
  ~Handle() { cudnnDestroy(h); }
  operator cudnnHandle_t() const { return h; }
};

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc(cudnnDataType_t t, cudnnTensorFormat_t f, const std::vector<int64_t> &dims) {
    cudnnCreateFilterDescriptor(&d);
    std::vector<int> di(dims.begin(), dims.end());
    EXPECT_EQ(cudnnSetFilterNdDescriptor(d, t, f, static_cast<int>(di.size()), di.data()), CUDNN_STATUS_SUCCESS);
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  explicit ConvDesc(const ConvParams &p) {
    cudnnCreateConvolutionDescriptor(&d);
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(d, static_cast<int>(p.pad.size()), p.pad.data(), p.stride.data(),
                                              p.dilation.data(), p.mode, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
  }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
};

struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  explicit ActDesc(cudnnActivationMode_t m) {
    cudnnCreateActivationDescriptor(&d);
    EXPECT_EQ(cudnnSetActivationDescriptor(d, m, CUDNN_NOT_PROPAGATE_NAN, 0.0), CUDNN_STATUS_SUCCESS);
  }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
};

// The three objects of one fused op, with terse setters.
class Fused {
 public:
  explicit Fused(cudnnFusedOps_t ops) {
    EXPECT_EQ(cudnnCreateFusedOpsConstParamPack(&c_, ops), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFusedOpsVariantParamPack(&v_, ops), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFusedOpsPlan(&p_, ops), CUDNN_STATUS_SUCCESS);
  }
  ~Fused() {
    cudnnDestroyFusedOpsPlan(p_);
    cudnnDestroyFusedOpsVariantParamPack(v_);
    cudnnDestroyFusedOpsConstParamPack(c_);
  }
  void desc(cudnnFusedOpsConstParamLabel_t l, const void *d) {
    EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(c_, l, d), CUDNN_STATUS_SUCCESS) << l;
  }
  void value(cudnnFusedOpsConstParamLabel_t l, int v) {
    EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(c_, l, &v), CUDNN_STATUS_SUCCESS) << l;
  }
  // Placeholder + pointer in one go.
  void data(cudnnFusedOpsConstParamLabel_t ph, cudnnFusedOpsVariantParamLabel_t l, void *p) {
    value(ph, CUDNN_PTR_ELEM_ALIGNED);
    EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(v_, l, p), CUDNN_STATUS_SUCCESS) << l;
  }
  template <class T>
  void scalar(cudnnFusedOpsVariantParamLabel_t l, T v) {
    EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(v_, l, &v), CUDNN_STATUS_SUCCESS) << l;
  }
  cudnnStatus_t make(cudnnHandle_t h) { return cudnnMakeFusedOpsPlan(h, p_, c_, &ws_); }
  // Makes, gives the plan exactly the workspace it asks for, executes.
  cudnnStatus_t run(cudnnHandle_t h) {
    cudnnStatus_t s = make(h);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    ws_buf_ = std::make_unique<Buffer>(ws_ > 0 ? ws_ : 1);
    EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(v_, CUDNN_PTR_WORKSPACE, ws_ > 0 ? ws_buf_->get() : nullptr),
              CUDNN_STATUS_SUCCESS);
    scalar(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, ws_);
    return cudnnFusedOpsExecute(h, p_, v_);
  }
  cudnnFusedOpsConstParamPack_t c() const { return c_; }
  cudnnFusedOpsVariantParamPack_t v() const { return v_; }
  cudnnFusedOpsPlan_t p() const { return p_; }
  size_t workspace() const { return ws_; }

 private:
  cudnnFusedOpsConstParamPack_t c_ = nullptr;
  cudnnFusedOpsVariantParamPack_t v_ = nullptr;
  cudnnFusedOpsPlan_t p_ = nullptr;
  size_t ws_ = 0;
  std::unique_ptr<Buffer> ws_buf_;
};

// A host tensor with its device buffer and descriptor.
struct Data {
  HostTensor t;
  std::unique_ptr<Buffer> buf;
  std::unique_ptr<TensorDesc> desc;
  Data(cudnnDataType_t dt, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    t = make_tensor(dt, dims, strides);
  }
  // Copies the host tensor only (a fresh buffer comes with up()).
  Data(const Data &o) : t(o.t) {}
  Data(Data &&) = default;
  void random(Rng &rng, double lo, double hi) { fill_random(t, rng, lo, hi); }
  void *up() {
    buf = std::make_unique<Buffer>(upload(t));
    desc = std::make_unique<TensorDesc>(t);
    return buf->get();
  }
  HostTensor down() const {
    HostTensor r = t;
    download(*buf, r);
    return r;
  }
};

std::vector<int64_t> strides_for(Rng &rng, const std::vector<int64_t> &dims, bool nhwc) {
  return rng.coin(0.2) ? random_strides(rng, dims) : packed_strides(dims, nhwc ? Layout::nhwc : Layout::nchw);
}

// Per-channel parameters: a packed float 1 x C x 1 x 1 tensor.
Data channel_param(Rng &rng, int64_t C, double lo, double hi) {
  Data d(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1});
  d.random(rng, lo, hi);
  return d;
}

std::vector<double> vals(const Data &d) { return d.t.values(); }

double tol_slack(cudnnDataType_t t) { return t == CUDNN_DATA_HALF ? 64 : 64; }

// ---------------------------------------------------------------------------

TEST(FusedOpsPacks, CreateDestroyAndNullArguments) {
  cudnnFusedOpsConstParamPack_t c;
  cudnnFusedOpsVariantParamPack_t v;
  cudnnFusedOpsPlan_t p;
  for (int ops : {-1, 7, 100}) {
    EXPECT_EQ(cudnnCreateFusedOpsConstParamPack(&c, static_cast<cudnnFusedOps_t>(ops)), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnCreateFusedOpsVariantParamPack(&v, static_cast<cudnnFusedOps_t>(ops)), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnCreateFusedOpsPlan(&p, static_cast<cudnnFusedOps_t>(ops)), CUDNN_STATUS_BAD_PARAM);
  }
  EXPECT_FAILS_NAMING(cudnnCreateFusedOpsConstParamPack(nullptr, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD),
                      CUDNN_STATUS_BAD_PARAM, "cudnnCreateFusedOpsConstParamPack", "constPack");
  EXPECT_EQ(cudnnCreateFusedOpsVariantParamPack(nullptr, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreateFusedOpsPlan(nullptr, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyFusedOpsConstParamPack(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyFusedOpsVariantParamPack(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyFusedOpsPlan(nullptr), CUDNN_STATUS_SUCCESS);
  int mode = 0, isnull = 0;
  void *ptr = nullptr;
  EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(nullptr, CUDNN_PARAM_BN_MODE, &mode), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFusedOpsConstParamPackAttribute(nullptr, CUDNN_PARAM_BN_MODE, &mode, &isnull),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(nullptr, CUDNN_PTR_XDATA, &ptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(nullptr, CUDNN_PTR_XDATA, &ptr), CUDNN_STATUS_BAD_PARAM);
  Fused f(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
  EXPECT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_BN_MODE, nullptr, &isnull),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_FAILS_NAMING(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_BN_MODE, &mode, nullptr),
                      CUDNN_STATUS_BAD_PARAM, "cudnnGetFusedOpsConstParamPackAttribute", "isNULL");
  EXPECT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(f.v(), CUDNN_PTR_XDATA, nullptr), CUDNN_STATUS_BAD_PARAM);
  size_t ws = 0;
  EXPECT_EQ(cudnnMakeFusedOpsPlan(nullptr, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFusedOpsExecute(nullptr, f.p(), f.v()), CUDNN_STATUS_BAD_PARAM);
}

// Which labels each kind takes (cuDNN 9.19's answers, probed locally).
TEST(FusedOpsPacks, LabelsPerKind) {
  const std::vector<std::vector<int>> const_ok = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18},
      {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 14, 15},
      {2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25},
      {2, 3, 4, 5, 19, 20, 21, 24, 25},
      {0, 1, 3, 4, 6, 7, 8, 9, 12, 13, 26, 27, 28, 29, 30},
      {0, 1, 2, 3, 4, 5, 6, 12, 13, 26, 27, 28, 29, 30, 31, 32},
      {0, 1, 2, 6, 14, 15, 19, 20, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 38},
  };
  const std::vector<std::vector<int>> var_ok = {
      {0, 1, 2, 3, 5, 7, 8, 9, 100},
      {0, 1, 2, 4, 6, 9, 100},
      {1, 2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100, 101, 102, 103},
      {1, 2, 9, 10, 11, 14, 15, 100, 103},
      {0, 1, 3, 5, 9, 16, 17, 18, 100},
      {0, 1, 2, 5, 9, 16, 17, 18, 19, 100},
      {0, 6, 9, 10, 11, 12, 13, 19, 20, 21, 22, 23, 100, 103},
  };
  for (int ops = 0; ops < 7; ++ops) {
    Fused f(static_cast<cudnnFusedOps_t>(ops));
    for (int l = -1; l <= 40; ++l) {
      const bool ok = std::find(const_ok[ops].begin(), const_ok[ops].end(), l) != const_ok[ops].end();
      EXPECT_EQ(cudnnSetFusedOpsConstParamPackAttribute(f.c(), static_cast<cudnnFusedOpsConstParamLabel_t>(l), nullptr),
                ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM)
          << "ops " << ops << " const label " << l;
      char buf[512];
      int isnull = 0;
      const bool get_ok = ok && ops != CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION;
      EXPECT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), static_cast<cudnnFusedOpsConstParamLabel_t>(l), buf,
                                                        &isnull),
                get_ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM)
          << "ops " << ops << " const label " << l;
    }
    for (int l = -1; l <= 105; ++l) {
      if (l > 24 && l < 99) continue;
      const bool ok = std::find(var_ok[ops].begin(), var_ok[ops].end(), l) != var_ok[ops].end();
      int64_t v = 5;
      EXPECT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(f.v(), static_cast<cudnnFusedOpsVariantParamLabel_t>(l), &v),
                ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM)
          << "ops " << ops << " variant label " << l;
      char buf[16];
      const bool get_ok = ok && ops != CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE;
      EXPECT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(f.v(), static_cast<cudnnFusedOpsVariantParamLabel_t>(l), buf),
                get_ok ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM)
          << "ops " << ops << " variant label " << l;
    }
  }
  Fused f(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
  EXPECT_FAILS_NAMING(cudnnSetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_WDESC, nullptr),
                      CUDNN_STATUS_BAD_PARAM, "cudnnSetFusedOpsConstParamPackAttribute", "CUDNN_PARAM_WDESC");
}

TEST(FusedOpsPacks, ValuesAreCopiedAndReadBack) {
  Fused f(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
  int v = 99, isnull = 7;
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v, CUDNN_PTR_NULL);
  EXPECT_EQ(isnull, 0);
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_BN_MODE, &v, &isnull), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v, CUDNN_BATCHNORM_PER_ACTIVATION);
  f.value(CUDNN_PARAM_XDATA_PLACEHOLDER, 7);  // kept as given (checked when the plan is made)
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v, 7);
  f.desc(CUDNN_PARAM_XDATA_PLACEHOLDER, nullptr);  // NULL resets to CUDNN_PTR_NULL
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v, CUDNN_PTR_NULL);

  // Tensor descriptors are copied: a later change of the caller's does not show.
  cudnnTensorDescriptor_t t, u;
  cudnnCreateTensorDescriptor(&t);
  cudnnCreateTensorDescriptor(&u);
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDESC, u, &isnull), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(isnull, 1);
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 5, 5);
  f.desc(CUDNN_PARAM_XDESC, t);
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDESC, u, &isnull), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(isnull, 0);
  cudnnDataType_t dt;
  int n, c, h, w, ns, cs, hs, ws;
  ASSERT_EQ(cudnnGetTensor4dDescriptor(u, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(dt, CUDNN_DATA_HALF);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}), (std::vector<int>{2, 8, 5, 5, 200, 1, 40, 8}));
  f.desc(CUDNN_PARAM_XDESC, nullptr);
  ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_XDESC, u, &isnull), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(isnull, 1);
  cudnnDestroyTensorDescriptor(t);
  cudnnDestroyTensorDescriptor(u);

  // Variant scalars are copied; pointers are kept.
  Fused g(CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
  double eps = 1e-3, got = 0;
  ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps),
            CUDNN_STATUS_SUCCESS);
  eps = 5;
  ASSERT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_SCALAR_DOUBLE_BN_EPSILON, &got),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got, 1e-3);
  int64_t count = 77, gc = 0;
  g.scalar(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, count);
  ASSERT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &gc),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(gc, 77);
  void *p = reinterpret_cast<void *>(0x1230), *gp = nullptr;
  ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_PTR_YSUM, p), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_PTR_YSUM, &gp), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(gp, p);
  ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_SCALAR_DOUBLE_BN_EPSILON, nullptr),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetFusedOpsVariantParamPackAttribute(g.v(), CUDNN_SCALAR_DOUBLE_BN_EPSILON, &got),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got, 0.0);
}

// ---------------------------------------------------------------------------
// Convolution kinds.

struct ConvCase {
  cudnnDataType_t t;
  bool nhwc;
  ConvParams p;
  std::vector<int64_t> x_dims, w_dims, y_dims;
};

ConvCase random_conv(Rng &rng) {
  ConvCase c;
  c.t = rng.coin() ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
  c.nhwc = rng.coin();
  const int64_t N = rng.integer(1, 3), C = rng.integer(1, 6), K = rng.integer(1, 6), H = rng.integer(3, 7),
                W = rng.integer(3, 7), R = rng.integer(1, 3), S = rng.integer(1, 3);
  c.p.pad = {static_cast<int>(rng.integer(0, 1)), static_cast<int>(rng.integer(0, 1))};
  c.p.stride = {static_cast<int>(rng.integer(1, 2)), static_cast<int>(rng.integer(1, 2))};
  c.p.dilation = {1, 1};
  c.p.mode = rng.coin(0.8) ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION;
  c.x_dims = {N, C, H, W};
  c.w_dims = {K, C, R, S};
  c.y_dims = conv_output_dims(c.p, c.x_dims, c.w_dims);
  return c;
}

TEST(FusedOpsConvBnStats, RandomProblems) {
  Rng rng(test_seed(4101));
  Handle h;
  for (int iter = 0; iter < 10; ++iter) {
    const ConvCase cc = random_conv(rng);
    const bool scale_on = rng.coin(0.7), bias_on = rng.coin(0.7), relu = rng.coin(0.6), stats = rng.coin(0.8);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(cc.t) << (cc.nhwc ? " nhwc" : " nchw")
                                      << " scale " << scale_on << " bias " << bias_on << " relu " << relu);
    const int64_t C = cc.x_dims[1], K = cc.w_dims[0];
    Data x(cc.t, cc.x_dims, strides_for(rng, cc.x_dims, cc.nhwc));
    x.random(rng, -2, 2);
    Data w(cc.t, cc.w_dims, packed_strides(cc.w_dims, cc.nhwc ? Layout::nhwc : Layout::nchw));
    w.random(rng, -1, 1);
    Data y(cc.t, cc.y_dims, strides_for(rng, cc.y_dims, cc.nhwc));
    poison(y.t);
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -0.5, 0.5);
    Data sum(CUDNN_DATA_FLOAT, {1, K, 1, 1}, {K, 1, 1, 1}), sq = sum;
    poison(sum.t);
    poison(sq.t);
    FilterDesc wd(cc.t, cc.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, cc.w_dims);
    ConvDesc cd(cc.p);
    ActDesc act(relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);

    Fused f(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    void *sp = s.up(), *bp = b.up();
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    if (scale_on) f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sp);
    if (bias_on) f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bp);
    if (rng.coin(0.8)) f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    else ASSERT_FALSE(relu && false);
    const bool relu_used = relu && true;
    f.desc(CUDNN_PARAM_CONV_DESC, cd.d);
    f.desc(CUDNN_PARAM_WDESC, wd.d);
    f.data(CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, w.up());
    f.data(CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.up());
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    if (stats) {
      f.data(CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, sum.up());
      f.data(CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, sq.up());
      f.desc(CUDNN_PARAM_YSTATS_DESC, sum.desc->get());
    }
    // The activation descriptor may be left out: then no activation.
    cudnnActivationDescriptor_t got_act = nullptr;
    cudnnCreateActivationDescriptor(&got_act);
    int isnull = 0;
    ASSERT_EQ(cudnnGetFusedOpsConstParamPackAttribute(f.c(), CUDNN_PARAM_ACTIVATION_DESC, got_act, &isnull),
              CUDNN_STATUS_SUCCESS);
    cudnnDestroyActivationDescriptor(got_act);
    const bool applied_relu = relu_used && isnull == 0;
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();

    HostTensor xp = make_tensor(cc.t, cc.x_dims, packed_strides(cc.x_dims, Layout::nchw));
    xp.set_values(float_scale_bias_relu(x.t, scale_on ? vals(s) : std::vector<double>(),
                                        bias_on ? vals(b) : std::vector<double>(), applied_relu, cc.t));
    const HostTensor got = y.down();
    EXPECT_TRUE(matches(got, reference_conv_forward(cc.p, xp, w.t, 1, 0, got, CUDNN_DATA_FLOAT, tol_slack(cc.t))));
    if (stats) {
      const ChannelSums want = channel_sums(got);
      EXPECT_TRUE(matches(sum.down(), want.sum));
      EXPECT_TRUE(matches(sq.down(), want.sq_sum));
    }
  }
}

TEST(FusedOpsWgrad, RandomProblems) {
  Rng rng(test_seed(4102));
  Handle h;
  for (int iter = 0; iter < 8; ++iter) {
    const ConvCase cc = random_conv(rng);
    const bool scale_on = rng.coin(0.7), bias_on = rng.coin(0.7), relu = rng.coin(0.6);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(cc.t) << (cc.nhwc ? " nhwc" : " nchw"));
    const int64_t C = cc.x_dims[1];
    Data x(cc.t, cc.x_dims, strides_for(rng, cc.x_dims, cc.nhwc));
    x.random(rng, -2, 2);
    Data dy(cc.t, cc.y_dims, strides_for(rng, cc.y_dims, cc.nhwc));
    dy.random(rng, -1, 1);
    Data dw(cc.t, cc.w_dims, packed_strides(cc.w_dims, cc.nhwc ? Layout::nhwc : Layout::nchw));
    poison(dw.t);
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -0.5, 0.5);
    FilterDesc wd(cc.t, cc.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, cc.w_dims);
    ConvDesc cd(cc.p);
    ActDesc act(relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);
    Fused f(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    void *sp = s.up(), *bp = b.up();
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    if (scale_on) f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sp);
    if (bias_on) f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bp);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.desc(CUDNN_PARAM_CONV_DESC, cd.d);
    f.desc(CUDNN_PARAM_DWDESC, wd.d);
    f.data(CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_DWDATA, dw.up());
    f.data(CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, dy.up());
    f.desc(CUDNN_PARAM_DYDESC, dy.desc->get());
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    HostTensor xp = make_tensor(cc.t, cc.x_dims, packed_strides(cc.x_dims, Layout::nchw));
    xp.set_values(float_scale_bias_relu(x.t, scale_on ? vals(s) : std::vector<double>(),
                                        bias_on ? vals(b) : std::vector<double>(), relu, cc.t));
    const HostTensor got = dw.down();
    EXPECT_TRUE(
        matches(got, reference_conv_backward_filter(cc.p, xp, dy.t, 1, 0, got, CUDNN_DATA_FLOAT, tol_slack(cc.t))));
  }
}

TEST(FusedOpsConvScaleBiasAddActivation, RandomProblems) {
  Rng rng(test_seed(4103));
  Handle h;
  for (int iter = 0; iter < 10; ++iter) {
    const ConvCase cc = random_conv(rng);
    const bool scale_on = rng.coin(0.7), z_on = rng.coin(0.7), zs_on = rng.coin(0.6), zb_on = rng.coin(0.7),
               relu = rng.coin(0.6);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(cc.t) << (cc.nhwc ? " nhwc" : " nchw")
                                      << " s " << scale_on << " z " << z_on << " zs " << zs_on << " zb " << zb_on
                                      << " relu " << relu);
    const int64_t K = cc.w_dims[0];
    Data x(cc.t, cc.x_dims, strides_for(rng, cc.x_dims, cc.nhwc));
    x.random(rng, -2, 2);
    Data w(cc.t, cc.w_dims, packed_strides(cc.w_dims, cc.nhwc ? Layout::nhwc : Layout::nchw));
    w.random(rng, -1, 1);
    Data z(cc.t, cc.y_dims, strides_for(rng, cc.y_dims, cc.nhwc));
    z.random(rng, -2, 2);
    Data y(cc.t, cc.y_dims, strides_for(rng, cc.y_dims, cc.nhwc));
    poison(y.t);
    Data s = channel_param(rng, K, 0.5, 1.5), zs = channel_param(rng, K, 0.5, 1.5), zb = channel_param(rng, K, -1, 1);
    FilterDesc wd(cc.t, cc.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, cc.w_dims);
    ConvDesc cd(cc.p);
    ActDesc act(relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);
    Fused f(CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.desc(CUDNN_PARAM_CONV_DESC, cd.d);
    f.desc(CUDNN_PARAM_WDESC, wd.d);
    f.data(CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, w.up());
    void *sp = s.up(), *zsp = zs.up(), *zbp = zb.up();
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    if (scale_on) f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sp);
    void *zp = z.up();
    if (z_on) {
      f.desc(CUDNN_PARAM_ZDESC, z.desc->get());
      f.data(CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, zp);
    }
    f.desc(CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, zs.desc->get());
    if (zs_on) f.data(CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_Z_EQSCALE, zsp);
    if (zb_on) f.data(CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_Z_EQBIAS, zbp);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.data(CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.up());
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();

    const HostTensor got = y.down();
    // The convolution's result is rounded to y's type before the chain.
    const std::vector<Expect> conv = reference_conv_forward(cc.p, x.t, w.t, 1, 0, got, CUDNN_DATA_FLOAT, 64);
    std::vector<double> cv, ct;
    for (const Expect &e : conv) {
      cv.push_back(e.value);
      ct.push_back(e.tolerance + std::fabs(e.value) * unit_roundoff(cc.t) * 1.01);
    }
    const bool chain = scale_on || z_on || zb_on || relu;
    std::vector<Expect> want = scale_bias_add_relu_expect(
        cv, ct, cc.y_dims, scale_on ? vals(s) : std::vector<double>(), {}, z_on ? &z.t : nullptr,
        zs_on ? vals(zs) : std::vector<double>(), zb_on ? vals(zb) : std::vector<double>(), relu);
    EXPECT_TRUE(matches(got, chain ? want : conv));
  }
}

TEST(FusedOpsScaleBiasAddActivation, RandomProblems) {
  Rng rng(test_seed(4104));
  Handle h;
  for (int iter = 0; iter < 10; ++iter) {
    const cudnnDataType_t t = rng.coin() ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    const bool nhwc = rng.coin();
    const std::vector<int64_t> dims = {rng.integer(1, 3), rng.integer(1, 9), rng.integer(1, 6), rng.integer(1, 6)};
    const int64_t C = dims[1];
    const bool s_on = rng.coin(0.8), b_on = rng.coin(0.8), z_on = rng.coin(0.7), zs_on = rng.coin(0.6),
               zb_on = rng.coin(0.6), relu = rng.coin(0.7);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(t) << (nhwc ? " nhwc" : " nchw"));
    Data x(t, dims, strides_for(rng, dims, nhwc)), z(t, dims, strides_for(rng, dims, nhwc)),
        y(t, dims, strides_for(rng, dims, nhwc));
    x.random(rng, -2, 2);
    z.random(rng, -2, 2);
    poison(y.t);
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -1, 1), zs = channel_param(rng, C, 0.5, 1.5),
         zb = channel_param(rng, C, -1, 1);
    ActDesc act(relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);
    Fused f(CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    void *sp = s.up(), *bp = b.up(), *zsp = zs.up(), *zbp = zb.up(), *zp = z.up();
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    if (s_on) f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, sp);
    if (b_on) f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, bp);
    if (z_on) {
      f.desc(CUDNN_PARAM_ZDESC, z.desc->get());
      f.data(CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, zp);
    }
    f.desc(CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, zs.desc->get());
    if (zs_on) f.data(CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_Z_EQSCALE, zsp);
    if (zb_on) f.data(CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_Z_EQBIAS, zbp);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.data(CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.up());
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    const std::vector<Expect> want =
        scale_bias_add_relu_expect(x.t.values(), {}, dims, s_on ? vals(s) : std::vector<double>(),
                                   b_on ? vals(b) : std::vector<double>(), z_on ? &z.t : nullptr,
                                   zs_on ? vals(zs) : std::vector<double>(), zb_on ? vals(zb) : std::vector<double>(),
                                   relu);
    EXPECT_TRUE(matches(y.down(), want));
  }
}

// ---------------------------------------------------------------------------
// BN finalize.

TEST(FusedOpsBnFinalize, TrainingFromSums) {
  Rng rng(test_seed(4105));
  Handle h;
  for (int iter = 0; iter < 6; ++iter) {
    const int64_t C = rng.integer(1, 9), M = rng.integer(2, 200);
    const bool eq_on = rng.coin(0.8), saved_on = rng.coin(0.7), running_on = rng.coin(0.7);
    const double eps = rng.uniform(1e-5, 1e-2), factor = rng.uniform(0, 1);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " C " << C << " M " << M);
    // Consistent sums: from M random values per channel.
    Data sum(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1}), sq = sum;
    for (int64_t c = 0; c < C; ++c) {
      double a = 0, q = 0;
      const double mu = rng.uniform(-2, 2);
      for (int64_t i = 0; i < M; ++i) {
        const double v = mu + rng.uniform(-1, 1);
        a += v;
        q += v * v;
      }
      sum.t.set({0, c, 0, 0}, a);
      sq.t.set({0, c, 0, 0}, q);
    }
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -1, 1), rm = channel_param(rng, C, -1, 1),
         rv = channel_param(rng, C, 0.5, 2);
    Data eqs(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1}), eqb = eqs, sm = eqs, si = eqs;
    for (Data *d : {&eqs, &eqb, &sm, &si}) poison(d->t);
    Fused f(CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, sum.up());
    f.data(CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, sq.up());
    f.desc(CUDNN_PARAM_YSTATS_DESC, sum.desc->get());
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    f.data(CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, b.up());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    void *eqsp = eqs.up(), *eqbp = eqb.up(), *smp = sm.up(), *sip = si.up(), *rmp = rm.up(), *rvp = rv.up();
    if (eq_on) {
      f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.desc->get());
      f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, eqsp);
      f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, eqbp);
    }
    if (saved_on) {
      f.data(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, smp);
      f.data(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, sip);
    }
    if (running_on) {
      f.data(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, rmp);
      f.data(CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, rvp);
    }
    if (!eq_on && !saved_on && !running_on) {
      EXPECT_EQ(f.make(h), CUDNN_STATUS_BAD_PARAM);
      continue;
    }
    f.scalar(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, M);
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, eps);
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, factor);
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    const BnFinalizeRef r =
        bn_finalize_training(vals(sum), vals(sq), vals(s), vals(b), M, eps, factor, vals(rm), vals(rv));
    // Float arithmetic on E[y^2] - mean^2: relative to the magnitudes.
    const double rel = 2e-5 * 4;
    if (eq_on) {
      EXPECT_TRUE(matches(eqs.down(), expect_close(r.eq_scale, rel * 50, 1e-5)));
      EXPECT_TRUE(matches(eqb.down(), expect_close(r.eq_bias, rel * 50, 1e-4)));
    }
    if (saved_on) {
      EXPECT_TRUE(matches(sm.down(), expect_close(r.mean, rel, 1e-6)));
      EXPECT_TRUE(matches(si.down(), expect_close(r.inv_std, rel * 50, 1e-5)));
    }
    if (running_on) {
      EXPECT_TRUE(matches(rm.down(), expect_close(r.running_mean, rel, 1e-6)));
      EXPECT_TRUE(matches(rv.down(), expect_close(r.running_var, rel * 50, 1e-5)));
    }
  }
}

TEST(FusedOpsBnFinalize, InferenceFromRunningStats) {
  Rng rng(test_seed(4106));
  Handle h;
  for (int iter = 0; iter < 4; ++iter) {
    const int64_t C = rng.integer(1, 9);
    const double eps = rng.uniform(1e-5, 1e-2);
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -1, 1), rm = channel_param(rng, C, -1, 1),
         rv = channel_param(rng, C, 0.5, 2);
    Data eqs(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1}), eqb = eqs;
    poison(eqs.t);
    poison(eqb.t);
    Fused f(CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    f.data(CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, b.up());
    f.data(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, rm.up());
    f.data(CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, rv.up());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, eqs.up());
    f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, eqb.up());
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eqs.desc->get());
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, eps);
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    const BnFinalizeRef r = bn_finalize_inference(vals(s), vals(b), vals(rm), vals(rv), eps);
    EXPECT_TRUE(matches(eqs.down(), expect_close(r.eq_scale, 1e-6, 1e-7)));
    EXPECT_TRUE(matches(eqb.down(), expect_close(r.eq_bias, 1e-6, 1e-6)));
  }
}

// ---------------------------------------------------------------------------
// dActivation + fork + dBatchNorm (without activation: the bit mask is not
// supported yet).

TEST(FusedOpsDactivationForkDbatchnorm, RandomProblems) {
  Rng rng(test_seed(4107));
  Handle h;
  for (int iter = 0; iter < 8; ++iter) {
    const cudnnDataType_t t = rng.coin() ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    const bool nhwc = rng.coin(), saved = rng.coin(0.6), dz_on = rng.coin(0.7), params_on = true;
    const std::vector<int64_t> dims = {rng.integer(1, 3), rng.integer(1, 6), rng.integer(1, 5), rng.integer(2, 5)};
    const int64_t C = dims[1];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(t) << (nhwc ? " nhwc" : " nchw")
                                      << " saved " << saved);
    Data x(t, dims, strides_for(rng, dims, nhwc)), dy(t, dims, strides_for(rng, dims, nhwc)),
        dx(t, dims, strides_for(rng, dims, nhwc)), dz(t, dims, strides_for(rng, dims, nhwc));
    x.random(rng, -2, 2);
    dy.random(rng, -1, 1);
    poison(dx.t);
    poison(dz.t);
    const NormRefShape shape{dims, false};
    const NormRefStats st = norm_batch_stats(shape, x.t);
    const double eps = 1e-4;
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -1, 1), sm = channel_param(rng, C, 0, 1),
         si = sm;
    std::vector<double> inv(C);
    for (int64_t c = 0; c < C; ++c) {
      inv[c] = 1 / std::sqrt(st.var[c] + eps);
      sm.t.set({0, c, 0, 0}, st.mean[c]);
      si.t.set({0, c, 0, 0}, inv[c]);
    }
    Data ds(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1}), db = ds;
    poison(ds.t);
    poison(db.t);
    ActDesc act(CUDNN_ACTIVATION_IDENTITY);
    Fused f(CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.data(CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, dy.up());
    f.desc(CUDNN_PARAM_DYDESC, dy.desc->get());
    f.data(CUDNN_PARAM_DXDATA_PLACEHOLDER, CUDNN_PTR_DXDATA, dx.up());
    f.desc(CUDNN_PARAM_DXDESC, dx.desc->get());
    void *dzp = dz.up();
    if (dz_on) {
      f.data(CUDNN_PARAM_DZDATA_PLACEHOLDER, CUDNN_PTR_DZDATA, dzp);
      f.desc(CUDNN_PARAM_DZDESC, dz.desc->get());
    }
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    f.data(CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, b.up());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    void *smp = sm.up(), *sip = si.up(), *dsp = ds.up(), *dbp = db.up();
    if (saved) {
      f.data(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, smp);
      f.data(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, sip);
    }
    if (params_on) {
      f.data(CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, CUDNN_PTR_BN_DSCALE, dsp);
      f.data(CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, CUDNN_PTR_BN_DBIAS, dbp);
    }
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, eps);
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    std::vector<double> zeros(C, 0.0);
    const NormRefGrad want = norm_backward_expect(shape, x.t, dy.t, nullptr, vals(s), st.mean, inv, 1, 0, dx.t, 1, 0,
                                                  zeros, zeros, false);
    EXPECT_TRUE(matches(dx.down(), want.dx));
    if (params_on) {
      EXPECT_TRUE(matches(ds.down(), want.dscale));
      EXPECT_TRUE(matches(db.down(), want.dbias));
    }
    if (dz_on) {
      std::vector<Expect> copy;
      for (double v : dy.t.values()) copy.push_back({v, 0});
      EXPECT_TRUE(matches(dz.down(), copy));
    }
  }
}


// ---------------------------------------------------------------------------
// The activation bit mask (cuDNN's descriptor rule): per pixel (n, h, w in
// row-major order) W = ((C + 63) & ~63) / 32 INT32 words; channel c is bit
// c % 32 of the pixel's word c / 32; padding words are left alone.

std::vector<int64_t> mask_dims(Rng &rng) {
  return {rng.integer(1, 3), rng.pick(std::vector<int64_t>{32, 64, 96}), rng.integer(1, 4), rng.integer(1, 4)};
}

int64_t words_per_pixel(int64_t C) { return ((C + 63) & ~int64_t{63}) / 32; }

bool mask_bit(const HostTensor &mask, const std::vector<int64_t> &dims, const std::vector<int64_t> &i) {
  const int64_t pixel = (i[0] * dims[2] + i[2]) * dims[3] + i[3];
  const int64_t word_index = pixel * words_per_pixel(dims[1]) + i[1] / 32;
  uint32_t word;
  std::memcpy(&word, mask.bytes.data() + word_index * 4, 4);
  return (word >> (i[1] % 32)) & 1u;
}

TEST(FusedOpsBitmask, GeneratedBitByBit) {
  Rng rng(test_seed(4109));
  Handle h;
  for (int iter = 0; iter < 6; ++iter) {
    const cudnnDataType_t t = rng.coin() ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    const bool nhwc = rng.coin(), relu = rng.coin(0.8);
    const std::vector<int64_t> dims = mask_dims(rng);
    const int64_t C = dims[1], wpp = words_per_pixel(C), pixels = dims[0] * dims[2] * dims[3];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(t) << (nhwc ? " nhwc" : " nchw"));
    Data x(t, dims, strides_for(rng, dims, nhwc)), y(t, dims, strides_for(rng, dims, nhwc));
    Data mask(CUDNN_DATA_INT32, {pixels, wpp, 1, 1}, {wpp, 1, 1, 1});
    x.random(rng, -2, 2);
    poison(y.t);
    poison(mask.t, 0xa5);
    Data s = channel_param(rng, C, 0.5, 1.5), b = channel_param(rng, C, -1, 1);
    ActDesc act(relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);
    Fused f(CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, s.up());
    f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, b.up());
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.data(CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.up());
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    f.data(CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, mask.up());
    if (iter == 0) {  // dimension 1 must be ((C + 63) & ~63) / 32, as cuDNN checks
      TensorDesc wrong(CUDNN_DATA_INT32, {pixels, wpp + 1, 1, 1}, {wpp + 1, 1, 1, 1});
      f.desc(CUDNN_PARAM_ACTIVATION_BITMASK_DESC, wrong.get());
      EXPECT_FAILS_NAMING(f.make(h), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                          "CUDNN_PARAM_ACTIVATION_BITMASK_DESC");
    }
    f.desc(CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mask.desc->get());
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    const HostTensor got_y = y.down(), got_m = mask.down();
    EXPECT_TRUE(matches(got_y, scale_bias_add_relu_expect(x.t.values(), {}, dims, vals(s), vals(b), nullptr, {}, {},
                                                          relu)));
    int wrong = 0;
    for_each_index(dims, [&](const std::vector<int64_t> &i) {
      const bool bit = mask_bit(got_m, dims, i), want = relu ? got_y.get(i) > 0 : true;
      if (bit != want && ++wrong < 5)
        ADD_FAILURE() << "bit of (" << i[0] << "," << i[1] << "," << i[2] << "," << i[3] << ") is " << bit
                      << ", y = " << got_y.get(i);
    });
    EXPECT_EQ(wrong, 0);
    // Padding words (C not a multiple of 64) keep their content.
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t w = C / 32; w < wpp; ++w)
        EXPECT_EQ(got_m.bytes[(p * wpp + w) * 4], 0xa5) << "padding word of pixel " << p;
  }
}

TEST(FusedOpsBitmask, DactivationReadsTheMask) {
  Rng rng(test_seed(4110));
  Handle h;
  for (int iter = 0; iter < 6; ++iter) {
    const cudnnDataType_t t = rng.coin() ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    const bool nhwc = rng.coin(), saved = rng.coin();
    const std::vector<int64_t> dims = mask_dims(rng);
    const int64_t C = dims[1], wpp = words_per_pixel(C), pixels = dims[0] * dims[2] * dims[3];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " " << type_name(t) << (nhwc ? " nhwc" : " nchw"));
    Data x(t, dims, strides_for(rng, dims, nhwc)), dy(t, dims, strides_for(rng, dims, nhwc)),
        dx(t, dims, strides_for(rng, dims, nhwc)), dz(t, dims, strides_for(rng, dims, nhwc));
    Data mask(CUDNN_DATA_INT32, {pixels, wpp, 1, 1}, {wpp, 1, 1, 1});
    const int64_t words = pixels * wpp;
    x.random(rng, -2, 2);
    dy.random(rng, -1, 1);
    for (int64_t w = 0; w < words; ++w) {
      const uint32_t word = static_cast<uint32_t>(rng.next());
      std::memcpy(mask.t.bytes.data() + w * 4, &word, 4);
    }
    poison(dx.t);
    poison(dz.t);
    // g = dy where the mask bit is set, 0 elsewhere.
    HostTensor g = dy.t;
    for_each_index(dims, [&](const std::vector<int64_t> &i) {
      if (!mask_bit(mask.t, dims, i)) g.set(i, 0.0);
    });
    const NormRefShape shape{dims, false};
    const NormRefStats stats = norm_batch_stats(shape, x.t);
    const double eps = 1e-4;
    Data s = channel_param(rng, C, 0.5, 1.5), sm = channel_param(rng, C, 0, 1), si = sm;
    std::vector<double> inv(C);
    for (int64_t c = 0; c < C; ++c) {
      inv[c] = 1 / std::sqrt(stats.var[c] + eps);
      sm.t.set({0, c, 0, 0}, stats.mean[c]);
      si.t.set({0, c, 0, 0}, inv[c]);
    }
    Data ds(CUDNN_DATA_FLOAT, {1, C, 1, 1}, {C, 1, 1, 1}), db = ds;
    poison(ds.t);
    poison(db.t);
    ActDesc act(CUDNN_ACTIVATION_RELU);
    Fused f(CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.data(CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, dy.up());
    f.desc(CUDNN_PARAM_DYDESC, dy.desc->get());
    f.data(CUDNN_PARAM_DXDATA_PLACEHOLDER, CUDNN_PTR_DXDATA, dx.up());
    f.desc(CUDNN_PARAM_DXDESC, dx.desc->get());
    f.data(CUDNN_PARAM_DZDATA_PLACEHOLDER, CUDNN_PTR_DZDATA, dz.up());
    f.desc(CUDNN_PARAM_DZDESC, dz.desc->get());
    f.data(CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, mask.up());
    f.desc(CUDNN_PARAM_ACTIVATION_BITMASK_DESC, mask.desc->get());
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    void *smp = sm.up(), *sip = si.up();
    if (saved) {
      f.data(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, smp);
      f.data(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, sip);
    }
    f.data(CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, CUDNN_PTR_BN_DSCALE, ds.up());
    f.data(CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, CUDNN_PTR_BN_DBIAS, db.up());
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, eps);
    ASSERT_EQ(f.run(h), CUDNN_STATUS_SUCCESS) << last_error();
    std::vector<Expect> gz;
    for (double v : g.values()) gz.push_back({v, 0});
    EXPECT_TRUE(matches(dz.down(), gz));
    std::vector<double> zeros(C, 0.0);
    const NormRefGrad want =
        norm_backward_expect(shape, x.t, g, nullptr, vals(s), stats.mean, inv, 1, 0, dx.t, 1, 0, zeros, zeros, false);
    EXPECT_TRUE(matches(dx.down(), want.dx));
    EXPECT_TRUE(matches(ds.down(), want.dscale));
    EXPECT_TRUE(matches(db.down(), want.dbias));
  }
}

// ---------------------------------------------------------------------------
// Misuse.

TEST(FusedOpsMisuse, MakeAndExecuteStatuses) {
  Handle h;
  Rng rng(4108);
  const std::vector<int64_t> dims = {2, 4, 3, 3};
  Data x(CUDNN_DATA_FLOAT, dims, packed_strides(dims, Layout::nchw)), y = x;
  x.random(rng, -1, 1);
  Data s = channel_param(rng, 4, 0.5, 1.5), b = channel_param(rng, 4, -1, 1);
  ActDesc act(CUDNN_ACTIVATION_RELU);
  ActDesc sigmoid(CUDNN_ACTIVATION_SIGMOID);
  auto setup = [&](Fused &f) {
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.data(CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, y.up());
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, s.up());
    f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, b.up());
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, s.desc->get());
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
  };
  {  // Executing before the plan is made.
    Fused f(CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    setup(f);
    EXPECT_FAILS_NAMING(cudnnFusedOpsExecute(h, f.p(), f.v()), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute",
                        "cudnnMakeFusedOpsPlan");
    size_t ws = 0;
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), nullptr), CUDNN_STATUS_BAD_PARAM,
                        "cudnnMakeFusedOpsPlan", "workspaceSizeInBytes");
    ASSERT_EQ(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_SUCCESS) << last_error();
    // Too small a workspace, then none (where the engine that runs the
    // chain needs one: the CPU's fused engine keeps intermediates in
    // registers, the op-by-op GPU engine in the workspace).
    Buffer small(std::max<size_t>(ws, 1));
    if (ws > 0) {
      ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(f.v(), CUDNN_PTR_WORKSPACE, small.get()),
                CUDNN_STATUS_SUCCESS);
      size_t too_small = ws - 1;
      f.scalar(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, too_small);
      EXPECT_FAILS_NAMING(cudnnFusedOpsExecute(h, f.p(), f.v()), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute",
                          "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES");
      f.scalar(CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, ws);
      ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(f.v(), CUDNN_PTR_WORKSPACE, nullptr), CUDNN_STATUS_SUCCESS);
      EXPECT_FAILS_NAMING(cudnnFusedOpsExecute(h, f.p(), f.v()), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute",
                          "CUDNN_PTR_WORKSPACE");
    }
    ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(f.v(), CUDNN_PTR_WORKSPACE, small.get()), CUDNN_STATUS_SUCCESS);
    // A promised pointer that is NULL.
    ASSERT_EQ(cudnnSetFusedOpsVariantParamPackAttribute(f.v(), CUDNN_PTR_BN_EQBIAS, nullptr), CUDNN_STATUS_SUCCESS);
    EXPECT_FAILS_NAMING(cudnnFusedOpsExecute(h, f.p(), f.v()), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute",
                        "CUDNN_PTR_BN_EQBIAS");
    // A variant pack of another kind.
    Fused g(CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    EXPECT_EQ(cudnnFusedOpsExecute(h, f.p(), g.v()), CUDNN_STATUS_BAD_PARAM);
    // A const pack of another kind.
    EXPECT_EQ(cudnnMakeFusedOpsPlan(h, g.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM);
  }
  {  // Missing required descriptor and pointer placeholder.
    Fused f(CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    setup(f);
    f.desc(CUDNN_PARAM_YDESC, nullptr);
    size_t ws = 0;
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_YDESC");
    f.desc(CUDNN_PARAM_YDESC, y.desc->get());
    f.value(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_NULL);
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_XDATA_PLACEHOLDER");
    f.value(CUDNN_PARAM_XDATA_PLACEHOLDER, 9);
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_XDATA_PLACEHOLDER");
    f.value(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_16B_ALIGNED);
    f.value(CUDNN_PARAM_BN_MODE, 5);
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_BN_MODE");
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_PER_ACTIVATION);  // the default: per-channel modes only
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_NOT_SUPPORTED,
                        "cudnnMakeFusedOpsPlan", "CUDNN_PARAM_BN_MODE");
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, sigmoid.d);
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_NOT_SUPPORTED,
                        "cudnnMakeFusedOpsPlan", "CUDNN_PARAM_ACTIVATION_DESC");
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    // 72 elements: not a whole number of 32-bit mask words.
    f.value(CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ELEM_ALIGNED);
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_NOT_SUPPORTED,
                        "cudnnMakeFusedOpsPlan", "multiple of 32");
    f.value(CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_NULL);
    // A per-channel descriptor of the wrong shape.
    Data wrong = channel_param(rng, 3, 0, 1);
    wrong.up();
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, wrong.desc->get());
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_BN_EQSCALEBIAS_DESC");
  }
  {  // BN finalize: epsilon below the minimum, no accumulation count.
    Fused f(CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    Data sum = channel_param(rng, 4, 0, 1), sq = channel_param(rng, 4, 1, 2), eq = channel_param(rng, 4, 0, 1);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    f.data(CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, sum.up());
    f.data(CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, sq.up());
    f.desc(CUDNN_PARAM_YSTATS_DESC, sum.desc->get());
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    f.data(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, eq.up());
    f.desc(CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.desc->get());
    f.scalar(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, int64_t{10});
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, -1e-3);
    EXPECT_FAILS_NAMING(f.run(h), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute", "EPSILON");
    f.scalar(CUDNN_SCALAR_DOUBLE_BN_EPSILON, 1e-3);
    f.scalar(CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, int64_t{0});
    EXPECT_FAILS_NAMING(f.run(h), CUDNN_STATUS_BAD_PARAM, "cudnnFusedOpsExecute", "ACCUMULATION_COUNT");
    // The equivalent bias needs the bias.
    f.data(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, eq.buf->get());
    size_t ws = 0;
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan",
                        "CUDNN_PARAM_BN_BIAS_PLACEHOLDER");
  }
  {  // dActivation with RELU writes the masked gradient to dz: dz is needed.
    Fused f(CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM);
    f.desc(CUDNN_PARAM_ACTIVATION_DESC, act.d);
    f.value(CUDNN_PARAM_BN_MODE, CUDNN_BATCHNORM_SPATIAL);
    size_t ws = 0;
    EXPECT_EQ(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM);  // required pointers missing
    f.data(CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, x.up());
    f.data(CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, x.buf->get());
    f.data(CUDNN_PARAM_DXDATA_PLACEHOLDER, CUDNN_PTR_DXDATA, y.up());
    f.data(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, s.up());
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_BAD_PARAM,
                        "cudnnMakeFusedOpsPlan", "CUDNN_PARAM_BN_DSCALE_PLACEHOLDER");
    f.data(CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, CUDNN_PTR_BN_DSCALE, b.up());
    f.data(CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, CUDNN_PTR_BN_DBIAS, b.buf->get());
    f.desc(CUDNN_PARAM_XDESC, x.desc->get());
    f.desc(CUDNN_PARAM_DYDESC, x.desc->get());
    f.desc(CUDNN_PARAM_DXDESC, y.desc->get());
    f.desc(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, s.desc->get());
    EXPECT_FAILS_NAMING(cudnnMakeFusedOpsPlan(h, f.p(), f.c(), &ws), CUDNN_STATUS_NOT_SUPPORTED,
                        "cudnnMakeFusedOpsPlan", "CUDNN_PARAM_DZDESC");
  }
}

}  // namespace
