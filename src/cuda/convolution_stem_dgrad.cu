// The data gradient of HALF / BFLOAT16 convolutions with few input channels
// (Cg <= 4; the ResNet-50 stem: dx 3 channels, 7x7, stride 2, pad 3, K = 64)
// on the tensor cores. The narrow kernel (convolution_narrow.cu) does the
// same work with one thread per dx pixel on the FMA units.
//
// dx[n][y][x][c] = sum over k and the taps (r, s) with y + ph - r = sh*oy,
// x + pw - s = sw*ox of dy[n][oy][ox][k] * w[k][c][r][s] (the taps reversed
// for CONVOLUTION). The dx pixels split into the stride's classes (y % sh,
// x % sw): every pixel of a class uses the same taps, r = r0 + sh*t, s = s0
// + sw*j, and for 16 pixels of one dx row of a class, x = xb + sw*m, the dy
// pixels of tap (t, j) are 16 consecutive pixels of one dy row (ox = oxb + m
// - j), and dx rows y = yb + sh*i of the class read dy row oyb + i - t: the
// dy row o = i - t serves the pixels of row i through tap t = i - o.
//
// An implicit GEMM per class on mma.sync m16n8k16 (float accumulators): M =
// 16 pixels of a class row, N = 8 columns holding the channels of two
// filter rows of the class (t, t + 1: columns 0 .. C-1 and C .. 2C-1, the
// rest zero: 6 of 8 columns used at C = 3 instead of 3 with one tap per
// mma), reduction = the class's filter columns x k. A block (8 warps) walks
// dx tiles of one image (TH x TW pixels, every class; tiles ordered w, h,
// n) with the filter in shared memory ([tap][c][k], k contiguous; loaded
// once) and the tile's dy patch ([dy row][dy col][k], rows of k padded by 16
// bytes: conflict-free ldmatrix; zeros outside dy) copied with cp.async. A
// warp task is one class, 16 class columns x NR = 8 class rows: per 16 k
// and filter column j it loads the B fragments of the class's filter-row
// pairs (ldmatrix.x4, two pairs each), then per dy row o one A fragment
// (ldmatrix.x4: 16 consecutive dy pixels, each lane addressing its own
// row) that feeds one mma per pair (dx rows o + t, o + t + 1).
// Epilogue: the two halves of the accumulators meet through shuffles;
// alpha * acc (+ beta * dx; dx never read when beta == 0) stored element
// by element at dx's strides (any layout).
// Work of the stem at batch 256: 60.4 GFLOP of products, 104 GFLOP of mma
// issued (25 M m16n8k16), dy 411 MB read (each patch with a halo: ~1.56x
// through L2), dx 77 MB written. Tile 32 x 32 dx pixels (8 tasks), patch
// 20 x 20 dy pixels, 79 KB of shared memory: 2 blocks per multiprocessor.
// FREEDNN_CONV_STEM_DGRAD_BUFS=2 double-buffers the patch (the next tile's
// cp.async during this tile's mma's; 136 KB: 1 block per multiprocessor).
// H100, NHWC, dy 64 x 112 x 112, w 64 x 3 x 7 x 7, stride 2, pad 3 (one
// device run, 2026-11-23, TFLOP/s at 2*N*P*Q*K*C*R*S; NVIDIA cuDNN 9.19's
// best algorithm in the same run): HALF batch 256 63.2 (per-pixel kernel
// 8.2, cuDNN 16.4: 3.9x), batch 32 50.9 (7.2, cuDNN 12.6: 4.0x); BFLOAT16
// batch 256 62.9 (cuDNN 17.0), batch 32 51.6 (cuDNN 13.0). Two patch
// buffers at one block per multiprocessor: 37.1 / 34.5 (HALF, batch 256 /
// 32), so one buffer and two blocks stay the default.
// Not tried yet: taller warp tasks (16 class rows: fewer A fragments per
// mma), a tile staged in shared memory for 16-byte dx stores, tasks
// balanced across warps (the classes' filter columns differ: 4 / 3).
#include "cuda/convolution_stem_dgrad.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda/convolution_stem.hpp"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/mma_sync.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kNR = 8;         // class rows of a warp task
constexpr int kMaxWarps = 8;
constexpr size_t kSmemBudget = 110 * 1024;  // 2 blocks per multiprocessor
constexpr size_t kSmemMax = 200 * 1024;

