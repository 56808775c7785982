// CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: operations joined by tensor uids.
// Finalize builds the internal graph::Graph and checks the dataflow: one
// producer per tensor, no cycles, virtual tensors produced and consumed
// inside the graph, the same uid always describing the same tensor. A
// RESHAPE adds a view tensor (Tensor::view_of): it is ready when the tensor
// it reads is.
#include <algorithm>
#include <map>
#include <set>

#include "backend/engine_state.hpp"
#include "backend/operation.hpp"
#include "backend/operation_graph.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"
#include "graph/op_io.hpp"

namespace fdnn::backend {

std::vector<const Engine *> engines_by_global_index() {
  std::vector<const Engine *> all = EngineRegistry::instance().all();
  std::sort(all.begin(), all.end(),
            [](const Engine *a, const Engine *b) { return a->global_index() < b->global_index(); });
  return all;
}

namespace {

bool same_tensor(const graph::Tensor &a, const graph::Tensor &b) {
  return a.dtype == b.dtype && a.dims == b.dims && a.strides == b.strides && a.is_virtual == b.is_virtual &&
         a.by_value == b.by_value && a.view_of == b.view_of;
}

// A RESHAPE is a copy from a view of x into y. When x is a caller's tensor
// and y is virtual, y needs no memory of its own: y becomes the view (x's
// memory read with the view's strides, a caller's tensor like x) and the
// copy goes. Fusing engines then see the transposes of cudnn-frontend's
// graphs (K -> K^T, dO -> dO^T) as the strided operands they take.
void collapse_view_copies(std::map<graph::Uid, graph::Tensor> &tensors, std::vector<graph::Op> &ops,
                          std::vector<graph::OpIo> &ios, std::map<graph::Uid, int> &producer,
                          std::vector<GraphBinding> &bindings) {
  std::vector<bool> keep(ops.size(), true);
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto *copy = std::get_if<graph::PointwiseOp>(&ops[i]);
    if (copy == nullptr || copy->mode != CUDNN_POINTWISE_IDENTITY || copy->b != graph::kNoTensor) continue;
    auto view = tensors.find(copy->x);
    auto y = tensors.find(copy->y);
    if (view == tensors.end() || y == tensors.end() || !view->second.is_view() || view->second.is_virtual ||
        !y->second.is_virtual || y->second.dtype != view->second.dtype)
      continue;
    graph::Tensor collapsed = view->second;
    collapsed.uid = y->first;
    y->second = collapsed;
    tensors.erase(view);
    keep[i] = false;
  }
  if (std::all_of(keep.begin(), keep.end(), [](bool k) { return k; })) return;
  std::vector<size_t> new_index(ops.size(), 0);
  size_t kept = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    new_index[i] = kept;
    if (!keep[i]) continue;
    if (kept != i) {
      ops[kept] = std::move(ops[i]);
      ios[kept] = std::move(ios[i]);
    }
    ++kept;
  }
  ops.resize(kept);
  ios.resize(kept);
  for (GraphBinding &b : bindings) b.op_index = new_index[b.op_index];
  producer.clear();
  for (size_t i = 0; i < ios.size(); ++i)
    for (graph::Uid u : ios[i].outputs) producer[u] = static_cast<int>(i);
}

}  // namespace

OperationGraphDescriptor::OperationGraphDescriptor()
    : Descriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                 {
                     {CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE},
                     {CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1 << 20},
                     {CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, 1, false,
                      CUDNN_TYPE_INT64, true, false, true},
                     {CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, CUDNN_TYPE_BOOLEAN},
                 }) {}

