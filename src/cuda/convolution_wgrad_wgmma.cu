// The wgmma filter gradient of 3x3 unit-stride convolutions
// (convolution_wgrad_wgmma.hpp) as a GEMM: rows = output channels k,
// columns = (the 3 taps s of one filter row r) x 64 input channels c, the
// reduction over output pixels in stages of 64 (or of 112 in whole rows:
// row windows, below).
//
// Block: 384 threads, persistent over work units (a tile of KB rows x 192
// columns and one split part of the pixels; units of one part are
// neighbours, so the blocks running at once read the same pixels).
// Warpgroup 0 produces: one thread loads dy's KB/64 slabs [64 pixels][64 k]
// with tensor-map copies and x's 3 slabs [64 pixels][64 c], one per tap s
// (the pixel's x at (p+r-pad_h, q+s-pad_w), zero outside), with im2col
// tensor-map copies. (Without the im2col encoder, or with
// FREEDNN_CONV_WGRAD_WGMMA_IM2COL=0, all 128 threads gather x's slabs with
// 16-byte cp.async through L1 instead. H100, f16 batch 256, the harness,
// device run 9 of 2026-11-24, TFLOP/s gather -> im2col copies: 64x56
// 309 -> 388, 128x28 432 -> 625, 256x14 597 -> 657, 512x7 466 -> 561.)
// Row windows, where Q divides 112 and Q % 8 == 0 (ResNet-50's 64x56): a
// stage is 112 / Q whole output rows, and x comes as one window per row
// (the Q + 2 input columns its 3 taps read) instead of 3 slabs; B's tap
// blocks are the window shifted by one 128-byte row each (descriptor lbo
// 128). Per 64 pixels that loads 16.6 KB instead of 32 KB; H100, f16
// 64x56, the harness, device runs 1-2 of
// docs/perf-logs-gpu-wgrad-64x56-2026-11-24.md, TFLOP/s 64-pixel stages ->
// windows: batch 256 368-383 -> 572-578 (cuDNN 403-429), batch 32 200-208
// -> 245-248. FREEDNN_CONV_WGRAD_WGMMA_ROWS=0 turns them off.
// Every row is 128 bytes with the 128-byte swizzle: both operands MN-major,
// the layout m64n192k16 reads with its transpose flags. A stage is full
// when its mbarrier has seen every producer thread's copies and the tensor
// copies' bytes. Warpgroups 1 and 2 consume: with KB = 128 or 256
// each takes its KB/2 rows of every stage; with KB = 64 they take the
// stages in turn, each summing its own half of the part's pixels (two
// partials per part). A consumer keeps one wgmma group in flight and hands
// the stage before back through an "empty" mbarrier; the producer runs on
// into the next unit while the consumers store the last one.
//
// Each unit writes float partials to the scratch; a second kernel sums the
// partials into dw as alpha * sum + beta * dw (beta = 0 never reads dw),
// launched as a programmatic dependent of the first (its launch overlaps
// the first's end), with up to 8 warps splitting many parts (64x56's 88).
// H100, the harness, f16, TFLOP/s at batch 256 / 32, one thread per 4
// elements over every part after the main kernel (device run 5 of
// docs/perf-logs-gpu-wgrad-64x56-2026-11-24.md) -> this (run 7): 64x56
// 581-585 -> 620-622 / 245-253 -> 326-330 (the sum alone 9.1 -> 4.6 us),
// 128x28 626-629 -> 627-629 / 307-311 -> 329-331, 256x14 638-649 ->
// 656-661 / 252-256 -> 261-263, 512x7 592-600 -> 603 / 241 -> 247-250.
#include <cuda.h>  // CUtensorMap (types only)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/env_words.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/convolution_wgrad_wgmma.hpp"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/launch_dependent.cuh"
#include "cuda/storage_types.cuh"
#include "cuda/tensor_map.hpp"
#include "cuda/wgmma_probe.hpp"
#include "cuda/wgmma_sm90.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 384;           // producer warpgroup + 2 consumer warpgroups
constexpr int kPix = 64;                // pixels per stage
constexpr int kSlabBytes = kPix * 128;  // [64 pixels][64 channels] of 16-bit values
constexpr int kMaxStages = 8;
constexpr int kWinPix = 112, kWinSteps = kWinPix / 16;  // a row-window stage's pixels (Q divides it)
constexpr int kSmemLimit = 227 * 1024;  // the H100's opt-in shared memory per block

// A stage: KB/64 dy slabs + 3 x slabs.
__host__ __device__ constexpr int stage_bytes(int kb) { return (kb / 64 + 3) * kSlabBytes; }
// + 1024 bytes to align the ring to the swizzle atom.
__host__ __device__ constexpr int smem_bytes(int kb, int stages) { return stages * stage_bytes(kb) + 1024; }
// Partials per split part: the two consumers of KB = 64 sum separately.
__host__ __device__ constexpr int parts_per_split(int kb) { return kb == 64 ? 2 : 1; }

struct WgradArgs {
  const uint16_t *x;  // dy comes through the tensor map
  float *partial;     // [parts][K][9][C], dw's tap order
  int N, H, W, C, K, P, Q, pad_h, pad_w, flip;
  int adv_p, adv_q;  // 64 pixels = adv_p output rows + adv_q pixels
  int npix, nchunks, splits;
  int cblocks, ntiles, nunits;  // tiles: (k block, r, c block), c block fastest
  // Stream-K (splits == kWgradStreamK): block b of the grid takes the
  // (tile, chunk) pairs [b T / B, (b+1) T / B) of T = ntiles * nchunks in
  // tile-major order, as runs of one tile's chunks (segments); a tile's
  // segments write parts 0, 1, .. in block order (see first_block).
  int stream_k;
  int blocks;  // the grid (grid_blocks)
  int stages;
  int x_via_l1;  // cp.async.ca (through L1) for x rather than .cg
  // x's 3 slabs by the copy engine's im2col copies (one thread issues every
  // copy of a stage) rather than the 128 producer threads' cp.async gather.
  int x_via_tma;
  // Row windows (rows > 0): a stage is `rows` whole output rows (spos =
  // rows * Q pixels), dy's slabs [spos][64 k] dy_slab bytes apart, then one
  // x window per row: the Q + 2 input columns the row's 3 taps read (zeros
  // outside), win_bytes apart. Tap s of the row's pixel q is window row q + s.
  int rows, spos, dy_slab, win_bytes, stage_bytes;
};

