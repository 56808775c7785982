// Adds a tensor to the graph of one API call and binds the caller's data to
// its uid in the call's VariantPack, in one step.
#pragma once

#include <utility>

#include "core/engine.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

namespace fdnn::api {

inline graph::Uid add_bound_tensor(graph::Graph &g, VariantPack &pack, graph::Tensor t, const void *data) {
  const graph::Uid uid = g.add_tensor_auto(std::move(t));
  pack.set(uid, data);
  return uid;
}

inline graph::Uid add_bound_tensor(graph::Graph &g, VariantPack &pack, const cudnnTensorStruct &d, const void *data) {
  return add_bound_tensor(g, pack, to_graph_tensor(d), data);
}

}  // namespace fdnn::api
