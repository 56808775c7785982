// CUDA dropout kernels. One thread per group of 4 elements (one Philox
// block, core/philox.hpp, so the masks are those of the CPU engines); the 8
// threads of a 32-element mask word assemble it with warp shuffles and one of
// them stores it. Packed tensors move 4 elements per access; dense permuted
// layouts (NHWC, ...) go by runs of 8 logical elements a thread where their
// rows start on mask words (dropout_runs_kernel), else by tiles
// (dropout_tiled_kernel); other layouts decompose the logical index per
// element. Forward reads the seed
// and offset from the states buffer in device memory, and a one-thread
// kernel ordered after it advances the offset.
//
// dropout_wide_kernel: E = 8 or 16 elements (E / 4 Philox blocks) per
// thread, the same masks bit for bit. A 16-bit thread of the kernel above
// had 8 bytes of x in flight, and its forward issued that load only after
// the Philox rounds and the shuffles. Here every x load of the thread is
// issued first, in 16-byte vectors, and the Philox rounds run while they
// are in flight. H100, 64x256x64x64 p = 0.5, of copy (2922 GB/s) forward /
// backward, dropout_kernel -> wide: f16 0.60 / 0.61 -> 0.89 / 0.92 (E = 16;
// 0.84 / 0.91 with 8), f32 0.90 / 0.87 -> 0.98 / 0.99 (E = 8; 0.80 / 0.79
// with 16).
#include <cuda_runtime.h>

#include <type_traits>

#include "core/env_words.hpp"
#include "core/philox.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/dropout_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline int64_t operand_offset(const DropoutOperand &o, int64_t i) {
  int64_t off = 0;
  for (int d = o.rank - 1; d >= 0; --d) {
    const int64_t e = o.dims[d];
    off += (i % e) * o.strides[d];
    i /= e;
  }
  return off;
}

template <class S, class C>
__global__ void __launch_bounds__(kThreads) dropout_kernel(DropoutArgs a, C scale) {
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = group * 4;
  const bool active = first < a.n;
  uint32_t nibble = 0;
  if (a.forward) {
    const uint64_t seed = *a.seed, offset = *a.offset;
    if (active) nibble = philox::keep_nibble(seed, offset, static_cast<uint64_t>(group), a.threshold);
    // Word = OR of the nibbles of 8 neighbouring lanes (aligned: blocks are
    // whole warps and a word covers groups 8w .. 8w+7).
    const int lane = threadIdx.x & 31;
    uint32_t word = nibble << (4 * (lane & 7));
    word |= __shfl_xor_sync(0xffffffffu, word, 1);
    word |= __shfl_xor_sync(0xffffffffu, word, 2);
    word |= __shfl_xor_sync(0xffffffffu, word, 4);
    if (active && (lane & 7) == 0) a.mask[group / 8] = word;
  } else if (active) {
    nibble = (a.mask[group / 8] >> (4 * (group & 7))) & 0xfu;
  }
  if (!active) return;
  const S *x = static_cast<const S *>(a.x.ptr);
  S *y = static_cast<S *>(a.y.ptr);
  const int count = a.n - first < 4 ? static_cast<int>(a.n - first) : 4;
  if (a.packed && count == 4) {
    using P = Pack<S, 4>;
    P v = *reinterpret_cast<const P *>(x + first), o;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      o.v[j] = Storage<S>::store(((nibble >> j) & 1u) ? Storage<S>::template load<C>(v.v[j]) * scale : C(0));
    *reinterpret_cast<P *>(y + first) = o;
    return;
  }
  for (int j = 0; j < count; ++j) {
    const int64_t i = first + j;
    const int64_t xo = a.packed ? i : operand_offset(a.x, i), yo = a.packed ? i : operand_offset(a.y, i);
    const C v = ((nibble >> j) & 1u) ? Storage<S>::template load<C>(x[xo]) * scale : C(0);
    y[yo] = Storage<S>::store(v);
  }
}

