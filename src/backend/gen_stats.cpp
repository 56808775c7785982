// CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: per-channel sum and sum of
// squares of x (mode CUDNN_GENSTATS_SUM_SQSUM). There is no gen-stats op in
// the internal model: the descriptor expands to three existing ops,
//   sum   = reduce_add(x)                     (the descriptor's op())
//   t     = x * x        (pointwise MUL into a virtual tensor)
//   sqsum = reduce_add(t)
// (extra_ops()), which the op-by-op engine runs; t gets a uid from a range
// user tensors are very unlikely to use (see kInternalUidBase).
#include <atomic>

#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

// Internal virtual tensors count down from here (uids near INT64_MIN).
constexpr graph::Uid kInternalUidBase = INT64_MIN / 2;

graph::Uid next_internal_uid() {
  static std::atomic<graph::Uid> next{kInternalUidBase};
  return next.fetch_sub(1);
}

class GenStatsOperation : public OperationDescriptor {
 public:
  GenStatsOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE},
                                {CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE},
                                {CUDNN_ATTR_OPERATION_GENSTATS_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    extra_ops_.clear();
    require(CUDNN_ATTR_OPERATION_GENSTATS_MODE, "the mode (GENSTATS_MODE)");
    require(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, "the math precision (GENSTATS_MATH_PREC)");
    const auto mode = scalar<cudnnGenStatsMode_t>(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_GENSTATS_SUM_SQSUM);
    check_arg(mode == CUDNN_GENSTATS_SUM_SQSUM, "GENSTATS_MODE = ", static_cast<int>(mode),
              ": only CUDNN_GENSTATS_SUM_SQSUM exists");
    const auto prec = scalar<cudnnDataType_t>(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_DATA_FLOAT);
    check_supported(prec == CUDNN_DATA_FLOAT || prec == CUDNN_DATA_DOUBLE, "GENSTATS_MATH_PREC = ",
                    static_cast<int>(prec), ": FreeDNN computes gen-stats in FLOAT or DOUBLE");
    const graph::Uid x = use_tensor(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, "XDESC", true);
    const graph::Uid sum = use_tensor(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, "SUMDESC", true);
    const graph::Uid sqsum = use_tensor(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, "SQSUMDESC", true);
    const graph::Tensor xt = tensors_[0];
    check_arg(xt.rank() >= 3, "x has rank ", xt.rank(), ": expected N, C and spatial dimensions");
    for (size_t k = 1; k < 3; ++k) {
      const graph::Tensor &t = tensors_[k];
      check_arg(t.rank() == xt.rank(), k == 1 ? "SUMDESC" : "SQSUMDESC", " has rank ", t.rank(), ", x has ",
                xt.rank());
      for (int d = 0; d < t.rank(); ++d)
        check_arg(t.dims[d] == (d == 1 ? xt.dims[1] : 1), k == 1 ? "SUMDESC" : "SQSUMDESC", " dimension ", d, " is ",
                  t.dims[d], ", expected ", d == 1 ? xt.dims[1] : 1, " (the shape 1 x C x 1 ...)");
    }
    // x * x, packed, in the math precision.
    graph::Tensor sq;
    sq.uid = next_internal_uid();
    sq.dtype = prec;
    sq.dims = xt.dims;
    sq.strides.assign(sq.dims.size(), 1);
    for (int d = sq.rank() - 2; d >= 0; --d) sq.strides[d] = sq.strides[d + 1] * sq.dims[d + 1];
    sq.is_virtual = true;
    tensors_.push_back(sq);

    graph::ReductionOp reduce_sum;
    reduce_sum.mode = CUDNN_REDUCE_TENSOR_ADD;
    reduce_sum.compute_type = prec;
    reduce_sum.x = x;
    reduce_sum.y = sum;
    op_ = reduce_sum;

    graph::PointwiseOp square;
    square.mode = CUDNN_POINTWISE_MUL;
    square.compute_type = prec;
    square.x = x;
    square.b = x;
    square.y = sq.uid;
    extra_ops_.push_back(square);

    graph::ReductionOp reduce_sq = reduce_sum;
    reduce_sq.x = sq.uid;
    reduce_sq.y = sqsum;
    extra_ops_.push_back(reduce_sq);
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, GenStatsOperation)

}  // namespace fdnn::backend
