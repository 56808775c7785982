// The wgmma forward convolution (convolution_fwd_wgmma.hpp) as an implicit
// GEMM: rows m = output pixels (n, p, q), columns = output channels k, the
// reduction in steps of one filter tap (r, s) x 64 input channels, taps
// inner.
//
// Block: 384 threads, persistent over tiles of 128 MW rows x BN columns.
// Warpgroup 0 produces each step's A (128 MW pixels x the 64 channels of
// the tap, zeros outside the image and past the last pixel) and B (BN
// filter rows x the same 64 channels), both K-major, rows of 128 bytes with
// the 128-byte swizzle, into a ring of stages. By default one thread issues
// two tensor-map copies per step: A as an im2col copy (the copy engine walks
// the tile's pixels from the first one's window origin, the tap's offsets
// added), B as a tiled box; the stage is full when its mbarrier has counted
// their bytes. H100, f16 batch 256, ten calls back to back (the harness,
// device run 7 of 2026-11-24): 64x56 / 128x28 / 256x14 / 512x7 318 / 479 /
// 600 / 639 TFLOP/s against 266-272 / 409-415 / 542-568 / 475-497 for the
// same tiles with A gathered by the 128 threads' 16-byte cp.async through
// L1 (the form kept for drivers without the im2col encoder, and with
// FREEDNN_CONV_FWD_WGMMA_IM2COL=0), whose full barrier counts every
// producer thread's arrival too. Warpgroups 1 and 2 consume: each multiplies its 64 MW rows
// by the stage with m64nBNk16 wgmmas, keeps one wgmma group in flight, and
// hands the stage before back through an "empty" mbarrier. The producer
// runs ahead into the next tile while the consumers store the last one, so
// there is no block-wide barrier anywhere in the loop. With beta = 0 a
// consumer stages its outputs in shared memory and hands them to TMA
// stores, so its next tile's wgmmas start while the copy engine writes y
// (store_tile_tma). A data gradient's own filter can come in place as B
// (BT: boxes of its rows, an MN-major operand; launch_conv_dgrad_wgmma).
//
// A last wave that would leave multiprocessors idle (196 tiles of the b256
// 512x7 layer on 132: 64 in the second wave; 26 tiles in all at b32) is
// split: each of its tiles' reductions into 2 .. 8 step ranges on as many
// blocks, after every block's whole tiles (split_grid, choose_tile). The
// last range's consumers wait for the others' float sums in the scratch,
// add them in a fixed order and store y as usual (split_fixup): the same
// bits on every run.
//
// The run-time variants (ring depth, step order, cp.async.cg for A, cp.async
// for B) are the harness's measurements (tests/oracle_gpu/fwd_wgmma_harness.cu);
// the library runs the defaults of make_args.
#include <cuda.h>  // CUtensorMap and its enums (types only: the encoder comes through the runtime)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/env_words.hpp"
#include "cuda/convolution_fwd_wgmma.hpp"
#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/tensor_map.hpp"
#include "cuda/wgmma_probe.hpp"
#include "cuda/wgmma_sm90.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 384;   // producer warpgroup + 2 consumer warpgroups
constexpr int kRowBytes = 128;  // 64 channels of 16 bits
constexpr int kRingBudget = 200 * 1024;
constexpr int kMaxStages = 8;

// A block tile: bn output channels x 128 mw output pixels.
struct FwdTile {
  int bn, mw;
};

__host__ __device__ constexpr int tile_rows(int mw) { return 128 * mw; }
__host__ __device__ constexpr int stage_bytes(int bn, int mw) { return (tile_rows(mw) + bn) * kRowBytes; }
// The deepest ring that fits the budget.
__host__ __device__ constexpr int max_stages(int bn, int mw) {
  return kRingBudget / stage_bytes(bn, mw) < kMaxStages ? kRingBudget / stage_bytes(bn, mw) : kMaxStages;
}
// The ring depth a tile runs with: 4 stages (6 for the smallest tile)
// measured 3-10% faster than the deepest ring (see the log); fewer stages
// leave a larger L1.
__host__ __device__ constexpr int default_stages(int bn, int mw) {
  return max_stages(bn, mw) < (bn == 64 && mw == 1 ? 6 : 4) ? max_stages(bn, mw) : (bn == 64 && mw == 1 ? 6 : 4);
}
// Both consumers' outputs of a tile staged for the copy engine's stores
// (FwdArgs::y_via_tma): 64 MW rows x bn 16-bit values each.
__host__ __device__ constexpr int staging_bytes(int bn, int mw) { return 2 * 64 * mw * bn * 2; }
// The H100's opt-in shared memory per block (the staged form's ring is
// sized against it; launches check the device's own figure).
constexpr int kSmemLimit = 227 * 1024;
// The deepest ring that fits beside the staging, and the depth the staged
// form runs with: the default where it fits (3 stages for the 48 KB stages
// of the 256 x 128 / 128 x 256 tiles).
__host__ __device__ constexpr int max_stages_staged(int bn, int mw) {
  return (kSmemLimit - 2048 - staging_bytes(bn, mw)) / stage_bytes(bn, mw) < kMaxStages
             ? (kSmemLimit - 2048 - staging_bytes(bn, mw)) / stage_bytes(bn, mw)
             : kMaxStages;
}
__host__ __device__ constexpr int default_stages_staged(int bn, int mw) {
  return default_stages(bn, mw) < max_stages_staged(bn, mw) ? default_stages(bn, mw) : max_stages_staged(bn, mw);
}
// + 1024 bytes to align the ring to the swizzle atom.
__host__ __device__ constexpr int smem_bytes(int bn, int mw, int stages, bool staged) {
  return stages * stage_bytes(bn, mw) + (staged ? staging_bytes(bn, mw) : 0) + 1024;
}