// Elements first .. first + E - 1 to thread t (first = t E); their keep bits
// are bits j = 0 .. E - 1 of `bits`, bit first % 32 + j of mask word first / 32,
// as in dropout_kernel. The L = 32 / E threads of a word are neighbouring lanes.
template <class S, class C, int E>
__global__ void __launch_bounds__(kThreads) dropout_wide_kernel(DropoutArgs a, C scale) {
  static_assert(E == 8 || E == 16, "8 or 16 elements a thread");
  constexpr int kVec = static_cast<int>(16 / sizeof(S)) < E ? static_cast<int>(16 / sizeof(S)) : E;
  constexpr int kAccesses = E / kVec, kLanes = 32 / E;
  using P = Pack<S, kVec>;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = t * E;
  const bool active = first < a.n;
  const bool full = a.packed && first + E <= a.n;
  const S *x = static_cast<const S *>(a.x.ptr);
  S *y = static_cast<S *>(a.y.ptr);
  P v[kAccesses];
  if (full) {
#pragma unroll
    for (int j = 0; j < kAccesses; ++j) v[j] = reinterpret_cast<const P *>(x + first)[j];
  }
  uint32_t bits = 0;
  if (a.forward) {
    const uint64_t seed = *a.seed, offset = *a.offset;
#pragma unroll
    for (int q = 0; q < E / 4; ++q) {
      // Computed for every group and dropped past the end, so that the
      // blocks' rounds have no branches between them and interleave.
      const int64_t group = t * (E / 4) + q;
      const uint32_t nibble = philox::keep_nibble(seed, offset, static_cast<uint64_t>(group), a.threshold);
      bits |= group * 4 < a.n ? nibble << (4 * q) : 0u;
    }
    const int lane = threadIdx.x & 31;
    uint32_t word = bits << (E * (lane % kLanes));
#pragma unroll
    for (int m = 1; m < kLanes; m <<= 1) word |= __shfl_xor_sync(0xffffffffu, word, m);
    if (active && lane % kLanes == 0) a.mask[first / 32] = word;
  } else if (active) {
    bits = (a.mask[first / 32] >> (first % 32)) & ((1u << E) - 1u);
  }
  if (!active) return;
  if (full) {
#pragma unroll
    for (int j = 0; j < kAccesses; ++j) {
      P o;
#pragma unroll
      for (int i = 0; i < kVec; ++i)
        o.v[i] = Storage<S>::store(((bits >> (j * kVec + i)) & 1u) ? Storage<S>::template load<C>(v[j].v[i]) * scale
                                                                   : C(0));
      reinterpret_cast<P *>(y + first)[j] = o;
    }
    return;
  }
  const int count = a.n - first < E ? static_cast<int>(a.n - first) : E;
  for (int j = 0; j < count; ++j) {
    const int64_t i = first + j;
    const int64_t xo = a.packed ? i : operand_offset(a.x, i), yo = a.packed ? i : operand_offset(a.y, i);
    const C val = ((bits >> j) & 1u) ? Storage<S>::template load<C>(x[xo]) * scale : C(0);
    y[yo] = Storage<S>::store(val);
  }
}

// Logical index and memory offset of batch coordinate z (the grid's z) of
// a tiled view.
__device__ inline void batch_base(const DropoutTiled &t, uint32_t z, int64_t &logical, int64_t &mem) {
  if (t.batch_rank == 1) {
    logical = z * t.batch_logical[0];
    mem = z * t.batch_stride[0];
    return;
  }
  for (int d = t.batch_rank - 1; d >= 0; --d) {
    const uint32_t e = static_cast<uint32_t>(t.batch_extent[d]), i = z % e;
    z /= e;
    logical += i * t.batch_logical[d];
    mem += i * t.batch_stride[d];
  }
}

// One 16-byte vector P to dst through __stwb (an explicit 16-byte store;
// see the tiled kernel's step 3 for why).
template <class P>
__device__ inline void store_vector16(void *dst, const P &o) {
  static_assert(sizeof(P) == 16, "16-byte vectors");
  uint4 u;
  memcpy(&u, &o, sizeof(u));
  __stwb(reinterpret_cast<uint4 *>(dst), u);
}

