#include "backend_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/backend_graph.hpp"
#include "op.hpp"

namespace bench {

BDesc::BDesc(cudnnBackendDescriptorType_t t) {
  check_status(cudnnBackendCreateDescriptor(t, &d), "cudnnBackendCreateDescriptor");
}

BDesc::~BDesc() {
  if (d) cudnnBackendDestroyDescriptor(d);
}

void BDesc::set_raw(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, int64_t count, const void *v) {
  check_status(cudnnBackendSetAttribute(d, n, t, count, v), "cudnnBackendSetAttribute");
}

void BDesc::finalize() { check_status(cudnnBackendFinalize(d), "cudnnBackendFinalize"); }

std::unique_ptr<BDesc> backend_tensor(int64_t uid, cudnnDataType_t dt, const Dims &dims, const Dims &strides,
                                      bool is_virtual) {
  auto t = std::make_unique<BDesc>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  t->set1(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid);
  t->set1(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, dt);
  t->set1(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, int64_t{16});
  t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<int64_t>(dims.size()), dims.data());
  t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<int64_t>(strides.size()), strides.data());
  t->set1(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual);
  t->finalize();
  return t;
}

BackendPlan::BackendPlan(cudnnHandle_t handle, BDesc &op, std::vector<int64_t> uids, std::vector<void *> ptrs)
    : handle_(handle), uids_(std::move(uids)), ptrs_(std::move(ptrs)) {
  BDesc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle_);
  graph.set1(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, op.d);
  graph.finalize();
  BDesc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set1(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph.d);
  heur.set1(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
  heur.finalize();
  BDesc cfg(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  int64_t got = 0;
  check_status(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                        &cfg.d),
               "cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)");
  if (got < 1) throw ApiError(CUDNN_STATUS_NOT_SUPPORTED, "heuristics offer no engine");
  plan_ = std::make_unique<BDesc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  plan_->set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle_);
  plan_->set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg.d);
  plan_->finalize();
  int64_t ws = 0;
  check_status(cudnnBackendGetAttribute(plan_->d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                        &ws),
               "cudnnBackendGetAttribute(WORKSPACE_SIZE)");
  workspace_ = fdnn_test::Buffer(static_cast<size_t>(std::max<int64_t>(ws, 1)));
  pack_ = std::make_unique<BDesc>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack_->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids_.size()), uids_.data());
  pack_->set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(ptrs_.size()),
             ptrs_.data());
  pack_->set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace_.get());
  pack_->finalize();
}

void BackendPlan::execute() { check_status(cudnnBackendExecute(handle_, plan_->d, pack_->d), "cudnnBackendExecute"); }

GraphPlan plan_graph(cudnnHandle_t handle, const std::vector<fdnn_test::Desc *> &ops, cudnnBackendHeurMode_t mode) {
  GraphPlan p;
  p.handle = handle;
  p.graph = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  std::vector<cudnnBackendDescriptor_t> raw;
  for (fdnn_test::Desc *o : ops) raw.push_back(o->d);
  check_status(p.graph->set1(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), "set graph handle");
  check_status(p.graph->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw), "set graph ops");
  check_status(p.graph->finalize(), "finalize operation graph");
  p.heur = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  check_status(p.heur->set1(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, p.graph->d),
               "set heuristics graph");
  check_status(p.heur->set1(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode), "set heuristics mode");
  check_status(p.heur->finalize(), "finalize heuristics");
  p.cfg = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  int64_t got = 0;
  check_status(cudnnBackendGetAttribute(p.heur->d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                        &got, &p.cfg->d),
               "heuristics results");
  if (got < 1) throw ApiError(CUDNN_STATUS_NOT_SUPPORTED, "no engine runs this graph");
  p.plan = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  check_status(p.plan->set1(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), "set plan handle");
  check_status(p.plan->set1(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, p.cfg->d),
               "set plan config");
  check_status(p.plan->finalize(), "finalize plan");
  int64_t ws = 0;
  check_status(cudnnBackendGetAttribute(p.plan->d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                        &got, &ws),
               "plan workspace size");
  p.workspace = fdnn_test::Buffer(static_cast<size_t>(std::max<int64_t>(ws, 1)));
  return p;
}

void GraphPlan::bind(const std::vector<int64_t> &uids, const std::vector<void *> &ptrs) {
  pack = std::make_unique<fdnn_test::Desc>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  check_status(pack->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids), "set pack uids");
  check_status(pack->set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs), "set pack pointers");
  check_status(pack->set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace.get()),
               "set pack workspace");
  check_status(pack->finalize(), "finalize variant pack");
}

void GraphPlan::execute() { check_status(cudnnBackendExecute(handle, plan->d, pack->d), "cudnnBackendExecute"); }

size_t upload_tensors(const std::vector<std::pair<int64_t, fdnn_test::HostTensor *>> &tensors, int64_t watch,
                      std::vector<fdnn_test::Buffer> &bufs, std::vector<int64_t> &uids, std::vector<void *> &ptrs) {
  int64_t index = -1;
  bufs.clear();
  bufs.reserve(tensors.size());
  for (const auto &[uid, t] : tensors) {
    bufs.push_back(fdnn_test::upload(*t));
    if (uid == watch) index = static_cast<int64_t>(bufs.size()) - 1;
    uids.push_back(uid);
    ptrs.push_back(bufs.back().get());
  }
  if (index < 0) throw std::invalid_argument("the graph's tensors have no uid " + std::to_string(watch));
  return static_cast<size_t>(index);
}

bool strip_suffix(std::string &name, const std::string &suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  name.resize(name.size() - suffix.size());
  return true;
}

}  // namespace bench
