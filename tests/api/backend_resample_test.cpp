// The backend (graph) API for resampling: CUDNN_BACKEND_RESAMPLE_DESCRIPTOR
// rules, and pooling forward / backward through graph -> heuristics -> plan ->
// execute, checked against float64 pooling written here. The helpers are
// in tests/common/backend_graph.hpp.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/backend_graph.hpp"
#include "common/backend_ops.hpp"
#include "common/random_layout.hpp"
#include "common/resample_reference.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendResample : public BackendGraphTest {};


// 2-D pooling geometry shared by the descriptor and the float64 reference.
// A 1-D problem (spatial = 1: x is [N, C, W]) is the 2-D one with h = 1 and
// window 1, stride 1, no padding in H (one_d() sets that).
struct Pool {
  cudnnResampleMode_t mode;
  int64_t n = 2, c = 3, h = 7, w = 6;
  int64_t win[2] = {3, 2}, stride[2] = {2, 2}, pre[2] = {1, 0}, post[2] = {1, 1};
  int spatial = 2;
  Pool &one_d(int64_t width, int64_t window, int64_t step, int64_t pad_pre, int64_t pad_post) {
    spatial = 1;
    h = 1;
    w = width;
    win[0] = 1, stride[0] = 1, pre[0] = 0, post[0] = 0;
    win[1] = window, stride[1] = step, pre[1] = pad_pre, post[1] = pad_post;
    return *this;
  }
  std::vector<int64_t> in_dims() const {
    return spatial == 1 ? std::vector<int64_t>{n, c, w} : std::vector<int64_t>{n, c, h, w};
  }
  std::vector<int64_t> out_dims() const {
    return spatial == 1 ? std::vector<int64_t>{n, c, ow()} : std::vector<int64_t>{n, c, oh(), ow()};
  }
  int64_t oh() const { return (h + pre[0] + post[0] - win[0]) / stride[0] + 1; }
  int64_t ow() const { return (w + pre[1] + post[1] - win[1]) / stride[1] + 1; }
  size_t in_size() const { return static_cast<size_t>(n * c * h * w); }
  size_t out_size() const { return static_cast<size_t>(n * c * oh() * ow()); }
  bool is_max() const { return mode == CUDNN_RESAMPLE_MAXPOOL; }

  // Visits the input positions of output (plane, i, j) that lie inside x,
  // and returns the average's divisor.
  template <class F>
  int64_t window(int64_t i, int64_t j, F &&f) const {
    int64_t inside = 0;
    for (int64_t a = 0; a < win[0]; ++a)
      for (int64_t b = 0; b < win[1]; ++b) {
        const int64_t r = i * stride[0] - pre[0] + a, s = j * stride[1] - pre[1] + b;
        if (r < 0 || r >= h || s < 0 || s >= w) continue;
        ++inside;
        f(r * w + s);
      }
    return mode == CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? inside : win[0] * win[1];
  }

  // y = pool(x), per plane, in float64.
  std::vector<double> forward(const std::vector<float> &x) const {
    std::vector<double> y;
    for (int64_t p = 0; p < n * c; ++p)
      for (int64_t i = 0; i < oh(); ++i)
        for (int64_t j = 0; j < ow(); ++j) {
          double acc = is_max() ? -INFINITY : 0.0;
          const int64_t div = window(i, j, [&](int64_t k) {
            const double v = x[p * h * w + k];
            acc = is_max() ? std::max(acc, v) : acc + v;
          });
          y.push_back(is_max() ? acc : acc / div);
        }
    return y;
  }

  // dx = gradient of pool at x applied to dy, in float64.
  std::vector<double> backward(const std::vector<float> &x, const std::vector<float> &dy) const {
    std::vector<double> dx(in_size(), 0.0);
    size_t o = 0;
    for (int64_t p = 0; p < n * c; ++p)
      for (int64_t i = 0; i < oh(); ++i)
        for (int64_t j = 0; j < ow(); ++j, ++o) {
          const float *plane = x.data() + p * h * w;
          double *dplane = dx.data() + p * h * w;
          if (is_max()) {
            int64_t arg = -1;
            window(i, j, [&](int64_t k) {
              if (arg < 0 || plane[k] > plane[arg]) arg = k;
            });
            if (arg >= 0) dplane[arg] += dy[o];
          } else {
            std::vector<int64_t> ks;
            const int64_t div = window(i, j, [&](int64_t k) { ks.push_back(k); });
            for (int64_t k : ks) dplane[k] += dy[o] / static_cast<double>(div);
          }
        }
    return dx;
  }
};

std::unique_ptr<Desc> resample_desc(const Pool &p) {
  auto r = std::make_unique<Desc>(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
  const cudnnPaddingMode_t pad = p.is_max() ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD;
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, p.mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, CUDNN_PROPAGATE_NAN),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, pad), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{p.spatial}), CUDNN_STATUS_SUCCESS);
  // The window as fractions, the rest as INT64: both forms are accepted. A
  // 1-D descriptor has the W entries only.
  const size_t first = p.spatial == 1 ? 1 : 0;
  const auto pick = [&](const int64_t (&v)[2]) { return std::vector<int64_t>(v + first, v + 2); };
  std::vector<cudnnFraction_t> win;
  for (int64_t k : pick(p.win)) win.push_back({k, 1});
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, win), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_INT64, pick(p.stride)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_INT64, pick(p.pre)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_INT64, pick(p.post)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  return r;
}

constexpr cudnnResampleMode_t kPoolModes[] = {CUDNN_RESAMPLE_MAXPOOL, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING,
                                              CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING};