// dropout_tiled_kernel: x and y the same dense permuted layout (DropoutTiled:
// A the logical innermost dim, B the memory innermost one). The per-element
// path decomposed every logical index and touched memory at stride a_stride
// (0.14 of copy for f32 NHWC on the H100). A CTA here takes TB values of B x
// TA values of A of one batch coordinate: along A its elements are runs of
// consecutive logical indices, along B runs of consecutive addresses.
//  1. Each thread issues its loads of x first: V = 16 / sizeof(S) elements
//     along B a vector, TB / V threads an a-row, TA / (256 V / TB) vectors a
//     thread.
//  2. Meanwhile the keep bits of the tile's logical runs: for each B row
//     (TA logical indices from s), the mask words overlapping [s, s + TA),
//     8 lanes a word, a Philox block a lane (the counter and lane mapping of
//     the other kernels: group i / 4, word i % 4; groups past n keep nothing).
//     Forward stores every word it computes whole, also words shared with a
//     neighbouring tile or row: both CTAs store the same value. Backward
//     reads the words instead. The bits of the tile's own elements go to
//     shared memory as bytes keep[a][b], so that step 3 reads a vector's V
//     bits with one load.
//  3. y = x * scale or 0 per element, stored as vectors along B.
// H100, 64M elements, p = 0.5, of copy forward / backward, per-element path
// -> this kernel: f32 NHWC 64x256x64x64 0.14 / 0.14 -> 0.88 / 0.96, NDHWC
// 16x256x16x32x32 0.14 -> 0.91 / 0.95, NHWC 128x200x50x50 (rows off the mask
// words: 3 Philox blocks a thread instead of 2) 0.14 -> 0.72 / 0.93; f16
// NHWC 0.07 -> 0.54 / 0.59 (instruction-bound: ncu SM 71 %, DRAM 39 %).
// PRE (backward's default; FREEDNN_DROPOUT_TUNE=nobpre turns it off):
// every live mask-word load of the thread is issued before the first byte
// store to the tile (the generic mask pointer may alias shared memory, so
// nvcc kept each load after the stores before it). H100, same run, of copy
// (x cuDNN 9.19), backward old -> PRE: f16 NHWC 64x256x64x64 0.60-0.61
// (9.0-9.2) -> 0.65-0.66 (9.8-9.9); f32 NHWC 128x200x50x50 0.94-0.95 ->
// 0.98; f32 NHWC 64x256x64x64 0.96-0.97 either way.
template <class S, class C, int TB, int TA, bool PRE = false>
__global__ void __launch_bounds__(kThreads) dropout_tiled_kernel(DropoutArgs a, C scale, bool vec) {
  constexpr int V = static_cast<int>(16 / sizeof(S));
  constexpr int kRowThreads = TB / V, kRowsPerPass = kThreads / kRowThreads, kPasses = TA / kRowsPerPass;
  static_assert(TB % V == 0 && kThreads % kRowThreads == 0 && TA % kRowsPerPass == 0, "tile shape");
  // kPitch: V bytes of padding a row, so that step 2's byte stores (a
  // stepping by 4 across a word's lanes) spread over the banks.
  constexpr int kPitch = TB + V, kWordRows = kThreads / 8, kWordsPerRow = TA / 32 + 1;
  static_assert(TB % kWordRows == 0, "whole passes of word rows");
  using P = Pack<S, V>;
  static_assert(sizeof(P) == 16, "16-byte vectors");
  __shared__ alignas(16) uint8_t keep[TA * kPitch];
  const DropoutTiled &t = a.tiled;

  // Tile coordinates from the grid (x: B tiles, fastest, so that neighbouring
  // CTAs read neighbouring addresses; y: A tiles; z: batch): no 64-bit
  // divisions, which would cost each thread about as much as its Philox work.
  const int64_t b0 = static_cast<int64_t>(blockIdx.x) * TB, a0 = static_cast<int64_t>(blockIdx.y) * TA;
  int64_t base_logical = 0, base_mem = 0;
  batch_base(t, blockIdx.z, base_logical, base_mem);
  const int a_count = static_cast<int>(t.a_extent - a0 < TA ? t.a_extent - a0 : TA);
  const int b_count = static_cast<int>(t.b_extent - b0 < TB ? t.b_extent - b0 : TB);
  base_logical += b0 * t.b_logical + a0;
  base_mem += b0 + a0 * t.a_stride;

  // 1. Loads.
  const S *x = static_cast<const S *>(a.x.ptr) + base_mem;
  S *y = static_cast<S *>(a.y.ptr) + base_mem;
  const int vb = (threadIdx.x % kRowThreads) * V, ar = threadIdx.x / kRowThreads;
  const bool full_vec = vec && vb + V <= b_count;
  P v[kPasses];
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int ai = ar + p * kRowsPerPass;
    if (ai >= a_count) continue;
    const S *src = x + ai * t.a_stride + vb;
    if (full_vec) {
      v[p] = *reinterpret_cast<const P *>(src);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i)
        if (vb + i < b_count) v[p].v[i] = src[i];
    }
  }

  // 2. Keep bits. The word slots of the row passes are unrolled and their
  // Philox blocks computed without branches (used only where live), so that
  // they interleave; the last slot of each row, needed only when the rows do
  // not start on word boundaries, is skipped by whole warps otherwise.
  const int q = threadIdx.x & 7;
  const int64_t n = a.n;
  uint64_t seed = 0, offset = 0;
  if (a.forward) {
    seed = *a.seed;
    offset = *a.offset;
  }
  uint32_t pre[PRE ? TB / kWordRows : 1][PRE ? kWordsPerRow : 1];
  if constexpr (PRE) {
#pragma unroll
    for (int pass = 0; pass < TB / kWordRows; ++pass) {
      const int r = pass * kWordRows + static_cast<int>(threadIdx.x / 8);
      const int64_t s = base_logical + r * t.b_logical;
      const int64_t w_first = s >> 5, w_last = (s + a_count - 1) >> 5;
#pragma unroll
      for (int k = 0; k < kWordsPerRow; ++k) {
        const int64_t w = w_first + k;
        pre[pass][k] = !a.forward && r < b_count && w <= w_last ? __ldg(a.mask + w) : 0u;
      }
    }
  }
