// The FLOAT few-channel filter gradient on the FMA units (see
// convolution_narrow_wgrad.hpp):
//
//   dw[k][j] = sum over output pixels p of dy[p][k] * im2col[p][j],
//   j = (c, r, s) of the input-side tap (CONVOLUTION's flip is the
//   finalize's).
//
// 256 threads as 8 (k) x 32 (j) lanes: thread (kg, jg) accumulates k = k0 +
// 8 kg + i (i < 8) and j = jg + 32 m (m < TJ) in registers. A block walks
// its range of output-pixel tiles of kTP = 32 (over N x P, images and rows
// crossed freely); for each tile:
//  - dy's [32 pixels][64 k] slice in shared memory (rows of 64 + 4 floats:
//    16-byte aligned for the two float4 reads of a thread's 8 k; the
//    transposing stores conflict 4-way, 8 of them a tile),
//  - the im2col slice [32 pixels][32 TJ (+1: conflict-free stores)] built
//    from x through a per-j table of offsets (zeros outside the image and
//    past the last pixel),
//  - then per pixel two float4 reads of dy (broadcast in a warp, all of
//    whose lanes share kg), TJ reads of im2col (consecutive j, no conflict)
//    and 8 TJ FMAs.
// The next tile's loads go to registers before the products of this one
// and to shared memory after them. Each block writes its 64 x 32 TJ partial
// to the scratch; the finalize sums the blocks in order into dw (alpha,
// beta; beta = 0 never reads dw).
// H100, x 256 x 3 x 224 x 224 f32 NCHW, 7x7 / 2, K = 64: see docs/perf.md.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/env_words.hpp"
#include "core/error.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/convolution_narrow_wgrad.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTP = 32;       // output pixels per tile
constexpr int kKB = 64;       // k per block (blockIdx.y picks the 64)
constexpr int kDyLd = kKB + 4;
constexpr int kMaxJ = 160;    // C * R * S at most (TJ = 5)

// The im2col table entry of tap column j: x offset of (c, r * dil, s * dil)
// from the pixel's window origin, and the two tap displacements.
struct TapEntry {
  int offset, dh, dw;
};

template <int TJ>
__global__ void __launch_bounds__(kThreads, 2) conv_narrow_wgrad_kernel(const ConvArgs a, float *partial) {
  constexpr int JP = 32 * TJ, kColLd = JP + 1;
  __shared__ __align__(16) float dy_s[kTP][kDyLd];
  __shared__ float col_s[kTP][kColLd];
  __shared__ TapEntry tab[JP];
  const float *__restrict__ dy = static_cast<const float *>(a.A);
  const float *__restrict__ x = static_cast<const float *>(a.B);
  const int tid = threadIdx.x, kg = tid / 32, jg = tid % 32;
  const int k0 = blockIdx.y * kKB;
  const int J = a.Cg * a.T, RS = a.T;
  for (int j = tid; j < JP; j += kThreads) {
    TapEntry e{0, 0, 0};
    if (j < J) {
      const int c = j / RS, t = j % RS, r = t / a.filt[2], s = t % a.filt[2];
      e.dh = r * a.dil[1], e.dw = s * a.dil[2];
      e.offset = c * a.xs[1] + e.dh * a.xs[3] + e.dw * a.xs[4];
    }
    tab[j] = e;
  }
  // This block's tiles.
  const int64_t pixels = int64_t{a.N} * a.P;
  const int tiles = static_cast<int>((pixels + kTP - 1) / kTP);
  const int t_begin = static_cast<int>(int64_t{tiles} * blockIdx.x / gridDim.x);
  const int t_end = static_cast<int>(int64_t{tiles} * (blockIdx.x + 1) / gridDim.x);

  // Loader roles: pixel px = lane, rows kg + 8 i of dy's k and of the j's.
  float dy_r[8], col_r[4 * TJ];
  auto load_tile = [&](int tile) {
    const int64_t p = int64_t{tile} * kTP + jg;
    const bool live = p < pixels;
    uint32_t n = 0, oh = 0, ow = 0;
    if (live) {
      uint32_t rem;
      n = a.d_P.divmod(static_cast<uint32_t>(p), rem);
      oh = a.d_ow.divmod(rem, ow);
    }
    const float *dyp = dy + int64_t{n} * a.ys[0] + int64_t{oh} * a.ys[3] + int64_t{ow} * a.ys[4];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int k = k0 + kg + 8 * i;
      dy_r[i] = (live && k < a.Kg) ? __ldg(dyp + int64_t{k} * a.ys[1]) : 0.f;
    }
    const int h0 = static_cast<int>(oh) * a.str[1] - a.pad[1], w0 = static_cast<int>(ow) * a.str[2] - a.pad[2];
    const float *xp = x + int64_t{n} * a.xs[0] + int64_t{h0} * a.xs[3] + int64_t{w0} * a.xs[4];
#pragma unroll
    for (int i = 0; i < 4 * TJ; ++i) {
      const int j = kg + 8 * i;
      const TapEntry e = tab[j];
      const int h = h0 + e.dh, w = w0 + e.dw;
      const bool in = live && j < J && h >= 0 && h < a.in[1] && w >= 0 && w < a.in[2];
      col_r[i] = in ? __ldg(xp + e.offset) : 0.f;
    }
  };
  auto store_tile = [&] {
#pragma unroll
    for (int i = 0; i < 8; ++i) dy_s[jg][kg + 8 * i] = dy_r[i];
#pragma unroll
    for (int i = 0; i < 4 * TJ; ++i) col_s[jg][kg + 8 * i] = col_r[i];
  };

  float acc[8][TJ];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int m = 0; m < TJ; ++m) acc[i][m] = 0.f;
  __syncthreads();  // the table
  if (t_begin < t_end) {
    load_tile(t_begin);
    store_tile();
  }
  for (int tile = t_begin; tile < t_end; ++tile) {
    __syncthreads();  // this tile stored
    if (tile + 1 < t_end) load_tile(tile + 1);
#pragma unroll 4
    for (int t = 0; t < kTP; ++t) {
      const float4 a0 = *reinterpret_cast<const float4 *>(&dy_s[t][8 * kg]);
      const float4 a1 = *reinterpret_cast<const float4 *>(&dy_s[t][8 * kg + 4]);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      float bv[TJ];
#pragma unroll
      for (int m = 0; m < TJ; ++m) bv[m] = col_s[t][jg + 32 * m];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int m = 0; m < TJ; ++m) acc[i][m] = fmaf(av[i], bv[m], acc[i][m]);
    }
    __syncthreads();  // products done before the next tile overwrites
    if (tile + 1 < t_end) store_tile();
  }
  // Partial [blockIdx.y][blockIdx.x][64][JP]; the thread's k are 8 kg + i
  // (the dy reads above: k offsets 8 kg .. 8 kg + 7).
  float *out = partial + (int64_t{blockIdx.y} * gridDim.x + blockIdx.x) * kKB * JP;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int m = 0; m < TJ; ++m) out[(8 * kg + i) * JP + jg + 32 * m] = acc[i][m];
}

