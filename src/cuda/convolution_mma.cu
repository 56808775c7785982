// The large-tile tensor-core implicit GEMM of cuda.conv.implicit_gemm for
// HALF and BFLOAT16 data with 16-bit outputs (float accumulation), for the
// problems the WMMA kernel (convolution_wmma.cu) also takes: both operands
// gathered as 16-byte runs of 8 channels. Same GEMM views:
//   forward          A = x   runs along r (c)     B = w  runs along r (c)
//   backward data    A = dy  runs along r (k)     B = w  runs along col (c)
//   backward filter  A = dy  runs along m (k)     B = x  runs along col (c)
// What makes it faster than the WMMA kernel (convolution_mma_kernel.cuh):
// - mma.sync m16n8k16 (f16 / bf16, float accumulators) fed by ldmatrix.x4
//   (.trans for tiles stored with rows / columns innermost): a warp's
//   16 x 16 fragment comes from shared memory in one instruction;
// - operand tiles XOR-swizzled in 16-byte chunks (chunk ^ (row & 7)): the 8
//   rows one ldmatrix phase reads, and the 8 chunks a cp.async phase writes,
//   land in 8 different bank groups without padding;
// - 64-deep reduction steps, 3-4 cp.async stages, one barrier per step;
// - "big" tiles: 128 x 256, 256 x 128 (64 x 64 per warp), 256 x 64 and
//   64 x 256 (64 x 32 per warp) of 8 warps, 4 stages, one block per
//   multiprocessor, for long reductions; "mid" tiles: 128 x 128, 128 x 64,
//   64 x 128, 3 stages, two blocks per multiprocessor, so that one block's
//   barrier waits, prologue and epilogue overlap the other's main loop
//   (forward and data gradient); the big ones for the filter gradient.
// - the gather's index arithmetic (divisions included) once per stage and
//   reduction row, shared by all the loads of that row: a load adds an
//   offset and a bounds check (ConvTable's form); per-load index math made
//   the first version of this kernel slower than the WMMA one (~1000
//   instructions per 64-deep step of a 128 x 256 tile, ~480 now).
// - the tiles of 64 x 32 / 32 x 32 warp tiles (128 x 64, 64 x 128, 256 x 64,
//   64 x 256: the 64-channel layers) run a software-pipelined main loop in
//   the forward pass and the filter gradient (fragments double-buffered:
//   slice ks + 1's ldmatrix, across the stage boundary too, goes out before
//   slice ks's mma's; one barrier per step, before the last slice). The
//   other tiles would spill with it (sm_90a ptxas: 255 registers and 50-600
//   bytes of local memory). H100, 64x56 3x3.64 HALF, against the plain loop
//   (FREEDNN_CONV_MMA_PIPE=0): forward 1.06x (batch 256) / 1.07x (32),
//   filter gradient 1.22x / 1.00x; the data gradient, 1.00x / 0.47x (one
//   sample), keeps the plain loop.
// - the filter gradient (K x taps*C output, reduction N x pixels) takes
//   the tile that computes the least padding, including its own 64 x 192,
//   128 x 192 and 64 x 64 (wgrad_tile), and the split of the reduction
//   that a wave model says is fastest (choose_split_mma_wgrad in
//   convolution_engine.cpp). H100, HALF NHWC, batch 256, one device run
//   (TFLOP/s, before -> after): 64x56 3x3 188 -> 226, 128x28 243 -> 270,
//   256x14 202 -> 281, 512x7 192 -> 233, 1x1 64->64 55 -> 66, 1x1 64->256
//   128 -> 138.
// The epilogue is the WMMA kernel's (convolution_tc_epilogue.cuh).
// H100, ResNet-50 3x3 layers at batch 256, HALF NHWC (device run of
// 2026-11-23): forward 185-295 TFLOP/s (WMMA 143-189), data gradient
// 158-265 (117-168), filter gradient 152-242 (89-117).
// Data gradients with unit strides and more than one tap now run through
// the forward kernel on a transformed filter (convolution_dgrad_as_fwd.hpp;
// FREEDNN_CONV_DGRAD_AS_FWD=0 keeps this direction's own view): 186-281
// TFLOP/s on the same layers.
#include "cuda/convolution_mma.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {

void launch_conv_mma_fwd(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream);
void launch_conv_mma_bwd_data(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream);
void launch_conv_mma_bwd_filter(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream);

namespace {

bool big_tile(int bm, int bn) { return bm + bn > 256; }

// Pipeline depth of a tile (as the MmaTile types of the kernel's header):
// 4 for the big ones, 64 x 192 and 64 x 64; 3 for the mid ones.
int tile_stages(int bm, int bn) {
  if (big_tile(bm, bn) || (bm == 64 && bn == 192) || (bm == 64 && bn == 64)) return 4;
  return 3;
}

// Shared memory of a tile's pipeline or epilogue, whichever is larger (as
// mma_smem_bytes in the kernel's header).
size_t tile_smem(int bm, int bn) {
  const size_t pipe = size_t(tile_stages(bm, bn)) * (bm + bn) * kConvMmaDepth * 2;
  const size_t epi = size_t(bm) * (bn + 4) * 4 + size_t(bm + bn) * 4;
  return pipe > epi ? pipe : epi;
}

// The device's opt-in shared memory per block, or 0 below compute
// capability 8.0 (no bf16 mma.sync) or where it cannot be read.
size_t device_smem_optin() {
  DeviceFacts f;
  if (!current_device_facts(f) || f.cc_major < 8) return 0;
  return static_cast<size_t>(f.smem_optin);
}

// The filter gradient's tile: of the big tiles and the filter gradient's
// own (64 x 192, 128 x 192, 64 x 64), the one that computes the least
// padding (M and Ncol rounded up to the tile), the larger tile on a tie
// (fewer operand bytes per mma). M (output channels) and Ncol (taps x
// input channels) are small next to the reduction (batch x pixels), so a
// tile that overhangs Ncol wastes its share of the whole pass: 3x3 over
// 64 channels is 576 columns, 2.25 tiles of 256.
bool wgrad_tile(const ConvArgs &a, int *bm, int *bn, size_t optin) {
  // 256 x 128 before 128 x 256 (same area): half the x columns to gather
  // per block, and measured faster (H100, HALF, batch 256: 256x14 3x3 282
  // against 261 TFLOP/s, 512x7 222 against 209, same split).
  static const int cand[][2] = {{256, 128}, {128, 256}, {64, 256}, {256, 64}, {128, 192}, {64, 192}, {64, 64}};
  int64_t best = -1;
  for (const auto &c : cand) {
    if (tile_smem(c[0], c[1]) > optin) continue;
    const int64_t area = int64_t{(a.M + c[0] - 1) / c[0] * c[0]} * ((a.Ncol + c[1] - 1) / c[1] * c[1]);
    if (best < 0 || area < best || (area == best && c[0] * c[1] > *bm * *bn)) {
      best = area;
      *bm = c[0], *bn = c[1];
    }
  }
  return best >= 0;
}

}  // namespace

int conv_mma_blocks_per_sm(int bm, int bn) {
  if (bm == 64 && bn == 64) return 3;  // 65 KB of shared memory, 122 registers x 128 threads
  if (big_tile(bm, bn) || (bm == 64 && bn == 192)) return 1;
  return 2;
}

