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

using namespace fdnn_test;

namespace {

class BackendResample : public BackendGraphTest {};


// 2-D pooling geometry shared by the descriptor and the float64 reference.
struct Pool {
  cudnnResampleMode_t mode;
  int64_t n = 2, c = 3, h = 7, w = 6;
  int64_t win[2] = {3, 2}, stride[2] = {2, 2}, pre[2] = {1, 0}, post[2] = {1, 1};
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
  EXPECT_EQ(r->set1(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64, int64_t{2}), CUDNN_STATUS_SUCCESS);
  // The window as fractions, the rest as INT64: both forms are accepted.
  const std::vector<cudnnFraction_t> win{{p.win[0], 1}, {p.win[1], 1}};
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, win), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_INT64, std::vector<int64_t>{p.stride[0], p.stride[1]}),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_INT64, std::vector<int64_t>{p.pre[0], p.pre[1]}),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_INT64, std::vector<int64_t>{p.post[0], p.post[1]}),
            CUDNN_STATUS_SUCCESS);
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

}  // namespace
