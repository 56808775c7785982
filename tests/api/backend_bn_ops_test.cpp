// The backend (graph) API's OPERATION_BN_BWD_WEIGHTS and
// OPERATION_BN_FINALIZE_STATISTICS, through graph -> heuristics -> plan ->
// execute, against float64 formulas written here; random shapes and layouts.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendBnOps : public BackendGraphTest {};

std::vector<int64_t> channel_dims(const std::vector<int64_t> &x) {
  std::vector<int64_t> d(x.size(), 1);
  d[1] = x[1];
  return d;
}

TEST_F(BackendBnOps, BackwardWeights) {
  Rng rng(test_seed(81));
  for (int iter = 0; iter < 4; ++iter) {
    const int rank = iter % 2 ? 5 : 4;
    const std::vector<int64_t> xdims = random_dims(rng, rank, 6, 1500);
    const auto cdims = channel_dims(xdims);
    const int64_t c = xdims[1], m = std::accumulate(xdims.begin(), xdims.end(), int64_t{1}, std::multiplies<>()) / c;
    const cudnnDataType_t xtype = iter == 3 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    SCOPED_TRACE(testing::Message() << "iter " << iter << " C " << c << " M " << m);
    HostTensor x = make_tensor(xtype, xdims, random_strides(rng, xdims));
    HostTensor dy = make_tensor(xtype, xdims, random_strides(rng, xdims));
    fill_random(x, rng, -2, 2);
    fill_random(dy, rng, -2, 2);
    HostTensor mean = make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims));
    HostTensor inv_std = make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims));
    HostTensor scale = make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims));
    fill_random(mean, rng, -0.5, 0.5);
    fill_random(inv_std, rng, 0.5, 2);
    fill_random(scale, rng, -2, 2);
    std::vector<HostTensor> outs(5, make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims)));
    for (auto &o : outs) poison(o);

    enum { kX = 1, kDy, kMean, kInvStd, kScale, kDscale, kDbias, kEqDy, kEqX, kEqBias };
    auto xd = tensor_desc(kX, xtype, xdims, x.strides), dyd = tensor_desc(kDy, xtype, xdims, dy.strides);
    std::vector<std::unique_ptr<Desc>> cd;
    for (int u = kMean; u <= kEqBias; ++u) cd.push_back(tensor_desc(u, CUDNN_DATA_FLOAT, cdims, packed(cdims)));
    Desc op(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR);
    const cudnnBackendAttributeName_t names[] = {
        CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC,      CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC,
        CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC,  CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC,
        CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC,  CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC,
        CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS};
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, xd->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, dyd->d),
              CUDNN_STATUS_SUCCESS);
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(op.set1(names[k], CUDNN_TYPE_BACKEND_DESCRIPTOR, cd[static_cast<size_t>(k)]->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);

    Buffer xb = upload(x), dyb = upload(dy), mb = upload(mean), ib = upload(inv_std), sb = upload(scale);
    std::vector<Buffer> ob;
    for (auto &o : outs) ob.push_back(upload(o));
    ASSERT_EQ(run({&op}, {kX, kDy, kMean, kInvStd, kScale, kDscale, kDbias, kEqDy, kEqX, kEqBias},
                  {xb.get(), dyb.get(), mb.get(), ib.get(), sb.get(), ob[0].get(), ob[1].get(), ob[2].get(),
                   ob[3].get(), ob[4].get()}),
              CUDNN_STATUS_SUCCESS);
    for (size_t k = 0; k < outs.size(); ++k) download(ob[k], outs[k]);

    // float64 reference.
    std::vector<double> dscale(c, 0), dbias(c, 0), mag(c, 0);
    for_each_index(xdims, [&](const std::vector<int64_t> &idx) {
      const int64_t ch = idx[1];
      const std::vector<int64_t> ci = [&] { auto v = std::vector<int64_t>(idx.size(), 0); v[1] = ch; return v; }();
      const double xhat = (x.get(idx) - mean.get(ci)) * inv_std.get(ci);
      dscale[ch] += dy.get(idx) * xhat;
      dbias[ch] += dy.get(idx);
      mag[ch] += std::fabs(dy.get(idx)) * (std::fabs(xhat) + 1);
    });
    std::vector<Expect> w_dscale, w_dbias, w_eqdy, w_eqx, w_eqb;
    for (int64_t ch = 0; ch < c; ++ch) {
      std::vector<int64_t> ci(xdims.size(), 0);
      ci[1] = ch;
      const double is = inv_std.get(ci), sc = scale.get(ci), mu = mean.get(ci);
      const double tol = 1e-5 * mag[ch] + 1e-6;
      const double eq_dy = sc * is;
      w_dscale.push_back({dscale[ch], tol});
      w_dbias.push_back({dbias[ch], tol});
      w_eqdy.push_back({eq_dy, 1e-6 * std::fabs(eq_dy)});
      w_eqx.push_back({-eq_dy * is * dscale[ch] / m, std::fabs(eq_dy * is) * tol / m + 1e-7});
      w_eqb.push_back({eq_dy * (mu * is * dscale[ch] - dbias[ch]) / m,
                       std::fabs(eq_dy) * (std::fabs(mu * is) + 1) * (tol / m + 1e-6 * mag[ch] / m) + 1e-7});
    }
    EXPECT_TRUE(matches(outs[0], w_dscale));
    EXPECT_TRUE(matches(outs[1], w_dbias));
    EXPECT_TRUE(matches(outs[2], w_eqdy));
    EXPECT_TRUE(matches(outs[3], w_eqx));
    EXPECT_TRUE(matches(outs[4], w_eqb));
  }
}

