// Tensor maps (CUtensorMap) for the Hopper kernels' bulk tensor copies,
// encoded through the driver entry point the CUDA runtime hands out: the
// library links no driver library, so a machine without a driver still
// loads it, and callers fall back to cp.async where no encoder exists.
#pragma once

#include <cuda.h>  // CUtensorMap (types only)

#include <cstdint>

namespace fdnn::cuda {

// Whether the driver hands out the encoder (looked up once).
bool tensor_maps_available();

// A 2-D map of 16-bit values: `rows` rows of `cols` values, `row_bytes`
// apart (a multiple of 16), read in boxes of 64 values (128 bytes, the
// swizzle's span) x `box_rows` rows with the 128-byte swizzle, the layout
// wgmma::sw128_offset describes. Boxes past the edges read zeros. False
// where the driver has no encoder or refuses the map.
bool encode_sw128_map_16bit(CUtensorMap *map, const void *base, uint64_t cols, uint64_t rows, uint64_t row_bytes,
                            uint32_t box_rows);

// A 4-D map of a packed NHWC tensor of 16-bit values (N x H x W x C) read
// in boxes of 64 channels x `cols` columns of one row (copies at (c, w, h,
// n), w may start left of the image), 128-byte swizzle, zeros outside the
// tensor. False where the driver has no encoder or refuses the map.
bool encode_sw128_row_map_16bit(CUtensorMap *map, const void *base, int N, int H, int W, int C, int cols);
// An im2col map of a packed NHWC tensor of 16-bit values (N x H x W x C)
// for a convolution's forward gather: each copy reads `pixels` output
// pixels' window origins (traversal over the origins of a pad_h / pad_w,
// r_span x s_span window with strides str_h / str_w: W, then H, then
// images) x 64 channels (128 bytes, the 128-byte swizzle), zeros outside
// the tensor. r_span / s_span: the window's extent minus 1, dilation
// included. False where the driver has no encoder or refuses the map (the
// corners must fit 8 bits: pad and span - pad in [-128, 127]).
bool encode_im2col_map_16bit(CUtensorMap *map, const void *base, int N, int H, int W, int C, int pad_h, int pad_w,
                             int r_span, int s_span, int str_h, int str_w, uint32_t pixels);

}  // namespace fdnn::cuda
