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
bool conv_mma_pipelined();
// Writes a.dst (16-bit, blended) or, with a.split > 1, float partials, with
// the tile conv_mma_tile chose.
void launch_conv_mma(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream);

}  // namespace fdnn::cuda
