// The few-channel forward and filter-gradient kernels of
// cuda.conv.implicit_gemm (the ResNet-50 stem: C = 3, 7x7, stride 2,
// K = 64), convolution_stem.cu.
#pragma once

#include <cstddef>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// For the few-channel kernels' plans (forward, filter gradient here, data
// gradient in convolution_stem_dgrad.cu): sets `kernel`'s dynamic
// shared-memory limit to one fixed value (200 KB, or the device's opt-in
// maximum if lower, so that no plan lowers another's) and returns how many
// persistent blocks of `threads` threads and `smem` bytes fill the device,
// at most `tiles`. Fails with NOT_SUPPORTED when smem exceeds the limit.
int stem_persistent_blocks(const void *kernel, int threads, size_t smem, int tiles);

// Whether conv_stem_fwd runs a (forward) problem: HALF / BFLOAT16 in and out,
// one group, Cg <= 4, Kg 32 or 64, 1-2 spatial dims, filters up to 7x7,
// dilation 1, x channels-innermost with its pixels packed (xs[1] == 1,
// xs[4] == Cg), y channels-innermost with its pixels packed and rows / images
// at multiples of 8 elements (16-byte stores; the pointer's alignment is
// checked at execution). FREEDNN_CONV_STEM=0 turns it off (read here, when a
// plan is made).
bool conv_stem_applies(const ConvArgs &a, ConvTypes t);
// The number of persistent blocks it runs with (pass it to the launch);
// call when the plan is made: it sets the kernel's shared-memory limit.
int conv_stem_fwd_blocks(const ConvArgs &a, ConvTypes t);
// Runs it (a.A = x, a.B = w, a.dst = y 16-byte aligned, alpha / beta); no
// workspace or scratch.
void launch_conv_stem_fwd(const ConvArgs &a, ConvTypes t, int blocks, void *stream);

// Whether the filter-gradient kernel runs a problem: the shapes and types
// of conv_stem_applies (dy as y there: packed NHWC, rows / images at
// multiples of 8 elements), dw any layout. FREEDNN_CONV_STEM_WGRAD=0 turns
// it off (read here, when a plan is made).
bool conv_stem_wgrad_applies(const ConvArgs &a, ConvTypes t);
// The scratch bytes it needs (each block's float partial of dw), and the
// number of blocks it runs with (*blocks, pass it to the launch).
size_t conv_stem_wgrad_scratch(const ConvArgs &a, ConvTypes t, int *blocks);
// Runs it (a.A = dy 16-byte aligned, a.B = x, a.dst = dw, alpha / beta;
// partials: conv_stem_wgrad_scratch's bytes): the kernel, then the
// finalize summing the blocks' partials in order into dw.
void launch_conv_stem_wgrad(const ConvArgs &a, ConvTypes t, int blocks, void *partials, void *stream);

}  // namespace fdnn::cuda