struct FwdArgs {
  const uint16_t *x, *w;
  uint16_t *y;
  int H, W, C, K, P, Q, R, S;
  int pad_h, pad_w, str_h, str_w, dil_h, dil_w, flip;
  int M;         // output pixels N*P*Q
  int ntiles_k;  // K / bn
  int ntiles;    // tiles of the whole problem (m tiles x k tiles, k fastest)
  int nsteps;    // R * S * C / 64
  int stages;    // ring depth, 2 .. max_stages
  // Step order: taps inner (consecutive steps gather the same channels of
  // neighbouring pixels, which L1 may still hold) or channel blocks inner.
  int taps_inner;
  int a_via_l1;   // gather x with cp.async.ca (through L1) rather than .cg
  int b_via_tma;  // load w's box with the tensor-map copy engine (one thread) rather than cp.async
  // Load A too with the copy engine, through an im2col tensor map of x (one
  // thread issues both copies of a step; needs b_via_tma). The per-thread
  // gather of 16-byte pieces costs about a quarter of the kernel's time
  // (a probe without it, docs/perf.md).
  int a_via_tma;
  // B is a data gradient's own filter read in place (the kernel's BT; see
  // launch_conv_dgrad_wgmma): rows = this forward's reduction channels C,
  // each the taps' K outputs, so that a step's B is BN / 64 boxes of 64
  // rows x 64 outputs, MN-major. Needs b_via_tma.
  int b_trans;
  // y through shared memory and the copy engine's tensor-map stores (beta
  // = 0, y 16-byte aligned): a consumer stages its part of a tile and goes
  // on with the next one while the copies write it. Without (the direct
  // 4-byte stores of the fragment), the tensor cores idled through every
  // epilogue: the harness's no-store probe ran the 128x28 layer's 256 x 128
  // tile at 705 TFLOP/s against 502 with the direct stores.
  int y_via_tma;
  float alpha, beta;
  // The split of the last wave (choose_tile, split_grid): tiles whole ..
  // ntiles - 1 (the tail) are each reduced by `parts` units of consecutive
  // step ranges on different blocks, after every block has run its whole
  // tiles. Parts 0 .. parts - 2 store their float sums to the scratch and
  // count themselves in the tile's flag; the last part waits for the
  // count, adds them in part order and writes y (split_fixup). parts = 1,
  // whole = ntiles: no split.
  int whole, parts;
  float *partial;   // (parts - 1) x tail slots of tile_rows x BN floats, in fragment order
  unsigned *flags;  // per tail tile and consumer warpgroup: the parts stored (zeroed before the launch)
  // The harness's probes of the split's cost (wrong results): 1 each part
  // of a tail tile keeps its own sum (the last writes it), no slots, no
  // flags; 2 the last part waits for the flags but adds no slot. 0: off.
  int split_probe;
};

#if FREEDNN_WGMMA_COMPILED
template <bool Bf16>
__device__ __forceinline__ uint32_t pack2(float a, float b) {
  if constexpr (Bf16) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<const uint32_t *>(&v);
  } else {
    const __half2 v = __floats2half2_rn(a, b);
    return *reinterpret_cast<const uint32_t *>(&v);
  }
}
template <bool Bf16>
__device__ __forceinline__ float2 unpack2(uint32_t u) {
  if constexpr (Bf16) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&u));
  } else {
    return __half22float2(*reinterpret_cast<const __half2 *>(&u));
  }
}

// One unit of a block's work: the steps step0 .. step1 - 1 of a tile;
// part = -1 for a whole tile, else the tail tile's split part.
struct Unit {
  int tile, step0, step1, part;
};

// The units of this block: its whole tiles (blockIdx.x + i gridDim.x below
// p.whole), then at most one tail unit. Tail unit u = blockIdx.x takes part
// u / tail of tail tile u % tail, so the last parts, the only units that
// wait, run on the highest block indices: blocks start in index order in
// practice, so every unit a waiter waits for has started before it (the
// grid is at most one block per multiprocessor anyway; split_grid).
__device__ __forceinline__ int unit_count(const FwdArgs &p) {
  const int b = blockIdx.x, tail = p.ntiles - p.whole;
  return (b < p.whole ? (p.whole - 1 - b) / static_cast<int>(gridDim.x) + 1 : 0) + (b < tail * p.parts ? 1 : 0);
}
__device__ __forceinline__ Unit unit_at(const FwdArgs &p, int i) {
  const int b = blockIdx.x, tile = b + i * static_cast<int>(gridDim.x);
  if (tile < p.whole) return {tile, 0, p.nsteps, -1};
  const int tail = p.ntiles - p.whole, part = b / tail;
  return {p.whole + b % tail, p.nsteps * part / p.parts, p.nsteps * (part + 1) / p.parts, part};
}

// The producer warpgroup: every step of every unit of this block into the ring.
// The step after (r, s, cb) in the kernel's order: taps inner, or channel
// blocks inner.
__device__ __forceinline__ void next_step(const FwdArgs &p, int cblocks, int &r, int &s, int &cb) {
  if (p.taps_inner) {
    if (++s == p.S) {
      s = 0;
      if (++r == p.R) r = 0, ++cb;
    }
  } else if (++cb == cblocks) {
    cb = 0;
    if (++s == p.S) s = 0, ++r;
  }
}
// (r, s, cb) of step `step` in that order (a split part's first step).
__device__ __forceinline__ void step_at(const FwdArgs &p, int cblocks, int step, int &r, int &s, int &cb) {
  if (p.taps_inner) {
    s = step % p.S, r = step / p.S % p.R, cb = step / (p.S * p.R);
  } else {
    cb = step % cblocks, s = step / cblocks % p.S, r = step / (cblocks * p.S);
  }
}

// One step's B by the copy engine: the box of w's rows k0 .. k0 + BN at
// the tap's channel block cb (K-major), or, for BT, BN / 64 boxes of 64
// rows (the block's reduction channels) x 64 outputs each (MN-major, 64
// rows x 128 bytes = 8 KB apart).
template <int BN, bool BT>
__device__ __forceinline__ void load_b(uint32_t dst, const CUtensorMap &wmap, const FwdArgs &p, int tap, int cb,
                                       int k0, uint64_t *bar) {
  if constexpr (BT) {
#pragma unroll
    for (int j = 0; j < BN / 64; ++j)
      wgmma::tma_load_2d(dst + j * 64 * kRowBytes, &wmap, tap * p.K + k0 + 64 * j, cb * 64, bar);
  } else {
    wgmma::tma_load_2d(dst, &wmap, tap * p.C + cb * 64, k0, bar);
  }
}

