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
// 0.72x), batch 32 54.9 (34.9, cuDNN 64.4: 0.85x). Compiled for 3 blocks
// per multiprocessor (FREEDNN_CONV_STEM_OCC=3: 80 registers, a few bytes
// of spills): 75.3 and 57.9 (0.77x, 0.90x) in the same run; the 2-block
// form stays the default because the GPU tests ran on it.
// Not tried yet: the filter's B fragments kept in registers (ldmatrix
// traffic halved), paired 32-bit patch reads, cp.async / TMA patch loads.
#include "cuda/convolution_stem.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda/cuda_util.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTH = 8, kTW = 16, kTP = kTH * kTW;  // output tile: rows x columns = pixels
constexpr int kMaxDepth = 256;                     // D / 2 pairs <= 4 per lane
constexpr size_t kMaxPatchBytes = 24 * 1024;
constexpr int kPF = 12;                            // prefetched patch elements per thread

struct StemParams {
  const void *x = nullptr, *w = nullptr;
  void *y = nullptr;
  int Hi = 1, Wi = 1, C = 1, Ho = 1, Wo = 1, R = 1, S = 1, K = 1;
  int sh = 1, sw = 1, ph = 0, pw = 0, flip = 0;
  int xn = 0, xh = 0;                  // x strides (elements): image, row (pixels packed, c innermost)
  int yn = 0, yh = 0;                  // y strides: image, row (pixels packed, k innermost)
  int wk = 0, wc = 0, wr = 0, wsx = 0;  // w strides: k, c, filter row, filter column
  int D = 16, RSC = 1, SC = 1;          // depth (padded to 16), real depth, S*C
  int PH = 1, PWC = 1;                  // patch rows, elements per patch row
  int tiles_w = 1, tiles_h = 1, tiles = 1;
  float alpha = 1, beta = 0;
};

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

__device__ inline void ldsm_x4(uint32_t (&r)[4], uint32_t saddr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(saddr));
}

template <class TI>
__device__ inline void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);
template <>
__device__ inline void mma_16816<half_bits>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ inline void mma_16816<bf16_bits>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
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
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int j = 2 * (lane + 32 * t);
    const int r0 = j / p.SC, r1 = (j + 1) / p.SC;
    off0[t] = j < p.RSC ? r0 * p.PWC + (j - r0 * p.SC) : -1;
    off1[t] = j + 1 < p.RSC ? r1 * p.PWC + (j + 1 - r1 * p.SC) : -1;
  }
  const int pairs = p.D / 2;
  const int wm = (warp % WARPS_M) * 32, wn = (warp / WARPS_M) * WN;
  const uint32_t As_s = static_cast<uint32_t>(__cvta_generic_to_shared(As));
  const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));
  const int patch_elems = p.PH * p.PWC;
  const int row_limit = p.Wi * p.C;
  const float alpha = p.alpha, beta = p.beta;

  // The patch of a tile: element e (row e / PWC) of image n, output
  // origin (oh0, ow0); zeros outside the image.
  const auto patch_elem = [&](int n, int oh0, int ow0, int e) -> uint16_t {
    const int pr = e / p.PWC, q = e - pr * p.PWC;
    const int ih = oh0 * p.sh - p.ph + pr, iq = (ow0 * p.sw - p.pw) * p.C + q;
    if (ih < 0 || ih >= p.Hi || iq < 0 || iq >= row_limit) return 0;
    return x[size_t(n) * p.xn + ih * p.xh + iq];
  };
  const auto tile_origin = [&](int tile, int &n, int &oh0, int &ow0) {
    const int tw = tile % p.tiles_w, rest = tile / p.tiles_w;
    const int th = rest % p.tiles_h;
    n = rest / p.tiles_h, oh0 = th * kTH, ow0 = tw * kTW;
  };
  // Patches of up to kPF elements per thread are prefetched into registers
  // during the previous tile's mma's and epilogue; larger ones load in place.
  const bool prefetch = patch_elems <= kPF * kThreads;
  uint16_t pf[kPF];
  if (prefetch && blockIdx.x < p.tiles) {
    int n, oh0, ow0;
    tile_origin(blockIdx.x, n, oh0, ow0);
#pragma unroll
    for (int i = 0; i < kPF; ++i) {
      const int e = tid + i * kThreads;
      pf[i] = e < patch_elems ? patch_elem(n, oh0, ow0, e) : uint16_t(0);
    }
  }

  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    int n, oh0, ow0;
    tile_origin(tile, n, oh0, ow0);
    // 1. The input patch.
    if (prefetch) {
#pragma unroll
      for (int i = 0; i < kPF; ++i) {
        const int e = tid + i * kThreads;
        if (e < patch_elems) patch[e] = pf[i];
      }
    } else {
      for (int e = tid; e < patch_elems; e += kThreads) patch[e] = patch_elem(n, oh0, ow0, e);
    }
    __syncthreads();
    // 2. The im2col tile: warp `warp` fills pixels warp*16 .. +15.
    for (int i = 0; i < kTP / 8; ++i) {
      const int px = warp * (kTP / 8) + i;
      const int base = (px / kTW) * p.sh * p.PWC + (px % kTW) * p.sw * p.C;
      uint32_t *arow = reinterpret_cast<uint32_t *>(As + px * LD);
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int jp = lane + 32 * t;
        if (jp < pairs) {
          const uint32_t v0 = off0[t] >= 0 ? patch[base + off0[t]] : 0u;
          const uint32_t v1 = off1[t] >= 0 ? patch[base + off1[t]] : 0u;
          arow[jp] = v0 | (v1 << 16);
        }
      }
    }
    __syncthreads();
    // The next tile's patch, in flight during this tile's GEMM and epilogue.
    if (prefetch && tile + int(gridDim.x) < p.tiles) {
      int n2, oh2, ow2;
      tile_origin(tile + gridDim.x, n2, oh2, ow2);
#pragma unroll
      for (int i = 0; i < kPF; ++i) {
        const int e = tid + i * kThreads;
        pf[i] = e < patch_elems ? patch_elem(n2, oh2, ow2, e) : uint16_t(0);
      }
    }
    // 3. The GEMM: [128 x D] x [D x KB].
    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;
    const int ksteps = p.D / 16;
    for (int ks = 0; ks < ksteps; ++ks) {
      uint32_t fa[FM][4], fb[FN][2];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int row = wm + i * 16 + (lane & 15), col = ks * 16 + (lane >> 4) * 8;
        ldsm_x4(fa[i], As_s + (row * LD + col) * 2);
      }