struct DgradParams {
  const void *dy = nullptr, *w = nullptr;
  void *dx = nullptr;
  int H = 1, W = 1, C = 1, P = 1, Q = 1, K = 1, KP = 16, R = 1, S = 1;
  int sh = 1, sw = 1, ph = 0, pw = 0, flip = 0;
  int yn = 0, yh = 0, yw = 0;           // dy strides: image, row, pixel (k innermost)
  int xn = 0, xc = 0, xh = 0, xw = 0;   // dx strides
  int wk = 0, wc = 0, wr = 0, wsx = 0;  // w strides: k, c, filter row, filter column
  int RG = 1, WT = 1;                   // a tile's row groups (kNR class rows) and column groups (16)
  int TH = 1, TW = 1;                   // a tile's dx rows and columns
  int PR = 1, PC = 1;                   // patch rows and columns (dy pixels)
  int oyb = 0, oxb = 0;                 // floor((ph - R + 1) / sh), floor((pw - S + 1) / sw)
  int tiles_w = 1, tiles_h = 1, tiles = 1;
  int ntasks = 1;
  int nbuf = 1;                         // patch buffers: 2 copies the next tile's during this one's mma's
  float alpha = 1, beta = 0;
};

// TRM: the most filter rows of a class, even (compile time: the accumulator
// rows an A fragment feeds are unrolled). The class's filter rows go to
// the mma's in pairs (t, t + 1) = (2u, 2u + 1): B's columns 0 .. C-1 are
// tap t's channels, C .. 2C-1 tap t + 1's (the rest zero), so that an mma
// of dy row o adds dx row o + t to columns 0 .. C-1 and dx row o + t + 1 to
// columns C .. 2C-1 of accumulator acc[o + t + 1] (rows -1 .. NR-1 shifted
// by one); the epilogue adds acc[i + 1]'s low and acc[i]'s high columns.
template <class TI, int TRM>
__global__ void __launch_bounds__(32 * kMaxWarps, 2) conv_stem_dgrad_kernel(const DgradParams p) {
  constexpr int TRP = TRM / 2;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int LDP = p.KP + 8;  // elements per patch pixel / filter row
  uint16_t *Bs = reinterpret_cast<uint16_t *>(smem_raw);
  uint16_t *zero = Bs + size_t(p.R) * p.S * p.C * LDP;
  uint16_t *patch = zero + LDP;
  const size_t patch_elems = size_t(p.PR) * p.PC * LDP;
  const uint16_t *__restrict__ dy = static_cast<const uint16_t *>(p.dy);
  const uint16_t *__restrict__ w = static_cast<const uint16_t *>(p.w);
  TI *__restrict__ dx = static_cast<TI *>(p.dx);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, nwarps = blockDim.x / 32;

  // The filter, once: Bs[(r*S + s)*C + c][k] (taps reversed for
  // CONVOLUTION), zero for k past K; and the zero row.
  const int taps = p.R * p.S;
  for (int e = tid; e < taps * p.C * p.KP; e += blockDim.x) {
    const int k = e % p.KP, rest = e / p.KP, c = rest % p.C, tap = rest / p.C;
    int r = tap / p.S, s = tap - r * p.S;
    if (p.flip) r = p.R - 1 - r, s = p.S - 1 - s;
    Bs[size_t(tap * p.C + c) * LDP + k] = k < p.K ? w[k * p.wk + c * p.wc + r * p.wr + s * p.wsx] : uint16_t(0);
  }
  for (int e = tid; e < LDP; e += blockDim.x) zero[e] = 0;

  const uint32_t Bs_s = static_cast<uint32_t>(__cvta_generic_to_shared(Bs));
  const uint32_t zero_s = static_cast<uint32_t>(__cvta_generic_to_shared(zero));
  const uint32_t patch_s0 = static_cast<uint32_t>(__cvta_generic_to_shared(patch));
  // The patch copy: thread tid moves the 16-byte vector kv of pixels pix0,
  // pix0 + step, ... (blockDim.x is a multiple of the vectors per pixel).
  const int VP = p.KP / 8, kv = tid % VP, step = blockDim.x / VP, npix = p.PR * p.PC;
  const int step_r = step / p.PC, step_c = step - step_r * p.PC;
  const bool kv_live = kv * 8 < p.K;
  const auto patch_copy = [&](int tile, uint32_t dst) {
    const int twi = tile % p.tiles_w, rest = tile / p.tiles_w;
    const int thi = rest % p.tiles_h, n = rest / p.tiles_h;
    const int oy0 = thi * p.TH / p.sh + p.oyb, ox0 = twi * p.TW / p.sw + p.oxb;
    int pix = tid / VP, pr = pix / p.PC, pc = pix - pr * p.PC;
    const uint16_t *img = dy + size_t(n) * p.yn + kv * 8;
    for (; pix < npix; pix += step) {
      const int oy = oy0 + pr, ox = ox0 + pc;
      const bool valid = kv_live && oy >= 0 && oy < p.P && ox >= 0 && ox < p.Q;
      const uint16_t *src = valid ? img + oy * p.yh + ox * p.yw : dy;
      cp_async16(dst + (pix * LDP + kv * 8) * 2, src, valid);
      pr += step_r, pc += step_c;
      if (pc >= p.PC) pc -= p.PC, ++pr;
    }
    cp_async_commit();
  };
  // ldmatrix lane offsets: A rows m = lane & 15, k halves by lane >> 4.
  const uint32_t a_lane = ((lane & 15) * LDP + (lane >> 4) * 8) * 2;
  // B lanes: matrix bmat = lane >> 3 is pair u + (bmat >> 1), k half bmat &
  // 1; row bn = lane & 7 is channel bn of tap 2u or channel bn - C of tap
  // 2u + 1 (the zero row past 2C).
  const int bmat = lane >> 3, bn = lane & 7;
  const int b_tap = bn >= p.C ? 1 : 0, b_c = bn - b_tap * p.C;
  const bool b_live = bn < 2 * p.C;
  const float alpha = p.alpha, beta = p.beta;
  const int ncls = p.sh * p.sw;
  const bool mirror = nwarps % ncls == 0 && p.ntasks % nwarps == 0;
  const int nbuf = p.nbuf;

  int buf = 0;
  if (nbuf == 2 && int(blockIdx.x) < p.tiles) patch_copy(blockIdx.x, patch_s0);
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const int twi = tile % p.tiles_w, rest = tile / p.tiles_w;
    const int thi = rest % p.tiles_h, n = rest / p.tiles_h;
    const int y0 = thi * p.TH, x0 = twi * p.TW;
    // 1. The dy patch (zeros outside dy and past K): copied now (one
    // buffer) or during the previous tile (two buffers, the next tile's
    // copy goes out behind the barrier).
    const uint32_t patch_s = patch_s0 + uint32_t(buf * patch_elems * 2);
    if (nbuf == 1) patch_copy(tile, patch_s);
    cp_async_wait_all();
    __syncthreads();  // the patch (and, the first time, the filter) in place
    if (nbuf == 2 && tile + int(gridDim.x) < p.tiles)
      patch_copy(tile + gridDim.x, patch_s0 + uint32_t((buf ^ 1) * patch_elems * 2));

    // 2. The warp tasks: task -> (row group, column group, class); where
    // every round of tasks holds whole groups, a warp's odd-numbered tasks
    // take the classes in reverse, so that a warp with two tasks gets a large
    // and a small class.
    for (int task = warp, q = 0; task < p.ntasks; task += nwarps, ++q) {
      int cls = task % ncls;
      const int grp = task / ncls;
      if ((q & 1) && mirror) cls = ncls - 1 - cls;
      const int cy = cls / p.sw, cx = cls - cy * p.sw, rg = grp / p.WT, wt = grp - rg * p.WT;
      const int r0 = (cy + p.ph) % p.sh, s0 = (cx + p.pw) % p.sw;
      const int TR = r0 < p.R ? (p.R - r0 + p.sh - 1) / p.sh : 0;
      const int TS = s0 < p.S ? (p.S - s0 + p.sw - 1) / p.sw : 0;
      // Patch row of (i = 0, t = 0) and column of (m = 0, j = 0).
      const int prow0 = rg * kNR + (cy + p.ph - r0) / p.sh - p.oyb;
      const int pcol0 = wt * 16 + (cx + p.pw - s0) / p.sw - p.oxb;
      float acc[kNR + 1][4];
#pragma unroll
      for (int i = 0; i <= kNR; ++i)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[i][v] = 0.0f;
      for (int kk = 0; kk < p.KP / 16; ++kk) {
        for (int j = 0; j < TS; ++j) {
          const int s = s0 + p.sw * j;
          uint32_t b[TRP][2];
#pragma unroll
          for (int u = 0; u < TRP; u += 2) {
            const int t = 2 * (u + (bmat >> 1)) + b_tap;
            const uint32_t koff = (kk * 16 + (bmat & 1) * 8) * 2;
            const uint32_t addr =
                b_live && t < TR ? Bs_s + uint32_t(((r0 + p.sh * t) * p.S + s) * p.C + b_c) * LDP * 2 + koff
                                 : zero_s + (bmat & 1) * 16;
            uint32_t rr[4];
            if (2 * u < TR) ldmatrix_x4<false>(rr, addr);
            else rr[0] = rr[1] = rr[2] = rr[3] = 0;
            b[u][0] = rr[0], b[u][1] = rr[1];
            if (u + 1 < TRP) b[u + 1][0] = rr[2], b[u + 1][1] = rr[3];
          }
          const uint32_t a_base = patch_s + uint32_t((prow0 * p.PC + pcol0 - j) * LDP) * 2 + a_lane + kk * 32;
          const int a_row = p.PC * LDP * 2;
#pragma unroll
          for (int o = -(TRM - 1); o < kNR; ++o) {
            if (o + TR - 1 < 0) continue;  // no filter row of this class reaches it
            uint32_t a[4];
            ldmatrix_x4<false>(a, a_base + o * a_row);
#pragma unroll
            for (int u = 0; u < TRP; ++u) {
              const int i = o + 2 * u + 1;  // acc row: dx rows i - 1 (low columns) and i (high)
              if (i >= 0 && i <= kNR && 2 * u < TR) mma16816<TI>(acc[i < 0 ? 0 : i > kNR ? kNR : i], a, b[u][0], b[u][1]);
            }
          }
        }
      }
      // 3. Epilogue: lane holds pixels m = lane / 4 (+ 8), columns
      // 2 (lane % 4) + {0, 1}; dx row i, channel c is acc[i + 1] at column
      // c plus acc[i] at column C + c (from the lane holding it).
      const int c0 = 2 * (lane & 3);
      int src[2], sel[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = (p.C + c0 + e) & 7;
        src[e] = (lane & ~3) | (col >> 1), sel[e] = col & 1;
      }
      const int ybase = y0 + rg * kNR * p.sh + cy, xbase = x0 + wt * 16 * p.sw + cx;
      TI *img = dx + size_t(n) * p.xn;
#pragma unroll
      for (int i = 0; i < kNR; ++i) {
        const int y = ybase + p.sh * i;
        if (y >= p.H) break;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float hi[2];
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float v0 = __shfl_sync(0xffffffffu, acc[i][2 * h], src[e]);
            const float v1 = __shfl_sync(0xffffffffu, acc[i][2 * h + 1], src[e]);
            hi[e] = sel[e] ? v1 : v0;
          }
          const int x = xbase + p.sw * ((lane >> 2) + 8 * h);
          if (c0 >= p.C || x >= p.W) continue;
          TI *px = img + y * p.xh + x * p.xw;
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            if (c0 + e >= p.C) continue;
            TI *at = px + (c0 + e) * p.xc;
            float v = alpha * (acc[i + 1][2 * h + e] + hi[e]);
            if (beta != 0.0f) v += beta * Storage<TI>::template load<float>(*at);
            *at = Storage<TI>::store(v);
          }
        }
      }
    }
    // One buffer: every warp's patch reads done before the next copy. Two:
    // the next copy into this buffer follows the next tile's barrier.
    if (nbuf == 1) __syncthreads();
    buf ^= nbuf - 1;
  }
}

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Patch extents and shared memory of a tile of RG x WT groups.
void tile_extents(DgradParams &p) {
  p.TH = p.RG * kNR * p.sh;
  p.TW = p.WT * 16 * p.sw;
  p.oyb = floor_div(p.ph - p.R + 1, p.sh);
  p.oxb = floor_div(p.pw - p.S + 1, p.sw);
  p.PR = floor_div(p.TH - 1 + p.ph, p.sh) - p.oyb + 1;
  p.PC = floor_div(p.TW - 1 + p.pw, p.sw) - p.oxb + 1;
  p.ntasks = p.RG * p.WT * p.sh * p.sw;
}