TEST_F(BackendBnOps, BackwardWeightsBadInput) {
  Desc empty(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR);
  EXPECT_FAILS_NAMING(empty.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "X_DESC");
  auto x = tensor_desc(1, CUDNN_DATA_FLOAT, {2, 3, 4, 4}, packed({2, 3, 4, 4}));
  auto wrong = tensor_desc(2, CUDNN_DATA_FLOAT, {1, 4, 1, 1}, {4, 1, 1, 1});
  Desc op(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, wrong->d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(op.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "MEAN_DESC");
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_TYPE_INT64, int64_t{0}),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
}

// BN finalize, training: sums -> mean, inv_std, eq scale/bias, saved stats
// and running statistics; inference from the running statistics.
TEST_F(BackendBnOps, FinalizeStatistics) {
  Rng rng(test_seed(82));
  for (int training = 1; training >= 0; --training) {
    const int64_t c = rng.integer(1, 9);
    const std::vector<int64_t> cdims = {1, c, 1, 1}, one = {1, 1, 1, 1};
    const double count = 37, eps = 1e-3, factor = 0.25;
    auto host = [&](double lo, double hi) {
      HostTensor t = make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims));
      fill_random(t, rng, lo, hi);
      return t;
    };
    // Consistent sums: sq_sum >= sum^2 / count.
    HostTensor sum = host(-20, 20), sq = host(0, 1), scale = host(-2, 2), bias = host(-2, 2), rmean = host(-1, 1),
               rvar = host(0.5, 2);
    std::vector<double> s = sum.values(), q = sq.values();
    for (size_t i = 0; i < s.size(); ++i) q[i] = s[i] * s[i] / count + 10 * (q[i] + 0.1);
    sq.set_values(q);
    enum { kSum = 1, kSq, kScale, kBias, kPrevMean, kPrevVar, kNextMean, kNextVar, kSavedMean, kSavedInv, kEqScale,
           kEqBias, kCount, kEps, kFactor };
    std::map<int, std::unique_ptr<Desc>> d;
    for (int u = kSum; u <= kEqBias; ++u) d[u] = tensor_desc(u, CUDNN_DATA_FLOAT, cdims, packed(cdims));
    d[kCount] = tensor_desc(kCount, CUDNN_DATA_FLOAT, one, one, false, true);
    d[kEps] = tensor_desc(kEps, CUDNN_DATA_DOUBLE, one, one, false, true);
    d[kFactor] = tensor_desc(kFactor, CUDNN_DATA_FLOAT, one, one, false, true);
    Desc op(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR);
    const auto set = [&](cudnnBackendAttributeName_t n, int u) {
      EXPECT_EQ(op.set1(n, CUDNN_TYPE_BACKEND_DESCRIPTOR, d[u]->d), CUDNN_STATUS_SUCCESS);
    };
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE,
                      training ? CUDNN_BN_FINALIZE_STATISTICS_TRAINING : CUDNN_BN_FINALIZE_STATISTICS_INFERENCE),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, kScale);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, kBias);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, kPrevMean);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, kPrevVar);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, kSavedInv);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, kEqScale);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, kEqBias);
    set(CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, kEps);
    if (training) {
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, kSum);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, kSq);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, kNextMean);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, kNextVar);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, kSavedMean);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, kCount);
      set(CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, kFactor);
    }
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS);
    std::map<int, Buffer> b;
    std::map<int, HostTensor> outs;
    b[kSum] = upload(sum), b[kSq] = upload(sq), b[kScale] = upload(scale), b[kBias] = upload(bias);
    b[kPrevMean] = upload(rmean), b[kPrevVar] = upload(rvar);
    const std::vector<int> out_uids = training ? std::vector<int>{kNextMean, kNextVar, kSavedMean, kSavedInv, kEqScale, kEqBias}
                                               : std::vector<int>{kSavedInv, kEqScale, kEqBias};
    for (int u : out_uids) {
      outs[u] = make_tensor(CUDNN_DATA_FLOAT, cdims, packed(cdims));
      poison(outs[u]);
      b[u] = upload(outs[u]);
    }
    float count_f = static_cast<float>(count), factor_f = static_cast<float>(factor);
    double eps_d = eps;
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (auto &[u, buf] : b) {
      if (!training && (u == kSum || u == kSq)) continue;
      uids.push_back(u);
      ptrs.push_back(buf.get());
    }
    uids.push_back(kEps), ptrs.push_back(&eps_d);
    if (training) {
      uids.push_back(kCount), ptrs.push_back(&count_f);
      uids.push_back(kFactor), ptrs.push_back(&factor_f);
    }
    ASSERT_EQ(run({&op}, uids, ptrs), CUDNN_STATUS_SUCCESS);
    for (int u : out_uids) download(b[u], outs[u]);
    std::map<int, std::vector<Expect>> want;
    for (int64_t ch = 0; ch < c; ++ch) {
      const std::vector<int64_t> ci = {0, ch, 0, 0};
      double mu, var;
      if (training) {
        mu = sum.get(ci) / count;
        var = sq.get(ci) / count - mu * mu;
      } else {
        mu = rmean.get(ci);
        var = rvar.get(ci);
      }
      const double inv = 1 / std::sqrt(var + eps), es = scale.get(ci) * inv;
      const double rel = 1e-5 * (1 + std::fabs(sq.get(ci) / count) / std::max(var, 1e-3));
      want[kSavedInv].push_back({inv, rel * inv});
      want[kEqScale].push_back({es, rel * std::fabs(es) + 1e-7});
      want[kEqBias].push_back({bias.get(ci) - mu * es, rel * std::fabs(mu * es) + 1e-6});
      if (training) {
        want[kSavedMean].push_back({mu, 1e-6 * std::fabs(mu) + 1e-7});
        want[kNextMean].push_back({rmean.get(ci) + factor * (mu - rmean.get(ci)), 1e-5});
        want[kNextVar].push_back(
            {rvar.get(ci) + factor * (var * count / (count - 1) - rvar.get(ci)), rel * (std::fabs(var) + 1) + 1e-5});
      }
    }
    for (int u : out_uids) EXPECT_TRUE(matches(outs[u], want[u])) << "output uid " << u << " training " << training;
  }
}

TEST_F(BackendBnOps, FinalizeBadInput) {
  Desc empty(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR);
  EXPECT_FAILS_NAMING(empty.finalize(), CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendFinalize", "STATS_MODE");
  Desc op(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE,
                    CUDNN_BN_FINALIZE_STATISTICS_TRAINING),
            CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(op.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "Y_SUM_DESC");
}

}  // namespace
