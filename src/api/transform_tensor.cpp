// cudnnTransformTensor, cudnnTransformTensorEx, cudnnTransformFilter and
// cudnnInitTransformDest: copies between layouts (strides, NHWC, vector
// formats), scaled and blended, optionally zero-padded. Each copy is one
// identity PointwiseOp; padding adds a fill of the destination first.
#include <algorithm>
#include <vector>

#include "api/guard.hpp"
#include "api/tensor_ops_common.hpp"
#include "api/tensor_views.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/op_descriptors.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

cudnnDataType_t compute_type_for(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

size_t lane_bytes(cudnnDataType_t scalar) { return static_cast<size_t>(type_info(scalar).bits / 8); }

// y = alpha * x + beta * y over the common logical dims of two layouts.
void run_copy(cudnnContext &h, const char *fn, double alpha, double beta, const LaneLayout &src, const void *sp,
              const LaneLayout &dst, void *dp) {
  std::vector<graph::Tensor> v = common_views({src, dst});
  graph::Graph g;
  graph::PointwiseOp op;
  op.mode = CUDNN_POINTWISE_IDENTITY;
  op.compute_type = compute_type_for(dst.dtype);
  op.alpha1 = alpha;
  op.blend.beta = beta;
  op.x = g.add_tensor_auto(v[0]);
  op.y = g.add_tensor_auto(v[1]);
  g.add_op(op);
  VariantPack pack;
  pack.set(op.x, sp);
  pack.set(op.y, dp);
  run_graph(h, fn, g, pack);
}

void run_zero_fill(cudnnContext &h, const char *fn, const LaneLayout &dst, void *dp) {
  graph::Tensor yt = common_views({dst})[0];
  graph::Tensor zero;
  zero.dtype = yt.dtype;
  zero.dims.assign(yt.dims.size(), 1);
  zero.strides.assign(yt.dims.size(), 0);
  zero.by_value = true;
  graph::Graph g;
  graph::PointwiseOp op;
  op.mode = CUDNN_POINTWISE_IDENTITY;
  op.x = g.add_tensor_auto(zero);
  op.y = g.add_tensor_auto(yt);
  g.add_op(op);
  VariantPack pack;
  pack.set(op.y, dp);
  run_graph(h, fn, g, pack);
}

// The shared body of the transforms: same scalar type, same rank; with a
// transform descriptor, dest = src padded by pad_before/pad_after (zeros).
void transform(cudnnContext &h, const char *fn, const cudnnTensorTransformStruct *tr, const void *alpha_p,
               const void *beta_p, cudnnDataType_t dst_type, LaneLayout src, const void *sp, LaneLayout dst,
               void *dp) {
  check_arg(src.dtype == dst.dtype, "source and destination data types differ (", type_info(src.dtype).enum_name,
            " vs ", type_info(dst.dtype).enum_name, "); transforms do not convert types");
  check_arg(src.dims.size() == dst.dims.size(), "source has ", src.dims.size(), " dimensions, destination ",
            dst.dims.size());
  const double alpha = read_scaling(alpha_p, dst_type);
  const double beta = read_scaling(beta_p, dst_type);
  const size_t nb = src.dims.size();

  std::vector<int64_t> before(nb, 0), after(nb, 0);
  bool padded = false;
  if (tr != nullptr) {
    for (size_t i = 2; i < nb; ++i)
      check_supported(tr->fold[i - 2] <= 1, "folding transforms (fold[", i - 2, "] = ", tr->fold[i - 2],
                      ") are not implemented in FreeDNN");
    for (size_t i = 0; i < nb; ++i) {
      before[i] = tr->pad_before[i];
      after[i] = tr->pad_after[i];
      padded = padded || before[i] != 0 || after[i] != 0;
    }
  }
  for (size_t i = 0; i < nb; ++i)
    check_arg(dst.dims[i] == src.dims[i] + before[i] + after[i], "destination dim ", i, " = ", dst.dims[i],
              padded ? " does not equal source dim + padding = " : " does not match source dim ",
              src.dims[i] + before[i] + after[i]);
  if (!padded) {
    run_copy(h, fn, alpha, beta, src, sp, dst, dp);
    return;
  }
  check_supported(alpha == 1.0 && beta == 0.0, "padding transforms need alpha = 1 and beta = 0 (got ", alpha, ", ",
                  beta, ")");
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
  run_copy(h, fn, 1.0, 0.0, src, static_cast<const char *>(sp) + s_off * lane_bytes(src.dtype), dst,
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
    transform(h, fn, nullptr, alpha, beta, yd.dtype, lane_layout(xd), x, lane_layout(yd), y);
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
    transform(h, fn, &tr, alpha, beta, dd.dtype, lane_layout(sd), srcData, lane_layout(dd), destData);
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
    transform(h, fn, &tr, alpha, beta, dd.dtype, lane_layout(sd), srcData, lane_layout(dd), destData);
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

    // Logical dims (C in channels), then padding and folding: a fold pads
    // first and then folds each spatial dimension into C; an unfold unfolds
    // first and pads after (the inverse).
    std::vector<int> dims(static_cast<size_t>(nb));
    for (int i = 0; i < nb; ++i) dims[i] = static_cast<int>(lane_layout(sd).dims[i]);
    auto pad = [&] {
      for (int i = 0; i < nb; ++i) dims[i] += tr.pad_before[i] + tr.pad_after[i];
    };
    bool folds = false;
    for (int i = 2; i < nb; ++i) folds = folds || tr.fold[i - 2] > 1;
    if (!folds) {
      pad();
    } else if (tr.direction == CUDNN_TRANSFORM_FOLD) {
      pad();
      for (int i = 2; i < nb; ++i) {
        const int f = static_cast<int>(std::max<uint32_t>(1, tr.fold[i - 2]));
        dims[i] = (dims[i] + f - 1) / f;
        dims[1] *= f;
      }
    } else {
      int total = 1;
      for (int i = 2; i < nb; ++i) {
        const int f = static_cast<int>(std::max<uint32_t>(1, tr.fold[i - 2]));
        dims[i] *= f;
        total *= f;
      }
      dims[1] = (dims[1] + total - 1) / total;
      pad();
    }
    for (int i = 0; i < nb; ++i)
      check_arg(dims[i] > 0, "the transform makes destination dim ", i, " = ", dims[i], " (padding too negative)");
    set_tensor_nd_ex(dd, format, sd.dtype, nb, dims.data());
    *destSizeInBytes = tensor_size_bytes(dd);
  });
}

}  // extern "C"