// The copy-engine form (p.a_via_tma): thread 0 alone issues each step's
// im2col copy of A (the tile's kBM pixels from its first pixel's window
// origin, the tap's offsets; the copy walks on across rows and images, and
// reads zeros past the last image) and the box of B, both completing on the
// stage's full barrier.
template <int BN, int MW, bool BT>
__device__ __forceinline__ void produce_tma(const FwdArgs &p, const CUtensorMap &wmap, const CUtensorMap &xmap,
                                            uint32_t ring, uint64_t *full, uint64_t *empty) {
  constexpr int kBM = tile_rows(MW), kStageBytes = stage_bytes(BN, MW);
  if (threadIdx.x != 0) return;
  const int PQ = p.P * p.Q, cblocks = p.C / 64;
  int stage = 0;
  unsigned phase = 0;
  bool wrapped = false;
  for (int i = 0, units = unit_count(p); i < units; ++i) {
    const Unit u = unit_at(p, i);
    const int mt = u.tile / p.ntiles_k, kt = u.tile - mt * p.ntiles_k;
    const int m0 = mt * kBM, k0 = kt * BN;
    const int n = m0 / PQ, rem = m0 - n * PQ, pp = rem / p.Q, q = rem - pp * p.Q;
    const int h0 = pp * p.str_h - p.pad_h, w0 = q * p.str_w - p.pad_w;
    int r, s, cb;
    step_at(p, cblocks, u.step0, r, s, cb);
    for (int step = u.step0; step < u.step1; ++step) {
      if (wrapped) wgmma::mbar_wait(&empty[stage], phase ^ 1);
      const uint32_t st = ring + stage * kStageBytes;
      wgmma::mbar_arrive_expect_tx(&full[stage], (kBM + BN) * kRowBytes);
      wgmma::tma_load_im2col_4d(st, &xmap, cb * 64, w0, h0, n, static_cast<uint16_t>(s * p.dil_w),
                                static_cast<uint16_t>(r * p.dil_h), &full[stage]);
      const int tap = p.flip ? (p.R - 1 - r) * p.S + (p.S - 1 - s) : r * p.S + s;
      load_b<BN, BT>(st + kBM * kRowBytes, wmap, p, tap, cb, k0, &full[stage]);
      if (++stage == p.stages) stage = 0, phase ^= 1, wrapped = true;
      next_step(p, cblocks, r, s, cb);
    }
  }
}

template <int BN, int MW, bool BT>
__device__ __forceinline__ void produce(const FwdArgs &p, const CUtensorMap &wmap, uint32_t ring, uint64_t *full,
                                        uint64_t *empty) {
  constexpr int kBM = tile_rows(MW), kStageBytes = stage_bytes(BN, MW);
  constexpr int kARows = kBM / 16, kBRows = BN / 16;
  const int tid = threadIdx.x;                 // 0..127
  const int chunk = tid & 7, row0 = tid >> 3;  // rows row0 + 16 j, 16-byte chunk `chunk`
  const int PQ = p.P * p.Q, RSC = p.R * p.S * p.C;
  const int cblocks = p.C / 64;
  int stage = 0;
  unsigned phase = 0;    // parity of the ring's current round
  bool wrapped = false;  // a full round has been produced: wait for empties
  for (int i = 0, units = unit_count(p); i < units; ++i) {
    const Unit u = unit_at(p, i);
    const int mt = u.tile / p.ntiles_k, kt = u.tile - mt * p.ntiles_k;
    const int m0 = mt * kBM, k0 = kt * BN;
    // Each row's window origin: its offset in x and (h0, w0); rows past the
    // last pixel get an origin no tap brings into the image.
    int aoff[kARows], ah[kARows], aw[kARows];
#pragma unroll
    for (int j = 0; j < kARows; ++j) {
      const int pix = m0 + row0 + 16 * j;
      if (pix < p.M) {
        const int n = pix / PQ, rem = pix - n * PQ;
        const int pp = rem / p.Q, q = rem - pp * p.Q;
        ah[j] = pp * p.str_h - p.pad_h;
        aw[j] = q * p.str_w - p.pad_w;
        aoff[j] = ((n * p.H + ah[j]) * p.W + aw[j]) * p.C + chunk * 8;
      } else {
        ah[j] = -(1 << 30), aw[j] = 0, aoff[j] = 0;
      }
    }
    const uint16_t *wrow = p.w + static_cast<long long>(k0 + row0) * RSC + chunk * 8;
    int r, s, cb;
    step_at(p, cblocks, u.step0, r, s, cb);
    for (int step = u.step0; step < u.step1; ++step) {
      if (wrapped) wgmma::mbar_wait(&empty[stage], phase ^ 1);
      const uint32_t st = ring + stage * kStageBytes;
      const int dh = r * p.dil_h, dw = s * p.dil_w;
      const int doff = (dh * p.W + dw) * p.C + cb * 64;
#pragma unroll
      for (int j = 0; j < kARows; ++j) {
        const bool ok = static_cast<unsigned>(ah[j] + dh) < static_cast<unsigned>(p.H) &&
                        static_cast<unsigned>(aw[j] + dw) < static_cast<unsigned>(p.W);
        const uint16_t *src = ok ? p.x + (aoff[j] + doff) : p.x;
        const uint32_t dst = st + wgmma::sw128_offset(row0 + 16 * j, chunk);
        if (p.a_via_l1)
          cp_async16_ca(dst, src, ok);
        else
          cp_async16(dst, src, ok);
      }
      const int tap = p.flip ? (p.R - 1 - r) * p.S + (p.S - 1 - s) : r * p.S + s;
      if (BT || p.b_via_tma) {
        if (tid == 0) {
          wgmma::mbar_arrive_expect_tx(&full[stage], BN * kRowBytes);
          load_b<BN, BT>(st + kBM * kRowBytes, wmap, p, tap, cb, k0, &full[stage]);
        }
      } else {
        const uint16_t *wsrc = wrow + tap * p.C + cb * 64;
#pragma unroll
        for (int j = 0; j < kBRows; ++j)
          cp_async16(st + kBM * kRowBytes + wgmma::sw128_offset(row0 + 16 * j, chunk),
                     wsrc + static_cast<long long>(16 * j) * RSC, true);
      }
      wgmma::mbar_arrive_on_cp_async(&full[stage]);
      if (++stage == p.stages) stage = 0, phase ^= 1, wrapped = true;
      next_step(p, cblocks, r, s, cb);
    }
  }
  cp_async_wait_all();
}

