// The backend (graph) API through its C entry points: descriptor attribute
// rules, operation graphs, heuristics, plans and execution of single- and
// multi-operation graphs (the latter through the op-by-op engine), checked
// against float64 arithmetic written here.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/backend_graph.hpp"

using namespace fdnn_test;

namespace {

class BackendApi : public BackendGraphTest {};

TEST_F(BackendApi, SingleAddWithBroadcast) {
  Rng rng(11);
  const std::vector<int64_t> dims{2, 3, 4, 5}, bdims{1, 3, 1, 1};
  auto x = tensor(1, dims), b = tensor(2, bdims), y = tensor(3, dims);
  auto op = pointwise_op(CUDNN_POINTWISE_ADD, *x, b.get(), *y);
  const auto hx = random_floats(rng, 120), hb = random_floats(rng, 3);
  Buffer dx = upload(hx), db = upload(hb), dy = upload(std::vector<float>(120, NAN));
  ASSERT_EQ(run({op.get()}, {1, 2, 3}, {dx.get(), db.get(), dy.get()}), CUDNN_STATUS_SUCCESS);
  const auto out = download(dy, 120);
  for (int i = 0; i < 120; ++i) {
    const int c = (i / 20) % 3;
    EXPECT_NEAR(out[i], static_cast<double>(hx[i]) + hb[c], 1e-5) << i;
  }
}

// (x * b) -> virtual t -> relu(t) -> y: two ops joined by a virtual tensor.
TEST_F(BackendApi, TwoOpsThroughAVirtualTensor) {
  Rng rng(12);
  const std::vector<int64_t> dims{1, 4, 6, 7};
  const size_t n = 168;
  auto x = tensor(10, dims), b = tensor(11, dims), t = tensor(12, dims, true), y = tensor(13, dims);
  auto mul = pointwise_op(CUDNN_POINTWISE_MUL, *x, b.get(), *t);
  auto relu = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *t, nullptr, *y);
  const auto hx = random_floats(rng, n), hb = random_floats(rng, n);
  Buffer dx = upload(hx), db = upload(hb), dy = upload(std::vector<float>(n, NAN));
  // Operations in reverse order: the graph finds the dataflow itself.
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    ASSERT_EQ(run({relu.get(), mul.get()}, {10, 11, 13}, {dx.get(), db.get(), dy.get()}, mode), CUDNN_STATUS_SUCCESS);
    const auto out = download(dy, n);
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(out[i], std::max(0.0, double(hx[i]) * hb[i]), 1e-5) << i;
  }
}

TEST_F(BackendApi, ReductionOperation) {
  Rng rng(13);
  auto x = tensor(1, {2, 3, 4, 4}), y = tensor(2, {2, 3, 1, 1});
  Desc red(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  ASSERT_EQ(red.set1(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, CUDNN_REDUCE_TENSOR_MAX),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(red.set1(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(red.finalize(), CUDNN_STATUS_SUCCESS);
  Desc op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, red.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
  const auto hx = random_floats(rng, 96);
  Buffer dx = upload(hx), dy = upload(std::vector<float>(6, NAN));
  ASSERT_EQ(run({&op}, {1, 2}, {dx.get(), dy.get()}), CUDNN_STATUS_SUCCESS);
  const auto out = download(dy, 6);
  for (int s = 0; s < 6; ++s) {
    float m = -INFINITY;
    for (int i = 0; i < 16; ++i) m = std::max(m, hx[s * 16 + i]);
    EXPECT_EQ(out[s], m);
  }
}

// Batched matmul with a broadcast batch, b column-major, then + bias and
// relu through virtual tensors (the epilogue shape of the guide's matmul
// fusions), run op by op.
TEST_F(BackendApi, MatmulWithEpilogue) {
  Rng rng(14);
  const int64_t B = 3, M = 5, N = 7, K = 6;
  auto make = [&](int64_t uid, std::vector<int64_t> dims, std::vector<int64_t> strides, bool is_virtual) {
    auto t = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{16}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS);
    return t;
  };
  auto a = make(1, {1, M, K}, {M * K, K, 1}, false);       // broadcast over the batch
  auto b = make(2, {B, K, N}, {K * N, 1, K}, false);       // column-major
  auto c = make(3, {B, M, N}, {M * N, N, 1}, true);
  auto bias = make(4, {1, 1, N}, {N, N, 1}, false);
  auto d = make(5, {B, M, N}, {M * N, N, 1}, true);
  auto y = make(6, {B, M, N}, {M * N, N, 1}, false);
  Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  ASSERT_EQ(mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS);
  Desc op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
  auto add = pointwise_op(CUDNN_POINTWISE_ADD, *c, bias.get(), *d);
  auto relu = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *d, nullptr, *y);
  const auto ha = random_floats(rng, M * K), hb = random_floats(rng, B * K * N), hbias = random_floats(rng, N);
  Buffer da = upload(ha), db = upload(hb), dbias = upload(hbias), dy = upload(std::vector<float>(B * M * N, NAN));
  ASSERT_EQ(run({&op, add.get(), relu.get()}, {1, 2, 4, 6}, {da.get(), db.get(), dbias.get(), dy.get()}),
            CUDNN_STATUS_SUCCESS);
  const auto out = download(dy, B * M * N);
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = hbias[j];
        for (int64_t k = 0; k < K; ++k) s += double(ha[i * K + k]) * hb[bi * K * N + j * K + k];
        EXPECT_NEAR(out[(bi * M + i) * N + j], std::max(0.0, s), 1e-4) << bi << "," << i << "," << j;
      }
  // The matmul alone, on the BLAS and the reference engines alike.
  Desc mm2(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  auto c2 = make(7, {B, M, N}, {M * N, N, 1}, false);
  ASSERT_EQ(mm2.set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm2.set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm2.set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c2->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm2.set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm2.finalize(), CUDNN_STATUS_SUCCESS);
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    Buffer dc = upload(std::vector<float>(B * M * N, NAN));
    ASSERT_EQ(run({&mm2}, {1, 2, 7}, {da.get(), db.get(), dc.get()}, mode), CUDNN_STATUS_SUCCESS);
    const auto got = download(dc, B * M * N);
    for (int64_t bi = 0; bi < B; ++bi)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) s += double(ha[i * K + k]) * hb[bi * K * N + j * K + k];
          EXPECT_NEAR(got[(bi * M + i) * N + j], s, 1e-4);
        }
  }
}