// A unit's tile and pixel chunks.
struct Unit {
  int k0, r, c0, split, ch_begin, ch_end;
};

// Tile t of the (k block, r, c block) order, c block fastest.
__host__ __device__ __forceinline__ Unit tile_of(const WgradArgs &p, int t, int kb) {
  Unit w;
  const int cblk = t % p.cblocks;
  t /= p.cblocks;
  w.r = t % 3;
  w.k0 = (t / 3) * kb, w.c0 = cblk * 64;
  return w;
}

// Stream-K: the first block of `blocks` whose range holds a chunk of tile t
// (the block of pair t * nchunks: b(i) = floor(((i + 1) B - 1) / T)).
__host__ __device__ __forceinline__ int first_block(const WgradArgs &p, long long t, int blocks) {
  const long long total = static_cast<long long>(p.ntiles) * p.nchunks;
  return static_cast<int>(((t * p.nchunks + 1) * blocks - 1) / total);
}
__host__ __device__ __forceinline__ int last_block(const WgradArgs &p, long long t, int blocks) {
  const long long total = static_cast<long long>(p.ntiles) * p.nchunks;
  return static_cast<int>((((t + 1) * p.nchunks) * blocks - 1) / total);
}

// A block's walk over its units: split parts u = blockIdx.x, + gridDim.x,
// .., or (stream-K) its range's segments.
struct UnitWalk {
  long long pos, end;  // the next unit (pair for stream-K) and the end
};

__device__ __forceinline__ UnitWalk start_walk(const WgradArgs &p) {
  if (!p.stream_k) return {blockIdx.x, p.nunits};
  const long long total = static_cast<long long>(p.ntiles) * p.nchunks;
  return {total * blockIdx.x / gridDim.x, total * (blockIdx.x + 1) / gridDim.x};
}

// Split part u / ntiles of tile u % ntiles (split mode).
__device__ __forceinline__ Unit unit_of(const WgradArgs &p, int u, int kb) {
  const int split = u / p.ntiles;
  Unit w = tile_of(p, u - split * p.ntiles, kb);
  w.split = split;
  w.ch_begin = static_cast<int>(static_cast<long long>(p.nchunks) * split / p.splits);
  w.ch_end = static_cast<int>(static_cast<long long>(p.nchunks) * (split + 1) / p.splits);
  return w;
}

// The block's next unit into w, or false at the end of its walk.
__device__ __forceinline__ bool next_unit(const WgradArgs &p, UnitWalk &walk, int kb, Unit &w) {
  if (walk.pos >= walk.end) return false;
  if (!p.stream_k) {
    w = unit_of(p, static_cast<int>(walk.pos), kb);
    walk.pos += gridDim.x;
    return true;
  }
  const long long t = walk.pos / p.nchunks, tile_end = (t + 1) * p.nchunks;
  w = tile_of(p, static_cast<int>(t), kb);
  w.ch_begin = static_cast<int>(walk.pos - t * p.nchunks);
  w.ch_end = static_cast<int>((walk.end < tile_end ? walk.end : tile_end) - t * p.nchunks);
  w.split = static_cast<int>(blockIdx.x) - first_block(p, t, gridDim.x);
  walk.pos = walk.end < tile_end ? walk.end : tile_end;
  return true;
}

#if FREEDNN_WGMMA_COMPILED
// Output pixel `pix` as (image n, row pp, column q).
__device__ __forceinline__ void decode_pixel(const WgradArgs &p, int pix, int &n, int &pp, int &q) {
  const int PQ = p.P * p.Q;
  n = pix / PQ;
  const int rem = pix - n * PQ;
  pp = rem / p.Q;
  q = rem - pp * p.Q;
}

// The pixel kPix = adv_p rows + adv_q pixels on, without divisions (the
// producers step every stage).
__device__ __forceinline__ void advance_pixel(const WgradArgs &p, int &n, int &pp, int &q) {
  q += p.adv_q, pp += p.adv_p;
  if (q >= p.Q) q -= p.Q, ++pp;
  while (pp >= p.P) pp -= p.P, ++n;
}

// The box of a 4-D tiled tensor map (the x windows' map: channels, W, H,
// N) at (c, w, h, n) into shared memory at dst, completing on bar; box
// elements outside the tensor read zeros.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const void *tensor_map, int c, int w, int h, int n,
                                            uint64_t *bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(wgmma::smem_addr(bar))
      : "memory");
}

