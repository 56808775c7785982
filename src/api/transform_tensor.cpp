// cudnnTransformTensor, cudnnTransformTensorEx, cudnnTransformFilter and
// cudnnInitTransformDest: copies between layouts (strides, NHWC, vector
// formats) and data types, scaled and blended, optionally zero-padded or
// folded (transform_fold.hpp). Each copy is one identity PointwiseOp
// (transform_copy.hpp); padding fills the destination with zeros first.
#include <algorithm>
#include <vector>

#include "api/guard.hpp"
#include "api/tensor_ops_common.hpp"
#include "api/tensor_views.hpp"
#include "api/transform_copy.hpp"
#include "api/transform_fold.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/op_descriptors.hpp"
#include "core/tensor_desc.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

// The types cuDNN 9.19 transforms (measured: tests/oracle_gpu/tensor_ops_gpu.c,
// probe.xform.*): FLOAT, DOUBLE, HALF, BFLOAT16, INT8 and INT8x4 (INT8
// lanes), converting between any two of them except HALF <-> BFLOAT16. UINT8,
// INT32, INT8x32 and UINT8x4 are NOT_SUPPORTED, even unconverted; INT8x32 and
// UINT8x4 next to another type are refused with BAD_PARAM.
bool transformable(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
         t == CUDNN_DATA_INT8 || t == CUDNN_DATA_INT8x4;
}

void check_conversion(cudnnDataType_t from, cudnnDataType_t to) {
  check_supported(from != to || transformable(from), "transforms of ", type_info(from).enum_name,
                  " tensors are not supported");
  for (cudnnDataType_t t : {from, to})
    check_arg(t != CUDNN_DATA_INT8x32 && t != CUDNN_DATA_UINT8x4, "transforms of ", type_info(t).enum_name,
              " tensors are not supported (", type_info(from).enum_name, " -> ", type_info(to).enum_name, ")");
  const cudnnDataType_t sf = scalar_type(from), st = scalar_type(to);
  const bool half_bf16 = (sf == CUDNN_DATA_HALF && st == CUDNN_DATA_BFLOAT16) ||
                         (sf == CUDNN_DATA_BFLOAT16 && st == CUDNN_DATA_HALF);
  check_supported(transformable(from) && transformable(to) && !half_bf16, "transforms do not handle ",
                  type_info(from).enum_name, " -> ", type_info(to).enum_name,
                  " (types: FLOAT, DOUBLE, HALF, BFLOAT16, INT8, INT8x4; not HALF <-> BFLOAT16)");
}

// cuDNN 9.19 reads the scaling factors by the SOURCE's type (doubles for a
// DOUBLE source, whatever the destination), except for a vector-type source,
// where the destination's type decides.
cudnnDataType_t scaling_type(cudnnDataType_t src, cudnnDataType_t dst) { return is_vector_type(src) ? dst : src; }