void OperationGraphDescriptor::do_finalize() {
  require(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, "the handle");
  require(CUDNN_ATTR_OPERATIONGRAPH_OPS, "the operations (OPS)");
  auto state = std::make_shared<GraphState>();
  state->handle = &checked_handle(scalar<cudnnHandle_t>(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, nullptr));
  state->device = state->handle->device;
  check_supported(!scalar<bool>(CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, false),
                  "dynamic shapes are not supported");

  auto g = std::make_shared<graph::Graph>();
  std::map<graph::Uid, graph::Tensor> tensors;
  std::map<graph::Uid, int> producer;
  std::vector<graph::OpIo> ios;
  std::vector<graph::Op> ops;
  for (cudnnBackendDescriptor_t h : value(CUDNN_ATTR_OPERATIONGRAPH_OPS).all<cudnnBackendDescriptor_t>()) {
    const Descriptor &d = live(h, "an element of OPS");
    check_arg(is_operation_type(d.type()), "an element of OPS is a descriptor of type ", static_cast<int>(d.type()),
              ", not an operation");
    check_arg(d.finalized(), "an operation of OPS is not finalized");
    const auto &op = static_cast<const OperationDescriptor &>(d);
    state->op_records.push_back(d.record());
    for (const graph::Tensor &t : op.tensors()) {
      auto it = tensors.find(t.uid);
      if (it == tensors.end()) tensors.emplace(t.uid, t);
      else
        check_arg(same_tensor(it->second, t), "tensor uid ", t.uid,
                  " is used by two tensor descriptors that differ (type, dims, strides or flags)");
    }
    for (const ScalarBinding &b : op.bindings()) state->bindings.push_back({b.uid, ios.size(), b.apply});
    // The descriptor's op, then the extra ops it expands to (GEN_STATS).
    std::vector<const graph::Op *> parts{&op.op()};
    for (const graph::Op &extra : op.extra_ops()) parts.push_back(&extra);
    for (const graph::Op *part : parts) {
      graph::OpIo io = graph::op_io(*part);
      for (graph::Uid u : io.outputs) {
        check_arg(producer.count(u) == 0, "tensor uid ", u, " is written by two operations");
        producer[u] = static_cast<int>(ios.size());
      }
      ios.push_back(io);
      ops.push_back(*part);
    }
  }
  collapse_view_copies(tensors, ops, ios, producer, state->bindings);
  for (graph::Op &op : ops) g->add_op(std::move(op));
  // A virtual tensor that no operation writes is not refused here (NVIDIA's
  // cuDNN finalizes such a graph); Engine::accepts turns every engine away
  // from it, so heuristics offer none.
  auto storage = [&tensors](graph::Uid u) {
    auto it = tensors.find(u);
    return it != tensors.end() && it->second.is_view() ? it->second.view_of : u;
  };
  // Cycles: repeatedly retire ops whose inputs are all available.
  {
    std::vector<bool> done(ios.size(), false);
    std::set<graph::Uid> ready;
    for (const auto &[uid, t] : tensors)
      if (producer.count(uid) == 0) ready.insert(uid);
    size_t retired = 0;
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = 0; i < ios.size(); ++i) {
        if (done[i]) continue;
        if (std::all_of(ios[i].inputs.begin(), ios[i].inputs.end(),
                        [&](graph::Uid u) { return ready.count(storage(u)) != 0; })) {
          done[i] = true;
          ++retired;
          progress = true;
          for (graph::Uid u : ios[i].outputs) ready.insert(u);
        }
      }
    }
    check_arg(retired == ios.size(), "the operations form a cycle (or read a tensor that is written by an "
                                     "operation that depends on them)");
  }
  for (const auto &[uid, t] : tensors) g->add_tensor(t);
  if (std::any_of(state->op_records.begin(), state->op_records.end(), [](const auto &r) { return r == nullptr; }))
    state->op_records.clear();
  state->graph = g;
  state_ = state;
  put(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
      AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{static_cast<int64_t>(engines_by_global_index().size())}));
}

void OperationGraphDescriptor::copy_state_from(const Descriptor &other) {
  state_ = static_cast<const OperationGraphDescriptor &>(other).state_;
}

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, OperationGraphDescriptor)

}  // namespace fdnn::backend
