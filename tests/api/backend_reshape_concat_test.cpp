// The backend (graph) API's OPERATION_RESHAPE and OPERATION_CONCAT: random
// shapes, strides and types through graph -> heuristics -> plan -> execute,
// checked element by element against index arithmetic written here, and the
// finalize rules (probed against cuDNN 9, tests/oracle/backend_descriptors.c).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendReshapeConcat : public BackendGraphTest {
 public:
  using BackendGraphTest::run;
};

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE,
                                             CUDNN_DATA_BFLOAT16};

std::unique_ptr<Desc> reshape_op(Desc &x, Desc &y) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y.d), CUDNN_STATUS_SUCCESS);
  return op;
}

// True when y's (extent, stride) pairs are x's in another order (extent-1
// dims aside): the reshape is then a view of x's memory, a transpose.
bool is_transpose_view(const std::vector<int64_t> &xd, const std::vector<int64_t> &xs, const std::vector<int64_t> &yd,
                       const std::vector<int64_t> &ys) {
  auto pairs = [](const std::vector<int64_t> &d, const std::vector<int64_t> &s) {
    std::vector<std::pair<int64_t, int64_t>> p;
    for (size_t i = 0; i < d.size(); ++i)
      if (d[i] != 1) p.emplace_back(d[i], s[i]);
    std::sort(p.begin(), p.end());
    return p;
  };
  return (xd != yd || xs != ys) && pairs(xd, xs) == pairs(yd, ys);
}