// The shared body of the transforms: same rank; with a transform descriptor,
// dest = src padded by pad_before/pad_after (zeros) and folded.
void transform(cudnnContext &h, const char *fn, const cudnnTensorTransformStruct *tr, const void *alpha_p,
               const void *beta_p, cudnnDataType_t src_type, cudnnDataType_t dst_type, LaneLayout src, const void *sp,
               LaneLayout dst, void *dp) {
  check_conversion(src_type, dst_type);
  check_arg(src.dims.size() == dst.dims.size(), "source has ", src.dims.size(), " dimensions, destination ",
            dst.dims.size());
  const double alpha = read_scaling(alpha_p, scaling_type(src_type, dst_type));
  const double beta = read_scaling(beta_p, scaling_type(src_type, dst_type));
  const size_t nb = src.dims.size();

  std::vector<int64_t> before(nb, 0), after(nb, 0);
  bool padded = false;
  if (tr != nullptr) {
    for (size_t i = 0; i < nb; ++i) {
      before[i] = tr->pad_before[i];
      after[i] = tr->pad_after[i];
      padded = padded || before[i] != 0 || after[i] != 0;
    }
  }
  // Padding writes zeros, which cannot be blended: cuDNN wants beta = 0.
  check_supported(!padded || beta == 0.0, "padding transforms need beta = 0 (got ", beta, ")");
  if (tr != nullptr && has_folds(*tr, nb)) {
    const std::vector<int64_t> want = transformed_dims(*tr, src.dims);
    for (size_t i = 0; i < nb; ++i)
      check_arg(dst.dims[i] == want[i], "destination dim ", i, " = ", dst.dims[i],
                " does not match the folded source's ", want[i], " (see cudnnInitTransformDest)");
    run_fold(h, fn, *tr, alpha, beta, src, sp, dst, dp);
    return;
  }
  for (size_t i = 0; i < nb; ++i)
    check_arg(dst.dims[i] == src.dims[i] + before[i] + after[i], "destination dim ", i, " = ", dst.dims[i],
              padded ? " does not equal source dim + padding = " : " does not match source dim ",
              src.dims[i] + before[i] + after[i]);
  if (!padded) {
    run_copy(h, fn, alpha, beta, src, sp, dst, dp);
    return;
  }
  // Zeros everywhere, then the overlap of source and destination.
  run_zero_fill(h, fn, dst, dp);
  std::vector<int64_t> s_start(nb), d_start(nb), extent(nb);
  for (size_t i = 0; i < nb; ++i) {
    s_start[i] = std::max<int64_t>(0, -before[i]);
    d_start[i] = std::max<int64_t>(0, before[i]);
    extent[i] = std::min(src.dims[i] - s_start[i], dst.dims[i] - d_start[i]);
    if (extent[i] <= 0) return;  // nothing of the source is inside
  }
  const int64_t s_off = sub_view(src, s_start, extent);
  const int64_t d_off = sub_view(dst, d_start, extent);
  run_copy(h, fn, alpha, 0.0, src, static_cast<const char *>(sp) + s_off * lane_bytes(src.dtype), dst,
           static_cast<char *>(dp) + d_off * lane_bytes(dst.dtype));
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformTensor(cudnnHandle_t handle, const void *alpha,
                                               const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                               const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(x, "x");
    check_not_null(y, "y");
    transform(h, fn, nullptr, alpha, beta, xd.dtype, yd.dtype, lane_layout(xd), x, lane_layout(yd), y);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                                 const void *alpha, const cudnnTensorDescriptor_t srcDesc,
                                                 const void *srcData, const void *beta,
                                                 const cudnnTensorDescriptor_t destDesc, void *destData) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorTransformStruct &tr = checked_transform(transDesc, "transDesc");
    const cudnnTensorStruct &sd = checked_tensor(srcDesc, "srcDesc");
    const cudnnTensorStruct &dd = checked_tensor(destDesc, "destDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(srcData, "srcData");
    check_not_null(destData, "destData");
    transform(h, fn, &tr, alpha, beta, sd.dtype, dd.dtype, lane_layout(sd), srcData, lane_layout(dd), destData);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                               const void *alpha, const cudnnFilterDescriptor_t srcDesc,
                                               const void *srcData, const void *beta,
                                               const cudnnFilterDescriptor_t destDesc, void *destData) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorTransformStruct &tr = checked_transform(transDesc, "transDesc");
    const cudnnFilterStruct &sd = checked_filter(srcDesc, "srcDesc");
    const cudnnFilterStruct &dd = checked_filter(destDesc, "destDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(srcData, "srcData");
    check_not_null(destData, "destData");
    transform(h, fn, &tr, alpha, beta, sd.dtype, dd.dtype, lane_layout(sd), srcData, lane_layout(dd), destData);
  });
}

cudnnStatus_t CUDNNWINAPI cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t transformDesc,
                                                 const cudnnTensorDescriptor_t srcDesc,
                                                 cudnnTensorDescriptor_t destDesc, size_t *destSizeInBytes) {
  return FDNN_GUARDED([&] {
    const cudnnTensorTransformStruct &tr = checked_transform(transformDesc, "transformDesc");
    const cudnnTensorStruct &sd = checked_tensor(srcDesc, "srcDesc");
    cudnnTensorStruct &dd = live_tensor(destDesc, "destDesc");
    check_not_null(destSizeInBytes, "destSizeInBytes");
    const int nb = sd.nb_dims;
    const bool vector = sd.vect_count > 1;
    cudnnTensorFormat_t format = tr.dest_format;
    check_supported(format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC || format == CUDNN_TENSOR_NCHW_VECT_C,
                    "destination format ", static_cast<int>(format), " is not NCHW, NHWC or NCHW_VECT_C");
    check_supported(format != CUDNN_TENSOR_NCHW_VECT_C || type_info(sd.dtype).vector_count > 1, "a ",
                    type_info(sd.dtype).enum_name, " tensor cannot have the CUDNN_TENSOR_NCHW_VECT_C format");
    // Vector types always pack C into vectors, whatever format is asked for.
    if (vector) format = CUDNN_TENSOR_NCHW_VECT_C;

    // Logical dims (C in channels), then padding and folding.
    const std::vector<int64_t> out = transformed_dims(tr, lane_layout(sd).dims);
    std::vector<int> dims(out.begin(), out.end());
    for (int i = 0; i < nb; ++i)
      check_arg(dims[i] > 0, "the transform makes destination dim ", i, " = ", dims[i], " (padding too negative)");
    set_tensor_nd_ex(dd, format, sd.dtype, nb, dims.data());
    *destSizeInBytes = tensor_size_bytes(dd);
  });
}

}  // extern "C"
