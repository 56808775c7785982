// What the bench's backend-API families share: an owned backend descriptor
// that throws on failure, a tensor descriptor builder, and a plan (graph of
// one operation -> heuristics mode A -> first engine config -> plan ->
// variant pack with its workspace) built once and executed per timing call.
#pragma once

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "common/buffer.hpp"
#include "common/tensor_data.hpp"
#include "tensor.hpp"

namespace fdnn_test {
struct Desc;  // common/backend_graph.hpp, which users of GraphPlan include
}  // namespace fdnn_test

namespace bench {

struct BDesc {
  cudnnBackendDescriptor_t d = nullptr;
  explicit BDesc(cudnnBackendDescriptorType_t t);
  ~BDesc();
  BDesc(const BDesc &) = delete;
  BDesc &operator=(const BDesc &) = delete;
  void set_raw(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, int64_t count, const void *v);
  template <class T>
  void set(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, int64_t count, const T *v) {
    set_raw(n, t, count, v);
  }
  template <class T>
  void set1(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, T v) {
    set(n, t, 1, &v);
  }
  void finalize();
};

std::unique_ptr<BDesc> backend_tensor(int64_t uid, cudnnDataType_t dt, const Dims &dims, const Dims &strides,
                                      bool is_virtual = false);

class BackendPlan {
 public:
  // Plans the graph of the one operation `op` and binds uids to ptrs.
  BackendPlan(cudnnHandle_t handle, BDesc &op, std::vector<int64_t> uids, std::vector<void *> ptrs);
  void execute();

 private:
  cudnnHandle_t handle_;
  std::vector<int64_t> uids_;
  std::vector<void *> ptrs_;
  std::unique_ptr<BDesc> plan_, pack_;
  fdnn_test::Buffer workspace_;
};

// A multi-operation graph planned through the first engine config that
// heuristics `mode` offer (FALLBACK: the op-by-op engine), with a workspace
// of the plan's size; the descriptors stay alive with it. bind() makes the
// variant pack (uids -> ptrs, and the workspace) that execute() runs.
struct GraphPlan {
  cudnnHandle_t handle = nullptr;
  std::unique_ptr<fdnn_test::Desc> graph, heur, cfg, plan, pack;
  fdnn_test::Buffer workspace;

  void bind(const std::vector<int64_t> &uids, const std::vector<void *> &ptrs);
  void execute();
};
GraphPlan plan_graph(cudnnHandle_t handle, const std::vector<fdnn_test::Desc *> &ops, cudnnBackendHeurMode_t mode);

// Uploads each (uid, host tensor) into a new buffer of `bufs`, in order,
// and appends the uid and the device pointer to uids / ptrs (for
// GraphPlan::bind). Returns the index in bufs of uid `watch`, which must be
// among them.
size_t upload_tensors(const std::vector<std::pair<int64_t, fdnn_test::HostTensor *>> &tensors, int64_t watch,
                       std::vector<fdnn_test::Buffer> &bufs, std::vector<int64_t> &uids, std::vector<void *> &ptrs);

// Removes `suffix` from the end of `name` when name is longer than it
// (the algorithm names' -opbyop, -nhwc); says whether it did.
bool strip_suffix(std::string &name, const std::string &suffix);

}  // namespace bench
