// cpu.pointwise.strided: the fast CPU engine for a single PointwiseOp.
//
// The iteration space is simplified into a LoopNest (contiguous dimensions
// collapsed, ordered by y's strides). Then:
//  - rows: the innermost dimension is processed in rows by the
//    load/compute/store kernels (pointwise_kernels.hpp), rows spread over the
//    thread pool (long rows are cut into chunks);
//  - tiled: when an input is contiguous along another dimension than y
//    (a layout change such as NCHW -> NHWC), the two dimensions are walked in
//    square tiles that stay in L1, so both the reads and the writes touch
//    whole cache lines instead of one element per line;
//  - copy / fill: same-type identity copies and constant fills skip the
//    compute stage and move raw elements;
//  - line blocks: same-type transposing copies of 1-, 2-, 4- and 8-byte
//    elements on AVX-512 CPUs go through transpose_lines.hpp, which reads
//    and writes whole cache lines (streamed when y is large).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>

#include "core/dtype.hpp"
#include "core/env_words.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "cpu/loop_nest.hpp"
#include "cpu/pointwise_kernels.hpp"
#include "cpu/pointwise_support.hpp"
#include "cpu/transpose.hpp"
#include "cpu/transpose_lines.hpp"
#include "cpu/cpu_features.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kChunk = 32768;             // elements of one row piece given to a thread
constexpr int64_t kParallelThreshold = 32768;  // below this many elements, run on the caller only
constexpr int64_t kTileNarrow = 32;           // tiled path: tile extent across far-apart runs
constexpr int64_t kTileWide = 256;            // and along them
constexpr int64_t kStreamBytes = 16 << 20;    // outputs at least this large bypass the caches
constexpr int64_t kTileBytes = 32768;         // gather buffer of the tiled path
constexpr int64_t kMergeRowBytes = 512;       // tiled path: y rows up to this long are taken whole
constexpr int64_t kStreamRunBytes = 512;      // streaming tiled path: bytes of each gathered-input run
constexpr int64_t kStreamFarRun = 256;        // and elements of each y run when y's rows are the far ones
constexpr int64_t kLineChunkBytes = 16384;    // line-block path: bytes of each x row in one work item
constexpr int64_t kStreamPrefetchBlocks = 2;  // streaming rows: inputs prefetched this many blocks ahead
constexpr int64_t kShortRowChunkBytes = 256;  // line-block path, short x rows: bytes of each x row per item
constexpr int64_t kShortRowBlocks = 8;        // and line blocks along y's rows per item
constexpr int64_t kShortRowMaxBytes = 4096;   // x rows up to this long count as short
constexpr int64_t kLongRunBytes = 8192;       // line-block path, short x rows: most bytes of each y row per item
constexpr int64_t kStagedRows = 64;           // line-block path, "staged" items: x rows per item

enum class Path { rows, tiled };
enum class Kind { general, copy, fill };

// Everything about a graph's structure the execution needs; alpha, beta and
// by-value scalars are read from the graph at each execution.
struct Layout {
  PointwiseOperands ops;  // y, inputs: uids, types, by-value flags
  LoopNest nest;          // operand 0 = y, then the inputs in order
  Path path = Path::rows;
  int tile_dim = -1;      // the d1 of the tiled path
  int tile_op = -1;       // the operand that is contiguous along d1
  int64_t tile0 = 0, tile1 = 0;  // tile extents along d0 and d1
  bool merge_rows = false;       // y (and every other operand) is contiguous across the tile
  bool stream_tiles = false;     // large y: tiles go through the buffer, streamed out, next tile prefetched
  bool line_blocks = false;      // a same-type copy that transpose_lines.hpp can do (when the op is a copy)
  LoopNest outer;         // the nest without d0 (rows) or without d0 and d1 (tiled)
  int64_t outer_count = 1;
};

template <class C>
struct Kernels {
  LoadFn<C> load[3] = {};
  bool in_place[3] = {};   // the input already holds C values: contiguous rows are used where they lie
  ComputeFn<C> compute = nullptr;
  StoreFn<C> store = nullptr;
  bool out_is_c = false;   // y holds C values: streaming stores need no staging
};

// Per-execution values shared by all rows.
template <class C>
struct RunArgs {
  char *base[kMaxNestOperands] = {};
  size_t es[kMaxNestOperands] = {};
  const C *constant[3] = {};  // by-value inputs, kBlock copies each
  C alpha1 = 1, alpha2 = 1, alpha = 1, beta = 0;
  pw::Params<C> params;
  int n_inputs = 1;
  Kind kind = Kind::general;
  CopyFn copy = nullptr;
  char fill_value[8] = {};
  bool stream = false;            // y is large and contiguous: non-temporal stores
  bool prefetch = false;          // large rows: prefetch the contiguous inputs ahead
  bool prefetch_y = false;        // ... and y, when its prior value is read (beta != 0, in place)
  const char *fill_block = nullptr;  // kBlock copies of fill_value (streaming fills)
};