TEST_F(BackendResample, PoolingForward) {
  Rng rng(31);
  for (cudnnResampleMode_t mode : kPoolModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    Pool p{mode};
    auto r = resample_desc(p);
    auto x = tensor(1, {p.n, p.c, p.h, p.w}), y = tensor(2, {p.n, p.c, p.oh(), p.ow()});
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    const auto hx = random_floats(rng, p.in_size());
    Buffer dx = upload(hx), dy = upload(std::vector<float>(p.out_size(), NAN));
    ASSERT_EQ(run({&op}, {1, 2}, {dx.get(), dy.get()}), CUDNN_STATUS_SUCCESS);
    const auto out = download(dy, p.out_size());
    const auto want = p.forward(hx);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-5) << i;
  }
}

TEST_F(BackendResample, PoolingBackward) {
  Rng rng(32);
  for (cudnnResampleMode_t mode : kPoolModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    Pool p{mode};
    auto r = resample_desc(p);
    auto tdx = tensor(1, {p.n, p.c, p.h, p.w}), tdy = tensor(2, {p.n, p.c, p.oh(), p.ow()});
    auto tx = tensor(3, {p.n, p.c, p.h, p.w});
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, tdx->d),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, tdy->d),
              CUDNN_STATUS_SUCCESS);
    // Max pooling finds the argmax again from x (no index tensor).
    ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, tx->d),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    const auto hx = random_floats(rng, p.in_size()), hdy = random_floats(rng, p.out_size());
    Buffer bx = upload(hx), bdy = upload(hdy), bdx = upload(std::vector<float>(p.in_size(), NAN));
    ASSERT_EQ(run({&op}, {1, 2, 3}, {bdx.get(), bdy.get(), bx.get()}), CUDNN_STATUS_SUCCESS);
    const auto out = download(bdx, p.in_size());
    const auto want = p.backward(hx, hdy);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-5) << i;
  }
}

// [N, C, W] data between the logical (NCW, packed) order of the float64
// reference and a channels-innermost (NWC) buffer.
std::vector<float> ncw_to_nwc(const std::vector<float> &v, int64_t n, int64_t c, int64_t w) {
  std::vector<float> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t j = 0; j < w; ++j) out[(i * w + j) * c + k] = v[(i * c + k) * w + j];
  return out;
}

std::vector<float> nwc_to_ncw(const std::vector<float> &v, int64_t n, int64_t c, int64_t w) {
  std::vector<float> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t j = 0; j < w; ++j) out[(i * c + k) * w + j] = v[(i * w + j) * c + k];
  return out;
}