// The producer warpgroup: every stage of every unit of this block into the ring.
template <int KB>
__device__ __forceinline__ void produce(const WgradArgs &p, const CUtensorMap &dymap, uint32_t ring, uint64_t *full,
                                        uint64_t *empty) {
  constexpr int kStageBytes = stage_bytes(KB), kDySlabs = KB / 64;
  const int tid = threadIdx.x;                 // 0..127
  const int chunk = tid & 7, row0 = tid >> 3;  // rows row0 + 16 j, 16-byte chunk `chunk`
  int stage = 0;
  unsigned phase = 0;
  bool wrapped = false;  // a full round has been produced: wait for empties
  UnitWalk walk = start_walk(p);
  for (Unit w; next_unit(p, walk, KB, w);) {
    // This thread's 4 rows as pixels (n, pp, q), decoded once per unit and
    // then advanced 64 pixels a stage without divisions: the producer is
    // one warp per scheduler, so its instructions per stage bound the rate.
    int n[4], pp[4], q[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) decode_pixel(p, w.ch_begin * kPix + row0 + 16 * j, n[j], pp[j], q[j]);
    // Offsets of the 3 taps s of filter row r from a pixel's own x row.
    int tap_off[3];
#pragma unroll
    for (int s = 0; s < 3; ++s) tap_off[s] = ((w.r - p.pad_h) * p.W + s - p.pad_w) * p.C + w.c0 + chunk * 8;
    for (int ch = w.ch_begin; ch < w.ch_end; ++ch) {
      if (wrapped) wgmma::mbar_wait(&empty[stage], phase ^ 1);
      const uint32_t st = ring + stage * kStageBytes;
      if (tid == 0) {
        wgmma::mbar_arrive_expect_tx(&full[stage], kDySlabs * kSlabBytes);
#pragma unroll
        for (int s = 0; s < kDySlabs; ++s)
          wgmma::tma_load_2d(st + s * kSlabBytes, &dymap, w.k0 + 64 * s, ch * kPix, &full[stage]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int row = row0 + 16 * j;
        // Rows past the last pixel (n = N) read zeros.
        const bool hin = n[j] < p.N && static_cast<unsigned>(pp[j] + w.r - p.pad_h) < static_cast<unsigned>(p.H);
        const long long base = (static_cast<long long>(n[j] * p.H + pp[j]) * p.W + q[j]) * p.C;
#pragma unroll
        for (int s = 0; s < 3; ++s) {
          const bool ok = hin && static_cast<unsigned>(q[j] + s - p.pad_w) < static_cast<unsigned>(p.W);
          const uint16_t *src = ok ? p.x + (base + tap_off[s]) : p.x;
          const uint32_t dst = st + (kDySlabs + s) * kSlabBytes + wgmma::sw128_offset(row, chunk);
          if (p.x_via_l1)
            cp_async16_ca(dst, src, ok);
          else
            cp_async16(dst, src, ok);
        }
        advance_pixel(p, n[j], pp[j], q[j]);  // the next stage's
      }
      wgmma::mbar_arrive_on_cp_async(&full[stage]);
      if (++stage == p.stages) stage = 0, phase ^= 1, wrapped = true;
    }
  }
  cp_async_wait_all();
}

// The copy-engine form (p.x_via_tma): thread 0 alone issues each stage's
// copies: dy's slabs as tiled boxes, x's 3 slabs as im2col copies (64
// pixels from the stage's first pixel's window origin, tap (r, s) as the
// offsets; the copy walks on across rows and images and reads zeros past
// the last image), all completing on the stage's full barrier.
template <int KB>
__device__ __forceinline__ void produce_tma(const WgradArgs &p, const CUtensorMap &dymap, const CUtensorMap &xmap,
                                            uint32_t ring, uint64_t *full, uint64_t *empty) {
  constexpr int kStageBytes = stage_bytes(KB), kDySlabs = KB / 64;
  if (threadIdx.x != 0) return;
  int stage = 0;
  unsigned phase = 0;
  bool wrapped = false;
  UnitWalk walk = start_walk(p);
  for (Unit w; next_unit(p, walk, KB, w);) {
    int n, pp, q;
    decode_pixel(p, w.ch_begin * kPix, n, pp, q);
    for (int ch = w.ch_begin; ch < w.ch_end; ++ch) {
      if (wrapped) wgmma::mbar_wait(&empty[stage], phase ^ 1);
      const uint32_t st = ring + stage * kStageBytes;
      wgmma::mbar_arrive_expect_tx(&full[stage], (kDySlabs + 3) * kSlabBytes);
#pragma unroll
      for (int s = 0; s < kDySlabs; ++s)
        wgmma::tma_load_2d(st + s * kSlabBytes, &dymap, w.k0 + 64 * s, ch * kPix, &full[stage]);
#pragma unroll
      for (int s = 0; s < 3; ++s)
        wgmma::tma_load_im2col_4d(st + (kDySlabs + s) * kSlabBytes, &xmap, w.c0, q - p.pad_w, pp - p.pad_h, n,
                                  static_cast<uint16_t>(s), static_cast<uint16_t>(w.r), &full[stage]);
      advance_pixel(p, n, pp, q);  // the next stage's first pixel
      if (++stage == p.stages) stage = 0, phase ^= 1, wrapped = true;
    }
  }
}

// The row-window form (p.rows > 0): thread 0 issues each stage's copies:
// dy's slabs as tiled boxes of spos pixels, then one box of Q + 2 columns x
// 64 channels per output row (its x row p + r - pad_h from column -pad_w;
// rows past the last image, above or below the image and the columns
// outside read zeros). A window serves the row's 3 taps, so x costs
// (Q + 2) / Q of a slab per stage instead of 3 slabs.
template <int KB>
__device__ __forceinline__ void produce_rows(const WgradArgs &p, const CUtensorMap &dymap, const CUtensorMap &xmap,
                                             uint32_t ring, uint64_t *full, uint64_t *empty) {
  constexpr int kDySlabs = KB / 64;
  if (threadIdx.x != 0) return;
  const unsigned bytes = (kDySlabs * p.spos + p.rows * (p.Q + 2)) * 128;
  int stage = 0;
  unsigned phase = 0;
  bool wrapped = false;
  UnitWalk walk = start_walk(p);
  for (Unit w; next_unit(p, walk, KB, w);) {
    const int g = w.ch_begin * p.rows;  // the unit's first output row (n P + pp)
    int n = g / p.P, pp = g - n * p.P;
    for (int ch = w.ch_begin; ch < w.ch_end; ++ch) {
      if (wrapped) wgmma::mbar_wait(&empty[stage], phase ^ 1);
      const uint32_t st = ring + stage * p.stage_bytes;
      wgmma::mbar_arrive_expect_tx(&full[stage], bytes);
#pragma unroll
      for (int s = 0; s < kDySlabs; ++s)
        wgmma::tma_load_2d(st + s * p.dy_slab, &dymap, w.k0 + 64 * s, ch * p.spos, &full[stage]);
      const uint32_t xs = st + kDySlabs * p.dy_slab;
      for (int j = 0; j < p.rows; ++j) {
        tma_load_4d(xs + j * p.win_bytes, &xmap, w.c0, -p.pad_w, pp + w.r - p.pad_h, n, &full[stage]);
        if (++pp == p.P) pp = 0, ++n;
      }
      if (++stage == p.stages) stage = 0, phase ^= 1, wrapped = true;
    }
  }
}

// A consumer warpgroup (wg 0 or 1).
template <bool Bf16, int KB, bool Win>
__device__ __forceinline__ void consume(const WgradArgs &p, uint32_t ring, uint64_t *full, uint64_t *empty, int wg) {
  constexpr int kStageBytes = stage_bytes(KB), kDySlabs = KB / 64;
  constexpr int kM = KB == 256 ? 2 : 1;  // 64-row blocks per consumer
  const int warp = (threadIdx.x / 32) & 3, lane = threadIdx.x & 31;
  float acc[kM][96];
  int stage = 0, prev = -1;
  unsigned phase = 0;
  int turn = 0;  // KB = 64: the stage's consumer
  // Row windows: step kk's first pixel 16 kk lies in window row = 16 kk / Q
  // at column q0 = 16 kk % Q: B starts b_off bytes into the stage's
  // windows. B's three 64-column blocks (taps s) are the window shifted by
  // s rows, so their stride (lbo) is one 128-byte row; the start then lies
  // inside a swizzle atom, which reads right because the swizzle follows
  // the address bits (see sw128_desc). The step's second group of 8 pixels
  // lies b_sbo bytes on: the next 8 rows of the window, or (Q % 8 == 0)
  // the start of the next row's window. (Worked out once: a loop of
  // run-time length around the wgmmas makes ptxas fence between them.)
  uint32_t b_off[Win ? kWinSteps : 1], b_sbo[Win ? kWinSteps : 1];
  if constexpr (Win) {
#pragma unroll
    for (int kk = 0; kk < kWinSteps; ++kk) {
      const int row = 16 * kk / p.Q, q0 = 16 * kk - row * p.Q;
      b_off[kk] = row * p.win_bytes + q0 * 128;
      b_sbo[kk] = q0 + 8 < p.Q ? 1024 : p.win_bytes - q0 * 128;
    }
  }
  UnitWalk walk = start_walk(p);
  for (Unit w; next_unit(p, walk, KB, w);) {
#pragma unroll
    for (int m = 0; m < kM; ++m) {
#pragma unroll
      for (int i = 0; i < 96; ++i) acc[m][i] = 0.f;
      wgmma::pin_registers(acc[m]);
    }
    for (int ch = w.ch_begin; ch < w.ch_end; ++ch) {
      const bool mine = KB != 64 || turn == wg;
      if (mine) {
        wgmma::mbar_wait(&full[stage], phase);
        // x was written by cp.async (the generic proxy); wgmma reads
        // through the async proxy.
        wgmma::fence_proxy_async();
        if constexpr (!Win) {
          const uint32_t st = ring + stage * kStageBytes;
          const uint32_t a_base = st + (KB == 64 ? 0 : wg * kM * kSlabBytes), b_base = st + kDySlabs * kSlabBytes;
          wgmma::fence();
#pragma unroll
          for (int kk = 0; kk < 4; ++kk)  // 16 pixels (2048 bytes of rows) per wgmma
#pragma unroll
            for (int m = 0; m < kM; ++m)
              wgmma::mma_m64n192k16_tt<Bf16>(acc[m],
                                             wgmma::sw128_desc(a_base + m * kSlabBytes + kk * 2048, kSlabBytes, 1024),
                                             wgmma::sw128_desc(b_base + kk * 2048, kSlabBytes, 1024));
        } else {
          // Row windows: B of step kk at b_off[kk] (see above).
          const uint32_t st = ring + stage * p.stage_bytes;
          const uint32_t a_base = st + (KB == 64 ? 0 : wg * kM * p.dy_slab), xs = st + kDySlabs * p.dy_slab;
          wgmma::fence();
#pragma unroll
          for (int kk = 0; kk < kWinSteps; ++kk)
#pragma unroll
            for (int m = 0; m < kM; ++m)
              wgmma::mma_m64n192k16_tt<Bf16>(acc[m],
                                             wgmma::sw128_desc(a_base + m * p.dy_slab + kk * 2048, p.dy_slab, 1024),
                                             wgmma::sw128_desc(xs + b_off[kk], 128, b_sbo[kk]));
        }
        wgmma::commit_group();
        wgmma::wait_group<1>();
        // The group of this consumer's stage before has finished reading it.
        if (prev >= 0 && lane == 0) wgmma::mbar_arrive(&empty[prev]);
        prev = stage;
      }
      turn ^= 1;
      if (++stage == p.stages) stage = 0, phase ^= 1;
    }
    wgmma::wait_group<0>();
    if (prev >= 0 && lane == 0) wgmma::mbar_arrive(&empty[prev]);
    prev = -1;
    // Fragment of m64nNk16: lane l of warp w holds rows 16w + l/4 (+8),
    // columns 8j + 2(l%4) (+1) in registers 4j + {0,1} (+{2,3}).
    const int part = w.split * parts_per_split(KB) + (KB == 64 ? wg : 0);
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      const int krow = w.k0 + (KB == 64 ? 0 : (wg * kM + m) * 64) + warp * 16 + lane / 4;
#pragma unroll
      for (int j = 0; j < 24; ++j) {
        const int col = j * 8 + (lane & 3) * 2;
        const int s = col / 64, c = w.c0 + (col & 63);
        const int tap = p.flip ? 8 - (w.r * 3 + s) : w.r * 3 + s;  // CONVOLUTION mode: dw's taps reversed
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int k = krow + 8 * h;
          float *dst = p.partial + ((static_cast<long long>(part) * p.K + k) * 9 + tap) * p.C + c;
          *reinterpret_cast<float2 *>(dst) = make_float2(acc[m][j * 4 + 2 * h], acc[m][j * 4 + 2 * h + 1]);
        }
      }
    }
  }
}
#endif  // FREEDNN_WGMMA_COMPILED