// x (any strides) -> y (its own dims and strides): y's i-th element in
// row-major order is x's i-th, or, when y permutes x's (extent, stride)
// pairs, y reads x's memory through y's strides.
void check_reshape(BackendReshapeConcat &t, cudnnHandle_t, Rng &rng, cudnnDataType_t xt, cudnnDataType_t yt,
                   const std::vector<int64_t> &xdims, const std::vector<int64_t> &xstrides,
                   const std::vector<int64_t> &ydims, const std::vector<int64_t> &ystrides) {
  HostTensor x = make_tensor(xt, xdims, xstrides), y = make_tensor(yt, ydims, ystrides);
  fill_random(x, rng, -4, 4);
  poison(y);
  const HostTensor y_before = y;
  auto xd = tensor_desc(1, xt, xdims, xstrides), yd = tensor_desc(2, yt, ydims, ystrides);
  auto op = reshape_op(*xd, *yd);
  ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
  Buffer xb = upload(x), yb = upload(y);
  ASSERT_EQ(t.run({op.get()}, {1, 2}, {xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
  download(yb, y);
  std::vector<Expect> want;
  if (is_transpose_view(xdims, xstrides, ydims, ystrides)) {
    HostTensor view = x;  // x's memory image read with y's dims and strides
    view.dims = ydims;
    view.strides = ystrides;
    for (double v : view.values()) want.push_back({v, 0.0});
  } else {
    for (double v : x.values()) want.push_back({v, 0.0});
  }
  EXPECT_TRUE(matches(y, want));
  EXPECT_TRUE(gaps_untouched(y, y_before));
}

TEST_F(BackendReshapeConcat, ReshapeSameDimsAnyLayout) {
  Rng rng(test_seed(61));
  for (int iter = 0; iter < 12; ++iter) {
    const auto dims = random_dims(rng, static_cast<int>(rng.integer(1, 5)), 7, 3000);
    const cudnnDataType_t xt = rng.pick(kTypes), yt = rng.coin(0.7) ? xt : rng.pick(kTypes);
    SCOPED_TRACE(testing::Message() << "iter " << iter << " " << type_name(xt) << "->" << type_name(yt));
    check_reshape(*this, handle, rng, xt, yt, dims, random_strides(rng, dims), dims, random_strides(rng, dims));
  }
}

TEST_F(BackendReshapeConcat, ReshapeNewDims) {
  Rng rng(test_seed(62));
  // Packed x in new shapes (merges, splits, added and dropped unit dims),
  // y in any layout.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 3, 4, 5}, {6, 4, 5}}, {{2, 3, 4, 5}, {2, 60}}, {{6, 10}, {2, 3, 2, 5}},
      {{4, 1, 6}, {1, 24, 1}},   {{3, 8}, {3, 2, 2, 2}},  {{5, 7, 1}, {35}}};
  for (const auto &[xd, yd] : cases) {
    const cudnnDataType_t type = rng.pick(kTypes);
    check_reshape(*this, handle, rng, type, type, xd, packed(xd), yd, random_strides(rng, yd));
  }
  // x with a gap between its outer dims still views as merged inner dims.
  check_reshape(*this, handle, rng, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, {3, 4, 5}, {40, 5, 1}, {3, 20}, {20, 1});
}

TEST_F(BackendReshapeConcat, ReshapeBadInput) {
  auto x = tensor_desc(1, CUDNN_DATA_FLOAT, {2, 3, 4}, {12, 4, 1});
  auto y = tensor_desc(2, CUDNN_DATA_FLOAT, {2, 3, 5}, {15, 5, 1});
  auto op = reshape_op(*x, *y);
  EXPECT_FAILS_NAMING(op->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "element");
  Desc empty(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  EXPECT_FAILS_NAMING(empty.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "XDESC");
  Desc no_y(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  EXPECT_EQ(no_y.set1(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(no_y.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "YDESC");
  std::vector<cudnnBackendDescriptor_t> two = {x->d, x->d};
  EXPECT_EQ(no_y.set(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, two), CUDNN_STATUS_BAD_PARAM);
  // A transposed x cannot be merged into one dimension without a copy.
  auto xt = tensor_desc(3, CUDNN_DATA_FLOAT, {4, 6}, {1, 4});
  auto y24 = tensor_desc(4, CUDNN_DATA_FLOAT, {24}, {1});
  auto op2 = reshape_op(*xt, *y24);
  EXPECT_FAILS_NAMING(op2->finalize(), CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendFinalize", "without a copy");
}

// ---- view reshapes: cudnn-frontend's transposes ---------------------------------

// x [2, 3, r, c] in any layout; y [2, 3, c, r] with x's strides permuted the
// same way: y reads x's memory, so y[n, h, j, i] = x[n, h, i, j] (cuDNN 9's
// view reshape; the logical reading would give another answer).
TEST_F(BackendReshapeConcat, ReshapeTransposeView) {
  Rng rng(test_seed(63));
  for (cudnnDataType_t type : kTypes) {
    const int64_t r = rng.integer(2, 9), c = rng.integer(2, 9);
    const std::vector<int64_t> xd{2, 3, r, c};
    const std::vector<int64_t> xs = rng.coin(0.5) ? packed(xd) : random_strides(rng, xd);
    const std::vector<int64_t> yd{2, 3, c, r}, ys{xs[0], xs[1], xs[3], xs[2]};
    SCOPED_TRACE(testing::Message() << type_name(type) << " r" << r << " c" << c);
    HostTensor x = make_tensor(type, xd, xs), y = make_tensor(type, yd, ys);
    fill_random(x, rng, -4, 4);
    poison(y);
    auto xdesc = tensor_desc(1, type, xd, xs), ydesc = tensor_desc(2, type, yd, ys);
    auto op = reshape_op(*xdesc, *ydesc);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    Buffer xb = upload(x), yb = upload(y);
    ASSERT_EQ(run({op.get()}, {1, 2}, {xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    download(yb, y);
    std::vector<Expect> want;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t j = 0; j < c; ++j)
          for (int64_t i = 0; i < r; ++i) want.push_back({x.get({n, h, i, j}), 0.0});
    EXPECT_TRUE(matches(y, want));
  }
}

// The frontend's dP = dO x V^T: V^T is a virtual view reshape of V, which
// another operation of the graph reads as V too (one uid, two readings).
TEST_F(BackendReshapeConcat, ReshapeViewFeedsMatmul) {
  Rng rng(test_seed(64));
  for (int iter = 0; iter < 3; ++iter) {
    const int64_t b = rng.integer(1, 3), m = rng.integer(1, 9), s = rng.integer(2, 17), d = rng.integer(2, 17);
    SCOPED_TRACE(testing::Message() << "b" << b << " m" << m << " s" << s << " d" << d);
    const std::vector<int64_t> ad{b, m, d}, vd{b, s, d}, vtd{b, d, s}, cd{b, m, s};
    const std::vector<int64_t> vs = packed(vd), vts{vs[0], vs[2], vs[1]};
    HostTensor a = make_tensor(CUDNN_DATA_FLOAT, ad, packed(ad)), v = make_tensor(CUDNN_DATA_FLOAT, vd, vs);
    HostTensor c = make_tensor(CUDNN_DATA_FLOAT, cd, packed(cd)), v2 = make_tensor(CUDNN_DATA_FLOAT, vd, vs);
    fill_random(a, rng, -2, 2);
    fill_random(v, rng, -2, 2);
    poison(c);
    poison(v2);
    auto adesc = tensor_desc(1, CUDNN_DATA_FLOAT, ad, packed(ad)), vdesc = tensor_desc(2, CUDNN_DATA_FLOAT, vd, vs);
    auto vtdesc = tensor_desc(3, CUDNN_DATA_FLOAT, vtd, vts, /*is_virtual=*/true);
    auto cdesc = tensor_desc(4, CUDNN_DATA_FLOAT, cd, packed(cd)), v2desc = tensor_desc(5, CUDNN_DATA_FLOAT, vd, vs);
    auto reshape = reshape_op(*vdesc, *vtdesc);
    ASSERT_EQ(reshape->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    auto mm = matmul_op(*adesc, *vtdesc, *cdesc);
    auto twice = pointwise_op(CUDNN_POINTWISE_ADD, *vdesc, vdesc.get(), *v2desc);  // reads V as V
    Buffer abuf = upload(a), vbuf = upload(v), cbuf = upload(c), v2buf = upload(v2);
    // Every config heuristics offer runs it (the op-by-op engine at least).
    const std::vector<std::unique_ptr<Desc>> cfgs = engine_configs(handle, {mm.get(), twice.get(), reshape.get()});
    ASSERT_FALSE(cfgs.empty());
    ASSERT_EQ(run({mm.get(), twice.get(), reshape.get()}, {1, 2, 4, 5}, {abuf.get(), vbuf.get(), cbuf.get(), v2buf.get()}),
              CUDNN_STATUS_SUCCESS)
        << last_error();
    download(cbuf, c);
    download(v2buf, v2);
    std::vector<Expect> want_c, want_v2;
    for (int64_t n = 0; n < b; ++n)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < s; ++j) {
          double acc = 0, mag = 0;
          for (int64_t k = 0; k < d; ++k) {
            acc += a.get({n, i, k}) * v.get({n, j, k});
            mag += std::abs(a.get({n, i, k}) * v.get({n, j, k}));
          }
          want_c.push_back({acc, 1e-5 * mag + 1e-6});
        }
    for (double e : v.values()) want_v2.push_back({2 * e, 0.0});
    EXPECT_TRUE(matches(c, want_c));
    EXPECT_TRUE(matches(v2, want_v2));
  }
}

// A view of a virtual tensor: X2 = 2x (virtual), X2^T a view of it, out =
// X2^T + 0 written packed. Only the op-by-op engine places such views.
TEST_F(BackendReshapeConcat, ReshapeViewOfVirtualTensor) {
  Rng rng(test_seed(65));
  const int64_t r = rng.integer(2, 12), c = rng.integer(2, 12);
  const std::vector<int64_t> xd{1, r, c}, yd{1, c, r}, xs = packed(xd), ys{xs[0], xs[2], xs[1]};
  HostTensor x = make_tensor(CUDNN_DATA_FLOAT, xd, xs), out = make_tensor(CUDNN_DATA_FLOAT, yd, packed(yd));
  fill_random(x, rng, -4, 4);
  poison(out);
  auto xdesc = tensor_desc(1, CUDNN_DATA_FLOAT, xd, xs), x2 = tensor_desc(2, CUDNN_DATA_FLOAT, xd, xs, true);
  auto x2t = tensor_desc(3, CUDNN_DATA_FLOAT, yd, ys, true), odesc = tensor_desc(4, CUDNN_DATA_FLOAT, yd, packed(yd));
  auto twice = pointwise_op(CUDNN_POINTWISE_ADD, *xdesc, xdesc.get(), *x2);
  auto reshape = reshape_op(*x2, *x2t);
  ASSERT_EQ(reshape->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  auto copy = pointwise_op(CUDNN_POINTWISE_IDENTITY, *x2t, nullptr, *odesc);
  Buffer xb = upload(x), ob = upload(out);
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    ASSERT_EQ(run({copy.get(), reshape.get(), twice.get()}, {1, 4}, {xb.get(), ob.get()}, mode), CUDNN_STATUS_SUCCESS)
        << last_error();
    download(ob, out);
    std::vector<Expect> want;
    for (int64_t j = 0; j < c; ++j)
      for (int64_t i = 0; i < r; ++i) want.push_back({2 * x.get({0, i, j}), 0.0});
    EXPECT_TRUE(matches(out, want));
  }
}

// ---- concat ------------------------------------------------------------------

std::unique_ptr<Desc> concat_op(const std::vector<Desc *> &inputs, Desc *y, int64_t axis, int64_t in_place = -2) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
  std::vector<cudnnBackendDescriptor_t> in;
  for (Desc *d : inputs) in.push_back(d->d);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, axis), CUDNN_STATUS_SUCCESS);
  if (!in.empty())
    EXPECT_EQ(op->set(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, in), CUDNN_STATUS_SUCCESS);
  if (y) EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  if (in_place != -2)
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, in_place), CUDNN_STATUS_SUCCESS);
  return op;
}

TEST_F(BackendReshapeConcat, ConcatRandom) {
  Rng rng(test_seed(63));
  for (int iter = 0; iter < 12; ++iter) {
    const int rank = static_cast<int>(rng.integer(1, 5));
    const auto base = random_dims(rng, rank, 6, 600);
    const int64_t axis = rng.integer(0, rank - 1);
    const int n = static_cast<int>(rng.integer(1, 4));
    const cudnnDataType_t type = rng.pick(kTypes);
    SCOPED_TRACE(testing::Message() << "iter " << iter << " axis " << axis << " inputs " << n << " " << type_name(type));
    std::vector<HostTensor> xs;
    std::vector<std::unique_ptr<Desc>> xds;
    std::vector<Buffer> xbs;
    std::vector<int64_t> ydims = base;
    ydims[axis] = 0;
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (int k = 0; k < n; ++k) {
      auto dims = base;
      dims[axis] = rng.integer(1, 5);
      ydims[axis] += dims[axis];
      xs.push_back(make_tensor(type, dims, random_strides(rng, dims)));
      fill_random(xs.back(), rng, -8, 8);
      xds.push_back(tensor_desc(10 + k, type, dims, xs.back().strides));
      xbs.push_back(upload(xs.back()));
      uids.push_back(10 + k);
      ptrs.push_back(xbs.back().get());
    }
    HostTensor y = make_tensor(type, ydims, random_strides(rng, ydims));
    poison(y);
    const HostTensor y_before = y;
    auto yd = tensor_desc(99, type, ydims, y.strides);
    std::vector<Desc *> in;
    for (auto &d : xds) in.push_back(d.get());
    auto op = concat_op(in, yd.get(), axis);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    Buffer yb = upload(y);
    uids.push_back(99);
    ptrs.push_back(yb.get());
    ASSERT_EQ(run({op.get()}, uids, ptrs), CUDNN_STATUS_SUCCESS);
    download(yb, y);
    // Expected: y's element at index idx comes from the input whose range
    // along the axis holds idx[axis].
    std::vector<Expect> want;
    for_each_index(ydims, [&](const std::vector<int64_t> &idx) {
      std::vector<int64_t> j = idx;
      int k = 0;
      while (j[axis] >= xs[k].dims[axis]) j[axis] -= xs[k++].dims[axis];
      want.push_back({xs[k].get(j), 0.0});
    });
    EXPECT_TRUE(matches(y, want));
    EXPECT_TRUE(gaps_untouched(y, y_before));
  }
}

TEST_F(BackendReshapeConcat, ConcatInPlaceInput) {
  // Input 1 already lives in its sub-view of y (y's strides, y's memory).
  Rng rng(test_seed(64));
  const std::vector<int64_t> d0 = {2, 3, 4}, d1 = {2, 5, 4}, dy = {2, 8, 4};
  HostTensor x0 = make_tensor(CUDNN_DATA_FLOAT, d0, packed(d0)), y = make_tensor(CUDNN_DATA_FLOAT, dy, packed(dy));
  fill_random(x0, rng, -2, 2);
  fill_random(y, rng, -2, 2);  // rows 3..7 of every batch are input 1
  std::vector<double> before = y.values();
  auto a = tensor_desc(1, CUDNN_DATA_FLOAT, d0, packed(d0)), b = tensor_desc(2, CUDNN_DATA_FLOAT, d1, packed(dy));
  auto yd = tensor_desc(3, CUDNN_DATA_FLOAT, dy, packed(dy));
  auto op = concat_op({a.get(), b.get()}, yd.get(), 1, 1);
  ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
  int64_t got = -5, n = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(op->d, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, &n, &got),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got, 1);
  Buffer xb = upload(x0), yb = upload(y);
  void *view = static_cast<char *>(yb.get()) + 3 * 4 * sizeof(float);
  ASSERT_EQ(run({op.get()}, {1, 2, 3}, {xb.get(), view, yb.get()}), CUDNN_STATUS_SUCCESS);
  download(yb, y);
  std::vector<Expect> want;
  for_each_index(dy, [&](const std::vector<int64_t> &idx) {
    if (idx[1] < 3) want.push_back({x0.get(idx), 0.0});
    else want.push_back({before[static_cast<size_t>((idx[0] * 8 + idx[1]) * 4 + idx[2])], 0.0});
  });
  EXPECT_TRUE(matches(y, want));
}

TEST_F(BackendReshapeConcat, ConcatBadInput) {
  auto a = tensor_desc(1, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, packed({2, 3, 4, 5}));
  auto b = tensor_desc(2, CUDNN_DATA_FLOAT, {2, 3, 4, 1}, packed({2, 3, 4, 1}));
  auto y = tensor_desc(3, CUDNN_DATA_FLOAT, {2, 3, 4, 6}, packed({2, 3, 4, 6}));
  auto ok = concat_op({a.get(), b.get()}, y.get(), 3);
  EXPECT_EQ(ok->finalize(), CUDNN_STATUS_SUCCESS);
  int64_t n = 0, v = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(ok->d, CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, &n, &v),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v, -1);
  auto no_out = concat_op({a.get(), b.get()}, nullptr, 3);
  EXPECT_FAILS_NAMING(no_out->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "OUTPUT_DESC");
  auto wrong_axis = concat_op({a.get(), b.get()}, y.get(), 2);
  EXPECT_FAILS_NAMING(wrong_axis->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "dimension 3");
  auto no_inputs = concat_op({}, y.get(), 3);
  EXPECT_FAILS_NAMING(no_inputs->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "sum to 0");
  auto big_axis = concat_op({a.get(), b.get()}, y.get(), 7);
  EXPECT_EQ(big_axis->finalize(), CUDNN_STATUS_BAD_PARAM);
  auto bad_in_place = concat_op({a.get(), b.get()}, y.get(), 3, 5);
  EXPECT_FAILS_NAMING(bad_in_place->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "INPLACE_INDEX");
  Desc d(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
  const int32_t axis32 = 3;
  EXPECT_FAILS_NAMING(cudnnBackendSetAttribute(d.d, CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT32, 1, &axis32),
                      CUDNN_STATUS_BAD_PARAM, "cudnnBackendSetAttribute", "CUDNN_TYPE_INT64");
}

}  // namespace
