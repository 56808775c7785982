// CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR.
#pragma once

#include <memory>

#include "backend/descriptor.hpp"
#include "backend/engine_state.hpp"

namespace fdnn::backend {

class OperationGraphDescriptor : public Descriptor {
 public:
  OperationGraphDescriptor();
  const std::shared_ptr<const GraphState> &state() const { return state_; }

 protected:
  void do_finalize() override;
  void copy_state_from(const Descriptor &other) override;

 private:
  std::shared_ptr<const GraphState> state_;
};

}  // namespace fdnn::backend