// dymap: dy as a 2-D tensor [N*P*Q][K] in boxes of 64 k x 64 pixels (x
// spos for row windows); xmap: x's im2col map of 64 pixels x 64 channels
// (used when p.x_via_tma), or for row windows x's 4-D map in boxes of one
// window.
template <bool Bf16, int KB, bool Win>
__global__ void __launch_bounds__(kThreads, 1)
    wgrad_wgmma_kernel(const WgradArgs p, const __grid_constant__ CUtensorMap dymap,
                       const __grid_constant__ CUtensorMap xmap) {
#if FREEDNN_WGMMA_COMPILED
  extern __shared__ unsigned char smem_raw[];
  __shared__ uint64_t full[kMaxStages], empty[kMaxStages];
  const uint32_t ring = wgmma::ring_start(smem_raw);
  // Full: every producer thread's copies + the expect_tx (copy engine for
  // x too: the expect_tx alone); empty: the stage's consumer warps.
  wgmma::init_ring_barriers(full, empty, p.stages, p.x_via_tma || p.rows > 0 ? 1 : 128 + 1, KB == 64 ? 4 : 8);
  const int wg = threadIdx.x / 128;
  // The consumers of 256-row tiles hold 192 accumulators a thread: the
  // producer hands its registers over.
  if (wg == 0) {
    if constexpr (KB == 256) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (Win)
      produce_rows<KB>(p, dymap, xmap, ring, full, empty);
    else if (p.x_via_tma)
      produce_tma<KB>(p, dymap, xmap, ring, full, empty);
    else
      produce<KB>(p, dymap, ring, full, empty);
  } else {
    if constexpr (KB == 256) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    consume<Bf16, KB, Win>(p, ring, full, empty, wg - 1);
  }
#endif
}

