// CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR: a graph::ConcatOp (inputs laid
// one after the other along AXIS into OUTPUT_DESC). Rules probed against
// cuDNN 9 on the host (tests/oracle/backend_descriptors.c), all BAD_PARAM at
// finalize: OUTPUT_DESC is required; AXIS (INT64, default 0; another type is
// BAD_PARAM on set) must be a dimension of the output; every input has the
// output's dims except along the axis, where their extents sum to the
// output's; INPLACE_INDEX (default -1, read back) is -1 or an input index.
#include "backend/operation.hpp"
#include "backend/tensor_descriptor.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

constexpr int64_t kMaxInputs = 1 << 12;

class ConcatOperation : public OperationDescriptor {
 public:
  ConcatOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, 1, 1, true, CUDNN_TYPE_INT64, true,
                                 true},
                                {CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, kMaxInputs},
                                {CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, 1, 1, true,
                                 CUDNN_TYPE_INT64, true, true},
                                {CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    graph::ConcatOp op;
    op.y = use_tensor(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, "OUTPUT_DESC", true);
    const graph::Tensor y = tensors_.front();
    op.axis = scalar<int64_t>(CUDNN_ATTR_OPERATION_CONCAT_AXIS, 0);
    op.in_place_index = scalar<int64_t>(CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, -1);
    const auto inputs = finalized_descriptors(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_BACKEND_TENSOR_DESCRIPTOR,
                                              "an element of INPUT_DESCS");
    int64_t along = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const graph::Tensor &t = *tensor_of(inputs[k]);
      check_arg(t.rank() == y.rank(), "input ", k, " has rank ", t.rank(), " but the output has rank ", y.rank());
      for (int d = 0; d < y.rank(); ++d)
        check_arg(d == op.axis || t.dims[d] == y.dims[d], "input ", k, " dimension ", d, " is ", t.dims[d],
                  " but the output's is ", y.dims[d], " (only the axis ", op.axis, " may differ)");
      check_arg(op.axis >= 0 && op.axis < y.rank(), "AXIS = ", op.axis, ": the output has ", y.rank(),
                " dimensions");
      check_arg(t.uid != y.uid, "input ", k, " has the output's uid ", t.uid);
      along += t.dims[static_cast<size_t>(op.axis)];
      tensors_.push_back(t);
      op.inputs.push_back(t.uid);
    }
    check_arg(op.axis >= 0 && op.axis < y.rank(), "AXIS = ", op.axis, ": the output has ", y.rank(), " dimensions");
    check_arg(along == y.dims[static_cast<size_t>(op.axis)], "the inputs' extents along axis ", op.axis, " sum to ",
              along, " but the output's is ", y.dims[static_cast<size_t>(op.axis)]);
    check_arg(op.in_place_index >= -1 && op.in_place_index < static_cast<int64_t>(inputs.size()),
              "INPLACE_INDEX = ", op.in_place_index, ": must be -1 or the index of an input (there are ",
              inputs.size(), ")");
    put(CUDNN_ATTR_OPERATION_CONCAT_AXIS, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{op.axis}));
    put(CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX,
        AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{op.in_place_index}));
    op_ = op;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, ConcatOperation)

}  // namespace fdnn::backend
