// Device code shared by the few-channel (stem) kernels of
// convolution_stem.cu: the forward and the filter gradient walk the same
// 8 x 16 output-pixel tiles, load the same input patch into shared memory
// and build the same im2col rows from it (j = (r, s, c) in x's order, depth
// D = R*S*C rounded up to 16); both feed mma.sync m16n8k16 from ldmatrix.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/fast_divmod.hpp"
#include "cuda/mma_sync.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda::stem {

constexpr int kThreads = 256;
constexpr int kTH = 8, kTW = 16, kTP = kTH * kTW;  // output tile: rows x columns = pixels
constexpr int kMaxDepth = 256;                     // D / 2 pairs <= 4 per lane
constexpr size_t kMaxPatchBytes = 24 * 1024;
constexpr int kPF = 12;                            // prefetched patch elements per thread

// Forward: x, w, y. Filter gradient: x, w = dy, y = dw.
struct StemParams {
  const void *x = nullptr, *w = nullptr;
  void *y = nullptr;
  void *partial = nullptr;             // filter gradient: [blocks][K][D] floats
  int Hi = 1, Wi = 1, C = 1, Ho = 1, Wo = 1, R = 1, S = 1, K = 1;
  int sh = 1, sw = 1, ph = 0, pw = 0, flip = 0;
  int xn = 0, xh = 0;                  // x strides (elements): image, row (pixels packed, c innermost)
  int yn = 0, yh = 0;                  // y (dy) strides: image, row (pixels packed, k innermost)
  int wk = 0, wc = 0, wr = 0, wsx = 0;  // w (dw) strides: k, c, filter row, filter column
  int D = 16, RSC = 1, SC = 1;          // depth (padded to 16), real depth, S*C
  int PH = 1, PWC = 1;                  // patch rows, elements per patch row
  int tiles_w = 1, tiles_h = 1, tiles = 1;
  // Divisions by PWC, tiles_w and tiles_h without integer divides: each
  // thread decodes ~12 patch elements and 3-4 tile origins per tile, and
  // the divides were about a fifth of the filter gradient's instructions
  // (ncu, H100, f16 stem at batch 256: issue-bound, 0.59 instructions per
  // cycle and scheduler, stalls mostly on fixed-latency dependencies).
  FastDivmod d_pwc, d_tiles_w, d_tiles_h;
  float alpha = 1, beta = 0;
};

// The image and output origin of tile `tile` (tiles ordered w, h, n).
__device__ inline void tile_origin(const StemParams &p, int tile, int &n, int &oh0, int &ow0) {
  uint32_t tw, th;
  const uint32_t rest = p.d_tiles_w.divmod(static_cast<uint32_t>(tile), tw);
  n = static_cast<int>(p.d_tiles_h.divmod(rest, th));
  oh0 = static_cast<int>(th) * kTH, ow0 = static_cast<int>(tw) * kTW;
}

// Element e (row e / PWC) of the input patch of the tile of image n, output
// origin (oh0, ow0); zeros outside the image.
__device__ inline uint16_t patch_elem(const StemParams &p, const uint16_t *__restrict__ x, int n, int oh0, int ow0,
                                      int e) {
  uint32_t uq;
  const int pr = static_cast<int>(p.d_pwc.divmod(static_cast<uint32_t>(e), uq)), q = static_cast<int>(uq);
  const int ih = oh0 * p.sh - p.ph + pr, iq = (ow0 * p.sw - p.pw) * p.C + q;
  if (ih < 0 || ih >= p.Hi || iq < 0 || iq >= p.Wi * p.C) return 0;
  return x[size_t(n) * p.xn + ih * p.xh + iq];
}

// Whether a block's patches go through kPF registers per thread (loaded
// during the previous tile's work) rather than straight into shared memory.
__device__ inline bool patch_prefetched(const StemParams &p) { return p.PH * p.PWC <= kPF * kThreads; }

// The registers' share of tile `tile`'s patch (prefetched form).
__device__ inline void patch_prefetch(const StemParams &p, const uint16_t *__restrict__ x, int tile, int tid,
                                      uint16_t (&pf)[kPF]) {
  int n, oh0, ow0;
  tile_origin(p, tile, n, oh0, ow0);
  const int patch_elems = p.PH * p.PWC;
#pragma unroll
  for (int i = 0; i < kPF; ++i) {
    const int e = tid + i * kThreads;
    pf[i] = e < patch_elems ? patch_elem(p, x, n, oh0, ow0, e) : uint16_t(0);
  }
}

