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

}  // namespace fdnn::cuda
