// The few-channel forward kernel of cuda.conv.implicit_gemm (the ResNet-50
// stem: C = 3, 7x7, stride 2, K = 64), convolution_stem.cu.
#pragma once

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether conv_stem_fwd runs a (forward) problem: HALF / BFLOAT16 in and out,
// one group, Cg <= 4, Kg 32 or 64, 1-2 spatial dims, filters up to 7x7,
// dilation 1, x channels-innermost with its pixels packed (xs[1] == 1,
// xs[4] == Cg), y channels-innermost with its pixels packed and rows / images
// at multiples of 8 elements (16-byte stores; the pointer's alignment is
// checked at execution). FREEDNN_CONV_STEM=0 turns it off (read here, when a
// plan is made).
bool conv_stem_applies(const ConvArgs &a, ConvTypes t);
// Runs it (a.A = x, a.B = w, a.dst = y 16-byte aligned, alpha / beta); no
// workspace or scratch.
void launch_conv_stem_fwd(const ConvArgs &a, ConvTypes t, void *stream);

}  // namespace fdnn::cuda
