// The large-tile tensor-core implicit GEMM (convolution_mma.cu) of
// cuda.conv.implicit_gemm: HALF / BFLOAT16 inputs and outputs, float
// accumulation, the operand layouts of the WMMA kernel (runs of 8 channels,
// see wmma_layout in convolution_engine.cpp).
#pragma once

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Depth of one reduction step (split chunks are multiples of it).
constexpr int kConvMmaDepth = 64;
// The block tile for problem a (its direction, M, Ncol, R); false when the
// current device cannot run the kernel (mma.sync needs compute capability
// 8.0, the tiles 96-192 KB of shared memory per block).
bool conv_mma_tile(const ConvArgs &a, int *bm, int *bn);
// Whether the tiles of 64 x 32 / 32 x 32 warp tiles run the software-
// pipelined main loop: yes unless FREEDNN_CONV_MMA_PIPE=0 (for comparisons).
// The engine reads it when it makes a plan, into ConvArgs::mma_pipe.
bool conv_mma_pipelined();
// Blocks of tile bm x bn that one multiprocessor holds (shared memory and
// the launch bounds' register caps).
int conv_mma_blocks_per_sm(int bm, int bn);
// Whether the filter gradient's split parts may be summed by the last block
// of each tile (ConvArgs::fused_split): only with FREEDNN_CONV_MMA_FUSED=1.
// H100, batch 256, f16, same split of 7: 256x14 3x3 228 TFLOP/s fused, 261
// with the finalize kernel (the last blocks' reads of the parts, one
// multiprocessor per tile, are the exposed tail of a one-wave grid).
bool conv_mma_fused_split();
// Zeroes the fused split's arrival counts (on the stream).
void conv_mma_clear_counts(void *counts, size_t bytes, void *stream);
// Writes a.dst (16-bit, blended) or, with a.split > 1, float partials, with
// the tile conv_mma_tile chose.
void launch_conv_mma(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream);

}  // namespace fdnn::cuda