template <class C>
void run_row(const Kernels<C> &k, const RunArgs<C> &a, const int64_t *off, const int64_t *stride, int64_t n) {
  char *dst = a.base[0] + off[0] * static_cast<int64_t>(a.es[0]);
  const bool stream = a.stream && stride[0] == 1;
  if (a.kind == Kind::copy && !stream) {
    a.copy(dst, stride[0], a.base[1] + off[1] * a.es[1], stride[1], n);
    return;
  }
  if (a.kind == Kind::fill && !stream) {
    a.copy(dst, stride[0], a.fill_value, 0, n);
    return;
  }
  alignas(64) C in[3][kBlock];
  alignas(64) C out[kBlock];
  alignas(64) char staged[kBlock * 8];  // converted values on their way to a streaming store
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int m = static_cast<int>(std::min<int64_t>(kBlock, n - i0));
    char *d = dst + i0 * stride[0] * static_cast<int64_t>(a.es[0]);
    if (a.kind != Kind::general) {  // streaming copy or fill
      const char *from = a.fill_block;
      if (a.kind == Kind::copy) {
        from = a.base[1] + (off[1] + i0 * stride[1]) * static_cast<int64_t>(a.es[1]);
        if (stride[1] != 1) {
          a.copy(staged, 1, from, stride[1], m);
          from = staged;
        }
      }
      stream_copy(d, from, m * a.es[0]);
      continue;
    }
    const C *src[3] = {in[0], in[1], in[2]};
    if (a.prefetch) {
      // Large rows are memory-bound: the contiguous inputs' lines
      // kStreamPrefetchBlocks blocks ahead are requested now, keeping more
      // reads in flight than the hardware prefetchers alone do (OpTensor
      // add 64x256x56x56 f32, beta 0, 2 threads: 0.65-0.79 -> 0.90-0.95 of
      // memcpy, about 0.95 of the 2R1W ceiling kernel). A y whose prior
      // value is read is prefetched for writing too (cudnnAddTensor of a
      // per-channel bias into 64x256x56x56 f32, in place, 2 threads: 35 ->
      // 47 GB/s, 0.8 -> 1.1 of memcpy).
      for (int j = 0; j < a.n_inputs; ++j) {
        const int o = j + 1;
        if (a.constant[j] != nullptr || stride[o] != 1) continue;
        const char *p = a.base[o] + (off[o] + i0 + kStreamPrefetchBlocks * kBlock) * static_cast<int64_t>(a.es[o]);
        const int64_t bytes = static_cast<int64_t>(m) * static_cast<int64_t>(a.es[o]);
        for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
      }
      if (a.prefetch_y && stride[0] == 1) {
        const char *p = dst + (i0 + kStreamPrefetchBlocks * kBlock) * static_cast<int64_t>(a.es[0]);
        const int64_t bytes = static_cast<int64_t>(m) * static_cast<int64_t>(a.es[0]);
        for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 1);
      }
    }
    for (int j = 0; j < a.n_inputs; ++j) {
      if (a.constant[j] != nullptr) {
        src[j] = a.constant[j];
      } else {
        const int o = j + 1;
        const char *p = a.base[o] + (off[o] + i0 * stride[o]) * static_cast<int64_t>(a.es[o]);
        if (k.in_place[j] && stride[o] == 1) src[j] = reinterpret_cast<const C *>(p);
        else k.load[j](p, stride[o], m, in[j]);
      }
    }
    const C *result = src[0];  // IDENTITY has no compute stage (alpha1 is folded into alpha)
    if (k.compute != nullptr) {
      k.compute(m, src[0], src[1], src[2], out, a.alpha1, a.alpha2, a.params);
      result = out;
    }
    if (stream && k.out_is_c) {
      stream_scaled(d, result, m, a.alpha);
    } else if (stream) {
      k.store(staged, 1, m, result, a.alpha, a.beta);
      stream_copy(d, staged, m * a.es[0]);
    } else {
      k.store(d, stride[0], m, result, a.alpha, a.beta);
    }
  }
}

void parallel(const ExecContext &ctx, int64_t items, int64_t elements,
              const std::function<void(int64_t, int64_t)> &body) {
  // Streaming stores of a thread must be visible before the call returns.
  auto fenced = [&](int64_t lo, int64_t hi) {
    body(lo, hi);
    stream_fence();
  };
  if (ctx.pool == nullptr || ctx.pool->size() <= 1 || elements < kParallelThreshold || items <= 1) {
    fenced(0, items);
    return;
  }
  // A few chunks per thread even out rows of unequal cost.
  ctx.pool->parallel_for(items, fenced, std::min<int64_t>(items, ctx.pool->size() * 4));
}

