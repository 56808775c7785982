// Whole-cache-line transposition for layout changes on CPUs with AVX-512.
//
// A block of B x B elements, B = 64 / element size (16x16 f32, 32x32 for
// 16-bit types, 8x8 for 64-bit ones, 64x64 bytes), is read as B source lines and written
// as B whole destination lines, one 64-byte store each. With streaming
// (non-temporal) stores every store completes a line: no read-for-ownership
// of the destination and no partial lines in the write-combining buffers,
// which is what lets NCHW <-> NHWC run at copy bandwidth (the 8x8 AVX2
// tiles through an L1 buffer of the generic tiled path reached about 0.55 of
// memcpy on the same machine).
//
// The kernels are compiled for AVX-512 with target attributes and chosen at
// run time; line_transpose_available() says whether they can run here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fdnn::cpu {

// True when this CPU runs the AVX-512 kernels and `elem_size` (bytes) is
// one of 1, 2, 4, 8. FREEDNN_CPU_NO_AVX512=1 turns them off (to test the
// fallback on a machine that has AVX-512).
bool line_transpose_available(size_t elem_size);

// Elements per block edge: 64 / elem_size.
inline int64_t line_block(size_t elem_size) { return 64 / static_cast<int64_t>(elem_size); }

// dst[i1 * dst_row + i0] = src[i0 * src_row + i1] for i0 < n0, i1 < n1
// (strides in elements). n0 must be a multiple of line_block(elem_size);
// columns past the last whole block along i1 are copied element by element.
// With `streaming`, every dst + i1 * dst_row must be 64-byte aligned and
// the stores are non-temporal (the caller fences before the data is read by
// another thread). Only call when line_transpose_available(elem_size).
void line_transpose(size_t elem_size, const char *src, int64_t src_row, int64_t n0, int64_t n1, char *dst,
                    int64_t dst_row, bool streaming);

// dst[i1 * n0 + i0] = src[i0 * src_row + i1] for i0 < n0, i1 < n1 (floats;
// dst's rows exactly n0 long: a K-blocked filter block, say), for a
// destination that should stay in cache: each group of 16 columns is
// transposed into an L1 buffer and written out as one contiguous run. The
// 16 lines of one 16 x 16 block stored straight to their rows n0 floats
// apart ran at a third of a memcpy's speed on an Intel Xeon guest (the
// stores, not the loads or the shuffles: 590 KB from L2 44 us, staged 32
// us; 2.36 MB from L3 332 us, staged 182 us, memcpy 157 us). Only call when
// line_transpose_staged_available(n0): AVX-512, n0 a multiple of 16, at most
// 128.
bool line_transpose_staged_available(int64_t n0);
void line_transpose_staged(const float *src, int64_t src_row, int64_t n0, int64_t n1, float *dst);

}  // namespace fdnn::cpu