#pragma unroll
  for (int pass = 0; pass < TB / kWordRows; ++pass) {
    const int r = pass * kWordRows + static_cast<int>(threadIdx.x / 8);
    const int64_t s = base_logical + r * t.b_logical;
    const int64_t w_first = s >> 5, w_last = (s + a_count - 1) >> 5;
#pragma unroll
    for (int k = 0; k < kWordsPerRow; ++k) {
      const int64_t w = w_first + k;
      const bool live = r < b_count && w <= w_last;
      if (k == kWordsPerRow - 1 && !__any_sync(0xffffffffu, live)) continue;
      uint32_t nibble = 0;
      if (a.forward) {
        const int64_t g = 8 * w + q;
        const uint32_t raw = philox::keep_nibble(seed, offset, static_cast<uint64_t>(g), a.threshold);
        nibble = live && g * 4 < n ? raw : 0u;
        uint32_t word = nibble << (4 * q);
        word |= __shfl_xor_sync(0xffffffffu, word, 1);
        word |= __shfl_xor_sync(0xffffffffu, word, 2);
        word |= __shfl_xor_sync(0xffffffffu, word, 4);
        if (live && q == 0) a.mask[w] = word;
      } else if (live) {
        if constexpr (PRE) nibble = (pre[pass][k] >> (4 * q)) & 0xfu;
        else nibble = (a.mask[w] >> (4 * q)) & 0xfu;
      }
      if (!live) continue;
      const int first = static_cast<int>(32 * w - s) + 4 * q;  // row position of the lane's first element
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int pos = first + j;
        if (pos >= 0 && pos < a_count) keep[pos * kPitch + r] = static_cast<uint8_t>((nibble >> j) & 1u);
      }
    }
  }
  __syncthreads();

  // 3. Scale and store. The vectors go out through store_vector16 (__stwb):
  // stored as P or uint4, nvcc split them into 2- or 4-byte stores (8 or 4
  // times the store requests; H100 f16 NHWC 0.35 of copy with L2 90 % busy).
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int ai = ar + p * kRowsPerPass;
    if (ai >= a_count) continue;
    const uint8_t *kb = keep + ai * kPitch + vb;
    uint32_t bytes[V / 4];
#pragma unroll
    for (int i = 0; i < V / 4; ++i) bytes[i] = reinterpret_cast<const uint32_t *>(kb)[i];
    P o;
#pragma unroll
    for (int i = 0; i < V; ++i)
      o.v[i] = Storage<S>::store(((bytes[i / 4] >> (8 * (i % 4))) & 1u) ? Storage<S>::template load<C>(v[p].v[i]) * scale
                                                                       : C(0));
    S *dst = y + ai * t.a_stride + vb;
    if (full_vec) {
      store_vector16(dst, o);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i)
        if (vb + i < b_count) dst[i] = o.v[i];
    }
  }
}