// dw[e] = alpha * (sum of the parts) + beta * dw[e] for 4 elements (a
// float4) per lane: `parts` partials for every element, or (stream-K:
// parts = 0) those of the element's tile, its segments in block order with
// `pps` partials each (`blocks`: the main kernel's grid). A block is 8
// warps; `ways` warps share 32 float4s (one per lane): warp w of a group
// sums parts w, w + ways, .. (four loads in flight), then the group's
// first warp adds the others' sums in warp order: the same order on every
// run. (One thread per float4 summing every part left 64x56's 88 partials
// of 36864 floats to 9216 threads on 36 multiprocessors: 9 us, latency
// bound.)
constexpr int kSumThreads = 256;
template <class TO>
__global__ void __launch_bounds__(kSumThreads)
    wgrad_wgmma_sum_kernel(const float *__restrict__ partial, int parts, WgradArgs p, int kb, int pps, int blocks,
                           int elems, int ways, TO *dw, float alpha, float beta) {
  __shared__ float4 sums[kSumThreads / 32][32];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent of the main kernel (launch_sum):
  // the partials (and dw) are read only once it has finished.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int group = warp / ways, way = warp - group * ways;
  const int e = ((blockIdx.x * (kSumThreads / 32 / ways) + group) * 32 + lane) * 4;
  const bool live = e < elems;
  float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
  if (live) {
    if (parts == 0) {
      const int c = e % p.C, tap = (e / p.C) % 9, k = e / (9 * p.C);
      const int r = (p.flip ? 8 - tap : tap) / 3;  // CONVOLUTION mode: dw's taps reversed
      const int t = ((k / kb) * 3 + r) * p.cblocks + c / 64;
      parts = (last_block(p, t, blocks) - first_block(p, t, blocks) + 1) * pps;
    }
    const float *src = partial + e;
    const long long step = static_cast<long long>(ways) * elems;
    for (int q = way; q < parts; q += 4 * ways, src += 4 * step) {
      float4 v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (q + i * ways < parts)
          v[i] = *reinterpret_cast<const float4 *>(src + static_cast<long long>(way) * elems + i * step);
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (q + i * ways < parts) s.x += v[i].x, s.y += v[i].y, s.z += v[i].z, s.w += v[i].w;
    }
  }
  if (ways > 1) {
    sums[warp][lane] = s;
    __syncthreads();
    if (way != 0) return;
    for (int w = 1; w < ways; ++w) {
      const float4 v = sums[warp + w][lane];
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
  }
  if (!live) return;
  blend_store<TO, float>(dw, e, s.x, alpha, beta);
  blend_store<TO, float>(dw, e + 1, s.y, alpha, beta);
  blend_store<TO, float>(dw, e + 2, s.z, alpha, beta);
  blend_store<TO, float>(dw, e + 3, s.w, alpha, beta);
}

// FREEDNN_CONV_WGRAD_WGMMA=0 turns the path off (the mma.sync kernel then
// runs these problems).
bool switched_on() { return env_on("FREEDNN_CONV_WGRAD_WGMMA"); }

// Rows of a tile: the most K allows (more reuse of each x stage).
int tile_rows(const ConvArgs &a) { return a.Kg % 256 == 0 ? 256 : a.Kg % 128 == 0 ? 128 : 64; }
// The ring depth of a tile (FREEDNN_CONV_WGRAD_WGMMA_STAGES=<n> overrides,
// for measurements: launch_conv_wgrad_wgmma).
int default_stages(int kb) { return kb == 256 ? 4 : kb == 128 ? 5 : 6; }

// The row-window form's stages: `rows` output rows of spos = rows * Q
// pixels (0 rows: the 64-pixel stages).
struct Staging {
  int rows = 0, spos = kPix, dy_slab = kSlabBytes, win_bytes = 0, stage_bytes = 0;
};
__host__ __device__ constexpr int round1024(int b) { return (b + 1023) / 1024 * 1024; }

// Row windows apply where Q divides kWinPix = 112 and Q % 8 == 0 (Q = 8,
// 16, 56, 112: a k16 step's two 8-pixel groups each lie in one row; a
// stage of a fixed 7 steps keeps the consumer's wgmmas in one unrolled
// run) and the ring holds enough stages for kb.
// FREEDNN_CONV_WGRAD_WGMMA_ROWS=0 turns them off (64-pixel stages of three
// im2col slabs), for measurements.
Staging row_staging(const ConvArgs &a, int kb, bool want) {
  Staging g;
  g.stage_bytes = stage_bytes(kb);
  const int Q = a.out[2];
  if (!want || Q % 8 != 0 || kWinPix % Q != 0) return g;
  Staging r;
  const int rows = kWinPix / Q;
  r.rows = rows, r.spos = kWinPix, r.dy_slab = round1024(r.spos * 128), r.win_bytes = round1024((Q + 2) * 128);
  r.stage_bytes = kb / 64 * r.dy_slab + rows * r.win_bytes;
  if ((kSmemLimit - 1024) / r.stage_bytes < (kb == 64 ? 4 : 2)) return g;
  return r;
}
Staging library_staging(const ConvArgs &a, int kb) {
  static const bool on = env_on("FREEDNN_CONV_WGRAD_WGMMA_ROWS");
  return row_staging(a, kb, on);
}
// The deepest ring of a stage size.
int max_stages_of(int stage_bytes) { return std::min(kMaxStages, (kSmemLimit - 1024) / stage_bytes); }

// The grid: for stream-K a block per multiprocessor, never more blocks than
// (tile, chunk) pairs (every block's range then holds one at least);
// FREEDNN_CONV_WGRAD_WGMMA_BLOCKS=<n> caps it (tests: ranges across several
// tiles on small problems). Read when planning and launching alike.
int grid_blocks(const WgradArgs &p) {
  if (!p.stream_k) return std::min(p.nunits, sm_count());
  long long b = std::min<long long>(sm_count(), static_cast<long long>(p.ntiles) * p.nchunks);
  if (const long long cap = env_long("FREEDNN_CONV_WGRAD_WGMMA_BLOCKS", 0); cap > 0) b = std::min(b, cap);
  return static_cast<int>(b);
}

// rows: 1 the library's staging (row windows where they apply), 0 the
// 64-pixel stages (tests, measurements).
WgradArgs make_args(const ConvArgs &a, int kb, int splits, void *scratch, int rows = 1) {
  WgradArgs p;
  const Staging g = rows ? library_staging(a, kb) : row_staging(a, kb, false);
  p.rows = g.rows, p.spos = g.spos, p.dy_slab = g.dy_slab, p.win_bytes = g.win_bytes, p.stage_bytes = g.stage_bytes;
  p.x = static_cast<const uint16_t *>(a.B);
  p.partial = static_cast<float *>(scratch);
  p.N = a.N, p.H = a.in[1], p.W = a.in[2], p.C = a.Cg, p.K = a.Kg, p.P = a.out[1], p.Q = a.out[2];
  p.pad_h = a.pad[1], p.pad_w = a.pad[2], p.flip = a.flip;
  p.adv_p = kPix / p.Q, p.adv_q = kPix % p.Q;
  p.npix = a.N * a.P;
  p.nchunks = p.rows ? (a.N * p.P + p.rows - 1) / p.rows : (p.npix + kPix - 1) / kPix;
  p.stream_k = splits == kWgradStreamK ? 1 : 0;
  p.splits = p.stream_k ? 1 : splits;
  p.cblocks = p.C / 64;
  p.ntiles = p.cblocks * 3 * (p.K / kb);
  p.nunits = p.ntiles * p.splits;
  p.blocks = grid_blocks(p);
  p.stages = std::min(default_stages(kb), max_stages_of(p.stage_bytes));
  p.x_via_l1 = 1;
  // FREEDNN_CONV_WGRAD_WGMMA_IM2COL=0: x by the cp.async gather.
  static const bool im2col = env_on("FREEDNN_CONV_WGRAD_WGMMA_IM2COL");
  p.x_via_tma = im2col ? 1 : 0;
  return p;
}

template <bool Bf16, int KB>
void launch_kernel(WgradArgs p, const void *dy, cudaStream_t stream) {
  const int deepest = max_stages_of(p.stage_bytes);
  if (p.stages < 2 || p.stages > deepest) p.stages = std::min(default_stages(KB), deepest);
  // KB = 64: an even ring, so that each stage always has the same consumer
  // (one that skipped a round of a stage could take that round's completed
  // phase for the next one's), and 4 stages at least (a consumer hands a
  // stage back only after it issued its next one, two stages on).
  if (KB == 64) p.stages = std::max(4, p.stages & ~1);
  const int smem = p.stages * p.stage_bytes + 1024;
  auto kernel = p.rows > 0 ? wgrad_wgmma_kernel<Bf16, KB, true> : wgrad_wgmma_kernel<Bf16, KB, false>;
  // The smallest carveout that holds the ring: the rest stays L1 for x's
  // gather (the im2col copies bypass L1).
  const int carveout = std::min(100, (smem + 2048) * 100 / (228 * 1024) + 1);
  set_kernel_smem(reinterpret_cast<const void *>(kernel), smem, carveout);
  CUtensorMap dymap;
  if (!encode_sw128_map_16bit(&dymap, dy, static_cast<uint64_t>(p.K), static_cast<uint64_t>(p.npix),
                              static_cast<uint64_t>(p.K) * 2, p.spos))
    fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "cuTensorMapEncodeTiled refused the map of dy");
  CUtensorMap xmap{};
  if (p.rows > 0) {
    if (!encode_sw128_row_map_16bit(&xmap, p.x, p.N, p.H, p.W, p.C, p.Q + 2))
      fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, "cuTensorMapEncodeTiled refused the window map of x");
  } else if (p.x_via_tma && !encode_im2col_map_16bit(&xmap, p.x, p.N, p.H, p.W, p.C, p.pad_h, p.pad_w, 2, 2, 1, 1, kPix)) {
    p.x_via_tma = 0;
  }
  kernel<<<p.blocks, kThreads, smem, stream>>>(p, dymap, xmap);
  check_launch("wgrad_wgmma_kernel");
}

