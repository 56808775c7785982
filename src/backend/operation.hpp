// Base of the OPERATION_* descriptors: once finalized, each one is an op of
// the internal model plus the tensors it reads and writes.
#pragma once

#include <vector>

#include "backend/descriptor.hpp"
#include "graph/op.hpp"

namespace fdnn::backend {

// A by-value scalar tensor that sets a field of an op at execution time
// (epsilon and the exponential-average factor of a normalization, ...).
struct ScalarBinding {
  graph::Uid uid;
  size_t op_index;  // set by the operation graph
  void (*apply)(graph::Op &op, double value);
};

class OperationDescriptor : public Descriptor {
 public:
  using Descriptor::Descriptor;
  const graph::Op &op() const { return op_; }
  const std::vector<graph::Tensor> &tensors() const { return tensors_; }
  const std::vector<ScalarBinding> &bindings() const { return bindings_; }
  // Further ops this one descriptor stands for (GEN_STATS is x*x into a
  // virtual tensor plus two reductions); the graph adds them after op().
  // Their virtual tensors are in tensors() like any other.
  const std::vector<graph::Op> &extra_ops() const { return extra_ops_; }

 protected:
  void copy_state_from(const Descriptor &other) override {
    const auto &o = static_cast<const OperationDescriptor &>(other);
    op_ = o.op_;
    tensors_ = o.tensors_;
    bindings_ = o.bindings_;
    extra_ops_ = o.extra_ops_;
  }
  // Records a finalized TENSOR descriptor set on `name` (required or not)
  // and returns its uid (kNoTensor when absent and optional).
  graph::Uid use_tensor(cudnnBackendAttributeName_t name, const char *what, bool required);

  // Records a scalar tensor on `name` whose value `apply` puts into the op
  // when the plan runs. Only by-value tensors are supported (their value is
  // on the host when the plan executes); returns the uid or kNoTensor.
  graph::Uid bind_scalar(cudnnBackendAttributeName_t name, const char *what, bool required,
                         void (*apply)(graph::Op &, double));

  graph::Op op_;
  std::vector<graph::Tensor> tensors_;
  std::vector<ScalarBinding> bindings_;
  std::vector<graph::Op> extra_ops_;
};

bool is_operation_type(cudnnBackendDescriptorType_t t);

}  // namespace fdnn::backend