// A consumer's part of a tile (rows row0 .. row0 + 64 MW, columns k0 ..
// k0 + BN) by the copy engine: alpha times the fragment into the
// consumer's staging area (BN / 64 blocks of 64 MW rows x 128 bytes, the
// 128-byte swizzle), then one thread hands each 64 x 64 box to a
// tensor-map store, which writes the rows inside y while the warpgroup
// goes on with its next tile. The staging is rewritten only after the
// stores before have read it.
template <bool Bf16, int BN, int MW>
__device__ __forceinline__ void store_tile_tma(const FwdArgs &p, const CUtensorMap &ymap,
                                               const float (&acc)[MW][BN / 2], uint32_t staging, int row0, int k0,
                                               int wg) {
  constexpr int kBlockBytes = MW * 64 * kRowBytes;
  const int t = threadIdx.x & 127, warp = t >> 5, lane = t & 31;
  if (t == 0) wgmma::bulk_wait_group_read<0>();
  wgmma::named_barrier(1 + wg, 128);
#pragma unroll
  for (int m = 0; m < MW; ++m)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m * 64 + warp * 16 + lane / 4 + 8 * h;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
        wgmma::st_shared_u32(staging + (j / 8) * kBlockBytes + wgmma::sw128_offset(row, j % 8) + (lane & 3) * 4,
                             pack2<Bf16>(p.alpha * acc[m][4 * j + 2 * h], p.alpha * acc[m][4 * j + 2 * h + 1]));
    }
  wgmma::fence_proxy_async();  // the generic-proxy writes, for the copy engine
  wgmma::named_barrier(1 + wg, 128);
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < BN / 64; ++b)
#pragma unroll
      for (int m = 0; m < MW; ++m)
        wgmma::tma_store_2d(&ymap, staging + b * kBlockBytes + m * 64 * kRowBytes, k0 + 64 * b, row0 + m * 64);
    wgmma::bulk_commit_group();
  }
}

// Release / acquire at device scope: the split's flags between blocks.
__device__ __forceinline__ void add_release(unsigned *a, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(a), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_acquire(const unsigned *a) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(a) : "memory");
  return v;
}
// Waits for the kernel that zeroed the flags (this one is its programmatic
// dependent, launched while it runs; at once without that launch).
__device__ __forceinline__ void flags_cleared() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
// A consumer's end of a tail unit (u.part >= 0). Parts before the last
// store the warpgroup's sums to their slot in fragment order (each
// thread its own registers, 4 at a time: one instruction writes 2 KB in a
// row), then one thread counts the part in the tile's flag for this
// warpgroup once all 128 threads' stores are visible: false, nothing
// more to do. The last part waits for the count of parts - 1, then adds
// part 0, 1, .. to its own sum in that order, so that the result is the
// same from run to run whichever block finishes first: true, the caller
// writes y. Only units of the last part wait, and only for units that do
// not (unit_at), so no block waits on a waiting block. (Loading the sums
// by cp.async into the ring, free by then, rather than into registers
// measured no faster: the same at 2 and 3 parts, 5-12% slower at 4 and 5.)
template <int BN, int MW>
__device__ __forceinline__ bool split_fixup(const FwdArgs &p, float (&acc)[MW][BN / 2], const Unit &u, int wg) {
  constexpr int kSlot = tile_rows(MW) * BN;  // floats per slot
  const int t = threadIdx.x & 127, tail = p.ntiles - p.whole, ti = u.tile - p.whole;
  unsigned *flag = p.flags + 2 * ti + wg;
  auto slot = [&](int part) {
    return reinterpret_cast<float4 *>(p.partial + (static_cast<long long>(part) * tail + ti) * kSlot) +
           wg * (kSlot / 8) + t;
  };
  if (p.split_probe == 1) return u.part == p.parts - 1;
  if (u.part < p.parts - 1) {
    float4 *dst = slot(u.part);
#pragma unroll
    for (int m = 0; m < MW; ++m)
#pragma unroll
      for (int g = 0; g < BN / 8; ++g)
        __stcg(dst + (m * (BN / 8) + g) * 128,
               make_float4(acc[m][4 * g], acc[m][4 * g + 1], acc[m][4 * g + 2], acc[m][4 * g + 3]));
    __threadfence();
    wgmma::named_barrier(1 + wg, 128);
    if (t == 0) {
      flags_cleared();
      add_release(flag, 1);
    }
    return false;
  }
  if (t == 0) {
    flags_cleared();
    while (load_acquire(flag) < static_cast<unsigned>(p.parts - 1)) {
    }
  }
  wgmma::named_barrier(1 + wg, 128);
  if (p.split_probe == 2) return true;
  for (int part = 0; part < p.parts - 1; ++part) {
    const float4 *src = slot(part);
#pragma unroll
    for (int m = 0; m < MW; ++m)
#pragma unroll
      for (int g = 0; g < BN / 8; ++g) {
        const float4 v = __ldcg(src + (m * (BN / 8) + g) * 128);
        acc[m][4 * g] += v.x, acc[m][4 * g + 1] += v.y, acc[m][4 * g + 2] += v.z, acc[m][4 * g + 3] += v.w;
      }
  }
  return true;
}

