// CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR (geometry, mode, compute type) and the
// three convolution operations (forward, backward data, backward filter): a
// graph::ConvolutionOp each.
#include <algorithm>

#include "backend/operation.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

class ConvolutionDescriptor : public Descriptor {
 public:
  ConvolutionDescriptor()
      : Descriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE},
                       {CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE},
                       {CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 1, CUDNN_DIM_MAX - 2},
                       {CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 1, CUDNN_DIM_MAX - 2},
                       {CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 1, CUDNN_DIM_MAX - 2},
                       {CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 1, CUDNN_DIM_MAX - 2},
                       {CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64},
                   }) {}
  graph::ConvolutionOp op;

 protected:
  bool readable_before_finalize() const override { return true; }
  void do_finalize() override {
    // As in cuDNN 9: the spatial rank, strides and dilations are required;
    // the compute type (FLOAT), the mode (CONVOLUTION) and the paddings (0)
    // have defaults. The mode's value is checked by the engines, not here.
    require(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, "the number of spatial dimensions");
    require(CUDNN_ATTR_CONVOLUTION_DILATIONS, "the dilations");
    require(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, "the filter strides");
    op = graph::ConvolutionOp{};
    op.compute_type = scalar<cudnnDataType_t>(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT);
    op.mode = scalar<cudnnConvolutionMode_t>(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_CONVOLUTION);
    const int64_t n = scalar<int64_t>(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0);
    op.dilation = array<int64_t>(CUDNN_ATTR_CONVOLUTION_DILATIONS);
    op.stride = array<int64_t>(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
    const auto padding = [&](cudnnBackendAttributeName_t name) {
      return has(name) ? array<int64_t>(name) : std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
    };
    op.pre_padding = padding(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
    op.post_padding = padding(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
    for (const auto *v : {&op.dilation, &op.stride, &op.pre_padding, &op.post_padding})
      check_arg(static_cast<int64_t>(v->size()) == n, "the convolution has ", n,
                " spatial dimensions but an array attribute has ", v->size(), " elements");
    for (int64_t i = 0; i < n; ++i) {
      check_arg(op.stride[i] > 0, "filter stride ", i, " = ", op.stride[i], ": must be positive");
      check_arg(op.dilation[i] > 0, "dilation ", i, " = ", op.dilation[i], ": must be positive");
      check_arg(op.pre_padding[i] >= 0 && op.post_padding[i] >= 0, "padding of dimension ", i,
                " must not be negative");
    }
  }
  void copy_state_from(const Descriptor &other) override {
    op = static_cast<const ConvolutionDescriptor &>(other).op;
  }
};

struct ConvAttrs {
  cudnnBackendDescriptorType_t type;
  graph::ConvDirection direction;
  cudnnBackendAttributeName_t alpha, beta, conv, x, w, y;  // x/w/y: dx, dw, dy for the backward ones
};

// One class for the three directions: they differ in attribute names and in
// which tensor is the output.
class ConvolutionOperation : public OperationDescriptor {
 public:
  explicit ConvolutionOperation(const ConvAttrs &a)
      : OperationDescriptor(a.type,
                            {
                                {a.alpha, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                                {a.beta, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
                                {a.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }),
        a_(a) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    require(a_.conv, "the convolution descriptor");
    const auto c = finalized_descriptors(a_.conv, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "the convolution descriptor");
    graph::ConvolutionOp op = static_cast<const ConvolutionDescriptor *>(c.front())->op;
    op.direction = a_.direction;
    op.x = use_tensor(a_.x, "the x (or dx) tensor", true);
    op.w = use_tensor(a_.w, "the w (or dw) tensor", true);
    op.y = use_tensor(a_.y, "the y (or dy) tensor", true);
    op.blend.alpha = has(a_.alpha) ? as_double(value(a_.alpha)) : 1.0;
    op.blend.beta = has(a_.beta) ? as_double(value(a_.beta)) : 0.0;
    check_supported(op.mode == CUDNN_CONVOLUTION || op.mode == CUDNN_CROSS_CORRELATION, "convolution mode ",
                    static_cast<int>(op.mode), " is neither CUDNN_CONVOLUTION nor CUDNN_CROSS_CORRELATION");
    const graph::Tensor &x = tensors_[0], &w = tensors_[1], &y = tensors_[2];
    const int s = op.spatial_dims();
    // Two forms (seed 9.3.1): rank s+2 with the groups folded into the
    // channels (x [n, g*c, ..], w [g*k, c, ..], y [n, g*k, ..]), or rank s+3
    // with a dimension of its own (x [n, g, c, ..], w [g, k, c, ..],
    // y [n, g, k, ..]). Either way n, g, c and k must agree.
    const bool grouped = x.rank() == s + 3 && w.rank() == s + 3 && y.rank() == s + 3;
    check_supported(grouped || (x.rank() == s + 2 && w.rank() == s + 2 && y.rank() == s + 2), "tensors of rank ",
                    x.rank(), "/", w.rank(), "/", y.rank(), " for a convolution with ", s,
                    " spatial dimensions: expected all of rank ", s + 2, " or all of rank ", s + 3, " (grouped)");
    if (grouped) {
      check_arg(x.dims[0] == y.dims[0], "x has batch ", x.dims[0], " but y has ", y.dims[0]);
      check_arg(x.dims[1] == w.dims[0] && y.dims[1] == w.dims[0], "the group counts differ: x ", x.dims[1], ", w ",
                w.dims[0], ", y ", y.dims[1]);
      check_arg(x.dims[2] == w.dims[2], "x has ", x.dims[2], " channels per group but w has ", w.dims[2]);
      check_arg(y.dims[2] == w.dims[1], "y has ", y.dims[2], " output channels per group but w has ", w.dims[1]);
    } else {
      check_arg(w.dims[1] > 0 && x.dims[1] % w.dims[1] == 0, "x has ", x.dims[1],
                " channels, not a multiple of w's ", w.dims[1]);
      const int64_t groups = x.dims[1] / w.dims[1];
      check_arg(w.dims[0] % groups == 0, "w has ", w.dims[0], " output channels, not a multiple of the ", groups,
                " groups");
      check_arg(y.dims[0] == x.dims[0] && y.dims[1] == w.dims[0], "y is ", y.dims[0], "x", y.dims[1],
                " in N and K; expected ", x.dims[0], "x", w.dims[0]);
    }
    const int first = grouped ? 3 : 2;  // first spatial dimension
    for (int i = 0; i < s; ++i) {
      const int64_t span = (w.dims[i + first] - 1) * op.dilation[i] + 1;
      const int64_t out = (x.dims[i + first] + op.pre_padding[i] + op.post_padding[i] - span) / op.stride[i] + 1;
      check_arg(out == y.dims[i + first], "spatial dimension ", i, ": y has extent ", y.dims[i + first],
                ", expected ", out);
    }
    op_ = op;
  }

 private:
  ConvAttrs a_;
};

struct ForwardConvolution : ConvolutionOperation {
  ForwardConvolution()
      : ConvolutionOperation({CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, graph::ConvDirection::forward,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y}) {}
};
struct BackwardDataConvolution : ConvolutionOperation {
  BackwardDataConvolution()
      : ConvolutionOperation(
            {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, graph::ConvDirection::backward_data,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY}) {}
};
struct BackwardFilterConvolution : ConvolutionOperation {
  BackwardFilterConvolution()
      : ConvolutionOperation(
            {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, graph::ConvDirection::backward_filter,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY}) {}
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, ConvolutionDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, ForwardConvolution)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, BackwardDataConvolution)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, BackwardFilterConvolution)

}  // namespace fdnn::backend
