// cudnnIm2Col, cudnnGetFoldedConvBackwardDataDescriptors and
// cudnnReorderFilterAndBias: the convolution helpers outside the
// forward/backward calls.
//
// - cudnnIm2Col is a pure gather (no arithmetic): strided identity copies
//   on the handle's device, exact in every floating type. The matrix is the
//   seed's, N * out_pixels rows by C * taps columns (row (n, output pixel),
//   column (c, filter tap), taps row-major (d, h, w)), stored column-major
//   as NVIDIA's cuDNN 9 writes it (checked by the GPU oracle): element
//   (row, column) at column * rows + row. In CONVOLUTION mode the taps are
//   taken flipped so that y = col * W^T with W as stored in either mode.
// - The folded descriptors follow what NVIDIA's cuDNN 9.19 computes (measured
//   locally: tests/oracle/folded_conv_descriptors.c compares).
// - The filter reorder for IMMA kernels is an undocumented permutation; only
//   the identity cases are implemented (see cudnnReorderFilterAndBias below).
#include <algorithm>
#include <cstring>
#include <vector>

#include "api/guard.hpp"
#include "api/tensor_ops_common.hpp"
#include "api/transform_copy.hpp"
#include "core/convolution_descriptor.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"
#include "core/op_descriptors.hpp"
#include "core/tensor_desc.hpp"

using namespace fdnn;
using namespace fdnn::api;

namespace {

int round_up(int v, int m) { return (v + m - 1) / m * m; }

// Channels after padding so that channels * fold is a multiple of 8, as
// cuDNN 9.19 pads: roundup(C * F, 8) / F (rounded down, so not always exact).
int folded_channel_pad(int c, int fold) { return round_up(c * fold, 8) / fold; }

void set_transform(cudnnTensorTransformStruct &t, cudnnTensorFormat_t fmt, const int pb[4], const int pa[4],
                   uint32_t fh, uint32_t fw, cudnnFoldingDirection_t dir) {
  t.nb_dims = 4;
  t.dest_format = fmt;
  for (int i = 0; i < 4; ++i) {
    t.pad_before[i] = pb[i];
    t.pad_after[i] = pa[i];
  }
  t.fold[0] = fh;
  t.fold[1] = fw;
  t.direction = dir;
  t.is_set = true;
}

}  // namespace