size_t smem_bytes(const DgradParams &p) {
  const size_t ldp = size_t(p.KP) + 8;
  return (size_t(p.nbuf) * p.PR * p.PC + size_t(p.R) * p.S * p.C + 1) * ldp * 2;
}

// Patch buffers: 1 (two blocks per multiprocessor overlap one's copy with
// the other's mma's) or, with FREEDNN_CONV_STEM_DGRAD_BUFS=2, 2 (one block
// per multiprocessor, the next tile's copy during this tile's mma's).
int patch_buffers() {
  static const int buffers = [] {
    const char *v = std::getenv("FREEDNN_CONV_STEM_DGRAD_BUFS");
    return v != nullptr && std::strcmp(v, "2") == 0 ? 2 : 1;
  }();
  return buffers;
}

// The problem's parameters and tile: doubling the row or column groups
// (the shorter side of the tile first) up to 8 warp tasks while the shared
// memory stays within two blocks per multiprocessor (one with two buffers).
DgradParams dgrad_params(const ConvArgs &a) {
  DgradParams p;
  p.nbuf = patch_buffers();
  const size_t budget = p.nbuf == 2 ? kSmemMax : kSmemBudget;
  p.H = a.in[1], p.W = a.in[2], p.C = a.Cg, p.P = a.out[1], p.Q = a.out[2];
  p.K = a.Kg, p.KP = (a.Kg + 15) / 16 * 16, p.R = a.filt[1], p.S = a.filt[2];
  p.sh = a.str[1], p.sw = a.str[2], p.ph = a.pad[1], p.pw = a.pad[2], p.flip = a.flip;
  p.yn = a.ys[0], p.yh = a.ys[3], p.yw = a.ys[4];
  p.xn = a.xs[0], p.xc = a.xs[1], p.xh = a.xs[3], p.xw = a.xs[4];
  p.wk = a.ws[0], p.wc = a.ws[1], p.wr = a.ws[3], p.wsx = a.ws[4];
  p.RG = 1, p.WT = 1;
  tile_extents(p);
  while (p.ntasks < kMaxWarps) {
    DgradParams rows = p, cols = p;
    rows.RG *= 2;
    cols.WT *= 2;
    tile_extents(rows);
    tile_extents(cols);
    const bool rows_first = p.TH <= p.TW;
    const DgradParams &first = rows_first ? rows : cols, &second = rows_first ? cols : rows;
    if (smem_bytes(first) <= budget) p = first;
    else if (smem_bytes(second) <= budget) p = second;
    else break;
  }
  p.tiles_h = (p.H + p.TH - 1) / p.TH;
  p.tiles_w = (p.W + p.TW - 1) / p.TW;
  p.tiles = a.N * p.tiles_h * p.tiles_w;
  return p;
}