// Tile `tile`'s patch into shared memory: from the prefetched registers or
// (larger patches) straight from x. The caller synchronises afterwards.
__device__ inline void patch_store(const StemParams &p, const uint16_t *__restrict__ x, int tile, int tid,
                                   bool prefetch, const uint16_t (&pf)[kPF], uint16_t *patch) {
  const int patch_elems = p.PH * p.PWC;
  if (prefetch) {
#pragma unroll
    for (int i = 0; i < kPF; ++i) {
      const int e = tid + i * kThreads;
      if (e < patch_elems) patch[e] = pf[i];
    }
  } else {
    int n, oh0, ow0;
    tile_origin(p, tile, n, oh0, ow0);
    for (int e = tid; e < patch_elems; e += kThreads) patch[e] = patch_elem(p, x, n, oh0, ow0, e);
  }
}

// This lane's patch offsets (bytes) of the im2col pairs (j, j + 1), j = 2
// (lane + 32 t), relative to a pixel's origin. Past R*S*C: -1 (the forward stores
// zeros there: its padded filter columns are zeros, and 0 times an Inf of x
// would be NaN), or with kAnyPadding 0, the window's first element, loaded
// like the rest (the filter gradient discards the padded columns of dw, and
// a GEMM column never mixes into another: no masks, no branches).
template <bool kAnyPadding = false>
__device__ inline void im2col_offsets(const StemParams &p, int lane, int (&off0)[4], int (&off1)[4]) {
  constexpr int kPast = kAnyPadding ? 0 : -1;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const int j = 2 * (lane + 32 * t);
    const int r0 = j / p.SC, r1 = (j + 1) / p.SC;
    off0[t] = j < p.RSC ? 2 * (r0 * p.PWC + (j - r0 * p.SC)) : kPast;
    off1[t] = j + 1 < p.RSC ? 2 * (r1 * p.PWC + (j + 1 - r1 * p.SC)) : kPast;
  }
}

// The im2col tile A [kTP pixels][LD] (row px: j = 0 .. D-1) from the patch:
// element j of pixel (ph, pw) is patch[(ph*sh + r) * PWC + pw*sw*C + (s*C +
// c)]. Warp `warp` fills the tile's row `warp` (kTW pixels, kTP / 8 ==
// kTW), one pixel after the other, with 32-bit stores; a pixel's origin in
// the patch advances by sw*C.
// kWgrad (the filter gradient, offsets from im2col_offsets<true>): the
// offsets are never negative, and rows of pixels past the output's bottom /
// right edge (partial tiles at origin oh0, ow0) are zeros: their dy is
// zero, but 0 * an Inf or NaN of x that no real output reads would poison
// dw. The forward never stores those rows' results.
template <bool kWgrad = false>
__device__ inline void im2col_build(const StemParams &p, const uint16_t *patch, uint16_t *A, int LD, int warp,
                                    int lane, const int (&off0)[4], const int (&off1)[4], int oh0 = 0,
                                    int ow0 = 0) {
  static_assert(kTP / 8 == kTW, "each warp builds one row of the tile");
  const int pairs = p.D / 2, step = p.sw * p.C;
  const bool row_live = !kWgrad || oh0 + warp < p.Ho;
  const int live_cols = kWgrad ? p.Wo - ow0 : kTW;
  const char *src = reinterpret_cast<const char *>(patch + warp * p.sh * p.PWC);
  uint32_t *arow = reinterpret_cast<uint32_t *>(A + warp * kTW * LD);
  const auto at = [&](int off) -> uint32_t { return *reinterpret_cast<const uint16_t *>(src + off); };
  for (int col = 0; col < kTW; ++col, src += 2 * step, arow += LD / 2) {
    const bool live = row_live && col < live_cols;
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const int jp = lane + 32 * t;
      if (jp < pairs) {
        uint32_t v0, v1;
        if constexpr (kWgrad) {
          v0 = at(off0[t]), v1 = at(off1[t]);
        } else {
          v0 = off0[t] >= 0 ? at(off0[t]) : 0u;
          v1 = off1[t] >= 0 ? at(off1[t]) : 0u;
        }
        arow[jp] = live ? v0 | (v1 << 16) : 0u;
      }
    }
  }
}

}  // namespace fdnn::cuda::stem
