// An operation graph: tensors by UID and the operations between them.
#pragma once

#include <string>
#include <vector>

#include "graph/op.hpp"
#include "graph/tensor.hpp"

namespace fdnn::graph {

class Graph {
 public:
  // Adds a tensor; its uid must be unique. Returns the uid.
  Uid add_tensor(Tensor t);
  // Convenience for legacy calls: assigns the next free uid.
  Uid add_tensor_auto(Tensor t);
  void add_op(Op op) { ops_.push_back(std::move(op)); }

  const Tensor &tensor(Uid uid) const;
  const Tensor *find_tensor(Uid uid) const;
  const std::vector<Tensor> &tensors() const { return tensors_; }
  // Mutable access keeps uids unchanged by contract (by-value tensors get
  // their values at execution time).
  std::vector<Tensor> &tensors() { return tensors_; }
  const std::vector<Op> &ops() const { return ops_; }
  std::vector<Op> &ops() { return ops_; }

  // The uid whose storage `uid` uses: the viewed tensor for a view, else uid.
  Uid storage_uid(Uid uid) const;
  // True when some view reads a virtual tensor: only engines that place
  // virtual tensors themselves (Engine::runs_virtual_views) can run it.
  bool has_virtual_views() const;

  // Describes the structure (ops, modes, tensor shapes, strides, types) but
  // not runtime values such as alpha/beta or by-value scalars, so that plans
  // cached under this key serve every call with the same structure.
  std::string structural_key() const;
  // Everything, for verbose lines and messages.
  std::string to_string() const;

 private:
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  Uid next_uid_ = 1;
};

}  // namespace fdnn::graph
