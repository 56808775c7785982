// The few-channel data-gradient kernel of cuda.conv.implicit_gemm (the
// ResNet-50 stem's dx: C = 3, 7x7, stride 2, pad 3, K = 64) on the tensor
// cores, convolution_stem_dgrad.cu.
#pragma once

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether conv_stem_dgrad runs a (data-gradient) problem: HALF / BFLOAT16
// dy, w and dx, one group, Cg <= 4 (dx's channels), Kg 16 / 32 / 64 / 128,
// 1-2 spatial dims, dilation 1, filters up to 16 x 16 with at most 8
// filter rows per stride class (ceil(R / stride) <= 8), strides up to 4, dy
// channels-innermost with pixels, rows and images at multiples of 8
// elements (16-byte copies; the pointer's alignment is checked at
// execution), w and dx any non-negative strides, the filter and a dy patch
// within shared memory.
// FREEDNN_CONV_STEM_DGRAD=0 turns it off (read here, when a plan is made).
bool conv_stem_dgrad_applies(const ConvArgs &a, ConvTypes t);
// The number of persistent blocks it runs with (pass it to the launch);
// call when the plan is made: it sets the kernel's shared-memory limit.
int conv_stem_dgrad_blocks(const ConvArgs &a, ConvTypes t);
// Runs it (a.A = dy 16-byte aligned, a.B = w, a.dst = dx, alpha / beta);
// no workspace or scratch, deterministic.
void launch_conv_stem_dgrad(const ConvArgs &a, ConvTypes t, int blocks, void *stream);

}  // namespace fdnn::cuda