// dropout_runs_kernel: the tiled views whose rows start on mask words
// (a_extent, b_logical and every batch_logical multiples of 32: NHWC with
// H W a multiple of 32, NDHWC with W one, ...). A thread takes one vector
// of V consecutive B values (16 bytes of memory) at 8 consecutive A values:
// it loads its 8 vectors first, computes (2 Philox blocks each, the other
// kernels' counters) or loads the V mask bytes of its rows while they are in
// flight, and stores. Lanes go along B first (lanes_b of them, a warp's
// access a contiguous run of up to 512 bytes, as a packed tensor's), then
// along A chunks of 8. Forward assembles the CTA's mask words in shared
// memory (a CTA's chunks come in whole words: 4 chunks of 8, from a
// multiple of 4) and stores them whole: byte stores straight to the mask,
// scattered a row apart, took the f16 forward to 0.44 of copy.
// The tiled kernel's accesses are 128-byte pieces of 4 or 8 rows a warp:
// f16 NHWC 64x256x64x64 ran at 0.56 / 0.65 of copy forward / backward on
// the H100, the backward with no Philox work at all. A first form of this
// kernel took 32 A values a thread (V whole mask words of its own, 8
// Philox blocks each, the rows through a ring of 8 vectors): 0.74-0.76 /
// 0.88-0.90; its long Philox phase left DRAM at 65 % and the SMs at 57 %
// (ncu; 2.6 waves of CTAs in step). Runs of 8, same run (twenty-third
// session): f16 NHWC 0.84 / 0.94 (15.8 / 14.1 x cuDNN 9.19), f32 NHWC 0.91
// / 0.98 (runs of 32: 0.84-0.88 / 0.90-0.94), NDHWC 0.92 / 0.97 (0.83-0.88
// / 0.92-0.94); ncu f16 forward 110.9 us, DRAM 69 %, SM 69 %.
constexpr int kRunThreads = 128;

