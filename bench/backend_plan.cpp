#include "backend_plan.hpp"

#include <algorithm>

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

}  // namespace bench