bool stem_dgrad_enabled() {
  const char *v = std::getenv("FREEDNN_CONV_STEM_DGRAD");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// Filter rows of the largest class: ceil(R / sh).
int class_rows(const ConvArgs &a) { return (a.filt[1] + a.str[1] - 1) / a.str[1]; }

using DgradKernel = void (*)(const DgradParams);
template <class TI>
DgradKernel kernel_typed(int trm) {
  return trm <= 4 ? conv_stem_dgrad_kernel<TI, 4> : conv_stem_dgrad_kernel<TI, 8>;
}

}  // namespace

bool conv_stem_dgrad_applies(const ConvArgs &a, ConvTypes t) {
  if (!stem_dgrad_enabled() || a.dir != kConvBwdData) return false;
  if (t != ConvTypes::f16 && t != ConvTypes::bf16) return false;
  if (a.G != 1 || a.Cg > 4) return false;
  if (a.Kg != 16 && a.Kg != 32 && a.Kg != 64 && a.Kg != 128) return false;
  if (a.in[0] != 1 || a.filt[0] != 1 || a.out[0] != 1) return false;
  for (int k = 0; k < 3; ++k)
    if (a.dil[k] != 1) return false;
  if (a.filt[1] > 16 || a.filt[2] > 16 || a.str[1] > 4 || a.str[2] > 4) return false;
  if (class_rows(a) > 8) return false;
  // dy: 16-byte runs of 8 channels at every pixel.
  if (a.ys[1] != 1 || a.ys[4] % 8 != 0 || a.ys[3] % 8 != 0 || a.ys[0] % 8 != 0) return false;
  for (int s : {a.xs[0], a.xs[1], a.xs[3], a.xs[4], a.ws[0], a.ws[1], a.ws[3], a.ws[4]})
    if (s < 0) return false;
  return smem_bytes(dgrad_params(a)) <= kSmemMax;
}