bool conv_mma_tile(const ConvArgs &a, int *bm, int *bn) {
  // FREEDNN_CONV_MMA_TILES=big / mid forces a family (for comparisons);
  // =old keeps the filter gradient on the big tiles chosen by Ncol alone.
  const char *env = std::getenv("FREEDNN_CONV_MMA_TILES");
  if (a.dir == kConvBwdFilter && (env == nullptr || std::strcmp(env, "wgrad") == 0)) {
    if (wgrad_tile(a, bm, bn, device_smem_optin())) return true;
  }
  // FREEDNN_CONV_MMA_TILES=<bm>x<bn> forces a tile (for measurements): any
  // of the filter gradient's, the first seven in the other directions (the
  // others are instantiated for the filter gradient only).
  int fm = 0, fn = 0;
  if (env != nullptr && std::sscanf(env, "%dx%d", &fm, &fn) == 2) {
    static const int known[][2] = {{128, 256}, {256, 128}, {64, 256}, {256, 64}, {128, 128}, {128, 64},
                                   {64, 128},  {128, 192}, {64, 192}, {64, 64}};
    const int count = a.dir == kConvBwdFilter ? 10 : 7;
    for (int i = 0; i < count; ++i)
      if (const auto &k = known[i]; k[0] == fm && k[1] == fn && tile_smem(fm, fn) <= device_smem_optin()) {
        *bm = fm, *bn = fn;
        return true;
      }
  }
  // H100, ResNet-50 3x3 layers at batch 256 (device run of 2026-11-23):
  // the mid tiles ran the forward and data-gradient passes 1.0-1.4x faster
  // than the big ones at every reduction length (576 to 4608), the big ones
  // the filter gradient (split reductions) up to 1.06x faster. At batch 32
  // (3x3 layers, HALF, device run of 2026-11-23) this kernel ran 1.0-1.7x
  // faster than the WMMA one (FREEDNN_CONV_MMA=0) in 11 of the 12 cases;
  // the 12th, the 512x7 filter gradient (big tile, unchanged kernel),
  // measured 0.72x and 1.26x in two runs. So the WMMA kernel keeps no
  // 16-bit-output size class.
  bool big = a.dir == kConvBwdFilter;
  if (env != nullptr && std::strcmp(env, "big") == 0) big = true;
  if (env != nullptr && std::strcmp(env, "mid") == 0) big = false;
  const size_t optin = device_smem_optin();
  if (big) {
    if (a.Ncol <= 64) *bm = 256, *bn = 64;
    else if (a.Ncol <= 128) *bm = 256, *bn = 128;
    else if (a.M <= 64) *bm = 64, *bn = 256;
    else *bm = 128, *bn = 256;
    if (tile_smem(*bm, *bn) <= optin) return true;
  }
  if (a.Ncol <= 64) *bm = 128, *bn = 64;
  else if (a.M <= 64) *bm = 64, *bn = 128;
  else *bm = 128, *bn = 128;
  // Tried and dropped (H100, 2026-11-23): the data gradient on 64 x 128
  // tiles where the 128 x 128 grid fills its last wave only partly (512x7
  // 3x3 at batch 256: 392 tiles on 264 two-block slots, 1.48 waves): 188
  // TFLOP/s against 232 on 128 x 128 (HALF).
  return tile_smem(*bm, *bn) <= optin;
}

bool conv_mma_pipelined() {
  const char *env = std::getenv("FREEDNN_CONV_MMA_PIPE");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

bool conv_mma_fused_split() {
  const char *env = std::getenv("FREEDNN_CONV_MMA_FUSED");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

void conv_mma_clear_counts(void *counts, size_t bytes, void *stream) {
  check_cuda(cudaMemsetAsync(counts, 0, bytes, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync");
}

void launch_conv_mma(const ConvArgs &a, ConvTypes t, int bm, int bn, void *stream) {
  switch (a.dir) {
    case kConvFwd: launch_conv_mma_fwd(a, t, bm, bn, stream); return;
    case kConvBwdData: launch_conv_mma_bwd_data(a, t, bm, bn, stream); return;
    case kConvBwdFilter: launch_conv_mma_bwd_filter(a, t, bm, bn, stream); return;
    default: break;
  }
  fail(CUDNN_STATUS_INTERNAL_ERROR, "no large-tile tensor-core convolution kernel for direction ", a.dir);
}

}  // namespace fdnn::cuda
