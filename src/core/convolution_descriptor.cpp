#include "core/convolution_descriptor.hpp"

#include "core/descriptor_lifetime.hpp"
#include "core/error.hpp"

namespace fdnn {

cudnnConvolutionStruct &live_convolution(cudnnConvolutionStruct *d, const char *name) {
  return live_descriptor(d, name, "convolution");
}

void set_convolution_nd(cudnnConvolutionStruct &d, int nb_spatial, const int pad[], const int stride[],
                        const int dilation[], cudnnConvolutionMode_t mode, cudnnDataType_t compute_type) {
  // cuDNN 9's order, observable through Get after a rejected call: the type,
  // the mode and the length are checked before anything is stored; then the
  // length, mode and type are stored, and each spatial dimension is stored
  // and then checked, so a bad dimension leaves the earlier ones updated.
  check_arg(compute_type == CUDNN_DATA_FLOAT || compute_type == CUDNN_DATA_DOUBLE ||
                compute_type == CUDNN_DATA_HALF || compute_type == CUDNN_DATA_INT32,
            "computeType = ", static_cast<int>(compute_type),
            ": a convolution computes in CUDNN_DATA_FLOAT, DOUBLE, HALF or INT32");
  check_arg(mode == CUDNN_CONVOLUTION || mode == CUDNN_CROSS_CORRELATION, "mode = ", static_cast<int>(mode),
            ": expected CUDNN_CONVOLUTION (0) or CUDNN_CROSS_CORRELATION (1)");
  check_arg(nb_spatial >= 0, "arrayLength = ", nb_spatial, ": must not be negative");
  // Up to 6 spatial dimensions (tensors have at most CUDNN_DIM_MAX = 8).
  if (nb_spatial > CUDNN_DIM_MAX - 2)
    fail(CUDNN_STATUS_NOT_SUPPORTED, "arrayLength = ", nb_spatial, ": at most ", CUDNN_DIM_MAX - 2,
         " spatial dimensions are supported");
  if (nb_spatial > 0) {
    check_not_null(pad, "padA");
    check_not_null(stride, "filterStrideA");
    check_not_null(dilation, "dilationA");
  }
  d.nb_spatial = nb_spatial;
  d.mode = mode;
  d.compute_type = compute_type;
  for (int i = 0; i < nb_spatial; ++i) {
    d.pad[i] = pad[i];
    d.stride[i] = stride[i];
    d.dilation[i] = dilation[i];
    check_arg(pad[i] >= 0, "padA[", i, "] = ", pad[i], ": padding must not be negative");
    check_arg(stride[i] > 0, "filterStrideA[", i, "] = ", stride[i], ": strides must be positive");
    check_arg(dilation[i] > 0, "dilationA[", i, "] = ", dilation[i], ": dilations must be positive");
  }
}

int64_t convolution_output_extent(int64_t in, int64_t filter, int pad, int stride, int dilation) {
  const int64_t span = (filter - 1) * dilation + 1;
  const int64_t room = in + 2 * static_cast<int64_t>(pad) - span;
  // Floor division: a negative room means the filter does not fit at all.
  const int64_t q = room >= 0 ? room / stride : -((-room + stride - 1) / stride);
  return 1 + q;
}

std::vector<int64_t> convolution_forward_output_dims(const cudnnConvolutionStruct &d, const cudnnTensorStruct &x,
                                                     const cudnnFilterStruct &w, std::vector<int64_t> *partial) {
  const int rank = d.nb_spatial + 2;
  check_arg(x.nb_dims == rank, "inputTensorDesc has ", x.nb_dims, " dimensions but the convolution has ",
            d.nb_spatial, " spatial dimensions (expected ", rank, ")");
  check_arg(w.nb_dims == rank, "filterDesc has ", w.nb_dims, " dimensions but the convolution has ", d.nb_spatial,
            " spatial dimensions (expected ", rank, ")");
  const int64_t c = x.dims[1], filter_c = w.dims[1];
  check_arg(c == filter_c * d.group_count, "input channels (", c, ") must equal the filter's channels (", filter_c,
            ") times the group count (", d.group_count, ")");
  std::vector<int64_t> out{x.dims[0], w.dims[0]};
  for (int i = 0; i < d.nb_spatial; ++i) {
    if (partial != nullptr) *partial = out;
    const int64_t e = convolution_output_extent(x.dims[i + 2], w.dims[i + 2], d.pad[i], d.stride[i], d.dilation[i]);
    check_arg(e > 0, "spatial dimension ", i, ": the dilated filter (", w.dims[i + 2], " taps, dilation ",
              d.dilation[i], ") does not fit the padded input (", x.dims[i + 2], " + 2 x ", d.pad[i],
              "): the output extent would be ", e);
    out.push_back(e);
  }
  return out;
}

}  // namespace fdnn