// A consumer warpgroup (wg 0 or 1): rows 64 MW wg .. of every unit's tile.
template <bool Bf16, int BN, int MW, bool BT>
__device__ __forceinline__ void consume(const FwdArgs &p, const CUtensorMap &ymap, uint32_t ring, uint64_t *full,
                                        uint64_t *empty, int wg) {
  constexpr int kBM = tile_rows(MW), kStageBytes = stage_bytes(BN, MW);
  // This consumer's staging area (y_via_tma), after the ring.
  const uint32_t staging = ring + p.stages * kStageBytes + wg * (staging_bytes(BN, MW) / 2);
  const int warp = (threadIdx.x / 32) & 3, lane = threadIdx.x & 31;
  float acc[MW][BN / 2];
  int stage = 0, prev = 0;
  unsigned phase = 0;
  for (int i = 0, units = unit_count(p); i < units; ++i) {
    const Unit u = unit_at(p, i);
    const int mt = u.tile / p.ntiles_k, kt = u.tile - mt * p.ntiles_k;
    const int m0 = mt * kBM, k0 = kt * BN;
#pragma unroll
    for (int m = 0; m < MW; ++m) {
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) acc[m][j] = 0.f;
      wgmma::pin_registers(acc[m]);
    }
    for (int step = u.step0; step < u.step1; ++step) {
      wgmma::mbar_wait(&full[stage], phase);
      // The stage was written by cp.async (the generic proxy); wgmma reads
      // it through the async proxy.
      wgmma::fence_proxy_async();
      const uint32_t st = ring + stage * kStageBytes;
      const uint32_t a_base = st + wg * MW * 64 * kRowBytes, b_base = st + kBM * kRowBytes;
      wgmma::fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int m = 0; m < MW; ++m)
          wgmma::mma_m64k16<Bf16, BN, BT>(
              acc[m], wgmma::sw128_desc(a_base + m * 64 * kRowBytes + kk * 32, 16, 1024),
              BT ? wgmma::sw128_desc(b_base + kk * 16 * kRowBytes, 64 * kRowBytes, 1024)
                 : wgmma::sw128_desc(b_base + kk * 32, 16, 1024));
      wgmma::commit_group();
      wgmma::wait_group<1>();
      // The group of the step before has finished reading its stage.
      if (step > u.step0 && lane == 0) wgmma::mbar_arrive(&empty[prev]);
      prev = stage;
      if (++stage == p.stages) stage = 0, phase ^= 1;
    }
    wgmma::wait_group<0>();
    if (lane == 0) wgmma::mbar_arrive(&empty[prev]);
    if (u.part >= 0 && !split_fixup<BN, MW>(p, acc, u, wg)) continue;
    if (p.y_via_tma) {
      store_tile_tma<Bf16, BN, MW>(p, ymap, acc, staging, m0 + wg * MW * 64, k0, wg);
      continue;
    }
    // Fragment of m64nNk16: lane l of warp w holds rows 16w + l/4 (+8),
    // columns 8j + 2(l%4) (+1) in registers 4j + {0,1} (+{2,3}). A quad of
    // lanes writes 16 contiguous bytes of a row.
#pragma unroll
    for (int m = 0; m < MW; ++m) {
      const int row_base = m0 + (wg * MW + m) * 64 + warp * 16 + lane / 4;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_base + 8 * h;
        if (row >= p.M) continue;
        uint16_t *yrow = p.y + static_cast<long long>(row) * p.K + k0 + (lane & 3) * 2;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          float v0 = p.alpha * acc[m][4 * j + 2 * h], v1 = p.alpha * acc[m][4 * j + 2 * h + 1];
          uint32_t *dst = reinterpret_cast<uint32_t *>(yrow + 8 * j);
          if (p.beta != 0.f) {
            const float2 old = unpack2<Bf16>(*dst);
            v0 += p.beta * old.x, v1 += p.beta * old.y;
          }
          *dst = pack2<Bf16>(v0, v1);
        }
      }
    }
  }
  // The last stores have written y (and read the staging) before the block exits.
  if (p.y_via_tma && (threadIdx.x & 127) == 0) wgmma::bulk_wait_group<0>();
}
#endif  // FREEDNN_WGMMA_COMPILED

// wmap: w as a 2-D tensor [K][R*S*C] with boxes of 64 x BN and the 128-byte
// swizzle (used when p.b_via_tma), for BT the data gradient's filter
// [C][R*S*K] in boxes of 64 x 64; xmap: x's im2col map of kBM pixels x 64
// channels (used when p.a_via_tma); ymap: y as [M][K] in boxes of 64 x 64
// (used when p.y_via_tma).
template <bool Bf16, int BN, int MW, bool BT>
__global__ void __launch_bounds__(kThreads, 1)
    fwd_wgmma_kernel(const FwdArgs p, const __grid_constant__ CUtensorMap wmap,
                     const __grid_constant__ CUtensorMap xmap, const __grid_constant__ CUtensorMap ymap) {
#if FREEDNN_WGMMA_COMPILED
  extern __shared__ unsigned char smem_raw[];
  __shared__ uint64_t full[kMaxStages], empty[kMaxStages];
  const uint32_t ring = wgmma::ring_start(smem_raw);
  // Full: one arrival per producer thread's copies, + the expect_tx of the
  // box (copy engine for A and B: the expect_tx alone); empty: one per
  // consumer warp.
  wgmma::init_ring_barriers(full, empty, p.stages, p.a_via_tma ? 1 : 128 + (p.b_via_tma ? 1 : 0), 8);
  const int wg = threadIdx.x / 128;
  if (wg == 0 && p.a_via_tma)
    produce_tma<BN, MW, BT>(p, wmap, xmap, ring, full, empty);
  else if (wg == 0)
    produce<BN, MW, BT>(p, wmap, ring, full, empty);
  else
    consume<Bf16, BN, MW, BT>(p, ymap, ring, full, empty, wg - 1);
#endif
}

// Zeros the split's n flags: a kernel rather than a memset, so that
// fwd_wgmma_kernel, launched as its programmatic dependent, starts while
// this one runs and waits for it only before its first flag (flags_cleared):
// a memset ahead of the kernel added 0.8 - 1.4 us to each call (harness).
__global__ void clear_flags_kernel(unsigned *flags, int n) {
#if FREEDNN_WGMMA_COMPILED
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  for (int i = threadIdx.x; i < n; i += blockDim.x) flags[i] = 0;
}

// w (K rows of R*S*C 16-bit values) as the tensor map of the B boxes: 64
// values x bn rows. False where the driver has no encoder or refuses the
// map (the kernel then loads B by cp.async).
bool filter_map(const FwdArgs &p, int bn, CUtensorMap *m) {
  if (p.b_trans) {  // C rows of R*S*K values, boxes of 64 x 64
    const uint64_t row = static_cast<uint64_t>(p.R) * p.S * p.K;
    return encode_sw128_map_16bit(m, p.w, row, static_cast<uint64_t>(p.C), row * 2, 64);
  }
  const uint64_t row = static_cast<uint64_t>(p.R) * p.S * p.C;
  return encode_sw128_map_16bit(m, p.w, row, static_cast<uint64_t>(p.K), row * 2, static_cast<uint32_t>(bn));
}

