// The wgmma filter gradient of 3x3 unit-stride convolutions
// (convolution_wgrad_wgmma.hpp).
//
// Block: 256 threads, two warpgroups. Block tile: 128 Mw k (warpgroup w
// takes rows 64 Mw w.. + 64 Mw - 1, Mw = 1 or 2) x 192 columns (the 3 taps s
// of filter row r x 64 c), reduction over 64 output pixels per stage. A
// stage in shared memory: dy as 2 Mw slabs [64 pixels][64 k] and x as 3
// slabs [64 pixels][64 c], one per tap s (the pixel's x at (p+r-pad_h,
// q+s-pad_w), zero outside), every row 128 bytes with the 128-byte swizzle:
// both operands MN-major, the layout wgmma reads with its transpose flags.
// Loads are 16-byte cp.async with zero-fill (padding, the pixel tail) into
// a ring of 5 (Mw 1) or 4 (Mw 2) stages; each warpgroup keeps one wgmma
// group in flight behind the one it issues.
// (A variant that loaded one x window of 66 rows per stage, shared by the
// taps through descriptor starts one row apart, computed the same results
// with 40% fewer bytes but ran 1.8x slower on the H100: not used.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda/convolution_index.cuh"
#include "cuda/convolution_wgrad_wgmma.hpp"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/storage_types.cuh"
#include "cuda/wgmma_probe.hpp"
#include "cuda/wgmma_sm90.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kPix = 64;                // pixels per stage
constexpr int kSlabBytes = kPix * 128;  // [64 pixels][64 channels] of 16-bit values
// Mw: 64-row blocks of k per warpgroup (block rows 128 Mw). A stage holds
// 2 Mw dy slabs + 3 x slabs; the ring 5 stages (Mw 1) or 4 (Mw 2), + 1024
// bytes to align it (Mw 2: 225 KB of the H100's 227).
__host__ __device__ constexpr int stages_of(int mw) { return mw == 2 ? 4 : 5; }
__host__ __device__ constexpr int stage_bytes(int mw) { return (2 * mw + 3) * kSlabBytes; }
__host__ __device__ constexpr int smem_bytes(int mw) { return stages_of(mw) * stage_bytes(mw) + 1024; }

struct WgmmaArgs {
  const uint16_t *x, *dy;
  float *partial;  // [splits][K][9][C], dw's tap order
  int H, W, C, K, P, Q, pad_h, pad_w, flip;
  int npix, nchunks, splits;
};