extern "C" {

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnIm2Col(cudnnHandle_t handle, cudnnTensorDescriptor_t srcDesc, const void *srcData,
                                      cudnnFilterDescriptor_t filterDesc, cudnnConvolutionDescriptor_t convDesc,
                                      void *colBuffer) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnTensorStruct &x = checked_tensor(srcDesc, "srcDesc");
    const cudnnFilterStruct &w = checked_filter(filterDesc, "filterDesc");
    const cudnnConvolutionStruct &conv = live_convolution(convDesc, "convDesc");
    check_not_null(srcData, "srcData");
    check_not_null(colBuffer, "colBuffer");
    for (cudnnDataType_t t : {x.dtype, w.dtype, conv.compute_type})
      check_supported(is_float_type(t) && !is_vector_type(t), "cudnnIm2Col supports floating types, not ",
                      type_info(t).enum_name);
    check_supported(conv.group_count == 1, "cudnnIm2Col needs groupCount 1, not ", conv.group_count);
    check_arg(x.dtype == w.dtype, "srcDesc is ", type_info(x.dtype).enum_name, " but filterDesc is ",
              type_info(w.dtype).enum_name);
    check_supported(x.vect_count == 1 && w.vect_count == 1, "cudnnIm2Col does not take vectorized layouts");
    const std::vector<int64_t> ydims = convolution_forward_output_dims(conv, x, w);

    // The columns of one filter tap (c fixed per column group) are a strided
    // view of x over (n, output pixel, c) wherever the tap lands inside the
    // input: for each tap the valid output pixels form a box, so im2col is
    // one zero fill (when anything falls into the padding) plus one strided
    // copy per tap, run by the pointwise engines of the handle's device.
    const int ns = x.nb_dims - 2;
    const int64_t N = x.dims[0], C = x.dims[1];
    int64_t taps = 1, P = 1;
    std::vector<int64_t> out(ns), flt(ns);
    for (int i = 0; i < ns; ++i) {
      out[i] = ydims[2 + i];
      flt[i] = w.dims[2 + i];
      taps *= flt[i];
      P *= out[i];
    }
    const int64_t width = C * taps, rows = N * P;
    // Strides of the column-major matrix over (n, output pixel dims..., c):
    // a column holds all rows, pixels innermost.
    std::vector<int64_t> col_strides(ns + 2);
    col_strides[0] = P;
    int64_t pixel_stride = 1;
    for (int i = ns - 1; i >= 0; --i) {
      col_strides[1 + i] = pixel_stride;
      pixel_stride *= out[i];
    }
    col_strides[ns + 1] = taps * rows;
    const bool flip = conv.mode == CUDNN_CONVOLUTION;
    const size_t eb = lane_bytes(x.dtype);
    const auto *src = static_cast<const unsigned char *>(srcData);
    auto *dst = static_cast<unsigned char *>(colBuffer);

    struct TapCopy {
      LaneLayout from, to;
      int64_t from_offset, to_offset;
    };
    std::vector<TapCopy> copies;
    bool complete = true;  // every tap covers every output pixel
    for (int64_t t = 0; t < taps; ++t) {
      TapCopy c{};
      c.from.dtype = c.to.dtype = x.dtype;
      c.from.dims = {N};
      c.from.strides = {x.strides[0]};
      c.to.dims = {N};
      c.to.strides = {col_strides[0]};
      c.from_offset = 0;
      c.to_offset = t * rows;
      bool empty = false;
      int64_t rest = t;
      for (int i = ns - 1; i >= 0; --i) {
        int64_t k = rest % flt[i];
        rest /= flt[i];
        if (flip) k = flt[i] - 1 - k;
        // Output positions o with 0 <= o*stride - pad + k*dilation < in.
        const int64_t s = conv.stride[i], shift = k * conv.dilation[i] - conv.pad[i], in = x.dims[2 + i];
        int64_t lo = shift >= 0 ? 0 : (-shift + s - 1) / s;
        int64_t hi = in - 1 - shift < 0 ? -1 : std::min<int64_t>(out[i] - 1, (in - 1 - shift) / s);
        if (hi < lo) empty = true;
        if (lo > 0 || hi < out[i] - 1) complete = false;
        c.from_offset += (lo * s + shift) * x.strides[2 + i];
        c.to_offset += lo * col_strides[1 + i];
        c.from.dims.insert(c.from.dims.begin() + 1, hi - lo + 1);
        c.from.strides.insert(c.from.strides.begin() + 1, s * x.strides[2 + i]);
        c.to.dims.insert(c.to.dims.begin() + 1, hi - lo + 1);
        c.to.strides.insert(c.to.strides.begin() + 1, col_strides[1 + i]);
      }
      if (empty) continue;
      c.from.dims.push_back(C);
      c.from.strides.push_back(x.strides[1]);
      c.to.dims.push_back(C);
      c.to.strides.push_back(col_strides[ns + 1]);
      copies.push_back(std::move(c));
    }
    if (!complete || copies.size() != static_cast<size_t>(taps)) {
      LaneLayout all;
      all.dtype = x.dtype;
      all.dims = {N * P * width};
      all.strides = {1};
      run_zero_fill(h, "cudnnIm2Col", all, dst);
    }
    for (const TapCopy &c : copies)
      run_copy(h, "cudnnIm2Col", 1.0, 0.0, c.from, src + static_cast<size_t>(c.from_offset) * eb, c.to,
               dst + static_cast<size_t>(c.to_offset) * eb);
  });
}