template <class S, class C, bool FWD>
__global__ void __launch_bounds__(kRunThreads, FWD ? 6 : 1)
    dropout_runs_kernel(DropoutArgs a, C scale, bool vec, int lanes_b, int warps_b) {
  constexpr int V = static_cast<int>(16 / sizeof(S)), R = 8;
  using P = Pack<S, V>;
  __shared__ uint32_t words[kRunThreads * V / 4];
  const DropoutTiled &t = a.tiled;
  const int lane = threadIdx.x & 31, warp = static_cast<int>(threadIdx.x / 32);
  const int runs = 32 / lanes_b, warps_a = static_cast<int>(blockDim.x / 32) / warps_b;
  const int vectors = lanes_b * warps_b, cta_chunks = runs * warps_a;  // the CTA's extent along B (vectors) and A
  const int vec_in = (warp % warps_b) * lanes_b + lane % lanes_b, chunk_in = (warp / warps_b) * runs + lane / lanes_b;
  const int64_t b_first = static_cast<int64_t>(blockIdx.x) * vectors * V;
  const int64_t chunk_first = static_cast<int64_t>(blockIdx.y) * cta_chunks, chunks = t.a_extent / R;
  const int64_t b0 = b_first + vec_in * V, chunk = chunk_first + chunk_in;
  const int b_count = static_cast<int>(t.b_extent - b0 < V ? (t.b_extent - b0 > 0 ? t.b_extent - b0 : 0) : V);
  const bool live = chunk < chunks && b_count > 0;
  int64_t base_logical = 0, base_mem = 0;
  batch_base(t, blockIdx.z, base_logical, base_mem);
  const int64_t row0 = base_mem + b0 + chunk * R * t.a_stride;
  const S *x = static_cast<const S *>(a.x.ptr) + row0;
  S *y = static_cast<S *>(a.y.ptr) + row0;
  const bool full = live && vec && b_count == V;
  P ring[R];
  if (full) {
#pragma unroll
    for (int r = 0; r < R; ++r) ring[r] = *reinterpret_cast<const P *>(x + r * t.a_stride);
  }
  // Mask byte of B row b0 + i over this chunk: unit0 + i * unit_step.
  const int64_t unit0 = (base_logical + b0 * t.b_logical) / R + chunk, unit_step = t.b_logical / R;
  uint64_t bits = 0;  // bit 8 i + r: row r of B row b0 + i
  if (live) {
    if constexpr (FWD) {
      const uint64_t seed = *a.seed, offset = *a.offset;
      uint8_t *bytes = reinterpret_cast<uint8_t *>(words) + ((chunk_in / 4) * vectors * V + vec_in * V) * 4 + chunk_in % 4;
#pragma unroll 1
      for (int i = 0; i < V; ++i) {
        const uint64_t unit = static_cast<uint64_t>(unit0 + i * unit_step);
        const uint32_t b = philox::keep_nibble(seed, offset, 2 * unit, a.threshold) |
                           (philox::keep_nibble(seed, offset, 2 * unit + 1, a.threshold) << 4);
        bits |= static_cast<uint64_t>(b) << (8 * i);
        bytes[4 * i] = static_cast<uint8_t>(b);
      }
    } else {
      const uint8_t *mask = reinterpret_cast<const uint8_t *>(a.mask) + unit0;
#pragma unroll
      for (int i = 0; i < V; ++i)
        if (i < b_count) bits |= static_cast<uint64_t>(__ldg(mask + i * unit_step)) << (8 * i);
    }
    if (full) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        P v = ring[r];
        if constexpr (std::is_same_v<S, bf16_bits>) {
          // The row stays 4 packed registers until its turn: without the
          // empty asm nvcc widened every BFLOAT16 row to 8 floats at its
          // load (forward: 144 registers unbounded against 104 for HALF,
          // 168 bytes of spills at the bound; with it 80, none).
          uint4 u;
          memcpy(&u, &v, sizeof(u));
          asm volatile("" : "+r"(u.x), "+r"(u.y), "+r"(u.z), "+r"(u.w));
          memcpy(&v, &u, sizeof(v));
        }
        P o;
#pragma unroll
        for (int i = 0; i < V; ++i)
          o.v[i] = Storage<S>::store(((bits >> (8 * i + r)) & 1u) ? Storage<S>::template load<C>(v.v[i]) * scale : C(0));
        store_vector16(y + r * t.a_stride, o);
      }
    } else {  // a partial vector or unaligned strides: element by element
      for (int r = 0; r < R; ++r)
        for (int i = 0; i < b_count; ++i) {
          const int64_t o = r * t.a_stride + i;
          y[o] = Storage<S>::store(((bits >> (8 * i + r)) & 1u) ? Storage<S>::template load<C>(x[o]) * scale : C(0));
        }
    }
  }
  if constexpr (FWD) {
    // The CTA's words: cta_chunks / 4 groups of whole words, each for the
    // vectors * V B rows; those past the tensor's B or A extents stay unset.
    __syncthreads();
    const int per_group = vectors * V, count = cta_chunks / 4 * per_group;
    for (int w = static_cast<int>(threadIdx.x); w < count; w += static_cast<int>(blockDim.x)) {
      const int64_t b = b_first + w % per_group, group_chunk = chunk_first + 4 * (w / per_group);
      if (b < t.b_extent && group_chunk < chunks) a.mask[(base_logical + b * t.b_logical) / 32 + group_chunk / 4] = words[w];
    }
  }
}

__global__ void advance_offset_kernel(uint64_t *offset) { *offset += 1; }

// FREEDNN_DROPOUT_TUNE (comma-separated words, for measurements): "old"
// (dropout_kernel for every type and layout), "e8" / "e16"
// (dropout_wide_kernel with that many elements a thread for FLOAT, HALF and
// BFLOAT16), "notile" (permuted dense tensors on the per-element path of
// dropout_kernel instead of dropout_tiled_kernel), "noruns" (the tiled
// kernel also where dropout_runs_kernel applies), "ta64" (forward tiles of
// 64 A values instead of 128). Unset: packed 16-bit types
// on the wide kernel with 16, FLOAT with 8, DOUBLE on dropout_kernel;
// permuted dense FLOAT / HALF / BFLOAT16 on the runs kernel where their rows
// start on mask words, else on the tiled kernel.
struct DropoutTune {
  bool old = false;
  bool notile = false;
  bool nobpre = false;
  bool noruns = false;
  bool ta64 = false;
  int elements = 0;  // 0: the default per type
};
const DropoutTune &dropout_tune() {
  static const DropoutTune t = [] {
    DropoutTune r;
    r.old = env_has_word("FREEDNN_DROPOUT_TUNE", "old");
    r.notile = env_has_word("FREEDNN_DROPOUT_TUNE", "notile");
    r.nobpre = env_has_word("FREEDNN_DROPOUT_TUNE", "nobpre");
    r.noruns = env_has_word("FREEDNN_DROPOUT_TUNE", "noruns");
    r.ta64 = env_has_word("FREEDNN_DROPOUT_TUNE", "ta64");
    if (env_has_word("FREEDNN_DROPOUT_TUNE", "e8")) r.elements = 8;
    if (env_has_word("FREEDNN_DROPOUT_TUNE", "e16")) r.elements = 16;
    return r;
  }();
  return t;
}

