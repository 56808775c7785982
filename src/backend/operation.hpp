// Base of the OPERATION_* descriptors: once finalized, each one is an op of
// the internal model plus the tensors it reads and writes.
#pragma once

#include <vector>

#include "backend/descriptor.hpp"
#include "graph/op.hpp"

namespace fdnn::backend {

class OperationDescriptor : public Descriptor {
 public:
  using Descriptor::Descriptor;
  const graph::Op &op() const { return op_; }
  const std::vector<graph::Tensor> &tensors() const { return tensors_; }

 protected:
  void copy_state_from(const Descriptor &other) override {
    const auto &o = static_cast<const OperationDescriptor &>(other);
    op_ = o.op_;
    tensors_ = o.tensors_;
  }
  // Records a finalized TENSOR descriptor set on `name` (required or not)
  // and returns its uid (kNoTensor when absent and optional).
  graph::Uid use_tensor(cudnnBackendAttributeName_t name, const char *what, bool required);

  graph::Op op_;
  std::vector<graph::Tensor> tensors_;
};

bool is_operation_type(cudnnBackendDescriptorType_t t);

}  // namespace fdnn::backend
