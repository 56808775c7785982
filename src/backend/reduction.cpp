// CUDNN_BACKEND_REDUCTION_DESCRIPTOR (operator, compute type) and
// CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR (the node): a graph::ReductionOp.
#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

class ReductionDescriptor : public Descriptor {
 public:
  ReductionDescriptor()
      : Descriptor(CUDNN_BACKEND_REDUCTION_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE},
                       {CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE},
                       {CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC, CUDNN_TYPE_BOOLEAN},
                   }) {}
  graph::ReductionOp op;

 protected:
  bool readable_before_finalize() const override { return true; }
  void do_finalize() override {
    require(CUDNN_ATTR_REDUCTION_OPERATOR, "the reduction operator");
    op = graph::ReductionOp{};
    op.mode = scalar<cudnnReduceTensorOp_t>(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_REDUCE_TENSOR_ADD);
    check_arg(op.mode >= CUDNN_REDUCE_TENSOR_ADD && op.mode <= CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS,
              "reduction operator ", static_cast<int>(op.mode), " is not a cudnnReduceTensorOp_t value");
    op.compute_type = scalar<cudnnDataType_t>(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_DATA_FLOAT);
  }
  void copy_state_from(const Descriptor &other) override {
    op = static_cast<const ReductionDescriptor &>(other).op;
  }
};

class ReductionOperation : public OperationDescriptor {
 public:
  ReductionOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    require(CUDNN_ATTR_OPERATION_REDUCTION_DESC, "the reduction descriptor (REDUCTION_DESC)");
    const auto rd = finalized_descriptors(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_BACKEND_REDUCTION_DESCRIPTOR,
                                          "REDUCTION_DESC");
    graph::ReductionOp r = static_cast<const ReductionDescriptor *>(rd.front())->op;
    r.x = use_tensor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, "XDESC", true);
    r.y = use_tensor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, "YDESC", true);
    const graph::Tensor &x = tensors_[0], &y = tensors_[1];
    check_arg(x.rank() == y.rank(), "x has rank ", x.rank(), " but y has rank ", y.rank());
    // As cuDNN 9: each y extent divides x's (equal, 1, or a grouped reduction
    // of consecutive x positions; core/reduction_support.hpp).
    for (int i = 0; i < x.rank(); ++i)
      check_arg(y.dims[i] >= 1 && x.dims[i] % y.dims[i] == 0, "y dimension ", i, " (", y.dims[i],
                ") must divide x's (", x.dims[i], "): equal (kept), 1 (reduced) or a divisor (grouped)");
    op_ = r;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, ReductionDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, ReductionOperation)

}  // namespace fdnn::backend
