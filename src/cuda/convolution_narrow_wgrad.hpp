// The FLOAT filter gradient of few-channel problems with large filters (the
// ResNet-50 stem in float32: C = 3, 7x7, stride 2, K = 64) on the FMA units,
// a kernel of cuda.conv.implicit_gemm (convolution_narrow_wgrad.cu).
//
// The tiled FMA implicit GEMM reaches about 11 TFLOP/s on that layer (0.58
// of NVIDIA cuDNN's best FMA algorithm on an H100): its output, K x 147, is
// too small for its tiles, so it splits the long reduction and gathers
// through a table. Here a block keeps all of a 64 x (C*R*S) slice of dw in
// registers (8 k x up to 5 taps a thread) while it walks a range of output
// pixels, 32 at a time: dy's 64 x 32 tile and the im2col tile built from x
// in shared memory, the next tile's loads in flight during the products.
#pragma once

#include <cstddef>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether the kernel runs a problem: FLOAT, the filter gradient, one group,
// 1-2 spatial dims, Cg <= 4 and Cg * R * S in (64, 160] (any strides,
// padding, dilation; x, dy and dw any layout). FREEDNN_CONV_NARROW_WGRAD=0
// turns it off (read here, when a plan is made).
bool conv_narrow_wgrad_applies(const ConvArgs &a, ConvTypes t);
// The scratch bytes it needs (each block's float partial of dw) and the
// number of blocks per 64 k it runs with (*blocks, pass it to the launch).
size_t conv_narrow_wgrad_scratch(const ConvArgs &a, int *blocks);
// Runs it (a.A = dy, a.B = x, a.dst = dw, alpha / beta; partials: the
// scratch above): the kernel, then the finalize summing the blocks'
// partials in block order into dw (deterministic).
void launch_conv_narrow_wgrad(const ConvArgs &a, int blocks, void *partials, void *stream);

}  // namespace fdnn::cuda