template <class C>
void run_rows(const ExecContext &ctx, const Layout &L, const Kernels<C> &k, const RunArgs<C> &a) {
  const LoopNest &nest = L.nest;
  const int d0 = nest.rank - 1;
  const int nops = nest.operands;
  const int64_t D0 = nest.dims[d0];
  int64_t inner_stride[kMaxNestOperands];
  for (int o = 0; o < nops; ++o) inner_stride[o] = nest.strides[o][d0];

  const int64_t pieces = (D0 + kChunk - 1) / kChunk;
  if (pieces == 1) {
    parallel(ctx, L.outer_count, nest.element_count(), [&](int64_t lo, int64_t hi) {
      OuterCursor cur(L.outer, L.outer.rank, lo);
      for (int64_t r = lo; r < hi; ++r, cur.next()) run_row(k, a, cur.offsets(), inner_stride, D0);
    });
    return;
  }
  parallel(ctx, L.outer_count * pieces, nest.element_count(), [&](int64_t lo, int64_t hi) {
    for (int64_t it = lo; it < hi; ++it) {
      OuterCursor cur(L.outer, L.outer.rank, it / pieces);
      const int64_t begin = (it % pieces) * kChunk, len = std::min(kChunk, D0 - begin);
      int64_t off[kMaxNestOperands];
      for (int o = 0; o < nops; ++o) off[o] = cur.offset(o) + begin * inner_stride[o];
      run_row(k, a, off, inner_stride, len);
    }
  });
}

// The gathered input's rows of one tile lie far apart (often at power-of-two
// distances): the hardware prefetchers do not follow that many streams, so
// the source lines of the next tile (in iteration order, same outer index)
// are requested while this one is transposed. Measured on 64x256x56x56
// NCHW <-> NHWC in a stand-alone test: about +20% over the same loop without it.
template <class C>
void prefetch_next_tile(const Layout &L, const RunArgs<C> &a, int64_t outer_off, int64_t b0, int64_t b1,
                        int64_t shift) {
  const LoopNest &nest = L.nest;
  const int d0 = nest.rank - 1, d1 = L.tile_dim, to = L.tile_op;
  const int64_t D0 = nest.dims[d0], D1 = nest.dims[d1];
  int64_t i0 = std::max<int64_t>(0, (b0 + 1) * L.tile0 - shift), j1 = b1 * L.tile1;
  if (i0 >= D0) {
    i0 = 0;
    j1 += L.tile1;
    if (j1 >= D1) return;  // the next tile belongs to another outer index
  }
  const int64_t es = static_cast<int64_t>(a.es[to]);
  const int64_t n0 = std::min((i0 + shift) / L.tile0 * L.tile0 + L.tile0 - shift, D0) - i0;
  const int64_t run = std::min(L.tile1, D1 - j1) * es;
  const char *p = a.base[to] + (outer_off + j1 * nest.strides[to][d1] + i0 * nest.strides[to][d0]) * es;
  for (int64_t r = 0; r < n0; ++r, p += nest.strides[to][d0] * es)
    for (int64_t b = 0; b < run; b += 64) __builtin_prefetch(p + b);
}

// Streaming tiles write y in runs of tile0 elements; a run that starts
// inside a cache line leaves partial lines at both ends, which fall back to
// ordinary stores (and mixing both on one line is slow: measured 2x slower
// with malloc's 16-byte offset). So the tile grid along d0 is shifted to
// start `shift` elements early, putting the tile edges on y's line
// boundaries, when every y row starts at the same offset within a line.
template <class C>
int64_t tile_grid_shift(const Layout &L, const RunArgs<C> &a) {
  const LoopNest &nest = L.nest;
  const int64_t es = static_cast<int64_t>(a.es[0]);
  const auto addr = static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.base[0]) & 63);
  if (!L.stream_tiles || L.merge_rows || addr == 0 || addr % es != 0 || L.tile0 * es % 64 != 0) return 0;
  for (int d = 0; d + 1 < nest.rank; ++d)
    if (nest.strides[0][d] * es % 64 != 0) return 0;
  return L.tile0 - (64 - addr) / es;
}

