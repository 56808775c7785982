// The backend (graph) API's OPERATION_SIGNAL (set / wait on an int64 flag in
// the handle's memory with a pass-through tensor; cpu.signal / cuda.signal),
// and the v9 KERNEL_CACHE and DEVICEPROP descriptors (accepted, finalized, ignored by execution).
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

int64_t read_flag(const Buffer &b) {
  int64_t v = 0;
  b.download(&v, sizeof v);
  return v;
}

Buffer flag_buffer(int64_t v) {
  Buffer b(sizeof v);
  b.upload(&v, sizeof v);
  return b;
}

const char *signal_engine() { return gpu_mode() ? "cuda.signal" : "cpu.signal"; }

// SET then WAIT as two plans on the handle's stream: the flag and the
// pass-through read back (device memory on a GPU handle).
TEST_F(BackendSignalMisc, SignalSetAndWait) {
  const std::vector<int64_t> dims = {3, 5};
  auto flag = tensor_desc(1, CUDNN_DATA_INT64, {1}, {1});
  auto x = tensor_desc(2, CUDNN_DATA_FLOAT, dims, packed(dims)), y = tensor_desc(3, CUDNN_DATA_FLOAT, dims, packed(dims));
  auto set = signal_op(CUDNN_SIGNAL_SET, 42, flag.get(), x.get(), y.get());
  auto set_plan = make_plan({set.get()});
  ASSERT_TRUE(set_plan);
  EXPECT_EQ(plan_engine_name(*set_plan), signal_engine());
  Rng rng(test_seed(91));
  const std::vector<float> xv = random_floats(rng, 15);
  Buffer fb = flag_buffer(0), xb = upload(xv), yb = upload(std::vector<float>(15, NAN));
  ASSERT_EQ(execute(*set_plan, {1, 2, 3}, {fb.get(), xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_flag(fb), 42);
  EXPECT_EQ(download(yb, 15), xv);
  // WAIT returns once the flag holds the value (here: already).
  auto wait = signal_op(CUDNN_SIGNAL_WAIT, 42, flag.get(), x.get(), y.get());
  auto wait_plan = make_plan({wait.get()});
  ASSERT_TRUE(wait_plan);
  EXPECT_EQ(plan_engine_name(*wait_plan), signal_engine());
  yb.upload(std::vector<float>(15, NAN).data(), 15 * sizeof(float));
  ASSERT_EQ(execute(*wait_plan, {1, 2, 3}, {fb.get(), xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_flag(fb), 42);
  EXPECT_EQ(download(yb, 15), xv);
  // Without y the signal only touches the flag.
  auto bare = signal_op(CUDNN_SIGNAL_SET, -3, flag.get(), x.get(), nullptr);
  ASSERT_EQ(run({bare.get()}, {1, 2}, {fb.get(), xb.get()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_flag(fb), -3);
  // y = x: no copy, the flag only.
  auto same = signal_op(CUDNN_SIGNAL_SET, 5, flag.get(), x.get(), x.get());
  ASSERT_EQ(run({same.get()}, {1, 2}, {fb.get(), xb.get()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_flag(fb), 5);
  EXPECT_EQ(download(xb, 15), xv);
}

// SET and WAIT in one graph, ordered by the tensor between them (x -> t ->
// y, t virtual): the op-by-op engine runs SET first, so WAIT finds the flag
// set and the data passes through both.
TEST_F(BackendSignalMisc, SignalSetThenWaitInOneGraph) {
  const std::vector<int64_t> dims = {2, 3, 4};
  auto flag = tensor_desc(1, CUDNN_DATA_INT64, {1}, {1});
  auto x = tensor_desc(2, CUDNN_DATA_FLOAT, dims, packed(dims));
  auto t = tensor_desc(4, CUDNN_DATA_FLOAT, dims, packed(dims), true);
  auto y = tensor_desc(3, CUDNN_DATA_FLOAT, dims, packed(dims));
  auto set = signal_op(CUDNN_SIGNAL_SET, 9, flag.get(), x.get(), t.get());
  auto wait = signal_op(CUDNN_SIGNAL_WAIT, 9, flag.get(), t.get(), y.get());
  Rng rng(test_seed(93));
  const std::vector<float> xv = random_floats(rng, 24);
  Buffer fb = flag_buffer(-1), xb = upload(xv), yb = upload(std::vector<float>(24, NAN));
  // Operations in reverse order: the dataflow decides.
  ASSERT_EQ(run({wait.get(), set.get()}, {1, 2, 3}, {fb.get(), xb.get(), yb.get()}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_flag(fb), 9);
  EXPECT_EQ(download(yb, 24), xv);
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