// 1-D pooling (x [N, C, W], NCW and NWC layouts), every mode, forward and
// backward, through graph -> heuristics -> plan: on a GPU handle
// cuda.pooling runs it as the 2-D case with H = 1 (NWC with 8 channels takes
// its channel-vector path).
TEST_F(BackendResample, PoolingOneDimension) {
  Rng rng(34);
  struct Shape {
    int64_t w, win, stride, pre, post;
  };
  const Shape shapes[] = {{11, 3, 2, 1, 1}, {16, 2, 2, 0, 0}, {9, 4, 1, 2, 1}};
  for (const bool nwc : {false, true})
    for (cudnnResampleMode_t mode : kPoolModes)
      for (const Shape &sh : shapes) {
        SCOPED_TRACE(testing::Message() << (nwc ? "NWC" : "NCW") << " mode " << static_cast<int>(mode) << " w "
                                        << sh.w << " win " << sh.win << " stride " << sh.stride);
        Pool p{mode};
        p.one_d(sh.w, sh.win, sh.stride, sh.pre, sh.post);
        if (nwc) p.c = 8;
        const int64_t ow = p.ow();
        const auto strides = [&](int64_t width) {
          return nwc ? std::vector<int64_t>{width * p.c, 1, p.c} : std::vector<int64_t>{p.c * width, width, 1};
        };
        const auto to_buf = [&](const std::vector<float> &v, int64_t width) {
          return upload(nwc ? ncw_to_nwc(v, p.n, p.c, width) : v);
        };
        const auto from_buf = [&](const Buffer &b, int64_t width) {
          const auto v = download(b, static_cast<size_t>(p.n * p.c * width));
          return nwc ? nwc_to_ncw(v, p.n, p.c, width) : v;
        };
        auto r = resample_desc(p);
        auto x = tensor_desc(1, CUDNN_DATA_FLOAT, p.in_dims(), strides(p.w));
        auto y = tensor_desc(2, CUDNN_DATA_FLOAT, p.out_dims(), strides(ow));
        Desc fwd(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
        ASSERT_EQ(fwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(fwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(fwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(fwd.finalize(), CUDNN_STATUS_SUCCESS);
        auto fplan = make_plan({&fwd});
        ASSERT_TRUE(fplan);
        if (gpu_mode()) EXPECT_EQ(plan_engine_name(*fplan), "cuda.pooling");
        const auto hx = random_floats(rng, p.in_size());
        Buffer bx = to_buf(hx, p.w), by = upload(std::vector<float>(p.out_size(), NAN));
        ASSERT_EQ(execute(*fplan, {1, 2}, {bx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
        const auto out = from_buf(by, ow);
        const auto want = p.forward(hx);
        for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-5) << i;

        auto tdx = tensor_desc(3, CUDNN_DATA_FLOAT, p.in_dims(), strides(p.w));
        auto tdy = tensor_desc(4, CUDNN_DATA_FLOAT, p.out_dims(), strides(ow));
        Desc bwd(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
        ASSERT_EQ(bwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(bwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, tdx->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(bwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, tdy->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(bwd.set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d),
                  CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(bwd.finalize(), CUDNN_STATUS_SUCCESS);
        auto bplan = make_plan({&bwd});
        ASSERT_TRUE(bplan);
        if (gpu_mode()) EXPECT_EQ(plan_engine_name(*bplan), "cuda.pooling");
        const auto hdy = random_floats(rng, p.out_size());
        Buffer bdy = to_buf(hdy, ow), bdx = upload(std::vector<float>(p.in_size(), NAN));
        ASSERT_EQ(execute(*bplan, {3, 4, 1}, {bdx.get(), bdy.get(), bx.get()}), CUDNN_STATUS_SUCCESS);
        const auto got = from_buf(bdx, p.w);
        const auto grad = p.backward(hx, hdy);
        for (size_t i = 0; i < grad.size(); ++i) EXPECT_NEAR(got[i], grad[i], 1e-5) << i;
      }
}

// Max pooling whose result feeds a pointwise op through a virtual tensor:
// the resample op inside a multi-op graph (op-by-op engine, dataflow).
TEST_F(BackendResample, PoolingThenPointwise) {
  Rng rng(33);
  Pool p{CUDNN_RESAMPLE_MAXPOOL};
  auto r = resample_desc(p);
  const std::vector<int64_t> ydims{p.n, p.c, p.oh(), p.ow()};
  auto x = tensor(1, {p.n, p.c, p.h, p.w}), t = tensor(2, ydims, true), y = tensor(3, ydims);
  Desc pool(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
  ASSERT_EQ(pool.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(pool.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(pool.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, t->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(pool.finalize(), CUDNN_STATUS_SUCCESS);
  auto relu = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *t, nullptr, *y);
  const auto hx = random_floats(rng, p.in_size());
  Buffer bx = upload(hx), by = upload(std::vector<float>(p.out_size(), NAN));
  ASSERT_EQ(run({relu.get(), &pool}, {1, 3}, {bx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
  const auto out = download(by, p.out_size());
  const auto want = p.forward(hx);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], std::max(0.0, want[i]), 1e-5) << i;
}

// Finalize and attribute rules of the resample descriptor (the same as
// NVIDIA's cuDNN 9, probed on the host; see tests/oracle/backend_descriptors.c).
TEST_F(BackendResample, DescriptorRules) {
  const std::vector<cudnnFraction_t> win2{{2, 1}, {2, 1}};
  {
    Desc r(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(r.finalize(), CUDNN_STATUS_SUCCESS);  // nothing set: 0 spatial dimensions
  }
  {
    Desc r(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_INT32, int32_t{3}), CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
    EXPECT_EQ(r.set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, std::vector<cudnnFraction_t>{}),
              CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(cudnnBackendSetAttribute(r.d, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, nullptr),
              CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{2}), CUDNN_STATUS_SUCCESS);
    int64_t count = 0;
    cudnnFraction_t f[2];
    EXPECT_EQ(cudnnBackendGetAttribute(r.d, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, &count, f),
              CUDNN_STATUS_NOT_INITIALIZED);
    EXPECT_EQ(r.finalize(), CUDNN_STATUS_NOT_SUPPORTED);  // no window
    EXPECT_EQ(r.set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, win2), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{2}), CUDNN_STATUS_BAD_PARAM);
    // Unset strides and paddings read back as 0/0, one per spatial dimension.
    EXPECT_EQ(cudnnBackendGetAttribute(r.d, CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, 2, &count, f),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(count, 2);
    EXPECT_EQ(f[0].numerator, 0);
    EXPECT_EQ(f[0].denominator, 0);
    EXPECT_EQ(cudnnBackendGetAttribute(r.d, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 2, &count, f),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(f[1].numerator, 2);
    EXPECT_EQ(f[1].denominator, 1);
    int64_t w[2];
    EXPECT_EQ(cudnnBackendGetAttribute(r.d, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, 2, &count, w),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(w[0], 2);
    cudnnPaddingMode_t pm = CUDNN_EDGE_VAL_PAD;
    EXPECT_EQ(cudnnBackendGetAttribute(r.d, CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, 1, &count, &pm),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(pm, CUDNN_ZERO_PAD);
  }
  const auto finalize_with = [&](int64_t dims, const std::vector<cudnnFraction_t> &win, int32_t mode) {
    Desc r(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, mode), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
    if (!win.empty()) EXPECT_EQ(r.set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, win), CUDNN_STATUS_SUCCESS);
    return r.finalize();
  };
  EXPECT_EQ(finalize_with(3, win2, CUDNN_RESAMPLE_MAXPOOL), CUDNN_STATUS_NOT_SUPPORTED);   // count != dims
  EXPECT_EQ(finalize_with(7, std::vector<cudnnFraction_t>(7, {2, 1}), CUDNN_RESAMPLE_MAXPOOL),
            CUDNN_STATUS_NOT_SUPPORTED);                                                   // too many dims
  // Pooling modes accept a missing or empty window (the operation refuses it);
  // the upsampling ones do not.
  EXPECT_EQ(finalize_with(9, {}, CUDNN_RESAMPLE_MAXPOOL), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize_with(9, {}, CUDNN_RESAMPLE_NEAREST), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(finalize_with(2, {{0, 1}, {2, 1}}, CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize_with(0, {}, CUDNN_RESAMPLE_MAXPOOL), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize_with(2, {{0, 1}, {2, 1}}, CUDNN_RESAMPLE_BILINEAR), CUDNN_STATUS_NOT_SUPPORTED);  // empty window
  EXPECT_EQ(finalize_with(2, win2, 7), CUDNN_STATUS_BAD_PARAM);                            // not a mode
  EXPECT_EQ(finalize_with(2, win2, CUDNN_RESAMPLE_BILINEAR), CUDNN_STATUS_SUCCESS);
}

TEST_F(BackendResample, OperationRules) {
  Pool p{CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING};
  auto r = resample_desc(p);
  auto x = tensor(1, {p.n, p.c, p.h, p.w}), y = tensor(2, {p.n, p.c, p.oh(), p.ow()});
  auto other_c = tensor(3, {p.n, p.c + 1, p.oh(), p.ow()}), rank3 = tensor(4, {p.n, p.c, p.oh()});
  {
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
    EXPECT_EQ(op.finalize(), CUDNN_STATUS_BAD_PARAM);  // as NVIDIA's: the descriptor and tensors are required
  }
  const auto finalize_fwd = [&](Desc &yd) {
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd.d), CUDNN_STATUS_SUCCESS);
    return op.finalize();
  };
  EXPECT_EQ(finalize_fwd(*y), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(finalize_fwd(*other_c), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(finalize_fwd(*rank3), CUDNN_STATUS_BAD_PARAM);
  {
    // A pooling descriptor without a window finalizes but makes no operation.
    Desc nowin(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(nowin.set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, CUDNN_RESAMPLE_MAXPOOL), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(nowin.set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{2}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(nowin.finalize(), CUDNN_STATUS_SUCCESS);
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, nowin.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.finalize(), CUDNN_STATUS_NOT_SUPPORTED);
  }
  {
    // An unfinalized resample descriptor is refused.
    Desc raw(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    Desc op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.finalize(), CUDNN_STATUS_BAD_PARAM);
  }
}

// GEN_STATS (per-channel sum and sum of squares), which FreeDNN expands to a
// reduction, a pointwise square and a second reduction; kept in this file for
// its helpers. Run twice: alone, and after a pointwise op that feeds x.
TEST_F(BackendResample, GenStatsSumAndSquares) {
  Rng rng(34);
  const int64_t n = 2, c = 3, h = 4, w = 5;
  const size_t size = static_cast<size_t>(n * c * h * w);
  auto x = tensor(1, {n, c, h, w}), sum = tensor(2, {1, c, 1, 1}), sq = tensor(3, {1, c, 1, 1});
  Desc gs(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, CUDNN_GENSTATS_SUM_SQSUM),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, sum->d), CUDNN_STATUS_SUCCESS);
  // A wrong shape first: sqsum must be 1 x C x 1 x 1.
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(gs.finalize(), CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(gs.set1(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, sq->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs.finalize(), CUDNN_STATUS_SUCCESS);

  const auto hx = random_floats(rng, size);
  std::vector<double> want_sum(c, 0.0), want_sq(c, 0.0);
  for (size_t i = 0; i < size; ++i) {
    const size_t ch = (i / static_cast<size_t>(h * w)) % static_cast<size_t>(c);
    want_sum[ch] += hx[i];
    want_sq[ch] += static_cast<double>(hx[i]) * hx[i];
  }
  Buffer bx = upload(hx), bsum = upload(std::vector<float>(c, NAN)), bsq = upload(std::vector<float>(c, NAN));
  ASSERT_EQ(run({&gs}, {1, 2, 3}, {bx.get(), bsum.get(), bsq.get()}), CUDNN_STATUS_SUCCESS);
  auto got_sum = download(bsum, c), got_sq = download(bsq, c);
  for (int64_t k = 0; k < c; ++k) {
    EXPECT_NEAR(got_sum[k], want_sum[k], 1e-4 * (1 + std::fabs(want_sum[k]))) << k;
    EXPECT_NEAR(got_sq[k], want_sq[k], 1e-4 * (1 + want_sq[k])) << k;
  }

  // Two GEN_STATS in one graph (distinct internal tensors), the second on
  // relu(x) through a virtual tensor.
  auto r = tensor(4, {n, c, h, w}, true), sum2 = tensor(5, {1, c, 1, 1}), sq2 = tensor(6, {1, c, 1, 1});
  auto relu = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *x, nullptr, *r);
  Desc gs2(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
  ASSERT_EQ(gs2.set1(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, CUDNN_GENSTATS_SUM_SQSUM),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs2.set1(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs2.set1(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs2.set1(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, sum2->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs2.set1(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, sq2->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(gs2.finalize(), CUDNN_STATUS_SUCCESS);
  std::vector<double> want_sum2(c, 0.0), want_sq2(c, 0.0);
  for (size_t i = 0; i < size; ++i) {
    const size_t ch = (i / static_cast<size_t>(h * w)) % static_cast<size_t>(c);
    const double v = std::max(0.0, static_cast<double>(hx[i]));
    want_sum2[ch] += v;
    want_sq2[ch] += v * v;
  }
  Buffer bsum2 = upload(std::vector<float>(c, NAN)), bsq2 = upload(std::vector<float>(c, NAN));
  bsum = upload(std::vector<float>(c, NAN));
  bsq = upload(std::vector<float>(c, NAN));
  ASSERT_EQ(run({&gs2, relu.get(), &gs}, {1, 2, 3, 5, 6}, {bx.get(), bsum.get(), bsq.get(), bsum2.get(), bsq2.get()}),
            CUDNN_STATUS_SUCCESS);
  got_sum = download(bsum, c), got_sq = download(bsq, c);
  const auto got_sum2 = download(bsum2, c), got_sq2 = download(bsq2, c);
  for (int64_t k = 0; k < c; ++k) {
    EXPECT_NEAR(got_sum[k], want_sum[k], 1e-4 * (1 + std::fabs(want_sum[k]))) << k;
    EXPECT_NEAR(got_sq[k], want_sq[k], 1e-4 * (1 + want_sq[k])) << k;
    EXPECT_NEAR(got_sum2[k], want_sum2[k], 1e-4 * (1 + want_sum2[k])) << k;
    EXPECT_NEAR(got_sq2[k], want_sq2[k], 1e-4 * (1 + want_sq2[k])) << k;
  }
}

// ---- Upsampling (NEAREST, BILINEAR) and the max-pooling index tensor --------

std::vector<cudnnFraction_t> fractions(const std::vector<Frac> &v) {
  std::vector<cudnnFraction_t> f;
  for (const Frac &x : v) f.push_back({x.num, x.den});
  return f;
}

// A finalized resample descriptor of an upsampling mode with fractional geometry.
std::unique_ptr<Desc> upsample_desc(const UpsampleParams &p, const std::vector<Frac> &post,
                                    cudnnPaddingMode_t pad = CUDNN_EDGE_VAL_PAD) {
  auto r = std::make_unique<Desc>(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
  const cudnnResampleMode_t mode = p.bilinear ? CUDNN_RESAMPLE_BILINEAR : CUDNN_RESAMPLE_NEAREST;
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, pad), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, static_cast<int64_t>(p.stride.size())),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, fractions(p.window)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, fractions(p.stride)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_FRACTION, fractions(p.pre)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_FRACTION, fractions(post)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  return r;
}

// A max-pooling resample descriptor with integer geometry.
std::unique_ptr<Desc> maxpool_desc(const std::vector<int64_t> &win, const std::vector<int64_t> &stride,
                                   const std::vector<int64_t> &pre, const std::vector<int64_t> &post,
                                   cudnnResampleMode_t mode = CUDNN_RESAMPLE_MAXPOOL) {
  auto r = std::make_unique<Desc>(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE,
                    mode == CUDNN_RESAMPLE_MAXPOOL ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, static_cast<int64_t>(win.size())),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_INT64, win), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_INT64, stride), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_INT64, pre), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_INT64, post), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  return r;
}

std::unique_ptr<Desc> host_tensor_desc(int64_t uid, const HostTensor &t) {
  return tensor_desc(uid, t.dtype, t.dims, t.strides);
}

// A forward or backward resample operation; `in`/`out` are x/y or dx/dy.
std::unique_ptr<Desc> resample_op(bool backward, Desc &r, Desc &in, Desc &out, Desc *index, double alpha,
                                  double beta, Desc *x = nullptr) {
  auto op = std::make_unique<Desc>(backward ? CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR
                                            : CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
  if (backward) {
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, in.d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, out.d),
              CUDNN_STATUS_SUCCESS);
    if (index)
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, index->d),
                CUDNN_STATUS_SUCCESS);
    if (x)
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d),
                CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_ALPHA, CUDNN_TYPE_DOUBLE, alpha), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_BETA, CUDNN_TYPE_DOUBLE, beta), CUDNN_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, in.d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, out.d),
              CUDNN_STATUS_SUCCESS);
    if (index)
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, index->d),
                CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_ALPHA, CUDNN_TYPE_DOUBLE, alpha), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_BETA, CUDNN_TYPE_DOUBLE, beta), CUDNN_STATUS_SUCCESS);
  }
  return op;
}

// One random upsampling problem: geometry per spatial dimension from a set
// that includes cuDNN's documented one (window 2, stride 1/2, pre-padding
// 1/2, post-padding 1), fractional strides of 1/3 and 2/3, identity and
// window 1 (PyTorch's nearest).
struct UpsampleCase {
  UpsampleParams p;
  std::vector<Frac> post;
  std::vector<int64_t> x_dims, y_dims;
  cudnnDataType_t dtype;
};

// The output extent the backend API requires (NVIDIA's operation finalize
// refuses others): floor((in + pre + post - window) / stride) + 1, for
// denominators that divide 12.
int64_t output_extent(Frac window, Frac stride, Frac pre, Frac post, int64_t in) {
  const int64_t a = 12 * in + pre.num * (12 / pre.den) + post.num * (12 / post.den) - window.num * (12 / window.den);
  const int64_t num = a * stride.den, den = 12 * stride.num;
  return (num >= 0 ? num / den : -((-num + den - 1) / den)) + 1;
}

UpsampleCase random_upsample(Rng &rng, bool bilinear) {
  struct Geo {
    Frac window, stride, pre, post;
  };
  static const std::vector<Geo> geos = {{{2, 1}, {1, 2}, {1, 2}, {1, 1}}, {{1, 1}, {1, 2}, {0, 1}, {1, 2}},
                                        {{2, 1}, {1, 3}, {1, 3}, {1, 1}}, {{2, 1}, {2, 3}, {0, 1}, {1, 1}},
                                        {{1, 1}, {1, 1}, {0, 1}, {0, 1}}, {{3, 2}, {1, 4}, {1, 4}, {1, 4}},
                                        {{2, 1}, {3, 2}, {1, 2}, {1, 1}}};
  UpsampleCase c;
  c.p.bilinear = bilinear;
  const int s = rng.coin(0.25) ? 3 : 2;
  c.x_dims = {rng.integer(1, 2), rng.integer(1, 5)};
  c.y_dims = c.x_dims;
  for (int d = 0; d < s; ++d) {
    const Geo &g = rng.pick(geos);
    c.p.window.push_back(g.window);
    c.p.stride.push_back(g.stride);
    c.p.pre.push_back(g.pre);
    c.post.push_back(g.post);
    const int64_t in = rng.integer(1, s == 3 ? 4 : 6);
    c.x_dims.push_back(in);
    c.y_dims.push_back(output_extent(g.window, g.stride, g.pre, g.post, in));
  }
  c.dtype = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                                  CUDNN_DATA_BFLOAT16, CUDNN_DATA_DOUBLE});
  return c;
}

std::string describe_case(const UpsampleCase &c) {
  std::string s = c.p.bilinear ? "bilinear" : "nearest";
  for (size_t d = 0; d < c.p.stride.size(); ++d)
    s += " [w " + std::to_string(c.p.window[d].num) + "/" + std::to_string(c.p.window[d].den) + " s " +
         std::to_string(c.p.stride[d].num) + "/" + std::to_string(c.p.stride[d].den) + " pre " +
         std::to_string(c.p.pre[d].num) + "/" + std::to_string(c.p.pre[d].den) + " " +
         std::to_string(c.x_dims[2 + d]) + "->" + std::to_string(c.y_dims[2 + d]) + "]";
  return s;
}

TEST_F(BackendResample, UpsampleForward) {
  Rng rng(41);
  for (int iter = 0; iter < 24; ++iter) {
    const UpsampleCase c = random_upsample(rng, iter % 2 == 0);
    HostTensor x = random_layout(rng, c.dtype, c.x_dims, -4, 4);
    HostTensor y = random_layout(rng, c.dtype, c.y_dims, -4, 4);
    const double alpha = rng.coin() ? 1.0 : 0.75, beta = rng.coin() ? 0.0 : -0.5;
    if (beta == 0) poison(y);
    SCOPED_TRACE(describe_case(c) + " x " + describe(x) + " y " + describe(y) + " beta " + std::to_string(beta));
    const auto want = reference_upsample_forward(c.p, x, alpha, beta, y);
    auto r = upsample_desc(c.p, c.post, iter % 3 == 0 ? CUDNN_ZERO_PAD : CUDNN_EDGE_VAL_PAD);
    auto tx = host_tensor_desc(1, x), ty = host_tensor_desc(2, y);
    auto op = resample_op(false, *r, *tx, *ty, nullptr, alpha, beta);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bx = upload(x), by = upload(y);
    ASSERT_EQ(run({op.get()}, {1, 2}, {bx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
    download(by, y);
    EXPECT_TRUE(matches(y, want));
  }
}

TEST_F(BackendResample, UpsampleBackward) {
  Rng rng(42);
  for (int iter = 0; iter < 24; ++iter) {
    const UpsampleCase c = random_upsample(rng, iter % 2 == 1);
    HostTensor dy = random_layout(rng, c.dtype, c.y_dims, -4, 4);
    HostTensor dx = random_layout(rng, c.dtype, c.x_dims, -4, 4);
    const double alpha = rng.coin() ? 1.0 : 1.5, beta = rng.coin() ? 0.0 : 0.25;
    if (beta == 0) poison(dx);
    SCOPED_TRACE(describe_case(c) + " dx " + describe(dx) + " dy " + describe(dy) + " beta " + std::to_string(beta));
    const auto want = reference_upsample_backward(c.p, dy, alpha, beta, dx);
    auto r = upsample_desc(c.p, c.post);
    auto tdx = host_tensor_desc(1, dx), tdy = host_tensor_desc(2, dy);
    auto op = resample_op(true, *r, *tdx, *tdy, nullptr, alpha, beta);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bdx = upload(dx), bdy = upload(dy);
    ASSERT_EQ(run({op.get()}, {1, 2}, {bdx.get(), bdy.get()}), CUDNN_STATUS_SUCCESS);
    download(bdx, dx);
    EXPECT_TRUE(matches(dx, want));
  }
}

// The backward pass is the adjoint of the forward one, as the library
// computes both: <dy, fwd(x)> == <bwd(dy), x>.
TEST_F(BackendResample, UpsampleAdjoint) {
  Rng rng(43);
  for (int iter = 0; iter < 8; ++iter) {
    UpsampleCase c = random_upsample(rng, iter % 2 == 0);
    c.dtype = CUDNN_DATA_FLOAT;
    SCOPED_TRACE(describe_case(c));
    HostTensor x = random_layout(rng, c.dtype, c.x_dims, -2, 2), y = random_layout(rng, c.dtype, c.y_dims);
    HostTensor dy = random_layout(rng, c.dtype, c.y_dims, -2, 2), dx = random_layout(rng, c.dtype, c.x_dims);
    auto r = upsample_desc(c.p, c.post);
    auto tx = host_tensor_desc(1, x), ty = host_tensor_desc(2, y), tdx = host_tensor_desc(3, dx),
         tdy = host_tensor_desc(4, dy);
    auto fwd = resample_op(false, *r, *tx, *ty, nullptr, 1, 0);
    auto bwd = resample_op(true, *r, *tdx, *tdy, nullptr, 1, 0);
    ASSERT_EQ(fwd->finalize(), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(bwd->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bx = upload(x), by = upload(y), bdx = upload(dx), bdy = upload(dy);
    ASSERT_EQ(run({fwd.get()}, {1, 2}, {bx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(run({bwd.get()}, {3, 4}, {bdx.get(), bdy.get()}), CUDNN_STATUS_SUCCESS);
    download(by, y);
    download(bdx, dx);
    double lhs = 0, rhs = 0, mag = 0;
    const auto yv = y.values(), dyv = dy.values(), xv = x.values(), dxv = dx.values();
    for (size_t i = 0; i < yv.size(); ++i) lhs += yv[i] * dyv[i], mag += std::fabs(yv[i] * dyv[i]);
    for (size_t i = 0; i < xv.size(); ++i) rhs += xv[i] * dxv[i];
    EXPECT_NEAR(lhs, rhs, 1e-5 * (1 + mag));
  }
}

// More channels than the CPU engines' channel blocks, channels innermost.
TEST_F(BackendResample, UpsampleManyChannels) {
  Rng rng(45);
  for (bool bilinear : {true, false}) {
    UpsampleParams p;
    p.bilinear = bilinear;
    p.window = {{2, 1}, {2, 1}};
    p.stride = {{1, 2}, {1, 3}};
    p.pre = {{1, 2}, {1, 3}};
    const std::vector<Frac> post{{1, 1}, {0, 1}};
    const std::vector<int64_t> xd{1, 70, 3, 4}, yd{1, 70, 6, 8};
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, xd, packed_strides(xd, Layout::nhwc));
    HostTensor y = make_tensor(CUDNN_DATA_FLOAT, yd, packed_strides(yd, Layout::nhwc));
    fill_random(x, rng, -2, 2);
    poison(y);
    auto r = upsample_desc(p, post);
    auto tx = host_tensor_desc(1, x), ty = host_tensor_desc(2, y);
    auto fwd = resample_op(false, *r, *tx, *ty, nullptr, 1, 0);
    ASSERT_EQ(fwd->finalize(), CUDNN_STATUS_SUCCESS);
    const auto want = reference_upsample_forward(p, x, 1, 0, y);
    Buffer bx = upload(x), by = upload(y);
    ASSERT_EQ(run({fwd.get()}, {1, 2}, {bx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
    download(by, y);
    EXPECT_TRUE(matches(y, want));
    // Backward with dy = the forward result, blended into dx.
    HostTensor dx = make_tensor(CUDNN_DATA_FLOAT, xd, packed_strides(xd, Layout::nhwc));
    fill_random(dx, rng, -2, 2);
    const auto want_dx = reference_upsample_backward(p, y, 0.5, 2.0, dx);
    auto tdx = host_tensor_desc(3, dx);
    auto bwd = resample_op(true, *r, *tdx, *ty, nullptr, 0.5, 2.0);
    ASSERT_EQ(bwd->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bdx = upload(dx);
    ASSERT_EQ(run({bwd.get()}, {3, 2}, {bdx.get(), by.get()}), CUDNN_STATUS_SUCCESS);
    download(bdx, dx);
    EXPECT_TRUE(matches(dx, want_dx));
  }
}

int64_t index_at(const HostTensor &t, size_t k) {
  const double v = t.values()[k];
  return t.dtype == CUDNN_DATA_UINT8 && v == 255 ? -1 : static_cast<int64_t>(v);
}

// Max pooling writes the window position of each maximum into the index
// tensor (INT8, UINT8, INT32, INT64); the backward pass reads it instead of x.
TEST_F(BackendResample, MaxPoolIndex) {
  Rng rng(44);
  const std::vector<cudnnDataType_t> index_types = {CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32,
                                                    CUDNN_DATA_INT64};
  for (int iter = 0; iter < 16; ++iter) {
    const int s = rng.coin(0.25) ? 3 : 2;
    std::vector<int64_t> win, stride, pre, post, x_dims{rng.integer(1, 2), rng.integer(1, 4)}, y_dims;
    y_dims = x_dims;
    for (int d = 0; d < s; ++d) {
      win.push_back(rng.integer(1, 3));
      stride.push_back(rng.integer(1, 3));
      pre.push_back(rng.integer(0, win.back() - 1));
      post.push_back(rng.integer(0, 1));
      x_dims.push_back(rng.integer(win.back(), s == 3 ? 5 : 7));
      y_dims.push_back((x_dims.back() + pre.back() + post.back() - win.back()) / stride.back() + 1);
    }
    const cudnnDataType_t dt = rng.pick(std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16});
    const cudnnDataType_t it = index_types[static_cast<size_t>(iter) % index_types.size()];
    HostTensor x = random_layout(rng, dt, x_dims);
    {
      // Few distinct values: ties decide on the first position.
      std::vector<double> v(static_cast<size_t>(x.elements()));
      for (double &e : v) e = static_cast<double>(rng.integer(-3, 3));
      x.set_values(v);
    }
    HostTensor y = random_layout(rng, dt, y_dims), idx = random_layout(rng, it, y_dims);
    poison(y);
    poison(idx, 0x5a);
    SCOPED_TRACE("x " + describe(x) + " y " + describe(y) + " idx " + describe(idx));
    const MaxPoolResult want = reference_maxpool_with_index(x, y_dims, win, stride, pre);
    auto r = maxpool_desc(win, stride, pre, post);
    auto tx = host_tensor_desc(1, x), ty = host_tensor_desc(2, y), ti = host_tensor_desc(3, idx);
    auto fwd = resample_op(false, *r, *tx, *ty, ti.get(), 1, 0);
    ASSERT_EQ(fwd->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bx = upload(x), by = upload(y), bi = upload(idx);
    ASSERT_EQ(run({fwd.get()}, {1, 2, 3}, {bx.get(), by.get(), bi.get()}), CUDNN_STATUS_SUCCESS);
    download(by, y);
    download(bi, idx);
    const auto yv = y.values();
    for (size_t k = 0; k < want.y.size(); ++k) {
      EXPECT_EQ(yv[k], round_to_type(dt, want.y[k])) << k;  // a window of padding only: -FLT_MAX
      EXPECT_EQ(index_at(idx, k), want.index[k]) << k;
    }
    // Backward from the index (no x), with a blend.
    HostTensor dy = random_layout(rng, dt, y_dims, -4, 4), dx = random_layout(rng, dt, x_dims, -4, 4);
    const double beta = iter % 2 ? 0.5 : 0.0;
    if (beta == 0) poison(dx);
    const auto want_dx = reference_maxpool_backward_from_index(dy, want.index, win, stride, pre, 1.0, beta, dx);
    auto tdx = host_tensor_desc(4, dx), tdy = host_tensor_desc(5, dy);
    auto bwd = resample_op(true, *r, *tdx, *tdy, ti.get(), 1, beta);
    ASSERT_EQ(bwd->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer bdx = upload(dx), bdy = upload(dy);
    ASSERT_EQ(run({bwd.get()}, {3, 4, 5}, {bi.get(), bdx.get(), bdy.get()}), CUDNN_STATUS_SUCCESS);
    download(bdx, dx);
    EXPECT_TRUE(matches(dx, want_dx));
  }
}

// Graphs that finalize but that no engine runs, and operations that do not
// finalize.
TEST_F(BackendResample, IndexAndUpsampleRules) {
  const std::vector<int64_t> xd{1, 2, 6, 6}, yd{1, 2, 3, 3};
  auto x = tensor_desc(1, CUDNN_DATA_FLOAT, xd, packed(xd)), y = tensor_desc(2, CUDNN_DATA_FLOAT, yd, packed(yd));
  auto i32 = tensor_desc(3, CUDNN_DATA_INT32, yd, packed(yd)), f32 = tensor_desc(3, CUDNN_DATA_FLOAT, yd, packed(yd));
  auto i8 = tensor_desc(3, CUDNN_DATA_INT8, yd, packed(yd));
  auto wrong_dims = tensor_desc(3, CUDNN_DATA_INT32, xd, packed(xd));
  auto pool = maxpool_desc({2, 2}, {2, 2}, {0, 0}, {0, 0});
  {
    auto op = resample_op(false, *pool, *x, *y, i32.get(), 1, 0);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_GE(engine_count(handle, {op.get()}), 1);
  }
  {  // An index of a floating type: no engine.
    auto op = resample_op(false, *pool, *x, *y, f32.get(), 1, 0);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(engine_count(handle, {op.get()}), 0);
  }
  {  // The index must have y's dimensions.
    auto op = resample_op(false, *pool, *x, *y, wrong_dims.get(), 1, 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_BAD_PARAM);
  }
  {  // Average pooling has no index.
    auto avg = maxpool_desc({2, 2}, {2, 2}, {0, 0}, {0, 0}, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING);
    auto op = resample_op(false, *avg, *x, *y, i32.get(), 1, 0);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(engine_count(handle, {op.get()}), 0);
  }
  {  // A window of 16 x 16 positions does not fit INT8 (but does INT32).
    const std::vector<int64_t> bx{1, 2, 16, 16}, by{1, 2, 1, 1};
    auto xb = tensor_desc(1, CUDNN_DATA_FLOAT, bx, packed(bx)), yb = tensor_desc(2, CUDNN_DATA_FLOAT, by, packed(by));
    auto ib8 = tensor_desc(3, CUDNN_DATA_INT8, by, packed(by)), ib32 = tensor_desc(3, CUDNN_DATA_INT32, by, packed(by));
    auto big = maxpool_desc({16, 16}, {1, 1}, {0, 0}, {0, 0});
    auto op8 = resample_op(false, *big, *xb, *yb, ib8.get(), 1, 0);
    auto op32 = resample_op(false, *big, *xb, *yb, ib32.get(), 1, 0);
    ASSERT_EQ(op8->finalize(), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op32->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(engine_count(handle, {op8.get()}), 0);
    EXPECT_GE(engine_count(handle, {op32.get()}), 1);
  }
  {  // Max pooling backward needs x or the index (BAD_PARAM, as NVIDIA's).
    auto op = resample_op(true, *pool, *x, *y, nullptr, 1, 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_BAD_PARAM);
    auto with_index = resample_op(true, *pool, *x, *y, i8.get(), 1, 0);
    ASSERT_EQ(with_index->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_GE(engine_count(handle, {with_index.get()}), 1);
  }
  {  // Fractional geometry is for the upsampling modes only.
    Desc r(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, CUDNN_RESAMPLE_MAXPOOL), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{2}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, std::vector<cudnnFraction_t>{{2, 1}, {2, 1}}),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, std::vector<cudnnFraction_t>{{1, 2}, {1, 2}}),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(r.finalize(), CUDNN_STATUS_SUCCESS);
    auto op = resample_op(false, r, *x, *y, nullptr, 1, 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_NOT_SUPPORTED);
  }
  UpsampleParams up;
  up.window = {{2, 1}, {2, 1}};
  up.stride = {{1, 2}, {1, 2}};
  up.pre = {{1, 2}, {1, 2}};
  const std::vector<Frac> post{{1, 1}, {1, 1}};
  {  // Upsampling with NEG_INF padding: no engine; zero and edge-value padding run.
    auto neg = upsample_desc(up, post, CUDNN_NEG_INF_PAD);
    auto op = resample_op(false, *neg, *y, *x, nullptr, 1, 0);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(engine_count(handle, {op.get()}), 0);
    auto edge = upsample_desc(up, post, CUDNN_EDGE_VAL_PAD);
    auto ok = resample_op(false, *edge, *y, *x, nullptr, 1, 0);
    ASSERT_EQ(ok->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_GE(engine_count(handle, {ok.get()}), 1);
  }
  {  // A non-positive stride makes no upsampling operation (BAD_PARAM, as NVIDIA's).
    UpsampleParams zero = up;
    zero.stride[1] = {0, 1};
    auto r = upsample_desc(zero, post);
    auto op = resample_op(false, *r, *y, *x, nullptr, 1, 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_BAD_PARAM);
  }
  {  // The output extents must be floor((in + pre + post - window) / stride) + 1
     // (as NVIDIA's finalize: 3 -> 6 here, not 5 or 7; max pooling 7 -> 3, not 4).
    auto r = upsample_desc(up, post);
    const std::vector<int64_t> d5{1, 2, 5, 6}, d7{1, 2, 6, 7}, d77{1, 2, 7, 7}, d44{1, 2, 4, 4};
    auto y5 = tensor_desc(5, CUDNN_DATA_FLOAT, d5, packed(d5)), y7 = tensor_desc(6, CUDNN_DATA_FLOAT, d7, packed(d7));
    EXPECT_EQ(resample_op(false, *r, *y, *y5, nullptr, 1, 0)->finalize(), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(resample_op(false, *r, *y, *y7, nullptr, 1, 0)->finalize(), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(resample_op(true, *r, *y, *y5, nullptr, 1, 0)->finalize(), CUDNN_STATUS_BAD_PARAM);
    auto x77 = tensor_desc(7, CUDNN_DATA_FLOAT, d77, packed(d77)), y44 = tensor_desc(8, CUDNN_DATA_FLOAT, d44, packed(d44));
    EXPECT_EQ(resample_op(false, *pool, *x77, *y, nullptr, 1, 0)->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(resample_op(false, *pool, *x77, *y44, nullptr, 1, 0)->finalize(), CUDNN_STATUS_BAD_PARAM);
  }
  {  // Upsampling has no index tensor.
    auto r = upsample_desc(up, post);
    auto idx = tensor_desc(3, CUDNN_DATA_INT32, xd, packed(xd));
    auto op = resample_op(false, *r, *y, *x, idx.get(), 1, 0);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(engine_count(handle, {op.get()}), 0);
  }
}

}  // namespace