// Grid: x = (k block of 128 Mw, filter row r, c block of 64), y = split part.
template <bool Bf16, int Mw>
__global__ void __launch_bounds__(kThreads, 1) wgrad_wgmma_kernel(const WgmmaArgs p) {
#if FREEDNN_WGMMA_COMPILED
  constexpr int kStages = stages_of(Mw), kStageBytes = stage_bytes(Mw), kASlabs = 2 * Mw;
  extern __shared__ unsigned char smem_raw[];
  unsigned char *smem =
      reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  const int tid = threadIdx.x;
  const int wg = tid / 128;
  const int cblocks = p.C / 64;
  int t = blockIdx.x;
  const int cblk = t % cblocks;
  t /= cblocks;
  const int r = t % 3;
  const int k0 = (t / 3) * 128 * Mw, c0 = cblk * 64;
  const int split = blockIdx.y;
  const int ch_begin = static_cast<int>(static_cast<long long>(p.nchunks) * split / p.splits);
  const int ch_end = static_cast<int>(static_cast<long long>(p.nchunks) * (split + 1) / p.splits);
  const int nit = ch_end - ch_begin;
  const uint32_t sbase = wgmma::smem_addr(smem);
  const int PQ = p.P * p.Q;

  auto load_stage = [&](int it) {
    const uint32_t st = sbase + (it % kStages) * kStageBytes;
    const int pix0 = (ch_begin + it) * kPix;
    // x: 3 slabs x 64 rows x 8 chunks of 16 bytes; thread: chunk tid % 8, rows tid / 8 and + 32.
    const int chunk = tid & 7;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int row = (tid >> 3) + 32 * j;
      const int pix = pix0 + row;
      const bool in = pix < p.npix;
      int n = 0, pp = 0, q = 0;
      if (in) {
        n = pix / PQ;
        const int rem = pix - n * PQ;
        pp = rem / p.Q;
        q = rem - pp * p.Q;
      }
      const int h = pp + r - p.pad_h;
      const bool hin = in && h >= 0 && h < p.H;
      const long long rowbase = (static_cast<long long>(n) * p.H + h) * p.W;
#pragma unroll
      for (int s = 0; s < 3; ++s) {
        const int w = q + s - p.pad_w;
        const bool ok = hin && w >= 0 && w < p.W;
        const uint16_t *src = ok ? p.x + (rowbase + w) * p.C + c0 + chunk * 8 : p.x;
        cp_async16(st + (kASlabs + s) * kSlabBytes + wgmma::sw128_offset(row, chunk), src, ok);
      }
    }
    // dy: 2 Mw slabs x 64 rows x 8 chunks; thread: chunk tid % (16 Mw),
    // rows tid / (16 Mw) + (16 / Mw) j.
    constexpr int kChunks = kASlabs * 8, kRowStep = kThreads / kChunks;
    const int cc = tid % kChunks;
#pragma unroll
    for (int j = 0; j < 64 / kRowStep; ++j) {
      const int row = tid / kChunks + kRowStep * j;
      const int pix = pix0 + row;
      const bool ok = pix < p.npix;
      const uint16_t *src = ok ? p.dy + static_cast<long long>(pix) * p.K + k0 + cc * 8 : p.dy;
      cp_async16(st + (cc >> 3) * kSlabBytes + wgmma::sw128_offset(row, cc & 7), src, ok);
    }
  };

  float acc[Mw][96];
#pragma unroll
  for (int m = 0; m < Mw; ++m) {
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[m][i] = 0.f;
    wgmma::pin_registers(acc[m]);
  }

  // Stage it + kStages - 2 is loaded in iteration it, into the buffer of
  // stage it - 2: every warpgroup passed this iteration's barrier after
  // waiting for its wgmmas of stage it - 2 (wait_group<1> one iteration on).
#pragma unroll
  for (int it = 0; it < kStages - 2; ++it) {
    if (it < nit) load_stage(it);
    cp_async_commit();
  }
  for (int it = 0; it < nit; ++it) {
    cp_async_wait<kStages - 3>();
    wgmma::fence_proxy_async();
    __syncthreads();
    if (it + kStages - 2 < nit) load_stage(it + kStages - 2);
    cp_async_commit();
    const uint32_t st = sbase + (it % kStages) * kStageBytes;
    const uint32_t a_base = st + wg * Mw * kSlabBytes, b_base = st + kASlabs * kSlabBytes;
    wgmma::fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)  // 16 pixels (2048 bytes of rows) per wgmma
#pragma unroll
      for (int m = 0; m < Mw; ++m)
        wgmma::mma_m64n192k16_tt<Bf16>(acc[m], wgmma::sw128_desc(a_base + m * kSlabBytes + kk * 2048, kSlabBytes, 1024),
                                       wgmma::sw128_desc(b_base + kk * 2048, kSlabBytes, 1024));
    wgmma::commit_group();
    wgmma::wait_group<1>();
  }
  wgmma::wait_group<0>();

  // Fragment of m64nNk16: lane l of warp w holds rows 16w + l/4 (+8),
  // columns 8j + 2(l%4) (+1) in registers 4j + {0,1} (+{2,3}).
  const int warp = (tid & 127) / 32, lane = tid & 31;
#pragma unroll
  for (int m = 0; m < Mw; ++m) {
    const int krow = k0 + (wg * Mw + m) * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < 24; ++j) {
      const int col = j * 8 + (lane & 3) * 2;
      const int s = col / 64, c = c0 + (col & 63);
      const int tap = p.flip ? 8 - (r * 3 + s) : r * 3 + s;  // CONVOLUTION mode: dw's taps reversed
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int k = krow + 8 * h;
        float *dst = p.partial + ((static_cast<long long>(split) * p.K + k) * 9 + tap) * p.C + c;
        *reinterpret_cast<float2 *>(dst) = make_float2(acc[m][j * 4 + 2 * h], acc[m][j * 4 + 2 * h + 1]);
      }
    }
  }