// x (N x H x W x C, packed) as the im2col map of the A copies: `pixels`
// output pixels x 64 channels. False where the driver has no encoder or
// refuses the map (the producer then gathers A by cp.async).
bool im2col_map(const FwdArgs &p, int pixels, CUtensorMap *m) {
  const int N = p.M / (p.P * p.Q);
  return encode_im2col_map_16bit(m, p.x, N, p.H, p.W, p.C, p.pad_h, p.pad_w, (p.R - 1) * p.dil_h,
                                 (p.S - 1) * p.dil_w, p.str_h, p.str_w, static_cast<uint32_t>(pixels));
}

// y (M rows of K 16-bit values) as the tensor map of the staged stores:
// boxes of 64 values x 64 rows.
bool output_map(const FwdArgs &p, CUtensorMap *m) {
  return encode_sw128_map_16bit(m, p.y, static_cast<uint64_t>(p.K), static_cast<uint64_t>(p.M),
                                static_cast<uint64_t>(p.K) * 2, 64);
}

// FREEDNN_CONV_FWD_WGMMA_TMA_STORE=0: y by the consumers' direct stores
// (read once).
bool tma_stores() {
  static const bool on = env_on("FREEDNN_CONV_FWD_WGMMA_TMA_STORE");
  return on;
}

// FREEDNN_CONV_FWD_WGMMA_IM2COL=0: A by the producer's cp.async gather
// rather than the copy engine's im2col copies (read once: the arguments
// are made at every launch).
bool im2col_copies() {
  static const bool on = env_on("FREEDNN_CONV_FWD_WGMMA_IM2COL");
  return on;
}

bool switched_on() { return env_on("FREEDNN_CONV_FWD_WGMMA"); }

// FREEDNN_CONV_FWD_WGMMA_SPLIT: unset, the split of the last wave where
// choose_tile's model wants it; 0 (or 1) never; n >= 2 n parts wherever
// the tail leaves room for them (tests, measurements). Read at every plan
// and launch (a launch without the plan's scratch runs unsplit).
long split_switch() { return env_long("FREEDNN_CONV_FWD_WGMMA_SPLIT", -1); }

// The most blocks the grid takes: one per multiprocessor (the split's
// waits need every block resident; one block fills a multiprocessor's
// shared memory), fewer with FREEDNN_CONV_FWD_WGMMA_BLOCKS=<n> (tests:
// small problems then still hand each block several tiles, the ring
// running across them).
int grid_blocks() {
  int blocks = sm_count();
  if (const long cap = env_long("FREEDNN_CONV_FWD_WGMMA_BLOCKS", 0); cap > 0)
    blocks = static_cast<int>(std::min<long>(blocks, cap));
  return blocks;
}

constexpr int kMaxParts = 8;

// The grid of `tiles` tiles of `nsteps` steps on at most `blocks` blocks,
// `parts` split parts wanted: every block runs tiles + blocks i for i < W
// = tiles / blocks whole; the tail (the other tiles + blocks W ..) is split
// into as many of those parts as the grid holds (tail x parts units, one
// per block; each part at least one step), or runs whole where that is
// fewer than 2 (no tail, or a tail over half the grid).
struct FwdGrid {
  int blocks, whole, tail, parts;
};
FwdGrid split_grid(int tiles, int nsteps, int blocks, int parts) {
  const int tail = tiles % blocks;  // all of them when tiles < blocks
  const int s = tail == 0 ? 1 : std::min({parts, blocks / tail, nsteps, kMaxParts});
  if (s < 2) return {std::min(tiles, blocks), tiles, 0, 1};
  return {tiles >= blocks ? blocks : tail * s, tiles - tail, tail, s};
}

// Scratch of a split grid with tiles of bn x 128 mw: the flags (2 per tail
// tile, first), then, from flag_bytes on, the parts' slots of float sums.
size_t flag_bytes(const FwdGrid &g) { return round256(static_cast<size_t>(g.tail) * 2 * sizeof(unsigned)); }
size_t split_bytes(const FwdGrid &g, int bn, int mw) {
  if (g.parts < 2) return 0;
  return flag_bytes(g) + static_cast<size_t>(g.parts - 1) * g.tail * tile_rows(mw) * bn * sizeof(float);
}

