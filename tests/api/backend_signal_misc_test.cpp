// The backend (graph) API's OPERATION_SIGNAL (set / wait on a host int64 flag
// with a pass-through tensor; CPU only, no GPU engine), and the v9 KERNEL_CACHE
// and DEVICEPROP descriptors (accepted, finalized, ignored by execution).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"

using namespace fdnn_test;

namespace {

class BackendSignalMisc : public BackendGraphTest {};

std::unique_ptr<Desc> signal_op(cudnnSignalMode_t mode, int64_t value, Desc *flag, Desc *x, Desc *y) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64, value), CUDNN_STATUS_SUCCESS);
  if (flag) EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, flag->d), CUDNN_STATUS_SUCCESS);
  if (x) EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  if (y) EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_SIGNAL_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
  return op;
}

TEST_F(BackendSignalMisc, SignalSetAndWait) {
  const std::vector<int64_t> dims = {3, 5};
  auto flag = tensor_desc(1, CUDNN_DATA_INT64, {1}, {1});
  auto x = tensor_desc(2, CUDNN_DATA_FLOAT, dims, packed(dims)), y = tensor_desc(3, CUDNN_DATA_FLOAT, dims, packed(dims));
  auto set = signal_op(CUDNN_SIGNAL_SET, 42, flag.get(), x.get(), y.get());
  if (gpu_mode()) {
    // Signals need device-side flags: no GPU engine, the heuristics offer none.
    EXPECT_EQ(engine_count(handle, {set.get()}), 0);
    return;
  }
  Rng rng(test_seed(91));
  std::vector<float> xv = random_floats(rng, 15), yv(15, NAN);
  int64_t f = 0;
  ASSERT_EQ(run({set.get()}, {1, 2, 3}, {&f, xv.data(), yv.data()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f, 42);
  EXPECT_EQ(yv, xv);
  // WAIT returns once the flag holds the value (here: already).
  auto wait = signal_op(CUDNN_SIGNAL_WAIT, 42, flag.get(), x.get(), y.get());
  std::fill(yv.begin(), yv.end(), NAN);
  ASSERT_EQ(run({wait.get()}, {1, 2, 3}, {&f, xv.data(), yv.data()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f, 42);
  EXPECT_EQ(yv, xv);
  // Without y the signal only touches the flag.
  auto bare = signal_op(CUDNN_SIGNAL_SET, -3, flag.get(), x.get(), nullptr);
  ASSERT_EQ(run({bare.get()}, {1, 2}, {&f, xv.data()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f, -3);
}

TEST_F(BackendSignalMisc, SignalRules) {
  // cuDNN finalizes a signal node whatever is set; without a flag no engine runs it.
  Desc empty(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
  EXPECT_EQ(empty.finalize(), CUDNN_STATUS_SUCCESS);
  auto x = tensor_desc(2, CUDNN_DATA_FLOAT, {4}, {1});
  auto no_flag = signal_op(CUDNN_SIGNAL_SET, 1, nullptr, x.get(), nullptr);
  EXPECT_EQ(engine_count(handle, {no_flag.get()}), 0);
  auto float_flag = tensor_desc(5, CUDNN_DATA_FLOAT, {1}, {1});
  auto bad_flag = signal_op(CUDNN_SIGNAL_SET, 1, float_flag.get(), x.get(), nullptr);
  EXPECT_EQ(engine_count(handle, {bad_flag.get()}), 0);
  Desc op(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR);
  EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT32, int32_t{1}),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
}

TEST_F(BackendSignalMisc, KernelCacheAndDeviceProp) {
  Desc empty(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
  EXPECT_FAILS_NAMING(empty.finalize(), CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "cudnnBackendFinalize",
                      "OPERATION_GRAPH");
  Desc cache(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
  EXPECT_EQ(cache.set1(CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, CUDNN_TYPE_INT64, int64_t{1}),
            CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  EXPECT_EQ(cache.set1(CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, CUDNN_TYPE_BOOLEAN, true),
            CUDNN_STATUS_BAD_PARAM);
  const char bad_json[] = "{}";
  EXPECT_EQ(cudnnBackendSetAttribute(cache.d, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 3, bad_json),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cache.finalize(), CUDNN_STATUS_BAD_PARAM);

  // A pointwise graph whose plan carries a kernel cache and a device
  // property descriptor runs as without them.
  const std::vector<int64_t> dims = {2, 8};
  auto x = tensor(1, dims), y = tensor(2, dims);
  auto op = pointwise_op(CUDNN_POINTWISE_RELU_FWD, *x, nullptr, *y);
  Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  EXPECT_EQ(graph.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(graph.set1(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, op->d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(graph.finalize(), CUDNN_STATUS_SUCCESS);
  Desc kc(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
  EXPECT_EQ(kc.set1(CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph.d),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(kc.finalize(), CUDNN_STATUS_SUCCESS);
  int64_t n = -1;
  EXPECT_EQ(cudnnBackendGetAttribute(kc.d, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n, nullptr),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GT(n, 2);
  std::vector<char> json(static_cast<size_t>(n));
  EXPECT_EQ(cudnnBackendGetAttribute(kc.d, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n, &n,
                                     json.data()),
            CUDNN_STATUS_SUCCESS);
  Desc restored(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
  EXPECT_EQ(cudnnBackendSetAttribute(restored.d, CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n,
                                     json.data()),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(restored.finalize(), CUDNN_STATUS_SUCCESS);

  Desc dp(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
  EXPECT_EQ(dp.set1(CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT64, int64_t{0}), CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
  EXPECT_EQ(dp.set1(CUDNN_ATTR_DEVICEPROP_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  int32_t id = -1;
  EXPECT_EQ(cudnnBackendGetAttribute(dp.d, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &n, &id),
            CUDNN_STATUS_NOT_INITIALIZED);
  ASSERT_EQ(dp.finalize(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBackendGetAttribute(dp.d, CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &n, &id),
            CUDNN_STATUS_SUCCESS);
  EXPECT_GE(id, 0);

  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  EXPECT_EQ(heur.set1(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(heur.set1(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(heur.set1(CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, dp.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(heur.finalize(), CUDNN_STATUS_SUCCESS);
  Desc cfg(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  EXPECT_EQ(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                     &cfg.d),
            CUDNN_STATUS_SUCCESS);
  Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, CUDNN_TYPE_BACKEND_DESCRIPTOR, kc.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(plan.set1(CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, CUDNN_TYPE_BACKEND_DESCRIPTOR, dp.d), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(plan.finalize(), CUDNN_STATUS_SUCCESS);
  Rng rng(test_seed(92));
  const auto xv = random_floats(rng, 16);
  Buffer xb = upload(xv), yb = upload(std::vector<float>(16, NAN));
  Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, std::vector<int64_t>{1, 2}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, std::vector<void *>{xb.get(), yb.get()}),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(pack.finalize(), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnBackendExecute(handle, plan.d, pack.d), CUDNN_STATUS_SUCCESS);
  const auto yv = download(yb, 16);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(yv[i], std::max(xv[i], 0.0f)) << i;
}

}  // namespace
