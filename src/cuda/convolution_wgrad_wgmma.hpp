// The HALF / BFLOAT16 filter gradient of 3x3 unit-stride convolutions on
// Hopper's wgmma (sm_90a; cuda.conv.implicit_gemm, before the mma.sync
// kernel and the cuBLASLt im2col path): x and dy packed NHWC, dw packed
// KRSC, C and K multiples of 64, any padding, both modes.
//
//   dw[k][r][s][c] = sum over output pixels (n,p,q) of
//                    dy[n][p][q][k] * x[n][p+r-pad_h][q+s-pad_w][c]
//
// A warp-specialized persistent kernel (see the .cu): tiles of 64, 128 or
// 256 k (the most K allows) x (the 3 taps s of one filter row r) x 64 c over
// split parts of the pixels (or stream-K runs of them); every part writes
// float partials to the scratch and a second kernel sums them into dw as
// alpha * sum + beta * dw (beta = 0 never reads dw). H100, HALF NHWC, ten
// calls back to back, TFLOP/s at batch 256 (the library, NVIDIA cuDNN 9's
// best algorithm in the same run, device run 11 of
// docs/perf-logs-gpu-conv-2026-11-24-b.txt):
// 64x56 383 (cuDNN 409), 128x28 633 (569), 256x14 651 (558), 512x7 606
// (630, stream-K); batch 32: 216 / 319 / 261 / 249, 2.2-3.4x cuDNN. 64x56
// since on row windows (x loaded once per output row for its 3 taps), the
// harness, docs/perf-logs-gpu-wgrad-64x56-2026-11-24.md: batch 256 572-578
// (cuDNN 403-429 in the same runs), batch 32 245-248; with the sum kernel
// of many parts split over warps and launched as a dependent: 620-622
// (cuDNN 415-421) and 326-330; the library, ten calls back to back (run 9
// of the eighteenth session in docs/perf-logs-gpu-conv-2026-11-24-b.txt):
// f16 617 (cuDNN 429), bf16 629 (441), batch 32 323 / 326.
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
// conv_wgrad_wgmma_splits's answer for stream-K: every block of the grid
// takes an equal run of the (tile, pixel chunk) pairs, across tiles.
constexpr int kWgradStreamK = -1;
// The number of split parts of the pixels for a, or kWgradStreamK (a wave
// model, see the .cu).
int conv_wgrad_wgmma_splits(const ConvArgs &a);
// Bytes of scratch for the float partials of `splits` parts (or stream-K's).
size_t conv_wgrad_wgmma_scratch(const ConvArgs &a, int splits);
// a.A = dy, a.B = x (16-byte aligned), a.dst = dw, alpha, beta as the call's;
// scratch holds conv_wgrad_wgmma_scratch bytes.
void launch_conv_wgrad_wgmma(const ConvArgs &a, ConvTypes t, int splits, void *scratch, void *stream);

}  // namespace fdnn::cuda