template <class S, class C, int E>
void launch_wide(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const int64_t threads = (a.n + E - 1) / E;
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  check_arg(blocks < (int64_t{1} << 31), "cuda.dropout: tensor too large");
  dropout_wide_kernel<S, C, E><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, scale);
  check_launch("dropout_wide_kernel");
}

// The number of batch coordinates of a.tiled (the grid's z extent).
int64_t tiled_batch(const DropoutTiled &t) {
  int64_t batch = 1;
  for (int d = 0; d < t.batch_rank; ++d) batch *= t.batch_extent[d];
  return batch;
}

// Whether a.tiled's vectors of V elements along B may be 16-byte accesses:
// every other stride (and so every vector's start) a multiple of V and
// 16-byte aligned pointers.
bool tiled_vectors(const DropoutArgs &a, int V) {
  const DropoutTiled &t = a.tiled;
  bool vec = aligned_to(a.x.ptr, 16) && aligned_to(a.y.ptr, 16) && t.a_stride % V == 0;
  for (int d = 0; d < t.batch_rank; ++d) vec = vec && t.batch_stride[d] % V == 0;
  return vec;
}

// dropout_tiled_kernel on a.tiled; false (nothing launched) when the grid's
// y or z extent would pass 65535 (then the per-element path runs).
template <class S, class C, int TA, bool PRE>
bool launch_tiled(const DropoutArgs &a, C scale, cudaStream_t stream) {
  // TB x TA elements a CTA: f32 32 x TA, 16-bit 64 x TA (a-rows of 128 bytes
  // either way); with TA = 64, 8 elements a thread for f32 (as
  // dropout_wide_kernel's E = 8) and 16 for 16-bit, twice that with 128.
  constexpr int TB = sizeof(S) == 4 ? 32 : 64, V = static_cast<int>(16 / sizeof(S));
  const DropoutTiled &t = a.tiled;
  const int64_t batch = tiled_batch(t);
  const int64_t b_tiles = (t.b_extent + TB - 1) / TB, a_tiles = (t.a_extent + TA - 1) / TA;
  if (b_tiles >= (int64_t{1} << 31) || a_tiles > 65535 || batch > 65535) return false;
  const bool vec = tiled_vectors(a, V);
  const dim3 grid(static_cast<unsigned>(b_tiles), static_cast<unsigned>(a_tiles), static_cast<unsigned>(batch));
  dropout_tiled_kernel<S, C, TB, TA, PRE><<<grid, kThreads, 0, stream>>>(a, scale, vec);
  check_launch("dropout_tiled_kernel");
  return true;
}

