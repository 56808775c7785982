// Helpers for tests of the backend (graph) API: an owning descriptor
// wrapper, tensor and pointwise-operation builders, and a fixture whose run()
// goes graph -> heuristics -> engine config -> plan -> variant pack ->
// execute, as cudnn-frontend does.
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/expect_status.hpp"
#include "common/random.hpp"

namespace fdnn_test {

// Owns a backend descriptor.
struct Desc {
  cudnnBackendDescriptor_t d = nullptr;
  explicit Desc(cudnnBackendDescriptorType_t t) { EXPECT_EQ(cudnnBackendCreateDescriptor(t, &d), CUDNN_STATUS_SUCCESS); }
  ~Desc() {
    if (d) cudnnBackendDestroyDescriptor(d);
  }
  Desc(const Desc &) = delete;
  Desc &operator=(const Desc &) = delete;
  template <class T>
  cudnnStatus_t set(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, const std::vector<T> &v) {
    return cudnnBackendSetAttribute(d, n, t, static_cast<int64_t>(v.size()), v.data());
  }
  template <class T>
  cudnnStatus_t set1(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, T v) {
    return cudnnBackendSetAttribute(d, n, t, 1, &v);
  }
  cudnnStatus_t finalize() { return cudnnBackendFinalize(d); }
};

inline std::vector<int64_t> packed(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// How many elements a tensor of these dims holds.
inline int64_t element_count(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline std::unique_ptr<Desc> tensor(int64_t uid, const std::vector<int64_t> &dims, bool is_virtual = false) {
  auto t = std::make_unique<Desc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{16}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, packed(dims)), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->set1(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS);
  return t;
}

inline std::unique_ptr<Desc> pointwise_op(cudnnPointwiseMode_t mode, Desc &x, Desc *b, Desc &y) {
  Desc pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  EXPECT_EQ(pw.set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(pw.set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(pw.finalize(), CUDNN_STATUS_SUCCESS);
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, pw.d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x.d), CUDNN_STATUS_SUCCESS);
  if (b) {
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
  return op;  // pw may be destroyed: the op keeps what it needs
}

// C = A x B, float compute unless told (the matmul's operands carry their
// own types).
inline std::unique_ptr<Desc> matmul_op(Desc &a, Desc &b, Desc &c, cudnnDataType_t compute = CUDNN_DATA_FLOAT) {
  Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  EXPECT_EQ(mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, compute), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS);
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  return op;
}

// The graph of `ops` on `handle`, finalized (check `*status` when the graph
// may be refused: without it, a refusal fails the test).
inline std::unique_ptr<Desc> operation_graph(cudnnHandle_t handle, const std::vector<Desc *> &ops,
                                             cudnnStatus_t *status = nullptr) {
  auto graph = std::make_unique<Desc>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  std::vector<cudnnBackendDescriptor_t> handles;
  for (Desc *o : ops) handles.push_back(o->d);
  EXPECT_EQ(graph->set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(graph->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, handles), CUDNN_STATUS_SUCCESS);
  const cudnnStatus_t st = graph->finalize();
  if (status != nullptr) *status = st;
  else EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
  return graph;
}

// Every engine config heuristics (`mode`) offer for a finalized graph, best
// first.
inline std::vector<std::unique_ptr<Desc>> engine_configs(const Desc &graph,
                                                         cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A) {
  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  EXPECT_EQ(heur.set1(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph.d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(heur.set1(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(heur.finalize(), CUDNN_STATUS_SUCCESS);
  int64_t count = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                     nullptr),
            CUDNN_STATUS_SUCCESS);
  std::vector<std::unique_ptr<Desc>> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    cfgs.push_back(std::make_unique<Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(cfgs.back()->d);
  }
  int64_t got = 0;
  if (count > 0) {
    EXPECT_EQ(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                       &got, raw.data()),
              CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(got, count);
  return cfgs;
}

// The same for the graph of `ops` (which must finalize).
inline std::vector<std::unique_ptr<Desc>> engine_configs(cudnnHandle_t handle, const std::vector<Desc *> &ops,
                                                         cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A) {
  return engine_configs(*operation_graph(handle, ops), mode);
}

// The workspace an engine config asks for.
inline int64_t config_workspace(const Desc &cfg) {
  int64_t ws = -1, n = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(cfg.d, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws),
            CUDNN_STATUS_SUCCESS);
  return ws;
}

// The engine a finalized plan runs, from its JSON ("?" when unreadable).
inline std::string plan_engine_name(const Desc &plan) {
  int64_t n = 0;
  if (cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n,
                               nullptr) != CUDNN_STATUS_SUCCESS ||
      n <= 0) {
    last_error();
    return "?";
  }
  std::string text(static_cast<size_t>(n), '\0');
  int64_t got = 0;
  if (cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n, &got,
                               text.data()) != CUDNN_STATUS_SUCCESS)
    return "?";
  const std::string key = "\"engine\":\"";
  const size_t at = text.find(key);
  if (at == std::string::npos) return "?";
  const size_t from = at + key.size();
  return text.substr(from, text.find('"', from) - from);
}

// The plan of engine config `cfg` on `handle`, finalized; null, with the
// test marked failed and cuDNN's message, when it does not finalize.
inline std::unique_ptr<Desc> finalized_plan(cudnnHandle_t handle, cudnnBackendDescriptor_t cfg) {
  auto plan = std::make_unique<Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  EXPECT_EQ(plan->set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(plan->set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg),
            CUDNN_STATUS_SUCCESS);
  if (plan->finalize() == CUDNN_STATUS_SUCCESS) return plan;
  ADD_FAILURE() << "plan: " << last_error();
  return nullptr;
}

class BackendGraphTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS); }
  void TearDown() override { cudnnDestroy(handle); }

 public:  // helpers that test functions outside the fixture call too

  // Builds the graph of `ops`, takes the first heuristics result (mode A),
  // makes the plan and runs it with `uids`/`ptrs`. Returns the execute status.
  cudnnStatus_t run(const std::vector<Desc *> &ops, const std::vector<int64_t> &uids, const std::vector<void *> &ptrs,
                    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A) {
    std::unique_ptr<Desc> plan = make_plan(ops, mode);
    if (!plan) return CUDNN_STATUS_NOT_SUPPORTED;
    return execute(*plan, uids, ptrs);
  }

  // graph -> heuristics -> first engine config -> finalized plan (null when
  // heuristics offer nothing).
  std::unique_ptr<Desc> make_plan(const std::vector<Desc *> &ops, cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A) {
    const std::vector<std::unique_ptr<Desc>> cfgs = engine_configs(handle, ops, mode);
    EXPECT_GE(cfgs.size(), 1u);
    if (cfgs.empty()) return nullptr;
    const Desc &cfg = *cfgs.front();

    auto plan = std::make_unique<Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    EXPECT_EQ(plan->set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(plan->set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg.d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(plan->finalize(), CUDNN_STATUS_SUCCESS);
    return plan;
  }

  // Runs a finalized plan with a workspace of the size it asks for.
  cudnnStatus_t execute(Desc &plan, const std::vector<int64_t> &uids, const std::vector<void *> &ptrs) {
    int64_t got = 0, ws_size = -1;
    EXPECT_EQ(cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                       &ws_size),
              CUDNN_STATUS_SUCCESS);
    EXPECT_GE(ws_size, 0);
    Buffer ws(static_cast<size_t>(std::max<int64_t>(ws_size, 1)));

    Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(pack.set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, ws.get()), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(pack.finalize(), CUDNN_STATUS_SUCCESS);
    return cudnnBackendExecute(handle, plan.d, pack.d);
  }

  cudnnHandle_t handle = nullptr;
};

inline std::vector<float> random_floats(Rng &rng, size_t n) {
  std::vector<float> v(n);
  for (float &f : v) f = static_cast<float>(rng.uniform(-3, 3));
  return v;
}

inline Buffer upload(const std::vector<float> &v) {
  Buffer b(v.size() * sizeof(float));
  b.upload(v.data(), v.size() * sizeof(float));
  return b;
}

inline std::vector<float> download(const Buffer &b, size_t n) {
  std::vector<float> v(n);
  b.download(v.data(), n * sizeof(float));
  return v;
}

}  // namespace fdnn_test