// Descriptor-level like cuDNN: the handle is not used (NVIDIA's library
// accepts NULL too).
cudnnStatus_t CUDNNWINAPI cudnnGetFoldedConvBackwardDataDescriptors(
    const cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc,
    const cudnnTensorFormat_t transformFormat, const cudnnFilterDescriptor_t foldedFilterDesc,
    const cudnnTensorDescriptor_t paddedDiffDesc, const cudnnConvolutionDescriptor_t foldedConvDesc,
    cudnnTensorDescriptor_t foldedGradDesc, cudnnTensorTransformDescriptor_t filterFoldTransDesc,
    cudnnTensorTransformDescriptor_t diffPadTransDesc, cudnnTensorTransformDescriptor_t gradFoldTransDesc,
    cudnnTensorTransformDescriptor_t gradUnfoldTransDesc) {
  (void)handle;
  return FDNN_GUARDED([&] {
    const cudnnFilterStruct &w = checked_filter(filterDesc, "filterDesc");
    const cudnnTensorStruct &dy = checked_tensor(diffDesc, "diffDesc");
    const cudnnConvolutionStruct &conv = live_convolution(convDesc, "convDesc");
    const cudnnTensorStruct &dx = checked_tensor(gradDesc, "gradDesc");
    cudnnFilterStruct &fw = live_filter(foldedFilterDesc, "foldedFilterDesc");
    cudnnTensorStruct &pdy = live_tensor(paddedDiffDesc, "paddedDiffDesc");
    cudnnConvolutionStruct &fconv = live_convolution(foldedConvDesc, "foldedConvDesc");
    cudnnTensorStruct &fdx = live_tensor(foldedGradDesc, "foldedGradDesc");
    cudnnTensorTransformStruct *tr[4] = {filterFoldTransDesc, diffPadTransDesc, gradFoldTransDesc,
                                         gradUnfoldTransDesc};
    const char *tr_names[4] = {"filterFoldTransDesc", "diffPadTransDesc", "gradFoldTransDesc",
                               "gradUnfoldTransDesc"};
    // cuDNN 9.19 does not require gradUnfoldTransDesc (NULL: left out).
    for (int i = 0; i < 4; ++i)
      if (i < 3 || tr[i] != nullptr) live_descriptor(tr[i], tr_names[i], "tensor transform");
    check_arg(dx.nb_dims == 4 && dy.nb_dims == 4 && w.nb_dims == 4 && conv.nb_spatial == 2,
              "folding needs 4-d tensors and filters and a 2-d convolution (gradDesc has ", dx.nb_dims,
              " dimensions, diffDesc ", dy.nb_dims, ", filterDesc ", w.nb_dims, ", convDesc ", conv.nb_spatial,
              " spatial)");
    check_arg(transformFormat == CUDNN_TENSOR_NCHW || transformFormat == CUDNN_TENSOR_NHWC,
              "transformFormat = ", static_cast<int>(transformFormat), ": NCHW or NHWC expected");

    const int u = conv.stride[0], v = conv.stride[1], F = u * v;
    const int K = w.dims[0], Cg = w.dims[1], C = dx.dims[1], N = dx.dims[0];
    const int Kp = round_up(K, 8), Cwp = folded_channel_pad(Cg, F), Cxp = folded_channel_pad(C, F);
    // Per spatial dimension i: the filter is padded in front so that the
    // padding becomes a whole number of folded steps, and behind up to a
    // multiple of the stride.
    int fpb[2], fpa[2], fr[2], fpad[2], hf[2], dpa[2], upa[2], gpa[2];
    for (int i = 0; i < 2; ++i) {
      const int s = conv.stride[i], p = conv.pad[i], r = w.dims[2 + i], hin = dx.dims[2 + i];
      fpb[i] = (s - p % s) % s;
      fr[i] = (fpb[i] + r + s - 1) / s;
      fpa[i] = fr[i] * s - fpb[i] - r;
      fpad[i] = (p + fpb[i]) / s;
      // cuDNN works with the undilated output extent; whole folded rows past
      // the last input row the filter reaches get no gradient and are cropped
      // before folding (a negative pad), restored by the unfold.
      const int dy_undilated = (hin + 2 * p - r) / s + 1;
      const int used = (dy_undilated - 1) * s + r - p;
      hf[i] = (std::min(hin, used) + s - 1) / s;
      gpa[i] = std::min(0, hf[i] * s - hin);
      dpa[i] = (hf[i] + 2 * fpad[i] - fr[i] + 1) - dy_undilated;
      upa[i] = -(hf[i] * s - hin);
    }

    set_filter_4d(fw, w.dtype, transformFormat, Kp, Cwp * F, fr[0], fr[1]);
    set_tensor_4d(pdy, transformFormat, dy.dtype, dy.dims[0], Kp, dy.dims[2] + dpa[0], dy.dims[3] + dpa[1]);
    set_tensor_4d(fdx, transformFormat, dx.dtype, N, Cxp * F, hf[0], hf[1]);
    fconv = conv;
    fconv.magic = cudnnConvolutionStruct::kAlive;
    fconv.pad[0] = fpad[0];
    fconv.pad[1] = fpad[1];
    fconv.stride[0] = 1;
    fconv.stride[1] = 1;

    const int zero[4] = {0, 0, 0, 0};
    const int f_pb[4] = {0, 0, fpb[0], fpb[1]}, f_pa[4] = {Kp - K, Cwp - Cg, fpa[0], fpa[1]};
    set_transform(*tr[0], transformFormat, f_pb, f_pa, u, v, CUDNN_TRANSFORM_FOLD);
    const int d_pa[4] = {0, Kp - K, dpa[0], dpa[1]};
    set_transform(*tr[1], transformFormat, zero, d_pa, 0, 0, CUDNN_TRANSFORM_FOLD);
    const int g_pa[4] = {0, Cxp - C, gpa[0], gpa[1]};
    set_transform(*tr[2], transformFormat, zero, g_pa, u, v, CUDNN_TRANSFORM_FOLD);
    const int u_pa[4] = {0, -(Cxp - C), upa[0], upa[1]};
    if (tr[3] != nullptr) set_transform(*tr[3], dx.format, zero, u_pa, u, v, CUDNN_TRANSFORM_UNFOLD);
  });
}

