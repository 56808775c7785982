// The forward convolution of HALF / BFLOAT16 problems with few input
// channels (Cg <= 4; the ResNet-50 stem: C = 3, 7x7, stride 2, pad 3,
// K = 64) on the tensor cores, without padding the channels to 8 (the
// 8-channel path, run_pad8 in convolution_engine.cpp, reduces over
// 7*7*8 = 392 instead of 147 and copies x first).
//
// A persistent block loads the whole filter once into shared memory as the
// mma B operand ([k][j], j = (r, s, c) in x's order, flipped for
// CONVOLUTION, zero-padded to the depth D = R*S*C rounded up to 16) and then
// walks output tiles of one image, 8 rows x 16 columns = 128 pixels x all
// Kg (32 or 64) channels:
//  1. the input patch the tile needs ((8-1)*sh+R rows x ((16-1)*sw+S)*C
//     elements, zeros outside the image) from x into shared memory;
//  2. the im2col tile A [128 pixels][D] from the patch: element j of pixel
//     (ph, pw) is patch[(ph*sh + r) * rowlen + pw*sw*C + (s*C + c)], i.e. the
//     pixel's origin plus r*rowlen + j % (S*C): each lane keeps the offsets
//     of its 2 x 4 j's in registers, a warp writes rows of A with 32-bit
//     stores;
//  3. mma.sync m16n8k16 (float accumulators) fed by ldmatrix.x4 (rows
//     padded by 16 bytes: conflict-free), 8 warps as 4 (pixels) x 2
//     (channels), warp tiles 32 x Kg/2;
//  4. the accumulators staged as floats in shared memory (over A), then
//     alpha * acc (+ beta * y, never read when beta == 0) stored as 16-byte
//     vectors of 8 channels: a pixel's Kg channels are contiguous in y.
// No workspace, no scratch, deterministic. The next tile's patch is
// prefetched into registers (up to kPF elements a thread) during the GEMM
// and epilogue of the current one.
// H100, HALF NHWC, x N x 3 x 224 x 224, w 64 x 3 x 7 x 7, stride 2, pad 3
// (one device run, 2026-11-23, TFLOP/s at 2*N*P*Q*K*C*R*S; NVIDIA cuDNN
// 9.19 in the same run): batch 256 70.2 (8-channel path 38.3, cuDNN 97.6:
// 0.72x), batch 32 54.9 (34.9, cuDNN 64.4: 0.85x), compiled for 2 blocks
// per multiprocessor; for 3 (80 registers, a few bytes of spills): 75.3
// and 57.9 (0.77x, 0.90x) in the same run, 74.7 against 71.8 in a second
// one, so 3 is the default and FREEDNN_CONV_STEM_OCC=2 keeps 2.
// Not tried yet: the filter's B fragments kept in registers (ldmatrix
// traffic halved), paired 32-bit patch reads, cp.async / TMA patch loads.
//
// The filter gradient (conv_stem_wgrad_kernel, below) walks the same tiles
// with the same patch and im2col code (convolution_stem.cuh) and
// accumulates dw^T's GEMM over a block's tiles in registers; its partials
// go to the scratch, summed in block order by a finalize kernel. Not yet
// measured on a device.
#include "cuda/convolution_stem.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda/convolution_stem.cuh"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

using namespace stem;

// Shared memory: B [K][LD], then A [kTP][LD] (the float staging [kTP][K+8]
// of the epilogue overlays it), then the patch.
struct StemLayout {
  int LD;
  size_t b_bytes, a_bytes, patch_bytes, total;
};

StemLayout stem_layout(int K, int D, int PH, int PWC) {
  StemLayout l;
  l.LD = D + 8;
  l.b_bytes = size_t(K) * l.LD * 2;
  const size_t a = size_t(kTP) * l.LD * 2, stage = size_t(kTP) * (K + 8) * 4;
  l.a_bytes = (a > stage ? a : stage);
  l.patch_bytes = (size_t(PH) * PWC * 2 + 15) / 16 * 16;
  l.total = l.b_bytes + l.a_bytes + l.patch_bytes;
  return l;
}

