// Arguments of the CUDA convolution kernels (cuda.conv.*): one convolution
// problem seen as a GEMM per group, out[m][col] = sum_r A[m][r] B[r][col]:
//   forward          m = (n, output pixel)  col = k          r = (tap, c)
//   backward data    m = (n, input pixel)   col = c          r = (tap, k)
//   backward filter  m = k                  col = (tap, c)   r = (n, output pixel)
//   forward lowered  as forward, A read from an im2col matrix (FWD GEMM)
// Spatial dimensions are normalised to D, H, W (fewer have leading 1s).
// Offsets are 32-bit: the engine refuses tensors that reach 2^31 elements.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

#include "cuda/fast_divmod.hpp"

namespace fdnn::cuda {

enum ConvKernelDir { kConvFwd = 0, kConvBwdData = 1, kConvBwdFilter = 2, kConvFwdLowered = 3 };

struct ConvArgs {
  int dir = kConvFwd;
  int N = 1, G = 1, Cg = 1, Kg = 1;
  int in[3] = {1, 1, 1}, filt[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int pad[3] = {0, 0, 0}, str[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  int flip = 0;                 // CONVOLUTION mode
  int xs[5] = {}, ws[5] = {}, ys[5] = {};  // element strides of x, w, y: N/K, C, D, H, W
  int M = 0, Ncol = 0, R = 0;   // GEMM extents per group
  int T = 1, P = 1, I = 1;      // filter taps, output pixels, input pixels
  // Divisions of the index arithmetic.
  FastDivmod d_rc;              // the reduction's channel count (Cg forward, Kg backward data)
  FastDivmod d_cg;              // Cg (backward filter columns)
  FastDivmod d_fw, d_fh;        // filter W, H
  FastDivmod d_ow, d_oh, d_P;   // output W, H, pixels
  FastDivmod d_iw, d_ih, d_I;   // input W, H, pixels
  FastDivmod d_s[3];            // strides (backward data)
  // Loader thread mappings: threads step along m (or col) first when that
  // dimension is the contiguous one in memory, else along r.
  int a_mfast = 1, b_cfast = 1;
  int split = 1, chunk = 0;     // split of the reduction (partials in scratch)
  // The mma kernel's filter gradient: the last block of each output tile
  // to finish sums the split parts itself (in part order) from a.partial,
  // counting arrivals in split_counts (one unsigned per tile, zeroed).
  int fused_split = 0;
  unsigned *split_counts = nullptr;
  int vec_out = 0;              // tensor-core epilogue: 16-byte runs of 8 outputs (see wmma_vec_out)
  // The mma kernel's software-pipelined main loop where its tile has one
  // (conv_mma_pipelined(), read when the plan is made, not per launch).
  int mma_pipe = 1;
  double alpha = 1, beta = 0;
  const void *A = nullptr, *B = nullptr;
  void *dst = nullptr;           // the output (y, dx or dw)
  void *partial = nullptr;
  void *table = nullptr;        // the FMA kernel's reduction table (int4 per r), or null
};

// Whether the FMA kernel can run from a reduction table (ConvTable in
// convolution_index.cuh): forward, or the data gradient with unit strides,
// window displacements below 2^15.
inline bool conv_table_applies(const ConvArgs &a) {
  if (a.dir != kConvFwd && !(a.dir == kConvBwdData && a.str[0] == 1 && a.str[1] == 1 && a.str[2] == 1)) return false;
  return (a.filt[1] - 1) * a.dil[1] < 32768 && (a.filt[2] - 1) * a.dil[2] < 32768;
}

// Element types of a kernel: inputs, output, accumulation.
enum class ConvTypes { f32, f64, f16, bf16, f16_to_f32, bf16_to_f32 };

// The tiled FMA implicit GEMM (all directions, all types); with a.split > 1
// it writes partials (accumulation type, [split][G][M][Ncol]) to a.partial.
// With a.table (R x 16 bytes of device memory) it first fills the reduction
// table there and gathers through it.
void launch_conv_fma(const ConvArgs &a, ConvTypes t, void *stream);
// The tensor-core implicit GEMM (f16 / bf16 inputs, float accumulation) for
// problems whose vectorised operands are 16-byte aligned runs of 8 channels.
void launch_conv_wmma(const ConvArgs &a, ConvTypes t, void *stream);
// Sums the split parts (a.split > 1) from a.partial and blends into a.out.
void launch_conv_finalize(const ConvArgs &a, ConvTypes t, void *stream);
// One thread per output element, a plain loop over the reduction.
void launch_conv_direct(const ConvArgs &a, ConvTypes t, void *stream);
// im2col of x into `cols` (G x M x R elements of x's type), for kConvFwdLowered.
void launch_conv_im2col(const ConvArgs &fwd, ConvTypes t, void *cols, void *stream);
// Blocks of the tiled kernels (for the split decision).
void conv_fma_tile(ConvTypes t, int M, int Ncol, int *bm, int *bn, int *bk);
void conv_wmma_tile(int M, int Ncol, int R, int *bm, int *bn, int *bk);

}  // namespace fdnn::cuda
