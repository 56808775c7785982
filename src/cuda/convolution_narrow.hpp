// The few-channel kernels of cuda.conv.implicit_gemm (convolution_narrow.cu).
#pragma once

#include <cstddef>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// The data gradient with Cg <= 4 (one thread per input pixel, all its
// channels), when the filter fits in shared memory.
bool conv_bwd_data_narrow_applies(const ConvArgs &a, ConvTypes t);
size_t conv_bwd_data_narrow_smem(const ConvArgs &a, size_t acc_bytes);
void launch_conv_bwd_data_narrow(const ConvArgs &a, ConvTypes t, void *stream);

// Copies x (forward: a.A; filter gradient: a.B) of a G == 1 problem with
// Cg < 8 to x8 ([N][D][H][W][8], 16-bit elements, channels past Cg zero),
// and, when w8 is not null, w (a.B) to w8 ([K][taps][8]).
void launch_conv_pad_channels(const ConvArgs &a, bool half_type, void *x8, void *w8, void *stream);
// dw (a.dst, a's strides) = alpha * dw8 ([K][taps][8] floats) + beta * dw.
void launch_conv_unpad_dw(const ConvArgs &a, ConvTypes t, const void *dw8, void *stream);

}  // namespace fdnn::cuda