template <class TI, int KB, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) conv_stem_fwd_kernel(const StemParams p) {
  constexpr int WARPS_M = 4, WN = KB / 2, FM = 2, FN = WN / 8;  // warp tile 32 x WN
  constexpr int LDC = KB + 8;                                   // float staging row (elements)
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int LD = p.D + 8;
  uint16_t *Bs = reinterpret_cast<uint16_t *>(smem_raw);
  uint16_t *As = Bs + size_t(KB) * LD;
  float *Cs = reinterpret_cast<float *>(As);
  const size_t a_elems = (size_t(kTP) * LD * 2 > size_t(kTP) * LDC * 4 ? size_t(kTP) * LD * 2
                                                                        : size_t(kTP) * LDC * 4) / 2;
  uint16_t *patch = As + a_elems;
  const uint16_t *__restrict__ x = static_cast<const uint16_t *>(p.x);
  const uint16_t *__restrict__ w = static_cast<const uint16_t *>(p.w);
  TI *__restrict__ y = static_cast<TI *>(p.y);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  // The filter, once per block: B[k][j], j = r*S*C + s*C + c (taps
  // reversed for CONVOLUTION), zero past RSC.
  for (int e = tid; e < KB * p.D; e += kThreads) {
    const int k = e / p.D, j = e - k * p.D;
    uint16_t v = 0;
    if (j < p.RSC) {
      int r = j / p.SC;
      const int rem = j - r * p.SC;
      int s = rem / p.C;
      const int c = rem - s * p.C;
      if (p.flip) r = p.R - 1 - r, s = p.S - 1 - s;
      v = w[k * p.wk + c * p.wc + r * p.wr + s * p.wsx];
    }
    Bs[k * LD + j] = v;
  }

  // This lane's patch offsets of the pairs (j, j + 1), j = 2 (lane + 32 t).
  int off0[4], off1[4];
  im2col_offsets(p, lane, off0, off1);
  const int wm = (warp % WARPS_M) * 32, wn = (warp / WARPS_M) * WN;
  const uint32_t As_s = static_cast<uint32_t>(__cvta_generic_to_shared(As));
  const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));
  const float alpha = p.alpha, beta = p.beta;

  // Patches of up to kPF elements per thread are prefetched into registers
  // during the previous tile's mma's and epilogue; larger ones load in place.
  const bool prefetch = patch_prefetched(p);
  uint16_t pf[kPF];
  if (prefetch && blockIdx.x < p.tiles) patch_prefetch(p, x, blockIdx.x, tid, pf);

  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    int n, oh0, ow0;
    tile_origin(p, tile, n, oh0, ow0);
    // 1. The input patch.
    patch_store(p, x, tile, tid, prefetch, pf, patch);
    __syncthreads();
    // 2. The im2col tile: warp `warp` fills pixels warp*16 .. +15.
    im2col_build(p, patch, As, LD, warp, lane, off0, off1);
    __syncthreads();
    // The next tile's patch, in flight during this tile's GEMM and epilogue.
    if (prefetch && tile + int(gridDim.x) < p.tiles) patch_prefetch(p, x, tile + gridDim.x, tid, pf);
    // 3. The GEMM: [128 x D] x [D x KB].
    float acc[FM][FN][4];
    zero_fragments(acc);
    const int ksteps = p.D / 16;
    for (int ks = 0; ks < ksteps; ++ks) {
      uint32_t fa[FM][4], fb[FN][2];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int row = wm + i * 16 + (lane & 15), col = ks * 16 + (lane >> 4) * 8;
        ldmatrix_x4<false>(fa[i], As_s + (row * LD + col) * 2);
      }
