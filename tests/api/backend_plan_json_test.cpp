// Execution plans saved as JSON (CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION)
// and loaded into a new plan after every descriptor they were built from is
// gone: the loaded plan computes the same result and saves the same text.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/backend_graph.hpp"
#include "common/expect_status.hpp"

using namespace fdnn_test;

namespace {

class BackendPlanJson : public BackendGraphTest {
 protected:
  std::string json_of(Desc &plan) {
    int64_t n = -1;
    EXPECT_EQ(cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n,
                                       nullptr),
              CUDNN_STATUS_SUCCESS);
    if (n <= 0) return {};
    std::string text(static_cast<size_t>(n), '\0');
    int64_t got = 0;
    EXPECT_EQ(cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n, &got,
                                       text.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(got, n);
    return text;
  }
  cudnnStatus_t load(Desc &plan, const std::string &text) {
    EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnBackendSetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                       static_cast<int64_t>(text.size()), text.data()),
              CUDNN_STATUS_SUCCESS);
    return plan.finalize();
  }
};

// y = relu(x * b + c) with a by-value alpha on the multiply: three ops, two
// virtual tensors, a broadcast and a float attribute to carry through.
TEST_F(BackendPlanJson, SavedPlanRunsAfterItsDescriptorsAreGone) {
  Rng rng(31);
  const std::vector<int64_t> dims{2, 3, 4, 5};
  const size_t n = 120;
  std::string text;
  {
    auto x = tensor(1, dims), b = tensor(2, {1, 3, 1, 1}), c = tensor(3, dims), t = tensor(4, dims, true),
         u = tensor(5, dims, true), y = tensor(6, dims);
    Desc pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    ASSERT_EQ(pw.set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, CUDNN_POINTWISE_MUL),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(pw.set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(pw.finalize(), CUDNN_STATUS_SUCCESS);
    Desc mul(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    ASSERT_EQ(mul.set1(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, pw.d),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(mul.set1(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(mul.set1(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(mul.set1(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, t->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(mul.set1(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 0.1f), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(mul.finalize(), CUDNN_STATUS_SUCCESS);
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, *t, c.get(), *u);
    auto relu = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *u, nullptr, *y);
    std::unique_ptr<Desc> plan = make_plan({relu.get(), &mul, add.get()});
    ASSERT_TRUE(plan);
    text = json_of(*plan);
  }
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("freednn_plan"), std::string::npos) << text;

  Desc loaded(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  ASSERT_EQ(load(loaded, text), CUDNN_STATUS_SUCCESS) << last_error();
  EXPECT_EQ(json_of(loaded), text);

  const auto hx = random_floats(rng, n), hb = random_floats(rng, 3), hc = random_floats(rng, n);
  Buffer dx = upload(hx), db = upload(hb), dc = upload(hc), dy = upload(std::vector<float>(n, NAN));
  ASSERT_EQ(execute(loaded, {1, 2, 3, 6}, {dx.get(), db.get(), dc.get(), dy.get()}), CUDNN_STATUS_SUCCESS)
      << last_error();
  const auto out = download(dy, n);
  for (size_t i = 0; i < n; ++i) {
    const int ch = static_cast<int>(i / 20) % 3;
    EXPECT_NEAR(out[i], std::max(0.0, double(0.1f) * hx[i] * hb[ch] + hc[i]), 1e-5) << i;
  }
}

TEST_F(BackendPlanJson, RefusesWhatIsNotAPlan) {
  for (const std::string bad : {std::string("not json"), std::string("{\"freednn_plan\": 99}"),
                                std::string("{\"freednn_plan\": 1, \"cudnn_version\": 1}"), std::string("[]")}) {
    Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    const cudnnStatus_t st = load(plan, bad);
    EXPECT_TRUE(st == CUDNN_STATUS_BAD_PARAM || st == CUDNN_STATUS_NOT_SUPPORTED) << bad << ": " << st;
    const std::string msg = last_error();
    EXPECT_NE(msg.find("JSON"), std::string::npos) << msg;
  }
  // Neither an engine config nor JSON.
  Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  ASSERT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  EXPECT_FAILS_NAMING(plan.finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "engine config");
}

}  // namespace
