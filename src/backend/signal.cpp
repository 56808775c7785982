// CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR: a graph::SignalOp (SET or WAIT
// on a 64-bit flag, x passed through to y; see graph/op_signal.hpp).
// cuDNN 9 finalizes the node whatever is set (probed on the host), so this
// finalize checks nothing beyond the tensor descriptors being finalized;
// the engines refuse a signal without flag or x, or with a flag that is not
// one INT64 (core/signal_support; engines cpu.signal and cuda.signal).
#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

class SignalOperation : public OperationDescriptor {
 public:
  SignalOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_TYPE_SIGNAL_MODE},
                                {CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_SIGNAL_VALUE, CUDNN_TYPE_INT64},
                                {CUDNN_ATTR_OPERATION_SIGNAL_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_SIGNAL_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    graph::SignalOp op;
    op.mode = scalar<cudnnSignalMode_t>(CUDNN_ATTR_OPERATION_SIGNAL_MODE, CUDNN_SIGNAL_SET);
    op.value = scalar<int64_t>(CUDNN_ATTR_OPERATION_SIGNAL_VALUE, 0);
    op.flag = use_tensor(CUDNN_ATTR_OPERATION_SIGNAL_FLAGDESC, "FLAGDESC", false);
    op.x = use_tensor(CUDNN_ATTR_OPERATION_SIGNAL_XDESC, "XDESC", false);
    op.y = use_tensor(CUDNN_ATTR_OPERATION_SIGNAL_YDESC, "YDESC", false);
    op_ = op;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR, SignalOperation)

}  // namespace fdnn::backend