#endif
}

// dw[e] = alpha * (sum of the parts) + beta * dw[e], 4 elements per thread.
template <class TO>
__global__ void wgrad_wgmma_sum_kernel(const float *__restrict__ partial, int parts, int elems, TO *dw, float alpha,
                                       float beta) {
  const int e = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (e >= elems) return;
  float4 s = *reinterpret_cast<const float4 *>(partial + e);
  for (int q = 1; q < parts; ++q) {
    const float4 v = *reinterpret_cast<const float4 *>(partial + static_cast<long long>(q) * elems + e);
    s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
  }
  blend_store<TO, float>(dw, e, s.x, alpha, beta);
  blend_store<TO, float>(dw, e + 1, s.y, alpha, beta);
  blend_store<TO, float>(dw, e + 2, s.z, alpha, beta);
  blend_store<TO, float>(dw, e + 3, s.w, alpha, beta);
}

// FREEDNN_CONV_WGRAD_WGMMA=0 turns the path off (the mma.sync kernel then
// runs these problems). The library path passed the GPU tests
// (Convolution.WgradWgmma*) on 2026-11-23.
bool switched_on() {
  const char *v = std::getenv("FREEDNN_CONV_WGRAD_WGMMA");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// 64-row blocks of k per warpgroup: 2 (256-row blocks, more reuse of each
// x stage: 256x14 438 TFLOP/s against 358 with 128 rows) where K allows.
int rows_per_warpgroup(const ConvArgs &a) { return a.Kg % 256 == 0 ? 2 : 1; }

WgmmaArgs make_args(const ConvArgs &a, int splits, void *scratch) {
  WgmmaArgs p;
  p.dy = static_cast<const uint16_t *>(a.A);
  p.x = static_cast<const uint16_t *>(a.B);
  p.partial = static_cast<float *>(scratch);
  p.H = a.in[1], p.W = a.in[2], p.C = a.Cg, p.K = a.Kg, p.P = a.out[1], p.Q = a.out[2];
  p.pad_h = a.pad[1], p.pad_w = a.pad[2], p.flip = a.flip;
  p.npix = a.N * a.P;
  p.nchunks = (p.npix + kPix - 1) / kPix;
  p.splits = splits;
  return p;
}

}  // namespace

bool conv_wgrad_wgmma_applies(const ConvArgs &a, ConvTypes t) {
  if (a.dir != kConvBwdFilter || (t != ConvTypes::f16 && t != ConvTypes::bf16) || a.G != 1) return false;
  if (a.Cg % 64 != 0 || a.Kg % 128 != 0) return false;
  if (a.filt[0] != 1 || a.filt[1] != 3 || a.filt[2] != 3 || a.in[0] != 1 || a.pad[0] != 0) return false;
  for (int d = 0; d < 3; ++d)
    if (a.str[d] != 1 || a.dil[d] != 1) return false;
  const int H = a.in[1], W = a.in[2], C = a.Cg, K = a.Kg;
  // Packed NHWC x and dy, packed KRSC dw (strides N/K, C, D, H, W).
  if (a.xs[1] != 1 || a.xs[4] != C || a.xs[3] != W * C || a.xs[0] != H * W * C) return false;
  if (a.ys[1] != 1 || a.ys[4] != K || a.ys[3] != a.out[2] * K || a.ys[0] != a.P * K) return false;
  if (a.ws[1] != 1 || a.ws[4] != C || a.ws[3] != 3 * C || a.ws[0] != 9 * C) return false;
  if (a.out[1] < 1 || a.out[2] < 1) return false;
  return switched_on() && device_runs_wgmma(smem_bytes(2));
}