template <bool Bf16>
void launch_rows(const WgradArgs &p, int kb, const void *dy, cudaStream_t stream) {
  if (kb == 256) return launch_kernel<Bf16, 256>(p, dy, stream);
  if (kb == 128) return launch_kernel<Bf16, 128>(p, dy, stream);
  return launch_kernel<Bf16, 64>(p, dy, stream);
}

// The sum of the parts of p (made by make_args for kb) into dw.
void launch_sum(const ConvArgs &a, ConvTypes t, const WgradArgs &p, int kb, cudaStream_t stream) {
  const int elems = a.Kg * 9 * a.Cg;  // a multiple of 4 (C % 64 == 0)
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const int pps = parts_per_split(kb), parts = p.stream_k ? 0 : p.splits * pps;
  // Warps per 32 float4s: 8 for 64 parts or more (64x56's 88), 2 for
  // 32-63, else 1 (more warps over a few parts each only added blocks:
  // H100, device run 4 of docs/perf-logs-gpu-wgrad-64x56-2026-11-24.md;
  // stream-K's tiles have a few segments each: 1).
  // FREEDNN_CONV_WGRAD_WGMMA_SUM_WAYS=<1|2|4|8> forces it (measurements).
  static const long forced = env_long("FREEDNN_CONV_WGRAD_WGMMA_SUM_WAYS", 0);
  int ways = parts >= 64 ? 8 : parts >= 32 ? 2 : 1;
  if (forced == 1 || forced == 2 || forced == 4 || forced == 8) ways = static_cast<int>(forced);
  const int per_block = kSumThreads / ways;  // elements' float4s a block
  const dim3 grid(static_cast<unsigned>((elems / 4 + per_block - 1) / per_block));
  // A programmatic dependent of the main kernel, which never triggers it:
  // its launch starts as the main kernel's blocks exit rather than after
  // the grid's completion (griddepcontrol.wait awaits that). A trigger at
  // the main kernel's start was slower (128x28 f16 batch 256 616-617
  // against 627-629 TFLOP/s untriggered, device run 7: the sum's blocks
  // waited beside the main kernel's where registers allowed).
  // FREEDNN_CONV_WGRAD_WGMMA_PDL=0: an ordinary launch, for measurements.
  static const bool pdl = env_on("FREEDNN_CONV_WGRAD_WGMMA_PDL");
  if (t == ConvTypes::bf16)
    launch_dep(pdl, wgrad_wgmma_sum_kernel<bf16_bits>, grid, kSumThreads, 0, stream, "wgrad_wgmma_sum_kernel",
               p.partial, parts, p, kb, pps, p.blocks, elems, ways, static_cast<bf16_bits *>(a.dst), alpha, beta);
  else
    launch_dep(pdl, wgrad_wgmma_sum_kernel<half_bits>, grid, kSumThreads, 0, stream, "wgrad_wgmma_sum_kernel",
               p.partial, parts, p, kb, pps, p.blocks, elems, ways, static_cast<half_bits *>(a.dst), alpha, beta);
}