// The tile for M output pixels, K channels and nsteps steps on at most
// `blocks` blocks, and the split of its last wave: the one with the least
// estimated time. A tile's step takes its work over the rate its shape
// reaches on a full H100 (TFLOP/s, the harness of
// docs/perf-logs-gpu-fwd-wgmma-2026-11-23.md), scaled so that the 128 x
// 256 tile's is kStepUs (26 of its 72-step tiles ran in 48 us): larger
// tiles move fewer bytes per product, smaller ones fill the last wave
// better. Unsplit, the busiest block runs ceil(tiles / blocks) tiles of
// nsteps steps. Split, it runs its whole tiles, then one part of at most
// ceil(nsteps / parts) steps, and the tail waits for the parts' sums:
// kSplitUs (the stores of a slot, the fence, the flags, the wait), and the
// last part's loads of parts - 1 slots (4 bytes per output of the tile)
// at kLoadBytesPerUs. Both as measured by the harness (H100,
// docs/perf-logs-gpu-fwd-wgmma-split-2026-11-24.md): the b32 512x7
// layer's 26 tiles of 128 x 256 took 47.5 us whole, 34.0 / 28.7 / 28.7 /
// 30.4 us in 2 / 3 / 4 / 5 parts, 10 - 20 us over the parts' steps at the
// whole tile's pace; in 2 parts the steps alone took 27.7 us, + 4.1 for
// the slot's stores, the fence and the wait, + 2.1 for the loads. 128 x
// 128 and 256 x 64 tiles (64 KB slots): 8 - 9 us over in 2 parts. Where a
// wave of the unsplit grid is mostly full the model leaves it so: the b32
// 128x28 layer's 196 tiles of 128 x 128 ran 363-369 TFLOP/s whole and 332
// with their 64-tile tail in 2 parts. The model missed by several percent on
// those layers, and a wrong split costs more than a missed one: a split
// must come out kSplitMargin faster. `split` is split_switch's answer: < 0
// the model's choice of 1 .. kMaxParts parts, else that many wherever they
// fit.
struct FwdChoice {
  FwdTile tile;
  FwdGrid grid;
};
constexpr double kStepUs = 0.67, kSplitUs = 6.0, kLoadBytesPerUs = 38e3, kSplitMargin = 1.05;
FwdChoice choose_tile(long long M, int K, int nsteps, int blocks, long split) {
  struct Candidate {
    FwdTile tile;
    double rate;
  };
  static const Candidate candidates[] = {
      {{256, 1}, 540}, {{128, 2}, 460}, {{128, 1}, 446}, {{64, 2}, 350}, {{64, 1}, 325}};
  const int lo = split < 0 ? 1 : static_cast<int>(std::clamp<long>(split, 1, kMaxParts));
  const int hi = split < 0 ? kMaxParts : lo;
  FwdChoice best{{64, 1}, {}};
  double best_t = -1;
  for (const Candidate &c : candidates) {
    if (K % c.tile.bn != 0) continue;
    const int rows = tile_rows(c.tile.mw);
    const int tiles = static_cast<int>((M + rows - 1) / rows * (K / c.tile.bn));
    const double step = kStepUs * rows * c.tile.bn / (128 * 256) * 540 / c.rate, slot = 4.0 * rows * c.tile.bn;
    for (int want = lo; want <= hi; ++want) {
      const FwdGrid g = split_grid(tiles, nsteps, blocks, want);
      double t = static_cast<double>((tiles + blocks - 1) / blocks) * nsteps * step;
      if (g.parts > 1)
        t = static_cast<double>(g.whole / blocks * nsteps + (nsteps + g.parts - 1) / g.parts) * step + kSplitUs +
            (g.parts - 1) * slot / kLoadBytesPerUs;
      if (g.parts > 1 && split < 0) t *= kSplitMargin;
      if (best_t < 0 || t < best_t) best_t = t, best = {c.tile, g};
    }
  }
  return best;
}

FwdArgs make_args(const ConvArgs &a) {
  FwdArgs p;
  p.x = static_cast<const uint16_t *>(a.A);
  p.w = static_cast<const uint16_t *>(a.B);
  p.y = static_cast<uint16_t *>(a.dst);
  p.H = a.in[1], p.W = a.in[2], p.C = a.Cg, p.K = a.Kg, p.P = a.out[1], p.Q = a.out[2];
  p.R = a.filt[1], p.S = a.filt[2];
  p.pad_h = a.pad[1], p.pad_w = a.pad[2];
  p.str_h = a.str[1], p.str_w = a.str[2];
  p.dil_h = a.dil[1], p.dil_w = a.dil[2];
  p.flip = a.flip;
  p.M = a.N * a.P;
  p.nsteps = p.R * p.S * (p.C / 64);
  p.stages = 0;  // the tile's default
  p.taps_inner = 1;
  p.a_via_l1 = 1;
  p.b_via_tma = 1;
  p.a_via_tma = im2col_copies() ? 1 : 0;
  p.b_trans = 0;
  p.whole = 0, p.parts = 1;  // the launch's grid
  p.partial = nullptr, p.flags = nullptr, p.split_probe = 0;
  p.alpha = static_cast<float>(a.alpha), p.beta = static_cast<float>(a.beta);
  p.y_via_tma = tma_stores() && p.beta == 0.f && aligned_to(a.dst, 16) ? 1 : 0;
  return p;
}

// False (nothing launched) when B must come in place (p.b_trans) and its
// tensor map cannot be made. At most `blocks` blocks, the last wave split
// into `parts` (split_grid) where `scratch` holds split_bytes (else whole).
template <bool Bf16, int BN, int MW>
bool launch_tile_kernel(FwdArgs p, int blocks, int parts, void *scratch, size_t scratch_bytes, cudaStream_t stream) {
  p.ntiles_k = p.K / BN;
  p.ntiles = (p.M + tile_rows(MW) - 1) / tile_rows(MW) * p.ntiles_k;
  CUtensorMap wmap{}, xmap{}, ymap{};
  if (p.b_trans) {
    if (!filter_map(p, BN, &wmap)) return false;
    p.b_via_tma = 1;
  } else if (p.b_via_tma && !filter_map(p, BN, &wmap)) {
    p.b_via_tma = 0;
  }
  if (p.a_via_tma && (!p.b_via_tma || !im2col_map(p, tile_rows(MW), &xmap))) p.a_via_tma = 0;
  if (p.y_via_tma) {
    DeviceFacts f;
    const bool room = current_device_facts(f) && f.smem_optin >= smem_bytes(BN, MW, max_stages_staged(BN, MW), true);
    if (!room || !output_map(p, &ymap)) p.y_via_tma = 0;
  }
  const int cap = p.y_via_tma ? max_stages_staged(BN, MW) : max_stages(BN, MW);
  if (p.stages < 2 || p.stages > cap) p.stages = p.y_via_tma ? default_stages_staged(BN, MW) : default_stages(BN, MW);
  const int smem = smem_bytes(BN, MW, p.stages, p.y_via_tma);
  auto kernel = p.b_trans ? fwd_wgmma_kernel<Bf16, BN, MW, true> : fwd_wgmma_kernel<Bf16, BN, MW, false>;
  // The smallest shared-memory carveout that holds the ring: the rest of
  // the multiprocessor's 256 KB stays L1, where the gathers of x hit (the
  // im2col copies bypass L1).
  const int carveout = std::min(100, (smem + 2048) * 100 / (228 * 1024) + 1);
  set_kernel_smem(reinterpret_cast<const void *>(kernel), smem, carveout);
  // The split's last parts wait for other blocks: all of them must be
  // resident at once, so never more blocks than multiprocessors (each
  // holds one: launch_bounds and the ring's shared memory).
  blocks = std::min(blocks, sm_count());
  FwdGrid g = split_grid(p.ntiles, p.nsteps, blocks, parts);
  if (g.parts > 1 && (scratch == nullptr || scratch_bytes < split_bytes(g, BN, MW)))
    g = split_grid(p.ntiles, p.nsteps, blocks, 1);
  p.whole = g.whole, p.parts = g.parts;
  p.flags = static_cast<unsigned *>(scratch);
  p.partial = g.parts > 1 ? reinterpret_cast<float *>(static_cast<char *>(scratch) + flag_bytes(g)) : nullptr;
  if (g.parts < 2) {
    kernel<<<g.blocks, kThreads, smem, stream>>>(p, wmap, xmap, ymap);
    check_launch("fwd_wgmma_kernel");
    return true;
  }
  // The flags count from zero whatever the scratch held: cleared by a
  // kernel of their own, which the split kernel may overlap (it reads
  // nothing that kernel writes before flags_cleared).
  clear_flags_kernel<<<1, 256, 0, stream>>>(p.flags, 2 * g.tail);
  check_launch("clear_flags_kernel");
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(g.blocks));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, p, wmap, xmap, ymap), "fwd_wgmma_kernel");
  check_launch("fwd_wgmma_kernel");
  return true;
}