template <class C>
void run_tiled(const ExecContext &ctx, const Layout &L, const Kernels<C> &k, const RunArgs<C> &a) {
  const LoopNest &nest = L.nest;
  const int d0 = nest.rank - 1, d1 = L.tile_dim, to = L.tile_op;
  const int nops = nest.operands;
  const int64_t D0 = nest.dims[d0], D1 = nest.dims[d1];
  const int64_t T0 = L.tile0, T1 = L.tile1;
  const int64_t shift = tile_grid_shift(L, a);
  const int64_t nb0 = (D0 + shift + T0 - 1) / T0, nb1 = (D1 + T1 - 1) / T1;
  // Row strides: the gathered operand is read from the buffer, contiguously.
  int64_t s0[kMaxNestOperands];
  for (int o = 0; o < nops; ++o) s0[o] = nest.strides[o][d0];
  s0[to] = 1;
  // Same-type copies transpose straight into y, unless y is large enough
  // for streaming stores, which want whole lines from the buffer.
  const bool direct = a.kind == Kind::copy && nest.strides[0][d0] == 1 && !a.stream;

  parallel(ctx, L.outer_count * nb1 * nb0, nest.element_count(), [&](int64_t lo, int64_t hi) {
    alignas(64) char buf[kTileBytes];
    RunArgs<C> ta = a;
    ta.base[to] = buf;
    for (int64_t it = lo; it < hi; ++it) {
      const int64_t b0 = it % nb0, b1 = (it / nb0) % nb1, o_lin = it / (nb0 * nb1);
      OuterCursor cur(L.outer, L.outer.rank, o_lin);
      const int64_t i0 = std::max<int64_t>(0, b0 * T0 - shift), n0 = std::min(b0 * T0 + T0 - shift, D0) - i0;
      const int64_t j1 = b1 * T1, n1 = std::min(T1, D1 - j1);
      int64_t base[kMaxNestOperands];
      for (int o = 0; o < nops; ++o) base[o] = cur.offset(o) + j1 * nest.strides[o][d1] + i0 * nest.strides[o][d0];
      const char *src = a.base[to] + base[to] * static_cast<int64_t>(a.es[to]);
      if (L.stream_tiles && it + 1 < hi) prefetch_next_tile(L, a, cur.offset(to), b0, b1, shift);
      if (direct) {  // a same-type copy: transpose straight into y
        transpose_tile(a.es[0], src, nest.strides[to][d0], n0, n1, a.base[0] + base[0] * static_cast<int64_t>(a.es[0]),
                       nest.strides[0][d1]);
        continue;
      }
      transpose_tile(a.es[to], src, nest.strides[to][d0], n0, n1, buf, T0);
      int64_t off[kMaxNestOperands];
      if (L.merge_rows) {  // the tile is one contiguous run of y: one long row
        for (int o = 0; o < nops; ++o) off[o] = base[o];
        off[to] = 0;
        run_row(k, ta, off, s0, n0 * n1);
        continue;
      }
      if (a.kind == Kind::copy && a.stream) {  // the rows straight out of the buffer (no per-row set-up)
        const int64_t es = static_cast<int64_t>(a.es[0]);
        for (int64_t i1 = 0; i1 < n1; ++i1)
          stream_copy(a.base[0] + (base[0] + i1 * nest.strides[0][d1]) * es, buf + i1 * T0 * es, n0 * es);
        continue;
      }
      for (int64_t i1 = 0; i1 < n1; ++i1) {
        for (int o = 0; o < nops; ++o) off[o] = base[o] + i1 * nest.strides[o][d1];
        off[to] = i1 * T0;
        run_row(k, ta, off, s0, n0);
      }
    }
  });
}

// Elements of y before the first line boundary of every y row, or -1 when
// the rows do not all start at the same offset within a line (or too few
// whole blocks would remain for streaming to pay).
template <class C>
int64_t line_head(const Layout &L, const RunArgs<C> &a) {
  const LoopNest &nest = L.nest;
  const int d0 = nest.rank - 1;
  const int64_t es = static_cast<int64_t>(a.es[0]);
  const auto addr = static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.base[0]) & 63);
  for (int d = 0; d < nest.rank; ++d)
    if (d != d0 && nest.strides[0][d] * es % 64 != 0) return -1;
  if (addr % es != 0) return -1;
  const int64_t head = (64 - addr) % 64 / es;
  return head + line_block(a.es[0]) <= nest.dims[d0] ? head : -1;
}