// Bytes of the float partials of `splits` parts (or stream-K) of tiles of kb rows.
size_t partial_bytes(const ConvArgs &a, int kb, int splits, int rows = 1) {
  const size_t part_bytes = static_cast<size_t>(parts_per_split(kb)) * a.Kg * 9 * a.Cg * 4;
  if (splits != kWgradStreamK) return static_cast<size_t>(splits) * part_bytes;
  // Stream-K: as many parts as the tile with the most segments.
  const WgradArgs p = make_args(a, kb, splits, nullptr, rows);
  int most = 1;
  for (int t = 0; t < p.ntiles; ++t) most = std::max(most, last_block(p, t, p.blocks) - first_block(p, t, p.blocks) + 1);
  return static_cast<size_t>(most) * part_bytes;
}

}  // namespace

bool conv_wgrad_wgmma_applies(const ConvArgs &a, ConvTypes t) {
  if (a.dir != kConvBwdFilter || (t != ConvTypes::f16 && t != ConvTypes::bf16) || a.G != 1) return false;
  if (a.Cg % 64 != 0 || a.Kg % 64 != 0) return false;
  if (a.filt[0] != 1 || a.filt[1] != 3 || a.filt[2] != 3 || a.in[0] != 1 || a.pad[0] != 0) return false;
  for (int d = 0; d < 3; ++d)
    if (a.str[d] != 1 || a.dil[d] != 1) return false;
  const int H = a.in[1], W = a.in[2], C = a.Cg, K = a.Kg;
  // Pixel indices, the tensor map's row coordinate and dw's element count
  // (the sum kernel) are 32-bit.
  if (int64_t{a.N} * a.P + kPix > 0x7fffffff || int64_t{K} * 9 * C > 0x7fffffff) return false;
  // Packed NHWC x and dy, packed KRSC dw (strides N/K, C, D, H, W).
  if (a.xs[1] != 1 || a.xs[4] != C || a.xs[3] != W * C || a.xs[0] != H * W * C) return false;
  if (a.ys[1] != 1 || a.ys[4] != K || a.ys[3] != a.out[2] * K || a.ys[0] != a.P * K) return false;
  if (a.ws[1] != 1 || a.ws[4] != C || a.ws[3] != 3 * C || a.ws[0] != 9 * C) return false;
  if (a.out[1] < 1 || a.out[2] < 1) return false;
  return switched_on() && tensor_maps_available() && device_runs_wgmma(smem_bytes(tile_rows(a), default_stages(tile_rows(a))));
}