// Batch norm through NORM_FORWARD (training) and NORM_BACKWARD with by-value
// epsilon and exponential-average factor.
TEST_F(BackendApi, BatchNormForwardTrainingAndBackward) {
  Rng rng(15);
  const int64_t N = 3, C = 4, H = 5, W = 6, M = N * H * W;
  const std::vector<int64_t> xd{N, C, H, W}, sd{1, C, 1, 1};
  auto x = tensor(1, xd), y = tensor(2, xd), scale = tensor(3, sd), bias = tensor(4, sd), mean = tensor(5, sd),
       inv = tensor(6, sd), rm_in = tensor(7, sd), rv_in = tensor(8, sd), rm_out = tensor(9, sd),
       rv_out = tensor(10, sd);
  auto scalar = [&](int64_t uid, cudnnDataType_t dt) {
    auto t = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const std::vector<int64_t> one{1, 1, 1, 1};
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, dt), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{8}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, one), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, one), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, true), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS);
    return t;
  };
  auto eps = scalar(11, CUDNN_DATA_DOUBLE), factor = scalar(12, CUDNN_DATA_DOUBLE);
  Desc fwd(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  const auto set_t = [](Desc &d, cudnnBackendAttributeName_t n, Desc &t) {
    EXPECT_EQ(d.set1(n, CUDNN_TYPE_BACKEND_DESCRIPTOR, t.d), CUDNN_STATUS_SUCCESS) << n;
  };
  ASSERT_EQ(fwd.set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_BATCH_NORM), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(fwd.set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, CUDNN_NORM_FWD_TRAINING),
            CUDNN_STATUS_SUCCESS);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, *x);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, *y);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, *scale);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, *bias);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, *mean);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, *inv);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, *eps);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, *factor);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, *rm_in);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, *rv_in);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, *rm_out);
  set_t(fwd, CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, *rv_out);
  ASSERT_EQ(fwd.finalize(), CUDNN_STATUS_SUCCESS);

  const auto hx = random_floats(rng, N * C * H * W), hs = random_floats(rng, C), hb = random_floats(rng, C),
             hrm = random_floats(rng, C);
  std::vector<float> hrv(C);
  for (float &v : hrv) v = static_cast<float>(rng.uniform(0.5, 2));
  const double h_eps = 1e-3, h_factor = 0.25;
  Buffer dx = upload(hx), dy = upload(std::vector<float>(hx.size(), NAN)), ds = upload(hs), db = upload(hb),
         dm = upload(std::vector<float>(C, NAN)), di = upload(std::vector<float>(C, NAN)), drm = upload(hrm),
         drv = upload(hrv), drm2 = upload(std::vector<float>(C, NAN)), drv2 = upload(std::vector<float>(C, NAN));
  ASSERT_EQ(run({&fwd}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                {dx.get(), dy.get(), ds.get(), db.get(), dm.get(), di.get(), drm.get(), drv.get(), drm2.get(),
                 drv2.get(), const_cast<double *>(&h_eps), const_cast<double *>(&h_factor)}),
            CUDNN_STATUS_SUCCESS);
  const auto out = download(dy, hx.size()), gm = download(dm, C), gi = download(di, C), grm = download(drm2, C),
             grv = download(drv2, C);
  for (int64_t c = 0; c < C; ++c) {
    double s = 0, ss = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < H * W; ++i) s += hx[(n * C + c) * H * W + i];
    const double mu = s / M;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < H * W; ++i) ss += std::pow(hx[(n * C + c) * H * W + i] - mu, 2);
    const double var = ss / M, istd = 1 / std::sqrt(var + h_eps);
    EXPECT_NEAR(gm[c], mu, 1e-5);
    EXPECT_NEAR(gi[c], istd, 1e-4 * istd);
    EXPECT_NEAR(grm[c], (1 - h_factor) * hrm[c] + h_factor * mu, 1e-5);
    EXPECT_NEAR(grv[c], (1 - h_factor) * hrv[c] + h_factor * var * M / (M - 1), 1e-4);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < H * W; ++i) {
        const int64_t k = (n * C + c) * H * W + i;
        EXPECT_NEAR(out[k], hs[c] * (hx[k] - mu) * istd + hb[c], 1e-4);
      }
  }

  // Backward with the saved statistics.
  auto dyt = tensor(20, xd), dxt = tensor(21, xd), dst = tensor(22, sd), dbt = tensor(23, sd);
  Desc bwd(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
  ASSERT_EQ(bwd.set1(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_BATCH_NORM), CUDNN_STATUS_SUCCESS);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, *x);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, *dyt);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, *scale);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, *mean);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, *inv);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, *dst);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, *dbt);
  set_t(bwd, CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, *dxt);
  ASSERT_EQ(bwd.finalize(), CUDNN_STATUS_SUCCESS);
  const auto hdy = random_floats(rng, hx.size());
  Buffer ddy = upload(hdy), ddx = upload(std::vector<float>(hx.size(), NAN)), dds = upload(std::vector<float>(C, NAN)),
         ddb = upload(std::vector<float>(C, NAN));
  ASSERT_EQ(run({&bwd}, {1, 20, 3, 5, 6, 22, 23, 21},
                {dx.get(), ddy.get(), ds.get(), dm.get(), di.get(), dds.get(), ddb.get(), ddx.get()}),
            CUDNN_STATUS_SUCCESS);
  const auto gdx = download(ddx, hx.size()), gds = download(dds, C), gdb = download(ddb, C);
  for (int64_t c = 0; c < C; ++c) {
    double sdy = 0, sdyx = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < H * W; ++i) {
        const int64_t k = (n * C + c) * H * W + i;
        sdy += hdy[k];
        sdyx += hdy[k] * (hx[k] - gm[c]) * gi[c];
      }
    EXPECT_NEAR(gdb[c], sdy, 1e-4 * (1 + std::fabs(sdy)));
    EXPECT_NEAR(gds[c], sdyx, 1e-4 * (1 + std::fabs(sdyx)));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < H * W; ++i) {
        const int64_t k = (n * C + c) * H * W + i;
        const double xhat = (hx[k] - gm[c]) * gi[c];
        const double want = hs[c] * gi[c] / M * (M * hdy[k] - sdy - xhat * sdyx);
        EXPECT_NEAR(gdx[k], want, 1e-4 * (1 + std::fabs(want)));
      }
  }
}

