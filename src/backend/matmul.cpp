// CUDNN_BACKEND_MATMUL_DESCRIPTOR (compute type) and
// CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR (the node): a graph::MatmulOp.
#include "backend/operation.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"

namespace fdnn::backend {

namespace {

class MatmulDescriptor : public Descriptor {
 public:
  MatmulDescriptor()
      : Descriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, {
                                                        {CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE},
                                                        {CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                                                    }) {}
  graph::MatmulOp op;

 protected:
  bool readable_before_finalize() const override { return true; }
  void do_finalize() override {
    op = graph::MatmulOp{};
    op.compute_type = scalar<cudnnDataType_t>(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT);
    check_supported(!has(CUDNN_ATTR_MATMUL_PADDING_VALUE) || as_double(value(CUDNN_ATTR_MATMUL_PADDING_VALUE)) == 0.0,
                    "a non-zero matmul padding value is not supported");
  }
  void copy_state_from(const Descriptor &other) override { op = static_cast<const MatmulDescriptor &>(other).op; }
};

class MatmulOperation : public OperationDescriptor {
 public:
  MatmulOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    require(CUDNN_ATTR_OPERATION_MATMUL_DESC, "the matmul descriptor");
    const auto md = finalized_descriptors(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_BACKEND_MATMUL_DESCRIPTOR,
                                          "the matmul descriptor");
    check_supported(!has(CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC) &&
                        !has(CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC) &&
                        !has(CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC),
                    "GEMM M/N/K override tensors (ragged matmuls) are not supported yet");
    graph::MatmulOp op = static_cast<const MatmulDescriptor *>(md.front())->op;
    op.a = use_tensor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, "ADESC", true);
    op.b = use_tensor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, "BDESC", true);
    op.c = use_tensor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, "CDESC", true);
    const graph::Tensor &a = tensors_[0], &b = tensors_[1], &c = tensors_[2];
    const int r = c.rank();
    check_arg(r >= 2 && a.rank() == r && b.rank() == r, "a, b and c must have the same rank (at least 2); got ",
              a.rank(), ", ", b.rank(), ", ", r);
    check_arg(a.dims[r - 1] == b.dims[r - 2], "a has K = ", a.dims[r - 1], " but b has K = ", b.dims[r - 2]);
    check_arg(a.dims[r - 2] == c.dims[r - 2] && b.dims[r - 1] == c.dims[r - 1], "c is ", c.dims[r - 2], "x",
              c.dims[r - 1], ", expected ", a.dims[r - 2], "x", b.dims[r - 1]);
    // Batch broadcast (core/matmul_support.hpp): one of a's and b's extents
    // divides the other, c's is the larger.
    for (int i = 0; i < r - 2; ++i)
      check_arg(matmul_batch_extents_valid(a.dims[i], b.dims[i], c.dims[i]), "batch dimension ", i, ": a (", a.dims[i],
                ") and b (", b.dims[i], ") must be extents of which one divides the other, and c's (", c.dims[i],
                ") the larger of the two");
    op_ = op;
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_MATMUL_DESCRIPTOR, MatmulDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, MatmulOperation)

}  // namespace fdnn::backend