// Same-type transposing copies with whole-line blocks (transpose_lines.hpp):
// y[i1 * ys1 + i0] = x[i0 * xs0 + i1] over the tiled pair (d0, d1) for each
// outer index. Work items are slabs of B = 64 / es rows of x (B elements of
// every y row), at most kLineChunkBytes of each x row: x rows are read in
// order, and each block writes B whole lines of y. (Short x rows with far
// y rows: see below.) When y is large its rows
// get streaming stores, provided every y row has the same offset within a
// cache line: the first `head` elements of each row (up to the first line
// boundary) and the last D0 % B go through the generic tile code with
// ordinary stores (line_head).
template <class C>
void run_line_blocks(const ExecContext &ctx, const Layout &L, const RunArgs<C> &a) {
  const LoopNest &nest = L.nest;
  const int d0 = nest.rank - 1, d1 = L.tile_dim;
  const size_t es = a.es[0];
  const int64_t esi = static_cast<int64_t>(es), B = line_block(es);
  const int64_t D0 = nest.dims[d0], D1 = nest.dims[d1];
  const int64_t xs0 = nest.strides[1][d0], ys1 = nest.strides[0][d1];
  const bool stream = a.stream;
  const int64_t head = stream ? line_head(L, a) : 0;
  const int64_t full = (D0 - head) / B, tail = head + full * B;
  // When x's rows are short and y's rows are the far-apart ones (NHWC ->
  // NCHW: x rows are one pixel's channels), an item that takes x rows whole
  // writes one line into each of D1 far-apart y rows (256 channel planes);
  // items of kShortRowBlocks blocks by kShortRowChunkBytes of each x row
  // write several consecutive lines per y row instead (64x256x56x56 f32
  // NHWC -> NCHW in a stand-alone loop, 2 threads: 16 x 256 elements per
  // item 30 GB/s, 128 x 64 33 GB/s, 64 x 64 32.5, 128 x 128 30.6).
  // When y is streamed, items of two blocks along i1 (128 bytes of each x
  // row: 32 f32 channels) by a long run along i0 (up to kLongRunBytes of each
  // y row: half a 56x56 f32 plane) are faster still: transpose_lines then
  // writes two adjacent lines per y row back to back (single lines to many
  // far-apart rows stream at about 0.55 of sequential stores here) and
  // prefetches the x lines down the run. Same problem, 2 threads, in one
  // process: 1.05-1.07x the 128 x 64 items (0.81 -> 0.86 of a streaming
  // copy of the same buffers); 32x64x56x56: 1.25x.
  // FREEDNN_CPU_LINE_ITEMS (comma-separated words, to measure): "0" keeps
  // the whole-row items, "short" the 128 x 64 ones also when streaming
  // ("q16" picks the 16-bit block kernel: transpose_lines.cpp).
  // When y is streamed, the default since the thirteenth session is
  // "staged" items: kStagedRows whole x rows (all channels) each, the next
  // item's rows touched in order into L2 while this one is transposed, so
  // that x is read sequentially. On that session's host (memcpy 30-37 GB/s,
  // where the long runs' 128-byte pieces of 1 KB x rows were latency-bound:
  // 0.35 of a copy on one thread), alternating processes, 64x256x56x56
  // NHWC -> NCHW: f32 19.0-20.0 -> 14.7-14.9 ms (0.46-0.55 -> 0.66-0.67 of a
  // paired streaming copy), f16 13.6-14.8 -> 8.4-8.7 ms. "long" keeps the
  // long runs (to compare on other hosts). Larger staged items (128, 256,
  // 512 x rows: 256 B to 1 KB of each y row per item in f16) measured the
  // same in the seventeenth session: f16 0.53-0.61 of the paired copy
  // against 0.59-0.63 at 64 rows.
  enum class Items { whole, short_runs, long_runs, staged };
  static const Items items = [] {
    if (env_has_word("FREEDNN_CPU_LINE_ITEMS", "0")) return Items::whole;
    if (env_has_word("FREEDNN_CPU_LINE_ITEMS", "short")) return Items::short_runs;
    if (env_has_word("FREEDNN_CPU_LINE_ITEMS", "long")) return Items::long_runs;
    return Items::staged;
  }();
  const bool short_rows = items != Items::whole && ys1 > xs0 && D1 * esi <= kShortRowMaxBytes;
  const bool long_runs = short_rows && stream && items == Items::long_runs;
  const bool staged = short_rows && stream && items == Items::staged;
  // Blocks of B along i0 per item.
  int64_t group = staged ? std::max<int64_t>(1, kStagedRows / B) : short_rows ? kShortRowBlocks : 1;
  const int64_t chunk = staged      ? D1
                        : long_runs ? 2 * B
                                    : std::max<int64_t>(B, (short_rows ? kShortRowChunkBytes : kLineChunkBytes) / esi / B * B);
  const int64_t chunks = (D1 + chunk - 1) / chunk;
  if (long_runs && full > 0) {
    // The fewest runs of at most kLongRunBytes, of equal length, but enough
    // items for every thread (a few each) when there are few images or
    // channels.
    const int64_t most = std::max<int64_t>(1, kLongRunBytes / (B * esi));
    const int64_t threads = ctx.pool != nullptr ? ctx.pool->size() : 1;
    const int64_t across = std::max<int64_t>(1, L.outer_count * chunks);  // items per run of every y row
    const int64_t want = (4 * threads + across - 1) / across;
    const int64_t runs = std::min(full, std::max((full + most - 1) / most, want));
    group = (full + runs - 1) / runs;
  }
  const int64_t groups = (full + group - 1) / group;
  // i0 pieces: [0, head) if any, `groups` runs of up to `group` blocks, [tail, D0) if any.
  const int64_t pieces = (head > 0 ? 1 : 0) + groups + (tail < D0 ? 1 : 0);
  parallel(ctx, L.outer_count * pieces * chunks, nest.element_count(), [&](int64_t lo, int64_t hi) {
    for (int64_t it = lo; it < hi; ++it) {
      const int64_t c = it % chunks, p = (it / chunks) % pieces, o_lin = it / (chunks * pieces);
      OuterCursor cur(L.outer, L.outer.rank, o_lin);
      int64_t i0 = 0, n0 = 0;
      bool edge = false;
      if (head > 0 && p == 0) {
        n0 = head, edge = true;
      } else if (p - (head > 0 ? 1 : 0) < groups) {
        const int64_t first = (p - (head > 0 ? 1 : 0)) * group;
        i0 = head + first * B, n0 = std::min(group, full - first) * B;
      } else {
        i0 = tail, n0 = D0 - tail, edge = true;
      }
      const int64_t i1 = c * chunk, n1 = std::min(chunk, D1 - i1);
      const char *src = a.base[1] + (cur.offset(1) + i0 * xs0 + i1) * esi;
      char *dst = a.base[0] + (cur.offset(0) + i1 * ys1 + i0) * esi;
      if (staged && i0 + 2 * n0 <= D0)  // the next item's x rows, in order, into L2
        for (int64_t r = 0; r < n0; ++r)
          for (int64_t b = 0; b < n1 * esi; b += 64) __builtin_prefetch(src + ((n0 + r) * xs0) * esi + b, 0, 2);
      if (edge) transpose_tile(es, src, xs0, n0, n1, dst, ys1);
      else line_transpose(es, src, xs0, n0, n1, dst, ys1, stream);
    }
  });
}