int conv_wgrad_wgmma_splits(const ConvArgs &a) {
  const int mw = rows_per_warpgroup(a);
  const int64_t tiles = int64_t{a.Cg / 64} * 3 * (a.Kg / (128 * mw));
  const int64_t nchunks = (int64_t{a.N} * a.P + kPix - 1) / kPix;
  const int64_t sms = sm_count();
  const double part_bytes = double(a.Kg) * 9 * a.Cg * 4;
  // The split that minimises an estimate of the time: whole waves of
  // one-block multiprocessors x (the stages of one part + 6 for the ring's
  // fill and the epilogue), a stage ~1 us per 128 rows (~3 TFLOP/s per
  // multiprocessor), plus each part's partials written and read (~3 TB/s).
  // H100, HALF, batch 256 (TFLOP/s by parts, the stand-alone harness of
  // docs/perf-logs-gpu-wgrad-wgmma-2026-11-23.md): 128x28
  // (128 rows) 22: 374, 44: 352; 256x14 (256 rows) 11: 438, 22: 373; 512x7
  // (256 rows) 3: 241, 6: 285. The model picks 22, 11 and 5.
  const double stage_us = 128.0 * mw * 192 * kPix * 2 / 3.0e6, part_us = 2 * part_bytes / 3.0e6;
  int best = 1;
  double best_t = -1;
  for (int64_t s = 1; s <= std::min<int64_t>(nchunks, 512); ++s) {
    if (s > 1 && s * part_bytes > double(size_t{256} << 20)) break;  // the partials stay under 256 MB
    const int64_t waves = (tiles * s + sms - 1) / sms;
    const double t = double(waves) * ((nchunks + s - 1) / s + 6) * stage_us + double(s) * part_us;
    if (best_t < 0 || t < best_t) best_t = t, best = static_cast<int>(s);
  }
  int s = best;
  // FREEDNN_CONV_WGRAD_WGMMA_SPLITS=<n> forces the number of parts (tests,
  // measurements); parts past the pixel chunks run empty and write zeros.
  if (const char *v = std::getenv("FREEDNN_CONV_WGRAD_WGMMA_SPLITS"); v != nullptr && std::atoi(v) > 0)
    s = std::min(std::atoi(v), 4096);
  return s;
}

size_t conv_wgrad_wgmma_scratch(const ConvArgs &a, int splits) {
  return static_cast<size_t>(splits) * a.Kg * 9 * a.Cg * 4;
}

void launch_conv_wgrad_wgmma(const ConvArgs &a, ConvTypes t, int splits, void *scratch, void *stream) {
  const WgmmaArgs p = make_args(a, splits, scratch);
  const int mw = rows_per_warpgroup(a);
  const dim3 grid((a.Cg / 64) * 3 * (a.Kg / (128 * mw)), splits);
  const bool bf16 = t == ConvTypes::bf16;
  auto kernel = mw == 2 ? (bf16 ? wgrad_wgmma_kernel<true, 2> : wgrad_wgmma_kernel<false, 2>)
                        : (bf16 ? wgrad_wgmma_kernel<true, 1> : wgrad_wgmma_kernel<false, 1>);
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes(mw)),
             "cudaFuncSetAttribute");
  kernel<<<grid, kThreads, smem_bytes(mw), as_stream(stream)>>>(p);
  check_launch("wgrad_wgmma_kernel");
  const int elems = a.Kg * 9 * a.Cg;  // a multiple of 4 (C % 64 == 0)
  const int blocks = (elems / 4 + 255) / 256;
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  if (bf16)
    wgrad_wgmma_sum_kernel<bf16_bits><<<blocks, 256, 0, as_stream(stream)>>>(
        p.partial, splits, elems, static_cast<bf16_bits *>(a.dst), alpha, beta);
  else
    wgrad_wgmma_sum_kernel<half_bits><<<blocks, 256, 0, as_stream(stream)>>>(p.partial, splits, elems,
                                                                         static_cast<half_bits *>(a.dst), alpha, beta);
  check_launch("wgrad_wgmma_sum_kernel");
}

}  // namespace fdnn::cuda