#pragma unroll
      for (int jj = 0; jj < FN / 2; ++jj) {
        uint32_t r[4];
        const int nrow = wn + jj * 16 + (lane & 7) + ((lane >> 4) << 3), col = ks * 16 + ((lane >> 3) & 1) * 8;
        ldmatrix_x4<false>(r, Bs_s + (nrow * LD + col) * 2);
        fb[2 * jj][0] = r[0];
        fb[2 * jj][1] = r[1];
        fb[2 * jj + 1][0] = r[2];
        fb[2 * jj + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) mma16816<TI>(acc[i][j], fa[i], fb[j][0], fb[j][1]);
    }
    __syncthreads();  // every warp's reads of A are done: stage over it
    // 4. Epilogue: floats to shared memory, then 16-byte rows of 8 channels.
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int row = wm + i * 16 + (lane >> 2), col = wn + j * 8 + 2 * (lane & 3);
        *reinterpret_cast<float2 *>(Cs + row * LDC + col) = make_float2(acc[i][j][0], acc[i][j][1]);
        *reinterpret_cast<float2 *>(Cs + (row + 8) * LDC + col) = make_float2(acc[i][j][2], acc[i][j][3]);
      }
    __syncthreads();
    constexpr int VPR = KB / 8;  // vectors per pixel
    for (int v = tid; v < kTP * VPR; v += kThreads) {
      const int px = v / VPR, cv = v % VPR;
      const int oh = oh0 + px / kTW, ow = ow0 + px % kTW;
      if (oh >= p.Ho || ow >= p.Wo) continue;
      const float4 lo = *reinterpret_cast<const float4 *>(Cs + px * LDC + cv * 8);
      const float4 hi = *reinterpret_cast<const float4 *>(Cs + px * LDC + cv * 8 + 4);
      float r[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
      Pack<TI, 8> *dst = reinterpret_cast<Pack<TI, 8> *>(y + size_t(n) * p.yn + size_t(oh) * p.yh +
                                                         size_t(ow) * KB + cv * 8);
      Pack<TI, 8> o;
      if (beta != 0.0f) {
        const Pack<TI, 8> old = *dst;
#pragma unroll
        for (int e = 0; e < 8; ++e) o.v[e] = Storage<TI>::store(alpha * r[e] + beta * Storage<TI>::template load<float>(old.v[e]));
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) o.v[e] = Storage<TI>::store(alpha * r[e]);
      }
      *dst = o;
    }
    // The next tile's patch lies apart from A / the staging; its A build
    // follows the barrier after the patch load, after every thread's
    // epilogue reads.
  }
}

// The filter gradient: dw[k][j] = sum over output pixels of dy[px][k] *
// im2col[px][j]. A persistent block walks tiles blockIdx.x, + gridDim.x, ...
// of the forward's 8 x 16 pixels: the patch and the im2col tile B
// [kTP][LD] as the forward builds them, dy's tile Y [kTP][KB + 8] (zeros for
// pixels past the output), then mma.sync m16n8k16 accumulating C [KB][D]
// = Y^T B in registers over all the block's tiles: A = dy^T and B = im2col
// both come from [pixel][...] rows through ldmatrix .trans. 8 warps as 2
// (k) x 4 (j), warp tiles KB/2 x NBW*8 (n blocks past D / 8 skipped). The
// next tile's patch is prefetched into registers and its dy tile copied
// (cp.async) into the other of two dy buffers during the GEMM.
// At the end each block writes its C to p.partial[blockIdx.x]; the
// finalize kernel sums the blocks in order (deterministic) into dw.
// Shared memory: B [kTP][D+8], Y [2][kTP][KB+8], then the patch.
size_t wgrad_smem_bytes(int K, int D, int PH, int PWC) {
  return size_t(kTP) * (D + 8) * 2 + 2 * size_t(kTP) * (K + 8) * 2 + (size_t(PH) * PWC * 2 + 15) / 16 * 16;
}