// The outer nest: `nest` without the dimensions in `skip` (d0, maybe d1).
LoopNest outer_of(const LoopNest &nest, int skip_a, int skip_b) {
  LoopNest out;
  out.operands = nest.operands;
  for (int d = 0; d < nest.rank; ++d) {
    if (d == skip_a || d == skip_b) continue;
    out.dims[out.rank] = nest.dims[d];
    for (int o = 0; o < nest.operands; ++o) out.strides[o][out.rank] = nest.strides[o][d];
    ++out.rank;
  }
  return out;
}

Layout make_layout(const graph::Graph &g) {
  Layout L;
  L.ops = pointwise_operands(g);
  const graph::Tensor &y = g.tensor(L.ops.uid[0]);
  std::vector<std::vector<int64_t>> strides;
  for (int o = 0; o < L.ops.count; ++o) strides.push_back(broadcast_strides(g.tensor(L.ops.uid[o]), y));
  if (!make_loop_nest(y.dims, strides, L.nest))
    fail(CUDNN_STATUS_NOT_SUPPORTED, "cpu.pointwise.strided: too many dimensions");
  if (L.nest.rank == 0) {  // a single element
    L.nest.rank = 1;
    L.nest.dims[0] = 1;
  }
  LoopNest &n = L.nest;
  const int d0 = n.rank - 1;
  // Tile when some input is contiguous along another dimension than y's
  // innermost one and reads across y's innermost dimension with a stride.
  for (int o = 1; o < n.operands && L.path == Path::rows; ++o) {
    if (L.ops.by_value[o]) continue;
    const int64_t s = n.strides[o][d0];
    if (s == 0 || s == 1) continue;
    for (int d = 0; d < d0; ++d) {
      if (n.strides[o][d] == 1 && n.dims[d] >= 4) {
        L.path = Path::tiled;
        L.tile_dim = d;
        L.tile_op = o;
        break;
      }
    }
  }
  if (L.path == Path::tiled) {
    const int64_t es = type_info(L.ops.dtype[L.tile_op]).bits / 8;
    const int d1 = L.tile_dim;
    // A tile is long along the dimension where the far-apart runs are and
    // narrow across it: many concurrent runs at a large (often power-of-two)
    // distance defeat the prefetchers and thrash cache sets. The far side is
    // the gathered input's d0 (its rows are s0 apart) or y's d1.
    const int64_t narrow = kTileNarrow, wide = kTileWide;
    const int64_t x_far = n.strides[L.tile_op][d0] * es;
    const int64_t y_far = n.strides[0][d1] * (type_info(L.ops.dtype[0]).bits / 8);
    const bool y_rows_far = y_far > x_far;
    // When a whole (short) y row fits a tile and y continues contiguously
    // across d1, tiles are long contiguous runs of y: the best case for
    // streaming stores.
    bool mergeable = n.dims[d0] * es <= kMergeRowBytes;
    for (int o = 0; o < n.operands && mergeable; ++o)
      if (o != L.tile_op) mergeable = n.strides[o][d1] == n.dims[d0] * n.strides[o][d0];
    L.tile0 = mergeable ? n.dims[d0] : std::min<int64_t>(n.dims[d0], y_rows_far ? wide : narrow);
    L.merge_rows = mergeable;
    const int64_t want1 = y_rows_far ? narrow : std::max(wide, narrow * wide / L.tile0);
    L.tile1 = std::max<int64_t>(1, std::min(want1, kTileBytes / (L.tile0 * es)));
    // Likewise, when the gathered input's rows along d1 are short, take them
    // whole: the tile then reads one contiguous block of it.
    if (y_rows_far && !mergeable && n.dims[d1] * es <= kMergeRowBytes) {
      L.tile1 = n.dims[d1];
      L.tile0 = std::min(n.dims[d0], std::max(narrow, kTileBytes / (L.tile1 * es)));
    }
    // A y much larger than the caches is bound by memory traffic: tiles are
    // transposed into the buffer and written out with streaming stores (no
    // read-for-ownership of y), in runs of at least a cache line each, so the
    // write-combining buffers fill whole lines one after the other. The runs
    // along the far-apart rows are the long ones: kStreamRunBytes of each
    // gathered row (NCHW -> NHWC: 64 x 128 f32, 64 x 256 f16) or kStreamFarRun
    // elements of each y row (NHWC -> NCHW: 256 x 32 f32, 256 x 64 f16), the
    // best of the shapes tried on 64x256x56x56 with 2 threads.
    const int64_t es_y = type_info(L.ops.dtype[0]).bits / 8;
    const int64_t y_bytes = n.element_count() * es_y;
    int64_t s_t0 = 0, s_t1 = 0;
    if (y_rows_far) {
      s_t0 = std::min(n.dims[d0], kStreamFarRun);
      s_t1 = std::min(n.dims[d1], std::max<int64_t>(1, kTileBytes / (s_t0 * es)));
    } else {
      s_t1 = std::min(n.dims[d1], std::max<int64_t>(1, kStreamRunBytes / es));
      s_t0 = std::min(n.dims[d0], kTileBytes / (s_t1 * es));
    }
    if (y_bytes >= kStreamBytes && streaming_stores_allowed() && n.strides[0][d0] == 1 && s_t0 * es_y >= 64) {
      L.stream_tiles = true;
      L.tile0 = s_t0;
      L.tile1 = s_t1;
      L.merge_rows = mergeable && s_t0 == n.dims[d0];
    }
  }
  if (L.path == Path::tiled && n.operands == 2 && L.tile_op == 1 && L.ops.dtype[0] == L.ops.dtype[1] &&
      n.strides[0][d0] == 1 && n.strides[1][L.tile_dim] == 1) {
    const size_t es = static_cast<size_t>(type_info(L.ops.dtype[0]).bits / 8);
    L.line_blocks = line_transpose_available(es) && n.dims[d0] >= line_block(es) &&
                    n.dims[L.tile_dim] >= line_block(es);
  }
  L.outer = L.path == Path::tiled ? outer_of(n, d0, L.tile_dim) : outer_of(n, d0, -1);
  L.outer_count = L.outer.element_count();
  return L;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), L_(make_layout(g)) {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    use_double_ = pointwise_computes_in_double(g, op);
    read_prior_ = op.blend.beta != 0.0;
    if (use_double_) init_kernels(kd_, op.mode);
    else init_kernels(kf_, op.mode);
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    if (use_double_) run<double>(ctx, g, pack, kd_);
    else run<float>(ctx, g, pack, kf_);
  }

 private:
  template <class C>
  void init_kernels(Kernels<C> &k, cudnnPointwiseMode_t mode) {
    const cudnnDataType_t c_type = std::is_same_v<C, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    for (int j = 0; j + 1 < L_.ops.count; ++j) {
      k.load[j] = load_fn_for<C>(L_.ops.dtype[j + 1]);
      k.in_place[j] = L_.ops.dtype[j + 1] == c_type;
    }
    k.compute = mode == CUDNN_POINTWISE_IDENTITY ? nullptr : compute_fn_for<C>(mode);
    k.store = store_fn_for<C>(L_.ops.dtype[0], read_prior_);
    k.out_is_c = L_.ops.dtype[0] == c_type;
  }

  template <class C>
  void run(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack, const Kernels<C> &k) const {
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    RunArgs<C> a;
    a.n_inputs = L_.ops.count - 1;
    a.alpha1 = static_cast<C>(op.alpha1);
    a.alpha2 = static_cast<C>(op.alpha2);
    a.alpha = static_cast<C>(op.blend.alpha);
    a.beta = static_cast<C>(op.blend.beta);
    a.params = make_params<C>(op);
    // The by-value constants live here for the duration of the call.
    alignas(64) C constants[3][kBlock];
    for (int o = 0; o < L_.ops.count; ++o) {
      a.es[o] = static_cast<size_t>(type_info(L_.ops.dtype[o]).bits / 8);
      if (L_.ops.by_value[o]) {
        const double v = g.tensor(L_.ops.uid[o]).value;
        std::fill(constants[o - 1], constants[o - 1] + kBlock, static_cast<C>(v));
        a.constant[o - 1] = constants[o - 1];
      } else {
        a.base[o] = static_cast<char *>(pack.get(L_.ops.uid[o]));
        if (a.base[o] == nullptr && L_.nest.element_count() > 0)
          fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", L_.ops.uid[o]);
      }
    }
    if (op.mode == CUDNN_POINTWISE_IDENTITY) a.alpha = static_cast<C>(op.blend.alpha * op.alpha1);
    const bool identity = op.mode == CUDNN_POINTWISE_IDENTITY && op.blend.beta == 0.0;
    alignas(64) char fill_block[kBlock * 8];
    if (identity && L_.ops.by_value[1]) {
      a.kind = Kind::fill;
      store_lane(L_.ops.dtype[0], a.fill_value, 0, op.blend.alpha * op.alpha1 * g.tensor(L_.ops.uid[1]).value);
      a.copy = copy_fn_for(a.es[0]);
      for (int i = 0; i < kBlock; ++i) std::memcpy(fill_block + i * a.es[0], a.fill_value, a.es[0]);
      a.fill_block = fill_block;
    } else if (identity && L_.ops.dtype[1] == L_.ops.dtype[0] && op.alpha1 * op.blend.alpha == 1.0) {
      a.kind = Kind::copy;
      a.copy = copy_fn_for(a.es[0]);
    }
    // Outputs much larger than the caches are written with streaming stores,
    // from the tiled path only with its streaming tile shape: direct tiles
    // write many short runs of y at once, more than the write-combining
    // buffers hold (measured 3x slower).
    const bool large_y = L_.nest.element_count() * static_cast<int64_t>(a.es[0]) >= kStreamBytes;
    a.stream = (L_.path != Path::tiled || L_.stream_tiles) && op.blend.beta == 0.0 && large_y &&
               streaming_stores_allowed();
    // In place (cudnnScaleTensor, y == x): each line of y has just been read
    // into the cache, where an ordinary store modifies it for free and the
    // eviction writes it back once; a streaming store would throw the line
    // away and lose whatever part of y the last-level cache holds.
    for (int o = 1; o < L_.ops.count && a.stream; ++o)
      if (a.base[o] == a.base[0]) a.stream = false;
    // FREEDNN_CPU_PW_PREFETCH=0 turns the input prefetch off (to measure).
    static const bool prefetch_on = [] {
      const char *v = std::getenv("FREEDNN_CPU_PW_PREFETCH");
      return v == nullptr || v[0] != '0';
    }();
    a.prefetch = large_y && prefetch_on;
    a.prefetch_y = a.prefetch && !a.stream && read_prior_;
    // Whole-line blocks for copies, streamed when y is large, provided its
    // rows then share their offset within a line; otherwise (rows of 100
    // floats, say) the streaming tiles below, whose rows handle their own
    // partial lines, are faster (0.63 against 0.46 of copy on
    // 64x100x56x56 NCHW -> NHWC).
    if (L_.line_blocks && a.kind == Kind::copy && (!large_y || line_head(L_, a) >= 0)) {
      a.stream = large_y && a.base[1] != a.base[0] && streaming_stores_allowed();
      run_line_blocks(ctx, L_, a);
    } else if (L_.path == Path::tiled) run_tiled(ctx, L_, k, a);
    else run_rows(ctx, L_, k, a);
  }

  Layout L_;
  bool use_double_ = false;
  bool read_prior_ = false;
  Kernels<float> kf_;
  Kernels<double> kd_;
};

class StridedPointwiseEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.pointwise.strided"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_pointwise(g);
    if (!s) return s;
    const auto &op = std::get<graph::PointwiseOp>(g.ops().front());
    if (pw::arity(op.mode) <= 0) return Support::no("mode is not element-wise on data (GEN_INDEX)");
    PointwiseOperands ops = pointwise_operands(g);
    for (int o = 0; o < ops.count; ++o)
      if (!is_fast_type(ops.dtype[o]))
        return Support::no(cat("data type ", type_info(ops.dtype[o]).enum_name, " has no fast CPU kernels"));
    if (has_overlapping_elements(g.tensor(ops.uid[0])))
      return Support::no("y has a zero stride on a dimension of extent > 1 (overlapping output)");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::StridedPointwiseEngine;
FDNN_REGISTER_ENGINE(StridedPointwiseEngine)
