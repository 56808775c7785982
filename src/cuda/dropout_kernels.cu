// CUDA dropout kernels. One thread per group of 4 elements (one Philox
// block, core/philox.hpp, so the masks are those of the CPU engines); the 8
// threads of a 32-element mask word assemble it with warp shuffles and one of
// them stores it. Packed tensors move 4 elements per access; dense permuted
// layouts (NHWC, ...) go by runs of 8 logical elements a thread where their
// rows start on mask words, or for 16-bit types on 4-element groups
// (dropout_runs_kernel), else by tiles (dropout_tiled_kernel); other
// layouts decompose the logical index per element. Forward reads the seed
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
// H W a multiple of 32, NDHWC with W one, ...; SHIFT below: on 4-element
// groups). A thread takes one vector of V consecutive B values (16 bytes
// of memory) at 8 consecutive A values: it loads its 8 vectors first,
// computes (2 Philox blocks each, the other kernels' counters) or loads the
// V mask bytes of its rows while they are in flight, and stores. Threads go
// along B first (`vectors` of them, a warp's access contiguous runs of up
// to 512 bytes, as a packed tensor's), then along A chunks of 8 (launch_runs
// picks the CTA's shape). Forward assembles the CTA's mask words in shared
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

// SHIFT: rows that start on nibbles (4-element Philox groups) but not on
// mask words: a_extent, b_logical and every batch_logical multiples of 4
// (NHWC with H W = 784, 196, 2500, ...). A chunk's 8 bits are still 2
// whole Philox blocks, so the forward's Philox work is the aligned one's;
// a row's last chunk holds 4 elements where a_extent % 8 == 4. What changes
// is the mask: a chunk's byte straddles two mask bytes where the row starts
// on an odd nibble. Forward writes the mask byte by byte from the CTA's
// chunk bytes in shared memory: mask byte k (nibbles 2k, 2k + 1) is stored
// by the CTA whose range holds nibble 2k, which computes nibble 2k + 1 when
// it lies past its range (one Philox block a row at most; 0 past n, as the
// other kernels' words). Backward reads a chunk's bits from one or two bytes.
// 16-bit types only (launch_runs says why). H100, of copy forward / backward
// (x cuDNN 9.19), tiled kernel -> SHIFT (run 4 of the twenty-fourth
// session): f16 NHWC 128x200x50x50 0.41 / 0.56 -> 0.71 / 0.84 (11.9 /
// 12.3), bf16 0.41 / 0.58 -> 0.73 / 0.85, f16 NHWC 320x256x28x28 0.47 /
// 0.64 -> 0.75 / 0.84 (run 3: 0.78 / 0.89); with the Philox blocks
// interleaved (run 6) f16 0.74 / 0.84, bf16 0.75 / 0.85, 28x28 0.83 /
// 0.87 (12.6 / 12.3, 13.7 / 12.5 x cuDNN). The CTA shapes with `vectors`
// not a power of two (C = 200: 25 vectors, 125 of 128 threads working
// instead of 100) took f16 128x200x50x50 from 0.48 / 0.61 to 0.53 / 0.67
// (run 2), loading both mask bytes of every row before using any 0.67 ->
// 0.85 backward, and the extra Philox blocks one row a thread 0.58 -> 0.71
// forward (run 3 -> 4).
template <class S, class C, bool FWD, bool SHIFT>
__global__ void __launch_bounds__(kRunThreads, FWD ? 6 : 1)
    dropout_runs_kernel(DropoutArgs a, C scale, bool vec, int vectors, int cta_chunks) {
  constexpr int V = static_cast<int>(16 / sizeof(S)), R = 8;
  using P = Pack<S, V>;
  __shared__ uint32_t words[kRunThreads * V / 4];
  const DropoutTiled &t = a.tiled;
  // The CTA's extent: `vectors` along B, cta_chunks along A (vectors *
  // cta_chunks <= blockDim.x; the threads past it idle).
  const int vec_in = static_cast<int>(threadIdx.x) % vectors, chunk_in = static_cast<int>(threadIdx.x) / vectors;
  const int64_t b_first = static_cast<int64_t>(blockIdx.x) * vectors * V;
  const int64_t chunk_first = static_cast<int64_t>(blockIdx.y) * cta_chunks, chunks = (t.a_extent + R - 1) / R;
  const int64_t b0 = b_first + vec_in * V, chunk = chunk_first + chunk_in;
  const int b_count = static_cast<int>(t.b_extent - b0 < V ? (t.b_extent - b0 > 0 ? t.b_extent - b0 : 0) : V);
  // Rows of this chunk: R, or 4 for a SHIFT row's last chunk.
  const int r_count = SHIFT && t.a_extent - chunk * R < R ? static_cast<int>(t.a_extent - chunk * R) : R;
  const bool live = chunk_in < cta_chunks && chunk < chunks && b_count > 0;
  int64_t base_logical = 0, base_mem = 0;
  batch_base(t, blockIdx.z, base_logical, base_mem);
  const int64_t row0 = base_mem + b0 + chunk * R * t.a_stride;
  const S *x = static_cast<const S *>(a.x.ptr) + row0;
  S *y = static_cast<S *>(a.y.ptr) + row0;
  const bool full = live && vec && b_count == V && r_count == R;
  P ring[R];
  if (full) {
#pragma unroll
    for (int r = 0; r < R; ++r) ring[r] = *reinterpret_cast<const P *>(x + r * t.a_stride);
  }
  // First Philox group (nibble) of B row b0 + i over this chunk: nib0 + i *
  // nib_step; aligned rows make it even (the chunk is mask byte nib0 / 2).
  const int64_t nib0 = (base_logical + b0 * t.b_logical) / 4 + 2 * chunk, nib_step = t.b_logical / 4;
  uint64_t bits = 0;  // bit 8 i + r: row r of B row b0 + i
  uint8_t *const cta_bytes = reinterpret_cast<uint8_t *>(words);
  if (live) {
    if constexpr (FWD) {
      const uint64_t seed = *a.seed, offset = *a.offset;
      // Aligned: the CTA's words as in the tensor, groups of 4 chunks a
      // word; SHIFT: each B row's chunk bytes in a row of cta_chunks.
      uint8_t *bytes = SHIFT ? cta_bytes + static_cast<int64_t>(vec_in) * V * cta_chunks + chunk_in
                             : cta_bytes + ((chunk_in / 4) * vectors * V + vec_in * V) * 4 + chunk_in % 4;
      const int byte_step = SHIFT ? cta_chunks : 4;
#pragma unroll 1
      for (int i = 0; i < V; ++i) {
        const uint64_t g = static_cast<uint64_t>(nib0 + i * nib_step);
        // Both blocks computed, the second masked off for a 4-element
        // chunk: a branch around it kept nvcc from interleaving the two
        // blocks' rounds (H100, SHIFT forward of copy: f16 128x200x50x50
        // 0.71 -> 0.74, 320x256x28x28 0.75 -> 0.83; run 6).
        const uint32_t hi = philox::keep_nibble(seed, offset, g + 1, a.threshold);
        const uint32_t b = philox::keep_nibble(seed, offset, g, a.threshold) | (!SHIFT || r_count == R ? hi << 4 : 0u);
        bits |= static_cast<uint64_t>(b) << (8 * i);
        bytes[byte_step * i] = static_cast<uint8_t>(b);
      }
    } else {
      const uint8_t *mask = reinterpret_cast<const uint8_t *>(a.mask);
      if constexpr (!SHIFT) {
#pragma unroll
        for (int i = 0; i < V; ++i)
          if (i < b_count) bits |= static_cast<uint64_t>(__ldg(mask + ((nib0 + i * nib_step) >> 1))) << (8 * i);
      } else {
        // Both bytes of every row loaded before any is used (branches
        // between them made nvcc wait for each load in turn); the second
        // from the first's address where it is not needed.
        uint32_t lo[V], hi[V];
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const int64_t g = nib0 + (i < b_count ? i : 0) * nib_step;
          const uint8_t *p = mask + (g >> 1);
          lo[i] = __ldg(p);
          hi[i] = __ldg(p + ((g & 1) && r_count == R ? 1 : 0));
        }
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const int64_t g = nib0 + i * nib_step;
          const uint32_t b = (g & 1) ? (lo[i] >> 4) | (r_count == R ? (hi[i] & 0xfu) << 4 : 0u)
                                     : lo[i] & (r_count == R ? 0xffu : 0xfu);
          if (i < b_count) bits |= static_cast<uint64_t>(b) << (8 * i);
        }
      }
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
    } else {  // a partial vector or chunk, or unaligned strides: element by element
      for (int r = 0; r < r_count; ++r)
        for (int i = 0; i < b_count; ++i) {
          const int64_t o = r * t.a_stride + i;
          y[o] = Storage<S>::store(((bits >> (8 * i + r)) & 1u) ? Storage<S>::template load<C>(x[o]) * scale : C(0));
        }
    }
  }
  if constexpr (FWD && !SHIFT) {
    // The CTA's words: cta_chunks / 4 groups of whole words, each for the
    // vectors * V B rows; those past the tensor's B or A extents stay unset.
    __syncthreads();
    const int per_group = vectors * V, count = cta_chunks / 4 * per_group;
    for (int w = static_cast<int>(threadIdx.x); w < count; w += static_cast<int>(blockDim.x)) {
      const int64_t b = b_first + w % per_group, group_chunk = chunk_first + 4 * (w / per_group);
      if (b < t.b_extent && group_chunk < chunks) a.mask[(base_logical + b * t.b_logical) / 32 + group_chunk / 4] = words[w];
    }
  }
  if constexpr (FWD && SHIFT) {
    // The mask bytes this CTA owns: a B row's nibbles p = p0, p0 + 2, ...
    // (p0 = the row's first nibble's parity) of its cnt nibbles here.
    const int rows = vectors * V;
    const int64_t first_nib = 2 * chunk_first, n_nibbles = t.a_extent / 4;
    const int cnt = static_cast<int>(n_nibbles - first_nib < 2 * cta_chunks ? n_nibbles - first_nib : 2 * cta_chunks);
    const int rows_here = static_cast<int>(t.b_extent - b_first < rows ? t.b_extent - b_first : rows);
    const int64_t row_nib0 = (base_logical + b_first * t.b_logical) / 4 + first_nib;  // row 0's first nibble here
    // A row whose last owned byte's high nibble (nib + cnt) lies past the
    // range (nib + cnt odd) needs one more Philox block: every row or none
    // where nib_step is even, every other row where it is odd. One row a
    // thread, before the barrier (a thread per row of the store loop below
    // left whole warps waiting on the few lanes with such rows).
    __shared__ uint8_t extra[kRunThreads * V];
    {
      const int step = (nib_step & 1) ? 2 : 1;
      const int r0 = ((row_nib0 + cnt) & 1) ? 0 : 1;  // the first such row (step 1: none when 1)
      const int count = step == 2 ? (rows_here - r0 + 1) / 2 : (r0 == 0 ? rows_here : 0);
      for (int k = static_cast<int>(threadIdx.x); k < count; k += static_cast<int>(blockDim.x)) {
        const int row = r0 + step * k;
        const uint64_t g = static_cast<uint64_t>(row_nib0 + row * nib_step + cnt);
        extra[row] = static_cast<int64_t>(g) * 4 < a.n ? static_cast<uint8_t>(philox::keep_nibble(*a.seed, *a.offset, g, a.threshold)) : 0;
      }
    }
    __syncthreads();
    // Thread t < per_pass * cta_chunks (per_pass = blockDim / cta_chunks)
    // takes byte j = t % cta_chunks of rows t / cta_chunks + k * per_pass;
    // the CTA's other threads would repeat their bytes.
    const int per_pass = static_cast<int>(blockDim.x) / cta_chunks;
    const int j = static_cast<int>(threadIdx.x) % cta_chunks, row_first = static_cast<int>(threadIdx.x) / cta_chunks;
    const int row_end = row_first < per_pass ? rows_here : 0;
    uint8_t *mask = reinterpret_cast<uint8_t *>(a.mask);
    const int64_t last_byte = (a.n - 1) / 8, end_byte = (a.n + 31) / 32 * 4;
    for (int row = row_first; row < row_end; row += per_pass) {
      const int64_t nib = row_nib0 + row * nib_step;
      const int p = static_cast<int>(nib & 1) + 2 * j;
      if (p >= cnt) continue;
      const uint8_t *cb = cta_bytes + row * cta_chunks;
      // Nibbles p and p + 1: chunk bytes p / 2 (and (p + 1) / 2).
      const uint32_t pair = cb[p >> 1] | (p + 2 <= 2 * cta_chunks - 1 ? static_cast<uint32_t>(cb[(p >> 1) + 1]) << 8 : 0u);
      const uint32_t lo = (pair >> (4 * (p & 1))) & 0xfu;
      const uint32_t hi = p + 1 < cnt ? (pair >> (4 * (p & 1) + 4)) & 0xfu : extra[row];
      const int64_t byte = (nib + p) >> 1;
      mask[byte] = static_cast<uint8_t>(lo | (hi << 4));
      if (byte == last_byte)  // the last word's bytes past n, zero as in the other kernels' words
        for (int64_t z = byte + 1; z < end_byte; ++z) mask[z] = 0;
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
// 64 A values instead of 128), "noshift" (the runs kernel only for rows
// that start on mask words), "shiftall" (the runs kernel's SHIFT form for
// every type and for rows on mask words too). Unset: packed 16-bit types
// on the wide kernel with 16, FLOAT with 8, DOUBLE on dropout_kernel;
// permuted dense FLOAT / HALF / BFLOAT16 on the runs kernel where their rows
// start on mask words (16-bit types: on 4-element groups), else on the
// tiled kernel.
struct DropoutTune {
  bool old = false;
  bool notile = false;
  bool nobpre = false;
  bool noruns = false;
  bool ta64 = false;
  bool noshift = false;
  bool shiftall = false;
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
    r.noshift = env_has_word("FREEDNN_DROPOUT_TUNE", "noshift");
    r.shiftall = env_has_word("FREEDNN_DROPOUT_TUNE", "shiftall");
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
// rows do not start on mask words (nor, unless tune.noshift, on nibbles)
// or the grid would pass its limits.
template <class S, class C>
bool launch_runs(const DropoutArgs &a, C scale, const DropoutTune &tune, cudaStream_t stream) {
  constexpr int V = static_cast<int>(16 / sizeof(S));
  const DropoutTiled &t = a.tiled;
  const auto starts_on = [&](int64_t unit) {
    bool on = t.a_extent % unit == 0 && t.b_logical % unit == 0;
    for (int d = 0; d < t.batch_rank; ++d) on = on && t.batch_logical[d] % unit == 0;
    return on;
  };
  // SHIFT for 16-bit types only: FLOAT rows off the words run faster on the
  // tiled kernel (H100, f32 NHWC 128x200x50x50: 0.87 / 0.98 of copy against
  // 0.85 / 0.89 with SHIFT, run 2 of the twenty-fourth session).
  const bool aligned = starts_on(32) && !tune.shiftall;
  if (!aligned && (tune.noshift || !starts_on(4) || (sizeof(S) == 4 && !tune.shiftall))) return false;
  const int64_t batch = tiled_batch(t);
  const bool vec = tiled_vectors(a, V);
  // A CTA of up to 128 threads: `vectors` consecutive vectors along B (all
  // of B below 32; else 32, a warp's access a contiguous 512 bytes) times
  // cta_chunks chunks of 8 along A (a multiple of 4 where the forward stores
  // whole words); with few chunks, more vectors instead. Lanes go along B
  // first. C = 200 in 16-bit (25 vectors) in warps of 32 lanes along B left
  // 7 idle; here 125 of 128 threads work.
  const int64_t b_vectors = (t.b_extent + V - 1) / V, chunks = (t.a_extent + 7) / 8;
  const int unit = a.forward && aligned ? 4 : 1;
  const int64_t chunks_max = (chunks + unit - 1) / unit * unit;
  int vectors = b_vectors >= 32 ? 32 : static_cast<int>(b_vectors);
  int cta_chunks = kRunThreads / vectors / unit * unit;
  if (cta_chunks > chunks_max) {
    cta_chunks = static_cast<int>(chunks_max);
    vectors = static_cast<int>(std::min<int64_t>(b_vectors, kRunThreads / cta_chunks));
  }
  const int64_t b_tiles = (b_vectors + vectors - 1) / vectors;
  const int64_t a_tiles = (chunks + cta_chunks - 1) / cta_chunks;
  if (b_tiles >= (int64_t{1} << 31) || a_tiles > 65535 || batch > 65535) return false;
  const dim3 grid(static_cast<unsigned>(b_tiles), static_cast<unsigned>(a_tiles), static_cast<unsigned>(batch));
  const unsigned threads = static_cast<unsigned>((vectors * cta_chunks + 31) / 32 * 32);
  if (a.forward && aligned)
    dropout_runs_kernel<S, C, true, false><<<grid, threads, 0, stream>>>(a, scale, vec, vectors, cta_chunks);
  else if (a.forward)
    dropout_runs_kernel<S, C, true, true><<<grid, threads, 0, stream>>>(a, scale, vec, vectors, cta_chunks);
  else if (aligned)
    dropout_runs_kernel<S, C, false, false><<<grid, threads, 0, stream>>>(a, scale, vec, vectors, cta_chunks);
  else
    dropout_runs_kernel<S, C, false, true><<<grid, threads, 0, stream>>>(a, scale, vec, vectors, cta_chunks);
  check_launch("dropout_runs_kernel");
  return true;
}

template <class S, class C>
void launch_typed(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const DropoutTune &tune = dropout_tune();
  if constexpr (sizeof(S) <= 4) {
    if (a.tiled.on && !tune.old && !tune.notile) {
      if (!tune.noruns && launch_runs<S, C>(a, scale, tune, stream)) return;
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