template <class TI, int KB, int NBW, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) conv_stem_wgrad_kernel(const StemParams p) {
  constexpr int FM = KB / 32;                    // m fragments per warp (warp rows KB / 2)
  constexpr int LDY = KB + 8;                    // dy tile row (elements): conflict-free ldmatrix
  constexpr int VPP = KB / 8;                    // 16-byte dy vectors per pixel
  constexpr int YV = kTP * VPP / kThreads;       // ... per thread
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int LD = p.D + 8;
  uint16_t *Bs = reinterpret_cast<uint16_t *>(smem_raw);
  uint16_t *Ys = Bs + size_t(kTP) * LD;
  uint16_t *patch = Ys + 2 * size_t(kTP) * LDY;
  const uint16_t *__restrict__ x = static_cast<const uint16_t *>(p.x);
  const uint16_t *__restrict__ dy = static_cast<const uint16_t *>(p.w);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int nbt = p.D / 8;                       // n blocks of 8 j's
  const int wm = (warp & 1) * (KB / 2), wn = (warp >> 1) * NBW;

  int off0[4], off1[4];
  im2col_offsets<true>(p, lane, off0, off1);
  const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));
  const uint32_t Ys_s = static_cast<uint32_t>(__cvta_generic_to_shared(Ys));

  // dy's tile into Y buffer `buf` (cp.async): vector v = tid + i *
  // kThreads is pixel v / VPP, channels (v % VPP) * 8 .. +7; zeros past the
  // output's bottom / right.
  const auto dy_copy = [&](int tile, int buf) {
    int n, oh0, ow0;
    tile_origin(p, tile, n, oh0, ow0);
#pragma unroll
    for (int i = 0; i < YV; ++i) {
      const int v = tid + i * kThreads, px = v / VPP, cv = v % VPP;
      const int oh = oh0 + px / kTW, ow = ow0 + px % kTW;
      const bool valid = oh < p.Ho && ow < p.Wo;
      const uint16_t *src = valid ? dy + size_t(n) * p.yn + size_t(oh) * p.yh + size_t(ow) * KB + cv * 8 : dy;
      cp_async16(Ys_s + ((buf * kTP + px) * LDY + cv * 8) * 2, src, valid);
    }
    cp_async_commit();
  };

  const bool prefetch = patch_prefetched(p);
  uint16_t pf[kPF];
  if (blockIdx.x < p.tiles) {
    if (prefetch) patch_prefetch(p, x, blockIdx.x, tid, pf);
    dy_copy(blockIdx.x, 0);
  }

  float acc[FM][NBW][4];
  zero_fragments(acc);

  int buf = 0;
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x, buf ^= 1) {
    // 1. The patch into shared memory; dy's tile (copied during the
    // previous tile's GEMM) arrived.
    patch_store(p, x, tile, tid, prefetch, pf, patch);
    cp_async_wait_all();
    __syncthreads();
    // 2. The im2col tile (zero rows past the output).
    {
      int n, oh0, ow0;
      tile_origin(p, tile, n, oh0, ow0);
      im2col_build<true>(p, patch, Bs, LD, warp, lane, off0, off1, oh0, ow0);
    }
    __syncthreads();
    // The next tile's patch and dy, in flight during this tile's GEMM
    // (the other Y buffer: its last reads, the previous tile's GEMM, are
    // behind the barriers above).
    if (tile + int(gridDim.x) < p.tiles) {
      if (prefetch) patch_prefetch(p, x, tile + gridDim.x, tid, pf);
      dy_copy(tile + gridDim.x, buf ^ 1);
    }
    const uint32_t Yb_s = Ys_s + buf * (kTP * LDY * 2);
    // 3. C [KB][D] += Y^T [KB][kTP] x B [kTP][D], 16 pixels a step.
#pragma unroll 2
    for (int ks = 0; ks < kTP / 16; ++ks) {
      uint32_t fa[FM][4], fb[NBW][2];
      // A (m = k, kk = pixel) from Y [pixel][k]: matrices (k +0, px +0),
      // (k +8, px +0), (k +0, px +8), (k +8, px +8).
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int mat = lane >> 3;
        const int px = ks * 16 + (lane & 7) + (mat >> 1) * 8, kc = wm + i * 16 + (mat & 1) * 8;
        ldmatrix_x4<true>(fa[i], Yb_s + (px * LDY + kc) * 2);
      }
      // B (kk = pixel, n = j) from B [pixel][j]: per n block the matrices
      // (px +0), (px +8); two n blocks per x4.
      const int bpx = ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
#pragma unroll
      for (int jj = 0; jj < NBW; jj += 2) {
        const int nb = wn + jj;
        if (jj + 1 < NBW && nb + 1 < nbt) {
          uint32_t r[4];
          ldmatrix_x4<true>(r, Bs_s + (bpx * LD + (nb + (lane >> 4)) * 8) * 2);
          fb[jj][0] = r[0];
          fb[jj][1] = r[1];
          fb[jj + 1 < NBW ? jj + 1 : jj][0] = r[2];
          fb[jj + 1 < NBW ? jj + 1 : jj][1] = r[3];
        } else if (nb < nbt) {
          uint32_t r[2];
          ldmatrix_x2_trans(r, Bs_s + (bpx * LD + nb * 8) * 2);
          fb[jj][0] = r[0];
          fb[jj][1] = r[1];
        }
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < NBW; ++j)
          if (wn + j < nbt) mma16816<TI>(acc[i][j], fa[i], fb[j][0], fb[j][1]);
    }
    // No barrier: the next tile's patch and B stores, and its dy copy into
    // this Y buffer, all follow a barrier that every warp reaches after
    // this GEMM.
  }

  // 4. This block's C to its partial [KB][D].
  float *part = static_cast<float *>(p.partial) + size_t(blockIdx.x) * KB * p.D;
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < NBW; ++j) {
      const int nb = wn + j;
      if (nb >= nbt) continue;
      const int row = wm + i * 16 + (lane >> 2), col = nb * 8 + 2 * (lane & 3);
      *reinterpret_cast<float2 *>(part + size_t(row) * p.D + col) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2 *>(part + size_t(row + 8) * p.D + col) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

// dw = alpha * (sum over the blocks' partials, in block order) + beta * dw
// (dw not read when beta == 0), j = (r, s, c) mapped to dw's strides, taps
// reversed for CONVOLUTION. A block of kFinGroups warps takes 32 outputs:
// warp g sums the g-th of kFinGroups contiguous ranges of blocks, then warp
// 0 adds the ranges' sums in order (a fixed order: deterministic), so that
// a few thousand outputs still spread over every multiprocessor.
constexpr int kFinGroups = 8;

template <class TI>
__global__ void __launch_bounds__(32 * kFinGroups) conv_stem_wgrad_finalize(const StemParams p, int blocks) {
  __shared__ float sums[kFinGroups][32];
  const int lane = threadIdx.x % 32, grp = threadIdx.x / 32;
  const int e = blockIdx.x * 32 + lane;
  const bool live = e < p.K * p.RSC;
  const int k = live ? e / p.RSC : 0, j = live ? e - k * p.RSC : 0;
  float sum = 0.0f;
  if (live) {
    const float *part = static_cast<const float *>(p.partial) + size_t(k) * p.D + j;
    const size_t stride = size_t(p.K) * p.D;
    const int b0 = int(int64_t{grp} * blocks / kFinGroups), b1 = int(int64_t{grp + 1} * blocks / kFinGroups);
#pragma unroll 4
    for (int b = b0; b < b1; ++b) sum += part[b * stride];
  }
  sums[grp][lane] = sum;
  __syncthreads();
  if (grp != 0 || !live) return;
  float total = 0.0f;
#pragma unroll
  for (int g = 0; g < kFinGroups; ++g) total += sums[g][lane];
  int r = j / p.SC;
  const int rem = j - r * p.SC;
  int s = rem / p.C;
  const int c = rem - s * p.C;
  if (p.flip) r = p.R - 1 - r, s = p.S - 1 - s;
  TI *dw = static_cast<TI *>(p.y);
  const size_t at = size_t(k) * p.wk + size_t(c) * p.wc + size_t(r) * p.wr + size_t(s) * p.wsx;
  float v = p.alpha * total;
  if (p.beta != 0.0f) v += p.beta * Storage<TI>::template load<float>(dw[at]);
  dw[at] = Storage<TI>::store(v);
}

StemParams stem_params(const ConvArgs &a) {
  StemParams p;
  p.Hi = a.in[1], p.Wi = a.in[2], p.C = a.Cg, p.Ho = a.out[1], p.Wo = a.out[2];
  p.R = a.filt[1], p.S = a.filt[2], p.K = a.Kg;
  p.sh = a.str[1], p.sw = a.str[2], p.ph = a.pad[1], p.pw = a.pad[2], p.flip = a.flip;
  p.xn = a.xs[0], p.xh = a.xs[3];
  p.yn = a.ys[0], p.yh = a.ys[3];
  p.wk = a.ws[0], p.wc = a.ws[1], p.wr = a.ws[3], p.wsx = a.ws[4];
  p.SC = p.S * p.C;
  p.RSC = p.R * p.SC;
  p.D = (p.RSC + 15) / 16 * 16;
  p.PH = (kTH - 1) * p.sh + p.R;
  p.PWC = ((kTW - 1) * p.sw + p.S) * p.C;
  p.tiles_w = (p.Wo + kTW - 1) / kTW;
  p.tiles_h = (p.Ho + kTH - 1) / kTH;
  p.tiles = a.N * p.tiles_w * p.tiles_h;
  p.d_pwc = FastDivmod(static_cast<uint32_t>(p.PWC));
  p.d_tiles_w = FastDivmod(static_cast<uint32_t>(p.tiles_w));
  p.d_tiles_h = FastDivmod(static_cast<uint32_t>(p.tiles_h));
  return p;
}

bool stem_enabled() {
  const char *v = std::getenv("FREEDNN_CONV_STEM");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// Blocks per multiprocessor the forward kernel is compiled for: 3 (80
// registers, a few bytes of spills; the shared memory of the 7x7 C = 3
// stem, 69 KB a block, allows 3) or, with FREEDNN_CONV_STEM_OCC=2, 2 (up to
// 128 registers, no spills).
bool stem_occ3() {
  static const bool v = [] {
    const char *e = std::getenv("FREEDNN_CONV_STEM_OCC");
    return e == nullptr || std::strcmp(e, "2") != 0;
  }();
  return v;
}

// The largest dynamic shared memory a stem block may ask for (the applies
// checks). The kernels' limits are set to it (or to the device's opt-in
// maximum, if lower): one value for every plan, so that making one plan
// never lowers the limit another plan launches with.
constexpr size_t kMaxBlockSmem = 200 * 1024;


// The forward's kernel for a problem (type, Kg 32 / 64, blocks per
// multiprocessor it is compiled for).
using FwdKernel = void (*)(const StemParams);
template <class TI, int KB>
FwdKernel fwd_kernel_typed() {
  return stem_occ3() ? conv_stem_fwd_kernel<TI, KB, 3> : conv_stem_fwd_kernel<TI, KB, 2>;
}
FwdKernel fwd_kernel(ConvTypes t, int K) {
  const bool f16 = t == ConvTypes::f16;
  if (K == 64) return f16 ? fwd_kernel_typed<half_bits, 64>() : fwd_kernel_typed<bf16_bits, 64>();
  return f16 ? fwd_kernel_typed<half_bits, 32>() : fwd_kernel_typed<bf16_bits, 32>();
}

// The problem shapes both kernels take (x and y / dy packed NHWC, see
// convolution_stem.hpp), either direction.
bool stem_shape_applies(const ConvArgs &a, ConvTypes t) {
  if (t != ConvTypes::f16 && t != ConvTypes::bf16) return false;
  if (a.G != 1 || a.Cg > 4 || (a.Kg != 32 && a.Kg != 64)) return false;
  if (a.in[0] != 1 || a.filt[0] != 1 || a.out[0] != 1) return false;
  for (int k = 0; k < 3; ++k)
    if (a.dil[k] != 1) return false;
  if (a.filt[1] > 7 || a.filt[2] > 7) return false;
  if (a.xs[1] != 1 || a.xs[4] != a.Cg) return false;
  if (a.ys[1] != 1 || a.ys[4] != a.Kg || a.ys[3] % 8 != 0 || a.ys[0] % 8 != 0) return false;
  const StemParams p = stem_params(a);
  return p.D <= kMaxDepth && size_t(p.PH) * p.PWC * 2 <= kMaxPatchBytes;
}

bool stem_wgrad_enabled() {
  const char *v = std::getenv("FREEDNN_CONV_STEM_WGRAD");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// The filter gradient's kernel for a problem: n blocks per warp NBW = 2, 5
// or 8 (D <= 64, 160, 256); the widest compiled for 1 block per
// multiprocessor (its 64 accumulators a thread).
using WgradKernel = void (*)(const StemParams);
template <class TI, int KB>
WgradKernel wgrad_kernel_typed(int D) {
  if (D <= 64) return conv_stem_wgrad_kernel<TI, KB, 2, 2>;
  if (D <= 160) return conv_stem_wgrad_kernel<TI, KB, 5, 2>;
  return conv_stem_wgrad_kernel<TI, KB, 8, 1>;
}
WgradKernel wgrad_kernel(ConvTypes t, int K, int D) {
  const bool f16 = t == ConvTypes::f16;
  if (K == 64) return f16 ? wgrad_kernel_typed<half_bits, 64>(D) : wgrad_kernel_typed<bf16_bits, 64>(D);
  return f16 ? wgrad_kernel_typed<half_bits, 32>(D) : wgrad_kernel_typed<bf16_bits, 32>(D);
}

}  // namespace

int stem_persistent_blocks(const void *kernel, int threads, size_t smem, int tiles) {
  DeviceFacts dev;
  if (!current_device_facts(dev))
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "the current CUDA device's shared memory size could not be read");
  const size_t limit = std::min(kMaxBlockSmem, static_cast<size_t>(dev.smem_optin));
  if (smem > limit)
    fail(CUDNN_STATUS_NOT_SUPPORTED, "the stem kernel needs ", smem, " bytes of shared memory; this device allows ", limit);
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
             "cudaFuncSetAttribute");
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) per_sm = 1;
  const int64_t slots = int64_t{sm_count()} * per_sm;
  return static_cast<int>(tiles < slots ? tiles : slots);
}