template <bool Bf16>
bool launch_tile(const FwdArgs &p, FwdTile t, int blocks, int parts, void *scratch, size_t scratch_bytes,
                 cudaStream_t stream) {
  auto launch = [&](auto kernel) { return kernel(p, blocks, parts, scratch, scratch_bytes, stream); };
  if (t.bn == 256 && t.mw == 1) return launch(launch_tile_kernel<Bf16, 256, 1>);
  if (t.bn == 128 && t.mw == 2) return launch(launch_tile_kernel<Bf16, 128, 2>);
  if (t.bn == 128 && t.mw == 1) return launch(launch_tile_kernel<Bf16, 128, 1>);
  if (t.bn == 64 && t.mw == 2) return launch(launch_tile_kernel<Bf16, 64, 2>);
  return launch(launch_tile_kernel<Bf16, 64, 1>);
}

bool launch_chosen_tile(const FwdArgs &p, ConvTypes t, void *scratch, size_t scratch_bytes, void *stream) {
  const int blocks = grid_blocks();
  const FwdChoice c = choose_tile(p.M, p.K, p.nsteps, blocks, split_switch());
  return t == ConvTypes::bf16
             ? launch_tile<true>(p, c.tile, blocks, c.grid.parts, scratch, scratch_bytes, as_stream(stream))
             : launch_tile<false>(p, c.tile, blocks, c.grid.parts, scratch, scratch_bytes, as_stream(stream));
}

}  // namespace

bool conv_fwd_wgmma_applies(const ConvArgs &a, ConvTypes t) {
  if (a.dir != kConvFwd || (t != ConvTypes::f16 && t != ConvTypes::bf16) || a.G != 1) return false;
  if (a.Cg % 64 != 0 || a.Kg % 64 != 0) return false;
  if (a.filt[0] != 1 || a.in[0] != 1 || a.out[0] != 1 || a.pad[0] != 0) return false;
  const int H = a.in[1], W = a.in[2], C = a.Cg, K = a.Kg, R = a.filt[1], S = a.filt[2];
  if (H >= 32768 || W >= 32768 || a.out[1] < 1 || a.out[2] < 1) return false;
  // The gather's offsets into x and the pixel count are 32-bit.
  const int64_t int_max = 0x7fffffff;
  if (int64_t{a.N} * H * W * C > int_max || int64_t{a.N} * a.P > int_max) return false;
  // Packed NHWC x and y, packed KRSC w (strides N/K, C, D, H, W).
  if (a.xs[1] != 1 || a.xs[4] != C || a.xs[3] != W * C || a.xs[0] != H * W * C) return false;
  if (a.ys[1] != 1 || a.ys[4] != K || a.ys[3] != a.out[2] * K || a.ys[0] != a.P * K) return false;
  if (a.ws[1] != 1 || a.ws[4] != C || a.ws[3] != S * C || a.ws[0] != R * S * C) return false;
  // A reduction of fewer than 4 steps (1x1 with C = 64: bandwidth-bound,
  // a tile's stores outweigh its products) runs faster on the mma.sync
  // kernel's epilogue: device run 1 of 2026-11-23, batch 256 64x56 1x1
  // 64 -> 256 forward 68 TFLOP/s here against 84 there, 64 -> 64 52 / 58.
  if (int64_t{R} * S * (C / 64) < 4) return false;
  return switched_on() && device_runs_wgmma(kRingBudget + 2048);
}

size_t conv_fwd_wgmma_scratch(const ConvArgs &a, int *parts) {
  const FwdArgs p = make_args(a);
  const FwdChoice c = choose_tile(p.M, p.K, p.nsteps, grid_blocks(), split_switch());
  *parts = c.grid.parts;
  return split_bytes(c.grid, c.tile.bn, c.tile.mw);
}

void launch_conv_fwd_wgmma(const ConvArgs &a, ConvTypes t, void *scratch, size_t scratch_bytes, void *stream) {
  launch_chosen_tile(make_args(a), t, scratch, scratch_bytes, stream);
}

bool launch_conv_dgrad_wgmma(const ConvArgs &f, const ConvArgs &dgrad, ConvTypes t, void *scratch,
                             size_t scratch_bytes, void *stream) {
  if (dgrad.G != 1 || !aligned_to(dgrad.B, 16)) return false;
  // The data gradient's w packed KRSC: its K rows (f's reduction channels)
  // of R * S taps x C (f's outputs).
  const int C = dgrad.Cg, R = dgrad.filt[1], S = dgrad.filt[2];
  if (dgrad.filt[0] != 1 || dgrad.ws[1] != 1 || dgrad.ws[4] != C || dgrad.ws[3] != S * C || dgrad.ws[0] != R * S * C)
    return false;
  FwdArgs p = make_args(f);
  p.w = static_cast<const uint16_t *>(dgrad.B);
  p.b_trans = 1;
  // Forward tap t applies w' tap t = w's tap T-1-t (CROSS_CORRELATION) or
  // t (CONVOLUTION): the kernel's flip reverses the taps it reads.
  p.flip = dgrad.flip ? 0 : 1;
  return launch_chosen_tile(p, t, scratch, scratch_bytes, stream);
}

}  // namespace fdnn::cuda
