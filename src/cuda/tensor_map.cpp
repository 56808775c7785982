// Tensor-map encoding (tensor_map.hpp).
#include "cuda/tensor_map.hpp"

#include <cuda_runtime.h>

#include <cstring>

namespace fdnn::cuda {
namespace {

// A driver function by name through the runtime (the library links no
// driver library), or null where the driver lacks it.
void *driver_entry_point(const char *name) {
  void *f = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    f = nullptr;
  cudaGetLastError();  // a failed lookup leaves no error behind for the next call
  return f;
}

// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col, looked up once.
using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                 const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using EncodeIm2col = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const int *, const int *, cuuint32_t, cuuint32_t,
                                  const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled tensor_map_encoder() {
  static const auto fn = reinterpret_cast<EncodeTiled>(driver_entry_point("cuTensorMapEncodeTiled"));
  return fn;
}

EncodeIm2col im2col_encoder() {
  static const auto fn = reinterpret_cast<EncodeIm2col>(driver_entry_point("cuTensorMapEncodeIm2col"));
  return fn;
}

}  // namespace

bool tensor_maps_available() { return tensor_map_encoder() != nullptr; }

bool encode_sw128_map_16bit(CUtensorMap *map, const void *base, uint64_t cols, uint64_t rows, uint64_t row_bytes,
                            uint32_t box_rows) {
  std::memset(map, 0, sizeof *map);
  const EncodeTiled encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {64, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void *>(base), dims, strides, box, elem_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool encode_sw128_row_map_16bit(CUtensorMap *map, const void *base, int N, int H, int W, int C, int cols) {
  std::memset(map, 0, sizeof *map);
  const EncodeTiled encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(C), static_cast<cuuint64_t>(W), static_cast<cuuint64_t>(H),
                              static_cast<cuuint64_t>(N)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(C) * 2, static_cast<cuuint64_t>(W) * C * 2,
                                 static_cast<cuuint64_t>(H) * W * C * 2};
  const cuuint32_t box[4] = {64, static_cast<cuuint32_t>(cols), 1, 1}, elem_strides[4] = {1, 1, 1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void *>(base), dims, strides, box, elem_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool encode_im2col_map_16bit(CUtensorMap *map, const void *base, int N, int H, int W, int C, int pad_h, int pad_w,
                             int r_span, int s_span, int str_h, int str_w, uint32_t pixels) {
  std::memset(map, 0, sizeof *map);
  const EncodeIm2col encode = im2col_encoder();
  if (encode == nullptr) return false;
  const auto fits8 = [](int v) { return v >= -128 && v <= 127; };
  // Window origins run from -pad to (extent - 1) + pad - span.
  const int lower[2] = {-pad_w, -pad_h}, upper[2] = {pad_w - s_span, pad_h - r_span};
  for (int i = 0; i < 2; ++i)
    if (!fits8(lower[i]) || !fits8(upper[i])) return false;
  if (str_h < 1 || str_h > 8 || str_w < 1 || str_w > 8) return false;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(C), static_cast<cuuint64_t>(W), static_cast<cuuint64_t>(H),
                              static_cast<cuuint64_t>(N)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(C) * 2, static_cast<cuuint64_t>(W) * C * 2,
                                 static_cast<cuuint64_t>(H) * W * C * 2};
  const cuuint32_t elem_strides[4] = {1, static_cast<cuuint32_t>(str_w), static_cast<cuuint32_t>(str_h), 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void *>(base), dims, strides, lower, upper, 64,
                pixels, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace fdnn::cuda