#pragma unroll
      for (int jj = 0; jj < FN / 2; ++jj) {
        uint32_t r[4];
        const int nrow = wn + jj * 16 + (lane & 7) + ((lane >> 4) << 3), col = ks * 16 + ((lane >> 3) & 1) * 8;
        ldsm_x4(r, Bs_s + (nrow * LD + col) * 2);
        fb[2 * jj][0] = r[0];
        fb[2 * jj][1] = r[1];
        fb[2 * jj + 1][0] = r[2];
        fb[2 * jj + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) mma_16816<TI>(acc[i][j], fa[i], fb[j][0], fb[j][1]);
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
  return p;
}

bool stem_enabled() {
  const char *v = std::getenv("FREEDNN_CONV_STEM");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// Blocks per multiprocessor the kernel is compiled for: 2 (up to 128
// registers, no spills) or, with FREEDNN_CONV_STEM_OCC=3, 3 (80 registers,
// a few bytes of spills; the shared memory of the 7x7 C = 3 stem, 69 KB a
// block, allows 3).
bool stem_occ3() {
  static const bool v = [] {
    const char *e = std::getenv("FREEDNN_CONV_STEM_OCC");
    return e != nullptr && std::strcmp(e, "3") == 0;
  }();
  return v;
}

template <class TI, int KB>
void launch_typed(const StemParams &p, cudaStream_t s) {
  const StemLayout l = stem_layout(KB, p.D, p.PH, p.PWC);
  auto kernel = stem_occ3() ? conv_stem_fwd_kernel<TI, KB, 3> : conv_stem_fwd_kernel<TI, KB, 2>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.total)),
             "cudaFuncSetAttribute");
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, l.total),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) per_sm = 1;
  const int64_t slots = int64_t{sm_count()} * per_sm;
  const int blocks = static_cast<int>(p.tiles < slots ? p.tiles : slots);
  kernel<<<blocks, kThreads, l.total, s>>>(p);
  check_launch("conv_stem_fwd_kernel");
}

}  // namespace

bool conv_stem_applies(const ConvArgs &a, ConvTypes t) {
  if (!stem_enabled()) return false;
  if (a.dir != kConvFwd || (t != ConvTypes::f16 && t != ConvTypes::bf16)) return false;
  if (a.G != 1 || a.Cg > 4 || (a.Kg != 32 && a.Kg != 64)) return false;
  if (a.in[0] != 1 || a.filt[0] != 1 || a.out[0] != 1) return false;
  for (int k = 0; k < 3; ++k)
    if (a.dil[k] != 1) return false;
  if (a.filt[1] > 7 || a.filt[2] > 7) return false;
  if (a.xs[1] != 1 || a.xs[4] != a.Cg) return false;
  if (a.ys[1] != 1 || a.ys[4] != a.Kg || a.ys[3] % 8 != 0 || a.ys[0] % 8 != 0) return false;
  const StemParams p = stem_params(a);
  if (p.D > kMaxDepth || size_t(p.PH) * p.PWC * 2 > kMaxPatchBytes) return false;
  return stem_layout(p.K, p.D, p.PH, p.PWC).total <= 200 * 1024;
}

void launch_conv_stem_fwd(const ConvArgs &a, ConvTypes t, void *stream) {
  StemParams p = stem_params(a);
  p.x = a.A, p.w = a.B, p.y = a.dst;
  p.alpha = static_cast<float>(a.alpha), p.beta = static_cast<float>(a.beta);
  const cudaStream_t s = as_stream(stream);
  const bool f16 = t == ConvTypes::f16;
  if (p.K == 64) {
    if (f16) launch_typed<half_bits, 64>(p, s);
    else launch_typed<bf16_bits, 64>(p, s);
  } else {
    if (f16) launch_typed<half_bits, 32>(p, s);
    else launch_typed<bf16_bits, 32>(p, s);
  }
}

}  // namespace fdnn::cuda
