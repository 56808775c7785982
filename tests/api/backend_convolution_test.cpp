// The seed's backend use cases (000, 9.3.1-9.3.4) replayed: a grouped 3-d
// convolution forward in CONVOLUTION mode with alpha 1 and beta 0.5, its
// tensors given in the rank-6 grouped form and in the rank-5 form, an engine
// chosen by global index (the first that takes the graph), its engine config,
// plan and execution. Checked against a float64 loop written here; the
// dimension-consistency rule of 9.3.1 (n, g, c, k agree) is checked too.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/backend_graph.hpp"
#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"

using namespace fdnn_test;

namespace {

constexpr int64_t n = 2, g = 3, c = 2, k = 2, D = 4, H = 5, W = 4, T = 2, R = 3, S = 2;
constexpr int64_t O = D - T + 1, P = H - R + 1, Q = W - S + 1;

std::unique_ptr<Desc> tensor_nd(int64_t uid, const std::vector<int64_t> &dims) {
  auto t = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, packed(dims)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{4}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS);
  return t;
}

std::unique_ptr<Desc> conv_desc() { return convolution_desc({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, CUDNN_CONVOLUTION); }

std::unique_ptr<Desc> fprop(Desc &x, Desc &w, Desc &y, Desc &cd, cudnnStatus_t expect = CUDNN_STATUS_SUCCESS) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, x.d), 0);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, w.d), 0);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, y.d), 0);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd.d), 0);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1.0f), 0);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 0.5f), 0);
  EXPECT_EQ(op->finalize(), expect) << last_error();
  return op;
}

// y = conv(x, w) + 0.5 y, CONVOLUTION mode (the filter flipped), packed
// [n, g, c|k, d, h, w] layouts (the same memory as the rank-5 form).
std::vector<double> reference(const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &y0) {
  std::vector<double> y(y0.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ig = 0; ig < g; ++ig)
      for (int64_t ik = 0; ik < k; ++ik)
        for (int64_t o = 0; o < O; ++o)
          for (int64_t p = 0; p < P; ++p)
            for (int64_t q = 0; q < Q; ++q) {
              double s = 0;
              for (int64_t ic = 0; ic < c; ++ic)
                for (int64_t t = 0; t < T; ++t)
                  for (int64_t r = 0; r < R; ++r)
                    for (int64_t u = 0; u < S; ++u) {
                      const int64_t xi = ((((in * g + ig) * c + ic) * D + o + t) * H + p + r) * W + q + u;
                      const int64_t wi = ((((ig * k + ik) * c + ic) * T + (T - 1 - t)) * R + (R - 1 - r)) * S +
                                         (S - 1 - u);
                      s += double(x[xi]) * w[wi];
                    }
              const int64_t yi = ((((in * g + ig) * k + ik) * O + o) * P + p) * Q + q;
              y[yi] = s + 0.5 * y0[yi];
            }
  return y;
}

class BackendConvolution : public BackendGraphTest {
 protected:
  // Engine config by global index, as in 9.3.2: the first index whose
  // engine finalizes on this graph.
  std::unique_ptr<Desc> engine_config(Desc &graph) {
    int64_t count = 0, got = 0;
    EXPECT_EQ(cudnnBackendGetAttribute(graph.d, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1,
                                       &got, &count),
              CUDNN_STATUS_SUCCESS);
    for (int64_t gidx = 0; gidx < count; ++gidx) {
      Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      EXPECT_EQ(engine.set1(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph.d), 0);
      EXPECT_EQ(engine.set1(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, gidx), 0);
      if (engine.finalize() != CUDNN_STATUS_SUCCESS) {
        last_error();
        continue;
      }
      auto cfg = std::make_unique<Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
      EXPECT_EQ(cfg->set1(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, engine.d), 0);
      EXPECT_EQ(cfg->finalize(), CUDNN_STATUS_SUCCESS);
      return cfg;
    }
    return nullptr;
  }

  void run_form(bool grouped) {
    std::unique_ptr<Desc> x, w, y;
    if (grouped) {
      x = tensor_nd('x', {n, g, c, D, H, W});
      w = tensor_nd('w', {g, k, c, T, R, S});
      y = tensor_nd('y', {n, g, k, O, P, Q});
    } else {
      x = tensor_nd('x', {n, g * c, D, H, W});
      w = tensor_nd('w', {g * k, c, T, R, S});
      y = tensor_nd('y', {n, g * k, O, P, Q});
    }
    auto cd = conv_desc();
    auto op = fprop(*x, *w, *y, *cd);
    Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    ASSERT_EQ(graph.set1(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, op->d), 0);
    ASSERT_EQ(graph.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), 0);
    ASSERT_EQ(graph.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    auto cfg = engine_config(graph);
    ASSERT_TRUE(cfg) << "no engine takes the grouped convolution";
    Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    ASSERT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), 0);
    ASSERT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg->d), 0);
    ASSERT_EQ(plan.finalize(), CUDNN_STATUS_SUCCESS) << last_error();

    Rng rng(grouped ? 41 : 42);
    const auto hx = random_floats(rng, n * g * c * D * H * W), hw = random_floats(rng, g * k * c * T * R * S),
               hy = random_floats(rng, n * g * k * O * P * Q);
    Buffer dx = upload(hx), dw = upload(hw), dy = upload(hy);
    ASSERT_EQ(execute(plan, {'x', 'w', 'y'}, {dx.get(), dw.get(), dy.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    const auto out = download(dy, hy.size());
    const auto want = reference(hx, hw, hy);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(out[i], want[i], 1e-4) << i;
  }
};

TEST_F(BackendConvolution, SeedUseCaseGroupedRank6) { run_form(true); }
TEST_F(BackendConvolution, SeedUseCaseGroupedRank5) { run_form(false); }

TEST_F(BackendConvolution, InconsistentGroupedDimsAreBadParam) {
  auto cd = conv_desc();
  {  // c differs between x and w
    auto x = tensor_nd('x', {n, g, c + 1, D, H, W}), w = tensor_nd('w', {g, k, c, T, R, S}),
         y = tensor_nd('y', {n, g, k, O, P, Q});
    fprop(*x, *w, *y, *cd, CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("channels per group"), std::string::npos);
  }
  {  // g differs between w and y
    auto x = tensor_nd('x', {n, g, c, D, H, W}), w = tensor_nd('w', {g, k, c, T, R, S}),
         y = tensor_nd('y', {n, g + 1, k, O, P, Q});
    fprop(*x, *w, *y, *cd, CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("group counts"), std::string::npos);
  }
  {  // k differs between w and y
    auto x = tensor_nd('x', {n, g, c, D, H, W}), w = tensor_nd('w', {g, k, c, T, R, S}),
         y = tensor_nd('y', {n, g, k + 1, O, P, Q});
    fprop(*x, *w, *y, *cd, CUDNN_STATUS_BAD_PARAM);
  }
  {  // rank-5 form: k*g does not match y
    auto x = tensor_nd('x', {n, g * c, D, H, W}), w = tensor_nd('w', {g * k, c, T, R, S}),
         y = tensor_nd('y', {n, g * k + 1, O, P, Q});
    fprop(*x, *w, *y, *cd, CUDNN_STATUS_BAD_PARAM);
  }
}

}  // namespace
