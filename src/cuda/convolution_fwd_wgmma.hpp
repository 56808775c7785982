// The HALF / BFLOAT16 forward convolution on Hopper's wgmma (sm_90a;
// cuda.conv.implicit_gemm, before the mma.sync kernel, and the stride-1
// data gradient that runs as a forward convolution): x and y packed NHWC,
// w packed KRSC, one group, 2-D, C and K multiples of 64, R * S * C >= 256
// (shallower reductions are bandwidth-bound and faster on mma.sync), any
// filter size, padding, stride and dilation, either mode.
//
//   y[n][p][q][k] = alpha * sum over (r, s, c) of
//                   x[n][p*sh - ph + r*dh][q*sw - pw + s*dw][c] * w[k][r'][s'][c]
//                   + beta * y[n][p][q][k]
//
// (r', s') = (r, s) for CROSS_CORRELATION, (R-1-r, S-1-s) for CONVOLUTION;
// beta = 0 never reads y. H100, batch 256, HALF, 3x3 pad 1 C = K, ten calls
// back to back, cuDNN 9's best algorithm in the same run (the stand-alone
// harness tests/oracle_gpu/fwd_wgmma_harness.cu, device run 7 of
// docs/perf-logs-gpu-conv-2026-11-24-b.txt), TFLOP/s forward / data
// gradient (filter in place), cuDNN in brackets: 64x56 401 / 392 (377 /
// 370), 128x28 607 / 602 (588 / 516), 256x14 701 / 704 (511 / 630), 512x7
// 682 / 646 (530 / 647); cuDNN's own figures move by up to 1.3x between
// runs (run 2: 384 / 374, 595 / 595, 647 / 642, 678 / 709).
// FREEDNN_CONV_FWD_WGMMA=0 turns it off (the mma.sync kernel then runs).
// Where the tiles leave the persistent grid's last wave partly empty, the
// reduction of that wave's tiles is split into 2 .. 8 parts on otherwise
// idle multiprocessors, summed in the kernel in a fixed order (the
// scratch holds the parts' float sums; FREEDNN_CONV_FWD_WGMMA_SPLIT=0 off,
// =<n> n parts), where the tile model expects a gain: of the layers above
// (and their batch-32 forms) only b256 512x7, 685 / 679 TFLOP/s forward /
// data gradient against 664 / 644 unsplit (docs/perf-logs-gpu-fwd-wgmma-
// split-2026-11-24.md); a split costs 6-10 us, which the short
// reductions of the other layers' tails do not repay.
#pragma once

#include <cstddef>

#include "cuda/convolution_args.hpp"

namespace fdnn::cuda {

// Whether the kernel applies to a (kConvFwd args, including the forward
// view of a data gradient) with types t: the shapes and layouts above, the
// current device of compute capability 9.0 with the kernel built for
// sm_90a, and the switch on. Read when a plan is made.
bool conv_fwd_wgmma_applies(const ConvArgs &a, ConvTypes t);
// Bytes of scratch the launch for a (kConvFwd args, those of
// launch_conv_fwd_wgmma or the forward f of launch_conv_dgrad_wgmma)
// wants for the split of its last wave, 0 for none; *parts = its split
// parts (1: none). Read when a plan is made (the grid, the switch).
size_t conv_fwd_wgmma_scratch(const ConvArgs &a, int *parts);
// a.A = x, a.B = w (16-byte aligned), a.dst = y (4-byte aligned); alpha,
// beta as the call's. `scratch` (scratch_bytes, 256-byte aligned, any
// contents) holds the split's flags and sums; with fewer bytes than
// conv_fwd_wgmma_scratch's the kernel runs unsplit.
void launch_conv_fwd_wgmma(const ConvArgs &a, ConvTypes t, void *scratch, size_t scratch_bytes, void *stream);
// The stride-1 data gradient `dgrad` as the forward f (setup_dgrad_as_fwd's
// view, for which conv_fwd_wgmma_applies; f.A = dy, f.dst = dx, alpha,
// beta) with the data gradient's own filter (dgrad.B, packed KRSC, 16-byte
// aligned) read in place: the kernel loads w's rows (f's reduction
// channels) of each tap's outputs and multiplies them as an MN-major
// operand, so no transformed filter is written first (the transform cost
// 512x7 ~10% of its data gradient). False, nothing launched, where that
// does not apply (groups, other filter layouts, no tensor maps): the
// caller then transforms the filter and runs launch_conv_fwd_wgmma.
// scratch as launch_conv_fwd_wgmma's for f.
bool launch_conv_dgrad_wgmma(const ConvArgs &f, const ConvArgs &dgrad, ConvTypes t, void *scratch,
                             size_t scratch_bytes, void *stream);

}  // namespace fdnn::cuda