// The kernel for a problem and its threads per block.
DgradKernel dgrad_kernel(const ConvArgs &a, ConvTypes t, const DgradParams &p, int *threads) {
  const int trm = class_rows(a);
  *threads = 32 * (p.ntasks < kMaxWarps ? p.ntasks : kMaxWarps);
  return t == ConvTypes::f16 ? kernel_typed<half_bits>(trm) : kernel_typed<bf16_bits>(trm);
}

int conv_stem_dgrad_blocks(const ConvArgs &a, ConvTypes t) {
  const DgradParams p = dgrad_params(a);
  int threads = 0;
  const DgradKernel kernel = dgrad_kernel(a, t, p, &threads);
  return stem_persistent_blocks(reinterpret_cast<const void *>(kernel), threads, smem_bytes(p), p.tiles);
}

void launch_conv_stem_dgrad(const ConvArgs &a, ConvTypes t, int blocks, void *stream) {
  DgradParams p = dgrad_params(a);
  p.dy = a.A, p.w = a.B, p.dx = a.dst;
  p.alpha = static_cast<float>(a.alpha), p.beta = static_cast<float>(a.beta);
  int threads = 0;
  const DgradKernel kernel = dgrad_kernel(a, t, p, &threads);
  kernel<<<blocks, threads, smem_bytes(p), as_stream(stream)>>>(p);
  check_launch("conv_stem_dgrad_kernel");
}

}  // namespace fdnn::cuda
