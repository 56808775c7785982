// The HALF / BFLOAT16 filter gradient of 3x3 unit-stride convolutions on
// Hopper's wgmma (sm_90a; cuda.conv.implicit_gemm, before the mma.sync
// kernel): x and dy packed NHWC, dw packed KRSC, C a multiple of 64 and K
// of 128 (ResNet-50's 128x28, 256x14 and 512x7 3x3 layers), any padding.
//
//   dw[k][r][s][c] = sum over output pixels (n,p,q) of
//                    dy[n][p][q][k] * x[n][p+r-pad_h][q+s-pad_w][c]
//
// A block computes 128 or 256 k (256 where K allows) x (the 3 taps s of one
// filter row r) x 64 c over one split part of the pixels; every part writes
// float partials to the scratch and a second kernel sums them into dw as
// alpha * sum + beta * dw (beta = 0 never reads dw). H100, batch 256, HALF
// (a stand-alone harness with this kernel, 2026-11-23, ten calls back to
// back; cuDNN 9's best algorithm in the same runs; see
// docs/perf-logs-gpu-wgrad-wgmma-2026-11-23.md): 128x28 374 TFLOP/s (cuDNN
// 572-586, ratio 0.62-0.64), 256x14 438 (cuDNN 554, 0.79; 358 with 128-row
// blocks), 512x7 285 (cuDNN 642, 0.44); the mma.sync kernel in earlier
// single-call bench runs: 267 / 261 / 209-224. BFLOAT16 the same
// within 1%. (The 64x56 layer, K = 64, ran 218 with 64-row blocks: not
// taken.) In the library (bench_convolution, 2026-11-23, ten calls back to
// back): 128x28 359, 256x14 420 against the mma.sync kernel's 279 / 288.
// FREEDNN_CONV_WGRAD_WGMMA=0 turns it off.
#pragma once

#include <cstddef>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether the kernel applies to a (kConvBwdFilter args) with types t: the
// shape and layouts above, the current device of compute capability 9.0
// with the kernel built for sm_90a, and the switch on. Read when a plan is
// made.
bool conv_wgrad_wgmma_applies(const ConvArgs &a, ConvTypes t);
// The number of split parts of the pixels for a (a wave model, see the .cu).
int conv_wgrad_wgmma_splits(const ConvArgs &a);
// Bytes of scratch for the float partials of `splits` parts.
size_t conv_wgrad_wgmma_scratch(const ConvArgs &a, int splits);
// a.A = dy, a.B = x (16-byte aligned), a.dst = dw, alpha, beta as the call's;
// scratch holds conv_wgrad_wgmma_scratch bytes.
void launch_conv_wgrad_wgmma(const ConvArgs &a, ConvTypes t, int splits, void *scratch, void *stream);

}  // namespace fdnn::cuda