// dropout_runs_kernel on a.tiled; false (nothing launched) when the view's
// rows do not start on mask words or the grid would pass its limits.
template <class S, class C>
bool launch_runs(const DropoutArgs &a, C scale, cudaStream_t stream) {
  constexpr int V = static_cast<int>(16 / sizeof(S));
  const DropoutTiled &t = a.tiled;
  if (t.a_extent % 32 != 0 || t.b_logical % 32 != 0) return false;
  for (int d = 0; d < t.batch_rank; ++d)
    if (t.batch_logical[d] % 32 != 0) return false;
  const int64_t batch = tiled_batch(t);
  const bool vec = tiled_vectors(a, V);
  // Lanes along B: the vectors of B, up to a warp (a power of two); up to
  // 4 warps a CTA along A where there are chunks of 8 for them, then along
  // B, and no more than the two need (the 32-value form on NDHWC with
  // W = 32, one chunk a row, left half of 128-thread CTAs idle: 0.89 of
  // copy backward against the tiled kernel's 0.97).
  constexpr int kWarps = kRunThreads / 32;
  const int64_t b_vectors = (t.b_extent + V - 1) / V, chunks = t.a_extent / 8;
  int lanes_b = 1;
  while (lanes_b < 32 && lanes_b < b_vectors) lanes_b *= 2;
  const int64_t runs = 32 / lanes_b;
  int warps_a = 1, warps_b = 1;
  while (warps_a < kWarps && warps_a * runs < chunks) warps_a *= 2;
  while (warps_a * warps_b < kWarps && int64_t{warps_b} * lanes_b < b_vectors) warps_b *= 2;
  if (runs * warps_a % 4 != 0) return false;  // the forward stores whole words (chunks >= 4 make this hold)
  const int64_t b_tiles = (b_vectors + int64_t{lanes_b} * warps_b - 1) / (int64_t{lanes_b} * warps_b);
  const int64_t a_tiles = (chunks + runs * warps_a - 1) / (runs * warps_a);
  if (b_tiles >= (int64_t{1} << 31) || a_tiles > 65535 || batch > 65535) return false;
  const dim3 grid(static_cast<unsigned>(b_tiles), static_cast<unsigned>(a_tiles), static_cast<unsigned>(batch));
  const unsigned threads = static_cast<unsigned>(32 * warps_a * warps_b);
  if (a.forward)
    dropout_runs_kernel<S, C, true><<<grid, threads, 0, stream>>>(a, scale, vec, lanes_b, warps_b);
  else
    dropout_runs_kernel<S, C, false><<<grid, threads, 0, stream>>>(a, scale, vec, lanes_b, warps_b);
  check_launch("dropout_runs_kernel");
  return true;
}

template <class S, class C>
void launch_typed(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const DropoutTune &tune = dropout_tune();
  if constexpr (sizeof(S) <= 4) {
    if (a.tiled.on && !tune.old && !tune.notile) {
      if (!tune.noruns && launch_runs<S, C>(a, scale, stream)) return;
      // Forward tiles of 128 A values: 5 Philox blocks a lane for 16
      // elements where rows start off the mask words, against 3 for 8 with
      // 64 (H100, f32 NHWC 128x200x50x50: 0.78 -> 0.87 of copy, run 8 of
      // the twenty-third session; "ta64" keeps 64). Backward has no Philox
      // work: 64, mask words loaded first (PRE).
      const bool tiled = a.forward   ? (tune.ta64 ? launch_tiled<S, C, 64, false>(a, scale, stream)
                                                  : launch_tiled<S, C, 128, false>(a, scale, stream))
                         : tune.nobpre ? launch_tiled<S, C, 64, false>(a, scale, stream)
                                       : launch_tiled<S, C, 64, true>(a, scale, stream);
      if (tiled) return;
    }
  }
  // The wide kernel's vectors need 16-byte alignment (the engine's `packed`
  // checks only 4 elements' worth).
  if constexpr (sizeof(S) <= 4) {
    const bool aligned = a.packed && aligned_to(a.x.ptr, 16) && aligned_to(a.y.ptr, 16);
    const int e = tune.old || !aligned ? 0 : tune.elements != 0 ? tune.elements : (sizeof(S) == 2 ? 16 : 8);
    if (e == 8) return launch_wide<S, C, 8>(a, scale, stream);
    if (e == 16) return launch_wide<S, C, 16>(a, scale, stream);
  }
  const int64_t groups = (a.n + 3) / 4;
  const int64_t blocks = (groups + kThreads - 1) / kThreads;
  check_arg(blocks < (int64_t{1} << 31), "cuda.dropout: tensor too large");
  dropout_kernel<S, C><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, scale);
  check_launch("dropout_kernel");
}

}  // namespace

void launch_dropout(const DropoutArgs &a, void *stream_p) {
  cudaStream_t stream = as_stream(stream_p);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_typed<float, float>(a, a.scale_f, stream); break;
    case CUDNN_DATA_DOUBLE: launch_typed<double, double>(a, a.scale_d, stream); break;
    case CUDNN_DATA_HALF: launch_typed<half_bits, float>(a, a.scale_f, stream); break;
    case CUDNN_DATA_BFLOAT16: launch_typed<bf16_bits, float>(a, a.scale_f, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.dropout: unsupported data type");
  }
  if (a.forward && a.advance_offset) {
    advance_offset_kernel<<<1, 1, 0, stream>>>(a.offset);
    check_launch("advance_offset_kernel");
  }
}

}  // namespace fdnn::cuda
