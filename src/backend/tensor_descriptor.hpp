// CUDNN_BACKEND_TENSOR_DESCRIPTOR: a graph tensor (uid, type, dims, strides,
// virtual / by-value flags).
#pragma once

#include "backend/descriptor.hpp"
#include "graph/tensor.hpp"

namespace fdnn::backend {

class TensorDescriptor : public Descriptor {
 public:
  TensorDescriptor();
  const graph::Tensor &tensor() const { return tensor_; }

 protected:
  void do_finalize() override;
  void copy_state_from(const Descriptor &other) override;

 private:
  graph::Tensor tensor_;
};

// The tensor of a finalized TENSOR descriptor set on `name` of `owner`.
const graph::Tensor *tensor_of(const Descriptor *d);

}  // namespace fdnn::backend