int conv_wgrad_wgmma_splits(const ConvArgs &a) {
  const int kb = tile_rows(a);
  const int64_t tiles = int64_t{a.Cg / 64} * 3 * (a.Kg / kb);
  const Staging g = library_staging(a, kb);
  const int64_t nchunks =
      g.rows ? (int64_t{a.N} * a.out[1] + g.rows - 1) / g.rows : (int64_t{a.N} * a.P + kPix - 1) / kPix;
  const int64_t sms = sm_count();
  const double part_bytes = double(a.Kg) * 9 * a.Cg * 4 * parts_per_split(kb);
  // The split that minimises an estimate of the time: the units of the
  // busiest block (blocks stride over them) x (the stages of one part + 4
  // for the ring's fill), a stage ~0.6 us per 128 rows (~5 TFLOP/s per
  // multiprocessor at full rate), plus each part's partials written and
  // read (~3 TB/s).
  const double stage_us = double(kb) * 192 * g.spos * 2 / 5.0e6, part_us = 2 * part_bytes / 3.0e6;
  int best = 1;
  double best_t = -1;
  for (int64_t s = 1; s <= std::min<int64_t>(nchunks, 512); ++s) {
    if (s > 1 && s * part_bytes > double(size_t{256} << 20)) break;  // the partials stay under 256 MB
    const int64_t per_block = (tiles * s + sms - 1) / sms;
    const double t = double(per_block) * ((nchunks + s - 1) / s + 4) * stage_us + double(s) * part_us;
    if (best_t < 0 || t < best_t) best_t = t, best = static_cast<int>(s);
  }
  int s = best;
  // Stream-K: every block the same share of the (tile, chunk) pairs (no
  // idle multiprocessors where the tiles are fewer than them), at the price
  // of a partial per block boundary inside a tile: at most blocks + tiles - 1
  // segments, each writing and the sum reading its tile's partials. H100,
  // f16 512x7 batch 256 (48 tiles of 256 rows): 2 split parts kept 96 of
  // 132 multiprocessors busy.
  const int64_t pairs = tiles * nchunks, blocks = std::min<int64_t>(sms, pairs), segs = blocks + tiles - 1;
  const double seg_bytes = double(kb) * 192 * 4 * parts_per_split(kb);
  const double t_sk = double((pairs + blocks - 1) / blocks + 4 * ((segs + blocks - 1) / blocks)) * stage_us +
                      2 * double(segs) * seg_bytes / 3.0e6;
  // FREEDNN_CONV_WGRAD_WGMMA_STREAM_K=1 / 0 forces / forbids it (tests,
  // measurements).
  const long sk = env_long("FREEDNN_CONV_WGRAD_WGMMA_STREAM_K", -1);
  const bool sk_fits = partial_bytes(a, kb, kWgradStreamK) <= size_t{256} << 20;  // as the split parts
  if (sk == 1 || (sk != 0 && sk_fits && t_sk < best_t)) s = kWgradStreamK;
  // FREEDNN_CONV_WGRAD_WGMMA_SPLITS=<n> forces the number of parts (tests,
  // measurements); parts past the pixel chunks run empty and write zeros.
  if (const long forced = env_long("FREEDNN_CONV_WGRAD_WGMMA_SPLITS", 0); forced > 0)
    s = static_cast<int>(std::min<long>(forced, 4096));
  return s;
}

size_t conv_wgrad_wgmma_scratch(const ConvArgs &a, int splits) { return partial_bytes(a, tile_rows(a), splits); }

void launch_conv_wgrad_wgmma(const ConvArgs &a, ConvTypes t, int splits, void *scratch, void *stream) {
  const int kb = tile_rows(a);
  WgradArgs p = make_args(a, kb, splits, scratch);
  // FREEDNN_CONV_WGRAD_WGMMA_STAGES=<n>: the ring depth, for measurements
  // (read once: this runs on every call).
  static const int stages_override = static_cast<int>(env_long("FREEDNN_CONV_WGRAD_WGMMA_STAGES", 0));
  if (stages_override > 0) p.stages = stages_override;
  const cudaStream_t st = as_stream(stream);
  if (t == ConvTypes::bf16)
    launch_rows<true>(p, kb, a.A, st);
  else
    launch_rows<false>(p, kb, a.A, st);
  launch_sum(a, t, p, kb, st);
}

}  // namespace fdnn::cuda