bool conv_stem_applies(const ConvArgs &a, ConvTypes t) {
  if (!stem_enabled() || a.dir != kConvFwd || !stem_shape_applies(a, t)) return false;
  const StemParams p = stem_params(a);
  return stem_layout(p.K, p.D, p.PH, p.PWC).total <= kMaxBlockSmem;
}

bool conv_stem_wgrad_applies(const ConvArgs &a, ConvTypes t) {
  if (!stem_wgrad_enabled() || a.dir != kConvBwdFilter || !stem_shape_applies(a, t)) return false;
  const StemParams p = stem_params(a);
  return wgrad_smem_bytes(p.K, p.D, p.PH, p.PWC) <= kMaxBlockSmem;
}

size_t conv_stem_wgrad_scratch(const ConvArgs &a, ConvTypes t, int *blocks) {
  const StemParams p = stem_params(a);
  const size_t smem = wgrad_smem_bytes(p.K, p.D, p.PH, p.PWC);
  *blocks = stem_persistent_blocks(reinterpret_cast<const void *>(wgrad_kernel(t, p.K, p.D)), kThreads, smem, p.tiles);
  return size_t(*blocks) * p.K * p.D * sizeof(float);
}

void launch_conv_stem_wgrad(const ConvArgs &a, ConvTypes t, int blocks, void *partials, void *stream) {
  StemParams p = stem_params(a);
  p.x = a.B, p.w = a.A, p.y = a.dst, p.partial = partials;
  p.alpha = static_cast<float>(a.alpha), p.beta = static_cast<float>(a.beta);
  const cudaStream_t s = as_stream(stream);
  const size_t smem = wgrad_smem_bytes(p.K, p.D, p.PH, p.PWC);
  wgrad_kernel(t, p.K, p.D)<<<blocks, kThreads, smem, s>>>(p);
  check_launch("conv_stem_wgrad_kernel");
  const int outs = p.K * p.RSC, fb = (outs + 31) / 32;
  if (t == ConvTypes::f16) conv_stem_wgrad_finalize<half_bits><<<fb, 32 * kFinGroups, 0, s>>>(p, blocks);
  else conv_stem_wgrad_finalize<bf16_bits><<<fb, 32 * kFinGroups, 0, s>>>(p, blocks);
  check_launch("conv_stem_wgrad_finalize");
}

int conv_stem_fwd_blocks(const ConvArgs &a, ConvTypes t) {
  const StemParams p = stem_params(a);
  const size_t smem = stem_layout(p.K, p.D, p.PH, p.PWC).total;
  return stem_persistent_blocks(reinterpret_cast<const void *>(fwd_kernel(t, p.K)), kThreads, smem, p.tiles);
}

void launch_conv_stem_fwd(const ConvArgs &a, ConvTypes t, int blocks, void *stream) {
  StemParams p = stem_params(a);
  p.x = a.A, p.w = a.B, p.y = a.dst;
  p.alpha = static_cast<float>(a.alpha), p.beta = static_cast<float>(a.beta);
  const size_t smem = stem_layout(p.K, p.D, p.PH, p.PWC).total;
  fwd_kernel(t, p.K)<<<blocks, kThreads, smem, as_stream(stream)>>>(p);
  check_launch("conv_stem_fwd_kernel");
}

}  // namespace fdnn::cuda