TEST_F(BackendApi, AttributeRules) {
  Desc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t one = 1;
  const double d = 1;
  // Wrong type, wrong count, NULL elements, unknown attribute.
  EXPECT_EQ(cudnnBackendSetAttribute(t.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_DOUBLE, 1, &d),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  EXPECT_EQ(cudnnBackendSetAttribute(t.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(t.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(t.d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_INT64, 1, &one), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendSetAttribute(nullptr, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &one),
            CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  // Get before finalize, finalize without alignment.
  int64_t n = 0, v[4];
  EXPECT_EQ(cudnnBackendGetAttribute(t.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &n, v),
            CUDNN_STATUS_NOT_INITIALIZED);
  const std::vector<int64_t> dims{2, 3}, strides{3, 1};
  EXPECT_EQ(t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t.finalize(), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(t.set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{4}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t.finalize(), CUDNN_STATUS_SUCCESS);
  // Set after finalize, finalize twice.
  EXPECT_EQ(t.set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, int64_t{5}), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(t.finalize(), CUDNN_STATUS_BAD_PARAM);
  // Gets: count query, partial request, defaults.
  EXPECT_EQ(cudnnBackendGetAttribute(t.d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, &n, nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(cudnnBackendGetAttribute(t.d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 1, &n, v), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(v[0], 2);
  EXPECT_EQ(cudnnBackendGetAttribute(t.d, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, &n, v),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(cudnnBackendGetAttribute(t.d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 1, &n, v),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  // Unknown descriptor type.
  cudnnBackendDescriptor_t bad = nullptr;
  EXPECT_EQ(cudnnBackendCreateDescriptor(static_cast<cudnnBackendDescriptorType_t>(999), &bad),
            CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED);
  EXPECT_EQ(cudnnBackendDestroyDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

TEST_F(BackendApi, GraphChecks) {
  const std::vector<int64_t> dims{1, 2, 3, 4};
  auto a = tensor(1, dims), b = tensor(2, dims), c = tensor(3, dims), v = tensor(4, dims, true);
  // Two operations writing the same tensor.
  auto op1 = pointwise_op(CUDNN_POINTWISE_ADD, *a, b.get(), *c);
  auto op2 = pointwise_op(CUDNN_POINTWISE_MUL, *a, b.get(), *c);
  Desc g(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  ASSERT_EQ(g.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(g.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                  std::vector<cudnnBackendDescriptor_t>{op1->d, op2->d}),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(g.finalize(), CUDNN_STATUS_BAD_PARAM);
  // A cycle: a + b -> v, v * b -> a.
  auto op3 = pointwise_op(CUDNN_POINTWISE_ADD, *a, b.get(), *v);
  auto op4 = pointwise_op(CUDNN_POINTWISE_MUL, *v, b.get(), *a);
  Desc g2(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  ASSERT_EQ(g2.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(g2.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                   std::vector<cudnnBackendDescriptor_t>{op3->d, op4->d}),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(g2.finalize(), CUDNN_STATUS_BAD_PARAM);
  // An engine index out of range.
  Desc g3(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  ASSERT_EQ(g3.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(g3.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                   std::vector<cudnnBackendDescriptor_t>{op1->d}),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(g3.finalize(), CUDNN_STATUS_SUCCESS);
  int64_t count = 0, n = 0;
  ASSERT_EQ(cudnnBackendGetAttribute(g3.d, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n,
                                     &count),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GT(count, 0);
  Desc e(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  ASSERT_EQ(e.set1(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, g3.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(e.set1(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(e.finalize(), CUDNN_STATUS_NOT_SUPPORTED);
}

// What NVIDIA's cuDNN 9.19 finalizes although no engine can run it (seen by
// the backend oracle): a pointwise input whose dims do not broadcast to y,
// and a virtual tensor that no operation writes. Both finalize, operation
// and graph; heuristics then offer nothing and every engine is refused.
TEST_F(BackendApi, FinalizesWhatNoEngineRuns) {
  auto x = tensor(1, {1, 2, 3, 4}), b = tensor(2, {1, 2, 3, 3}), y = tensor(3, {1, 2, 3, 4});
  auto v = tensor(4, {1, 2, 3, 4}, true);
  auto bad_add = pointwise_op(CUDNN_POINTWISE_ADD, *x, b.get(), *y);  // finalizes (checked inside)
  auto from_nowhere = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *v, nullptr, *y);
  const std::pair<Desc *, const char *> cases[] = {{bad_add.get(), "nor broadcasts"},
                                                   {from_nowhere.get(), "no operation of the graph writes it"}};
  for (const auto &[op, why] : cases) {
    auto g = operation_graph(handle, {op});  // finalizes (checked inside)
    EXPECT_TRUE(engine_configs(*g).empty());
    EXPECT_TRUE(engine_configs(*g, CUDNN_HEUR_MODE_FALLBACK).empty());
    int64_t count = 0, n = 0;
    ASSERT_EQ(cudnnBackendGetAttribute(g->d, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &n,
                                       &count),
              CUDNN_STATUS_SUCCESS);
    int same_device = 0;
    for (int64_t i = 0; i < count; ++i) {
      Desc e(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      ASSERT_EQ(e.set1(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->d), CUDNN_STATUS_SUCCESS);
      ASSERT_EQ(e.set1(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, i), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(e.finalize(), CUDNN_STATUS_NOT_SUPPORTED) << "engine " << i;
      const std::string message = last_error();  // reading it clears it
      if (message.find("another device") != std::string::npos) continue;
      ++same_device;
      EXPECT_NE(message.find(why), std::string::npos) << "engine " << i << ": " << message;
    }
    EXPECT_GT(same_device, 0);
  }
}

}  // namespace