// dw[k][(c, r, s)] = alpha * sum over blocks of the partials + beta * dw,
// the filter's taps reversed for CONVOLUTION.
__global__ void conv_narrow_wgrad_finalize(const ConvArgs a, const float *partial, int blocks, int jp) {
  const int J = a.Cg * a.T;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= a.Kg * J) return;
  const int k = e / J, j = e % J;
  const int g = k / kKB, kk = k % kKB;
  const float *src = partial + (int64_t{g} * blocks * kKB + kk) * jp + j;
  float sum = 0.f;
  for (int b = 0; b < blocks; ++b) sum += src[int64_t{b} * kKB * jp];
  const int c = j / a.T, t = j % a.T, r = t / a.filt[2], s = t % a.filt[2];
  const int rf = a.flip ? a.filt[1] - 1 - r : r, sf = a.flip ? a.filt[2] - 1 - s : s;
  float *dw = static_cast<float *>(a.dst);
  blend_store<float, float>(dw, k * a.ws[0] + c * a.ws[1] + rf * a.ws[3] + sf * a.ws[4], sum,
                            static_cast<float>(a.alpha), static_cast<float>(a.beta));
}

using Kernel = void (*)(const ConvArgs, float *);

int taps_per_lane(const ConvArgs &a) { return (a.Cg * a.T + 31) / 32; }

Kernel kernel_for(int tj) {
  switch (tj) {
    case 3: return conv_narrow_wgrad_kernel<3>;
    case 4: return conv_narrow_wgrad_kernel<4>;
    default: return conv_narrow_wgrad_kernel<5>;
  }
}

}  // namespace

bool conv_narrow_wgrad_applies(const ConvArgs &a, ConvTypes t) {
  if (!env_on("FREEDNN_CONV_NARROW_WGRAD") || t != ConvTypes::f32 || a.dir != kConvBwdFilter) return false;
  if (a.G != 1 || a.Cg > 4 || a.in[0] != 1 || a.filt[0] != 1 || a.out[0] != 1) return false;
  const int J = a.Cg * a.T;
  return J > 64 && J <= kMaxJ;
}

size_t conv_narrow_wgrad_scratch(const ConvArgs &a, int *blocks) {
  const Kernel k = kernel_for(taps_per_lane(a));
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const int kgroups = (a.Kg + kKB - 1) / kKB;
  const int64_t tiles = (int64_t{a.N} * a.P + kTP - 1) / kTP;
  int64_t want = int64_t{sm_count()} * (per_sm < 1 ? 1 : per_sm) / kgroups;
  want = want < 1 ? 1 : want;
  *blocks = static_cast<int>(tiles < want ? tiles : want);
  return size_t(kgroups) * *blocks * kKB * 32 * taps_per_lane(a) * sizeof(float);
}

void launch_conv_narrow_wgrad(const ConvArgs &a, int blocks, void *partials, void *stream) {
  const cudaStream_t s = as_stream(stream);
  const int tj = taps_per_lane(a), kgroups = (a.Kg + kKB - 1) / kKB;
  float *part = static_cast<float *>(partials);
  kernel_for(tj)<<<dim3(blocks, kgroups), kThreads, 0, s>>>(a, part);
  check_launch("conv_narrow_wgrad_kernel");
  const int outs = a.Kg * a.Cg * a.T;
  conv_narrow_wgrad_finalize<<<(outs + 255) / 256, 256, 0, s>>>(a, part, blocks, 32 * tj);
  check_launch("conv_narrow_wgrad_finalize");
}

}  // namespace fdnn::cuda