// The reordered layout cuDNN's IMMA (INT8x32) kernels read is an
// undocumented permutation that could not be measured here (it needs a GPU
// handle); a reorder is therefore NOT_SUPPORTED for INT8x32 NCHW_VECT_C
// filters under CUDNN_DEFAULT_REORDER. Everything else is stored as is by
// cuDNN's kernels, so the reorder is the identity: a copy.
// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnReorderFilterAndBias(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                                    cudnnReorderType_t reorderType, const void *filterData,
                                                    void *reorderedFilterData, int reorderBias, const void *biasData,
                                                    void *reorderedBiasData) {
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnFilterStruct &w = checked_filter(filterDesc, "filterDesc");
    check_arg(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER, "reorderType = ",
              static_cast<int>(reorderType), ": CUDNN_DEFAULT_REORDER or CUDNN_NO_REORDER expected");
    check_not_null(filterData, "filterData");
    check_not_null(reorderedFilterData, "reorderedFilterData");
    if (reorderBias > 0) {
      check_not_null(biasData, "biasData");
      check_not_null(reorderedBiasData, "reorderedBiasData");
    }
    check_supported(!(reorderType == CUDNN_DEFAULT_REORDER && w.dtype == CUDNN_DATA_INT8x32),
                    "the INT8x32 IMMA filter reorder is not implemented");
    // Byte copies through the pointwise engines, so device pointers work on a
    // GPU handle and host pointers on a CPU one.
    auto copy_bytes = [&](const void *from, void *to, int64_t bytes) {
      if (from == to || bytes == 0) return;
      LaneLayout l;
      l.dtype = CUDNN_DATA_UINT8;
      l.dims = {bytes};
      l.strides = {1};
      run_copy(h, "cudnnReorderFilterAndBias", 1.0, 0.0, l, from, l, to);
    };
    copy_bytes(filterData, reorderedFilterData, static_cast<int64_t>(filter_size_bytes(w)));
    // The bias has one float per output channel (K).
    if (reorderBias > 0)
      copy_bytes(biasData, reorderedBiasData, static_cast<int64_t>(w.dims[0]) * static_cast<int64_t>(sizeof(float)));
  });
}

}  // extern "C"
