// cpu.conv.nhwc_dot: forward FLOAT convolutions on NHWC activations with
// cuDNN's NHWC (KRSC) filter read in place, for the problems whose filter
// dwarfs their activations (ResNet's last layers at batch 1 and 8:
// 512x512x3x3 is 9.4 MB of filter against 200 KB of x and y at batch 1).
//
// Why an engine of its own: oneDNN's kernels need the filter in a blocked
// layout with output channels innermost (Acdb32a for NHWC), so
// cpu.conv.onednn reorders the caller's KRSC filter on every call (a cache
// keyed on the pointer is not allowed: callers update filters in place).
// That pass runs at 5-7 GB/s on one core (oneDNN's jit:uni reorder, 2.4 MB in
// 0.33 ms), reads the filter that the convolution then reads again and does
// not overlap the arithmetic: 512x7x7 ran at 0.6-0.8 of oneDNN with
// pre-reordered weights, even in slices that stay in L2. Here the filter is
// never copied: y[p][k] is a dot product over (r, s, c) of input rows
// x[h+r][w+s][0..C) and filter rows w[k][r][s][0..C), both contiguous in c,
// so the kernel keeps MR x NR accumulators of 16 lanes of c (MR output
// pixels, NR output channels), loads MR input vectors and NR filter vectors
// per 16 channels (10 loads per 24 FMAs), and reduces the lanes once per
// output at the end (16 outputs at a time through a transposing tree). The
// filter streams from memory once per group of pixels, its rows sequentially
// (the hardware prefetchers overlap it with the arithmetic); padded taps are
// skipped exactly (each tap, or row of taps, has its list of pixels).
//
// Blocking: a thread owns a range of NR-channel tiles. For one tile and one
// group of up to kGroupPixels output pixels, the partial sums (pixels x NR x
// 8 lanes, up to 24 KB) stay in L1 while every tap and chunk of channels
// adds into them: the tap's NR filter rows (NR x 2 KB at C = 512) stay in L1
// across the group's pixel tiles, and only the input rows come from L2.
// The threads never wait for each other until the end of the call (one
// OpenMP region where oneDNN is built in, else one pool dispatch). While a
// block's pixel tiles run, the next block's filter lines are prefetched, a
// share after each tile (FREEDNN_CONV_NHWC_DOT_TUNE=nopf: none). Measured
// (Xeon 2 vCPU, 512x7x7 3x3 batch 1, ms a call, best of 6 alternating
// runs): 1 thread 1.65 -> 1.58-1.61 with the prefetch; 2 threads pool 0.88,
// OpenMP 0.84, OpenMP + prefetch 0.83 (oneDNN with pre-reordered weights
// 0.67; freednn-bench, quiet: ours/oneDNN 0.78-0.79 -> 0.86). The rest is
// the kernel: with the filter in L2 (K = 96) it reaches 0.89 of the FMA
// peak against oneDNN's 0.98; wider tiles (3x8, 2x12, 5x5) and dot
// products over rows of taps were no faster. Nor were (seventeenth
// session, one thread, 512 -> 512 3x3 on 9x9 unpadded so that every tile is
// full, real FLOPs): prefetching each pixel's x row 256 or 512 bytes ahead
// inside the tile loop, or groups of 32 pixels (whose partial sums take 12
// instead of 24 KB of L1, but which read the filter twice: 0.73-0.80 of
// the FMA probe against 0.83-0.86). The rate did not move with C either
// (256, 512, 768: 16, 32, 48 steps per tile call, 100-101 GFLOP/s each), so
// the calls' accumulator loads and stores are not what is missing.
//
// It serves IMPLICIT_PRECOMP_GEMM and "any" (the engine before
// cpu.conv.onednn: priority 5 < 10) where: 2-d, groups 1, FLOAT data and
// compute, x and y packed NHWC, the filter packed KRSC, C a multiple of 16,
// AVX-512, and by the size rule (kMinAuto*: C >= 512, the filter >= 2 MB
// and >= 16x the activations x + y with oneDNN built in, else 4x, and 4x
// for expanding layers, K >= 4 C, in every build; measured figures there).
// FREEDNN_CONV_NHWC_DOT=0 turns it off, =1 takes every problem of that form
// whatever the sizes (tests reach it with small problems that way).
// No workspace, no scratch.
#include <immintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/convolution_support.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "cpu/convolution_lowering.hpp"
#include "cpu/cpu_features.hpp"

namespace fdnn::cpu {
namespace {

using Dir = graph::ConvDirection;

#define FDNN_DOT_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

constexpr int kMR = 4;                 // output pixels of one tile
constexpr int kNR = 6;                 // output channels of one tile
constexpr int64_t kGroupPixels = 128;  // pixels whose partial sums stay in L1: 128 x 6 x 32 B = 24 KB
constexpr int64_t kChunk = 768;        // floats of one pass over a group's pixel tiles (filter: 6 x 3 KB in L1)
// Below this many input channels a row of taps makes one dot product (see
// the segments in NhwcDotPlan): 256x14x14 batch 1 goes from 0.76 to 0.80 of
// oneDNN (one thread); at C = 512 single taps are better (0.94 against
// 0.85-0.92: the rows' edge pixels make more partial tiles of pixels).
constexpr int64_t kRunsBelowC = 512;

// The size rule (one thread, CPU time, ratio to oneDNN with pre-reordered
// weights, this engine / cpu.conv.onednn): 512x7x7 3x3 batch 1 0.90-0.94 /
// 0.72-0.78, batch 8 0.98-1.02 / 0.88-0.89; 1x1 at 7x7 batch 1: 2048->512 0.84 / 0.46,
// 512->2048 0.68 / 0.50, 1024->2048 stride 2 0.75 / 0.41. Below C = 512 the
// dot products are short and oneDNN wins despite its reorder (256x14x14 3x3
// batch 1: 0.80 / 0.83; 128x28x28: 0.74 / 0.90), and so it does where the
// activations are a large share (1024->256 1x1 at 14x14: 0.73 / 0.85).
constexpr int64_t kMinAutoC = 512;
constexpr int64_t kMinAutoFilterBytes = int64_t{1} << 21;
// With oneDNN built in, cpu.conv.onednn's per-thread slices
// (convolution_onednn_slices.cpp) take the problems whose filter is less
// than 16x the activations (2 threads, ours / oneDNN with pre-reordered
// weights, this engine / the slices: 512x7x7 3x3 batch 8 0.91 / 1.10-1.11,
// batch 4 0.93-0.97 / 1.01-1.02, batch 2 0.90 / 0.89-0.90, batch 1 (ratio
// 47) 0.77-0.82 / 0.70-0.72; 1x1 at 7x7 batch 1 (ratio 8): 2048->512
// 0.58-0.67 / 0.69, 512->2048 0.56 / 0.67, 1024->2048 stride 2 0.72-0.83 /
// 0.68).
#ifdef FREEDNN_WITH_ONEDNN
constexpr int64_t kMinAutoFilterToActivations = 16;
#else
constexpr int64_t kMinAutoFilterToActivations = 4;
#endif
// Expanding layers (K >= 4 C) are taken from a ratio of 4 whatever the
// build: the slices run them badly (twentieth session, Zen 4 guest, 2
// threads, ours / oneDNN, this engine / the slices: 512 -> 2048 1x1 at 7x7
// batch 1 (ratio 8) 0.76 / 0.42, 0.59 against 1.09 ms; batch 2 (ratio 4)
// 0.76 / 0.58; batch 4 (ratio 2) 0.76 / 0.74; batch 8 0.74 / 0.85; at 14x14
// batch 1 (ratio 2) 0.76 / 0.74), while 1024 -> 2048 at 7x7 (ratio 5.3)
// stays with the slices (0.81 / 0.87), as 2048 -> 512 does (0.88 / 0.92).
constexpr int64_t kMinAutoExpandingFilterToActivations = 4;
constexpr int kLanes = 16;
// A partial sum kept between tile calls: its vector's two halves added (8
// floats; a call's first loads zero-extend them), so that a group's sums take
// half the L1 and twice the pixels share one read of the filter (the
// twentieth session, Zen 4 guest with a 32 KB L1, 16 lanes and 64-pixel
// groups -> 8 lanes and 128: 512x7x7 3x3 batch 1, one thread 1.88-1.90 ->
// 1.85-1.87 ms; batch 2, two threads 1.885-1.899 -> 1.823-1.827 ms, 0.88-0.91
// -> 0.91-0.93 of oneDNN; batch 1 with two threads within the noise, 0.86-0.89).
constexpr int kPartLanes = 8;

// One output pixel of a group that a tap reaches: its index in the group and
// the offset (floats) of the input row x[n][ih][iw][0] the tap reads for it.
struct TapPixel {
  int64_t pix;
  int64_t xoff;
};

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() as the unused
// merge source, which -W(maybe-)uninitialized reports at every inlined use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// part[pix][j][16] += x row . w row over cn floats (a multiple of 16), for
// the MR pixels of `e` and NR filter rows w + j * wstride. Zero: the partial
// sums start at 0 (the first pass over every pixel of the group) instead of
// being read.
template <int MR, int NR, bool Zero>
FDNN_DOT_AVX512 void dot_tile(float *part, const TapPixel *e, const float *x, const float *w, int64_t wstride,
                              int64_t cn) {
  __m512 acc[MR][NR];
  const float *xp[MR];
  float *pp[MR];
  for (int i = 0; i < MR; ++i) {
    xp[i] = x + e[i].xoff;
    pp[i] = part + e[i].pix * (kNR * kPartLanes);
    for (int j = 0; j < NR; ++j)
      acc[i][j] = Zero ? _mm512_setzero_ps() : _mm512_zextps256_ps512(_mm256_load_ps(pp[i] + j * kPartLanes));
  }
  const float *wp[NR];
  for (int j = 0; j < NR; ++j) wp[j] = w + j * wstride;
  int64_t c = 0;
  do {  // cn >= 16: no path around the loop (which makes GCC keep acc in memory)
    __m512 xv[MR];
    for (int i = 0; i < MR; ++i) xv[i] = _mm512_loadu_ps(xp[i] + c);
    for (int j = 0; j < NR; ++j) {
      const __m512 wv = _mm512_loadu_ps(wp[j] + c);
      for (int i = 0; i < MR; ++i) acc[i][j] = _mm512_fmadd_ps(xv[i], wv, acc[i][j]);
    }
    c += kLanes;
  } while (c < cn);
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j)
      _mm256_store_ps(pp[i] + j * kPartLanes,
                      _mm256_add_ps(_mm512_castps512_ps256(acc[i][j]), _mm512_extractf32x8_ps(acc[i][j], 1)));
}

using TileFn = void (*)(float *, const TapPixel *, const float *, const float *, int64_t, int64_t);

template <int MR, bool Zero, int... NRs>
constexpr std::array<TileFn, sizeof...(NRs)> row_of_tiles(std::integer_sequence<int, NRs...>) {
  return {&dot_tile<MR, NRs + 1, Zero>...};
}

using TileTable = std::array<std::array<TileFn, kNR>, kMR>;

template <bool Zero, int... MRs>
TileTable tile_table(std::integer_sequence<int, MRs...>) {
  const auto nrs = std::make_integer_sequence<int, kNR>{};
  return {row_of_tiles<MRs + 1, Zero>(nrs)...};
}

// tile_fn(mr, nr, zero) for 1 <= mr <= kMR, 1 <= nr <= kNR.
TileFn tile_fn(int mr, int nr, bool zero) {
  static const TileTable add = tile_table<false>(std::make_integer_sequence<int, kMR>{});
  static const TileTable start = tile_table<true>(std::make_integer_sequence<int, kMR>{});
  return (zero ? start : add)[mr - 1][nr - 1];
}

// sums[i] = the sum of v[i]'s lanes, for 16 vectors at once (a transposing
// tree: 4 shuffle levels instead of 16 separate reductions).
FDNN_DOT_AVX512 inline void hsum16(const __m512 *v, float *sums) {
  __m512 a[8], b[4], c[2];
  for (int i = 0; i < 8; ++i)  // halves of v[2i], v[2i+1]: [8 partials of 2i | 8 of 2i+1]
    a[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  for (int i = 0; i < 4; ++i)  // 128-bit lane q: 4 partials of 4i + q
    b[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  for (int i = 0; i < 2; ++i)  // lane q: [8i + q, 8i + 4 + q, 8i + q, 8i + 4 + q], 2 partials each
    c[i] = _mm512_add_ps(_mm512_unpacklo_ps(b[2 * i], b[2 * i + 1]), _mm512_unpackhi_ps(b[2 * i], b[2 * i + 1]));
  // lane q: [q, 4 + q, 8 + q, 12 + q] summed: element 4q + m holds input 4m + q.
  const __m512 d = _mm512_add_ps(_mm512_shuffle_ps(c[0], c[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                 _mm512_shuffle_ps(c[0], c[1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  _mm512_storeu_ps(sums, _mm512_permutexvar_ps(order, d));
}

// *out[i] = alpha * (sum of vec[i]'s lanes) + beta * *out[i], i < count <= 16
// (beta 0 never reads the outputs).
FDNN_DOT_AVX512 void reduce_into(const float *const *vec, float *const *out, int count, float alpha, float beta) {
  alignas(64) float sums[kLanes];
  if (count == kLanes) {
    __m512 v[kLanes];
    for (int i = 0; i < kLanes; ++i) v[i] = _mm512_zextps256_ps512(_mm256_load_ps(vec[i]));
    hsum16(v, sums);
  } else {
    for (int i = 0; i < count; ++i) sums[i] = _mm512_reduce_add_ps(_mm512_zextps256_ps512(_mm256_load_ps(vec[i])));
  }
  if (beta == 0.0f)
    for (int i = 0; i < count; ++i) *out[i] = alpha * sums[i];
  else
    for (int i = 0; i < count; ++i) *out[i] = alpha * sums[i] + beta * *out[i];
}

// The group's partial sums reduced over their lanes into y (NHWC, K
// channels per pixel). The vectors part[p][j], j < nr, go 16 at a time, their
// outputs' addresses walking along with them.
void store_group(const float *part, int64_t pixels, int nr, float *y, int64_t K, float alpha, float beta) {
  const float *vec[kLanes];
  float *out[kLanes];
  int l = 0;
  for (int64_t p = 0; p < pixels; ++p)
    for (int j = 0; j < nr; ++j) {
      vec[l] = part + (p * kNR + j) * kPartLanes;
      out[l] = y + p * K + j;
      if (++l == kLanes) {
        reduce_into(vec, out, kLanes, alpha, beta);
        l = 0;
      }
    }
  if (l > 0) reduce_into(vec, out, l, alpha, beta);
}

#pragma GCC diagnostic pop

bool packed_with_strides(const graph::Tensor &t, const std::vector<int64_t> &want) { return t.strides == want; }

// "0": off, "1": forced (any size), otherwise the size rule.
std::string mode_env() {
  const char *e = std::getenv("FREEDNN_CONV_NHWC_DOT");
  return e != nullptr ? e : "";
}

Support applies(const graph::Graph &g) {
  if (Support s = check_single_convolution(g); !s) return s;
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  const ConvGeometry geo = convolution_geometry(g);
  if (geo.direction != Dir::forward) return Support::no("forward only");
  if (op.algo != -1 && op.algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
    return Support::no("algorithm not implemented by this engine");
  if (Support s = cpu_convolution_algo_applies(geo, op.algo); !s) return s;
  const std::string mode = mode_env();
  if (mode == "0") return Support::no("turned off by FREEDNN_CONV_NHWC_DOT=0");
  if (geo.nsp != 2 || geo.G != 1) return Support::no("2-d convolutions without groups only");
  if (geo.x.dtype != CUDNN_DATA_FLOAT || geo.w.dtype != CUDNN_DATA_FLOAT || geo.y.dtype != CUDNN_DATA_FLOAT ||
      geo.compute != CUDNN_DATA_FLOAT)
    return Support::no("FLOAT data and compute only");
  if (geo.C % kLanes != 0) return Support::no("input channels a multiple of 16 only");
  const int64_t H = geo.in[0], W = geo.in[1], P = geo.out[0], Q = geo.out[1], R = geo.filt[0], S = geo.filt[1];
  if (!packed_with_strides(geo.x, {H * W * geo.C, 1, W * geo.C, geo.C}) ||
      !packed_with_strides(geo.y, {P * Q * geo.K, 1, Q * geo.K, geo.K}))
    return Support::no("packed NHWC activations only");
  if (!packed_with_strides(geo.w, {R * S * geo.C, 1, S * geo.C, geo.C})) return Support::no("KRSC filters only");
  if (!avx512_usable()) return Support::no("needs AVX-512 (F, DQ, BW, VL), not turned off by FREEDNN_CPU_NO_AVX512");
  if (mode != "1") {
    const int64_t w_bytes = geo.K * geo.C * R * S * 4;
    const int64_t act_bytes = (geo.N * H * W * geo.C + geo.N * P * Q * geo.K) * 4;
    const int64_t ratio = geo.K >= 4 * geo.C ? kMinAutoExpandingFilterToActivations : kMinAutoFilterToActivations;
    if (geo.C < kMinAutoC || w_bytes < kMinAutoFilterBytes || w_bytes < ratio * act_bytes)
      return Support::no("the filter does not dwarf the activations (cpu.conv.onednn is faster)");
  }
  return Support::yes();
}

class NhwcDotPlan final : public ExecutionPlan {
 public:
  NhwcDotPlan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e) {
    const ConvGeometry geo = convolution_geometry(g);
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    x_ = op.x, w_ = op.w, y_ = op.y;
    C_ = geo.C, K_ = geo.K;
    const int64_t H = geo.in[0], W = geo.in[1], P = geo.out[0], Q = geo.out[1];
    R_ = geo.filt[0], S_ = geo.filt[1];
    pixels_ = geo.N * P * Q;
    // Groups of at most kGroupPixels, as even as possible (49 pixels: one group).
    groups_ = (pixels_ + kGroupPixels - 1) / kGroupPixels;
    group_pixels_ = (pixels_ + groups_ - 1) / groups_;
    // Per group: its segments. A segment is a run of taps (r, s_lo..s_hi)
    // whose input and filter channels lie contiguously in memory (one row of
    // taps without dilation, read in the filter's order), with the group's
    // pixels that reach exactly those taps of the row, so that one dot
    // product of (s_hi - s_lo) * C floats covers them. Dilated or flipped
    // taps make segments of one tap.
    prefetch_ = !env_has_word("FREEDNN_CONV_NHWC_DOT_TUNE", "nopf");
    const bool runs = !geo.flip && geo.dil[1] == 1 && C_ < kRunsBelowC;
    segments_.resize(static_cast<size_t>(groups_));
    for (int64_t gi = 0; gi < groups_; ++gi) {
      auto &segs = segments_[static_cast<size_t>(gi)];
      auto segment = [&](int64_t r, int64_t s_lo, int64_t s_hi) -> Segment & {
        for (Segment &sg : segs)
          if (sg.r == r && sg.s_lo == s_lo && sg.s_hi == s_hi) return sg;
        Segment sg;
        sg.r = r, sg.s_lo = s_lo, sg.s_hi = s_hi;
        // CONVOLUTION mode reads the filter's taps reversed (single taps).
        const int64_t wr = geo.flip ? R_ - 1 - r : r, ws = geo.flip ? S_ - 1 - s_lo : s_lo;
        sg.woff = (wr * S_ + ws) * C_;
        sg.length = (s_hi - s_lo) * C_;
        segs.push_back(sg);
        return segs.back();
      };
      for (int64_t pix = gi * group_pixels_; pix < std::min(pixels_, (gi + 1) * group_pixels_); ++pix) {
        const int64_t n = pix / (P * Q), oh = pix / Q % P, ow = pix % Q;
        for (int64_t r = 0; r < R_; ++r) {
          const int64_t ih = oh * geo.stride[0] - geo.pad[0] + r * geo.dil[0];
          if (ih < 0 || ih >= H) continue;
          int64_t s_lo = S_, s_hi = 0;  // the valid taps of the row: a contiguous range
          for (int64_t s = 0; s < S_; ++s) {
            const int64_t iw = ow * geo.stride[1] - geo.pad[1] + s * geo.dil[1];
            if (iw < 0 || iw >= W) continue;
            s_lo = std::min(s_lo, s);
            s_hi = s + 1;
          }
          const auto xoff = [&](int64_t s) {
            return ((n * H + ih) * W + ow * geo.stride[1] - geo.pad[1] + s * geo.dil[1]) * C_;
          };
          const int64_t in_group = pix - gi * group_pixels_;
          if (runs && s_lo < s_hi) segment(r, s_lo, s_hi).pixels.push_back({in_group, xoff(s_lo)});
          else
            for (int64_t s = s_lo; s < s_hi; ++s) segment(r, s, s + 1).pixels.push_back({in_group, xoff(s)});
        }
      }
      // A segment that reaches every pixel of the group goes first: it starts
      // the partial sums (see run_tiles).
      const size_t pixels = static_cast<size_t>(std::min(group_pixels_, pixels_ - gi * group_pixels_));
      std::stable_partition(segs.begin(), segs.end(), [&](const Segment &sg) { return sg.pixels.size() == pixels; });
    }
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
    const float *x = static_cast<const float *>(pack.get(x_));
    const float *w = static_cast<const float *>(pack.get(w_));
    float *y = static_cast<float *>(pack.get(y_));
    if (x == nullptr || w == nullptr || y == nullptr)
      fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for a convolution operand");
    const float alpha = static_cast<float>(op.blend.alpha), beta = static_cast<float>(op.blend.beta);
    const int64_t tiles = (K_ + kNR - 1) / kNR;
    // One OpenMP region (the team oneDNN uses, whose threads spin a while
    // between calls) rather than the pool, whose sleeping workers took
    // 15-50 us to start and the caller as long again to notice the end: 2
    // threads, 512x7x7 3x3 batch 1, 0.91 -> 0.85 ms a call (per-thread work
    // 0.83 ms either way). FREEDNN_CONV_NHWC_DOT_TUNE=pool keeps the pool.
#ifdef _OPENMP
    static const bool use_pool = env_has_word("FREEDNN_CONV_NHWC_DOT_TUNE", "pool");
    if (!use_pool) {
      const int threads = static_cast<int>(std::min<int64_t>(pool_threads(ctx), tiles));
#pragma omp parallel num_threads(threads)
      {  // run_tiles throws nothing (no allocation, no checks)
        const int64_t n = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t per = (tiles + n - 1) / n, lo = t * per, hi = std::min(tiles, lo + per);
        if (lo < hi) run_tiles(lo, hi, x, w, y, alpha, beta);
      }
      return;
    }
#endif
    for_chunks(ctx.pool, tiles, pool_threads(ctx),
               [&](int64_t, int64_t b, int64_t e) { run_tiles(b, e, x, w, y, alpha, beta); });
  }

 private:
  // Output-channel tiles [b, e) over every group of pixels.
  void run_tiles(int64_t b, int64_t e, const float *x, const float *w, float *y, float alpha, float beta) const {
    alignas(64) float part[kGroupPixels * kNR * kPartLanes];
    const int64_t rsc = R_ * S_ * C_;
    for (int64_t t = b; t < e; ++t) {
      const int64_t k0 = t * kNR;
      const int nr = static_cast<int>(std::min<int64_t>(kNR, K_ - k0));
      for (int64_t gi = 0; gi < groups_; ++gi) {
        const int64_t pixels = std::min(group_pixels_, pixels_ - gi * group_pixels_);
        // A first segment that reaches every pixel of the group (1x1, the
        // centre tap) starts the partial sums instead of a memset.
        const auto &segs = segments_[static_cast<size_t>(gi)];
        const bool starts = !segs.empty() && segs.front().pixels.size() == static_cast<size_t>(pixels);
        if (!starts) std::memset(part, 0, sizeof(float) * static_cast<size_t>(pixels * kNR * kPartLanes));
        for (size_t si = 0; si < segs.size(); ++si) {
          const Segment &sg = segs[si];
          const int64_t n = static_cast<int64_t>(sg.pixels.size());
          const TapPixel *list = sg.pixels.data();
          const float *wt = w + k0 * rsc + sg.woff;
          for (int64_t c0 = 0; c0 < sg.length; c0 += kChunk) {
            const int64_t cn = std::min(kChunk, sg.length - c0);
            const bool zero = starts && si == 0 && c0 == 0;
            const TileFn full = tile_fn(kMR, nr, zero);
            // The next block's filter lines, a share after each pixel tile,
            // column by column (the order the next block reads them).
            const FilterBlock nb = prefetch_ ? next_block(w, t, e, gi, si, c0) : FilterBlock{};
            const int64_t tiles_here = (n + kMR - 1) / kMR;
            const int64_t line_count = nb.nr * (nb.cn / kLanes);
            const int64_t per_tile = tiles_here > 0 ? (line_count + tiles_here - 1) / tiles_here : 0;
            int64_t left = line_count, prow = 0;
            const float *pcol = nb.w;
            const auto prefetch_share = [&] {
              for (int64_t q = 0; q < per_tile && left > 0; ++q, --left) {
                _mm_prefetch(reinterpret_cast<const char *>(pcol + prow * rsc), _MM_HINT_T0);
                if (++prow == nb.nr) prow = 0, pcol += kLanes;
              }
            };
            int64_t i = 0;
            for (; i + kMR <= n; i += kMR) {
              full(part, list + i, x + c0, wt + c0, rsc, cn);
              prefetch_share();
            }
            if (i < n) tile_fn(static_cast<int>(n - i), nr, zero)(part, list + i, x + c0, wt + c0, rsc, cn);
          }
        }
        store_group(part, pixels, nr, y + gi * group_pixels_ * K_ + k0, K_, alpha, beta);
      }
    }
  }

  // The filter rows that a unit of run_tiles (tile t, group gi, segment si,
  // chunk c0) reads: nr rows rsc floats apart from w, cn floats each.
  struct FilterBlock {
    const float *w = nullptr;
    int64_t nr = 1, cn = 0;
  };
  // The block of the unit after (t, gi, si, c0) in run_tiles' order over
  // tiles [.., e): what to prefetch while this one runs.
  FilterBlock next_block(const float *w, int64_t t, int64_t e, int64_t gi, size_t si, int64_t c0) const {
    c0 += kChunk;
    if (c0 >= segments_[static_cast<size_t>(gi)][si].length) {
      c0 = 0;
      if (++si >= segments_[static_cast<size_t>(gi)].size()) {
        si = 0;
        if (++gi >= groups_) {
          gi = 0;
          if (++t >= e) return {};
        }
        if (segments_[static_cast<size_t>(gi)].empty()) return {};
      }
    }
    const Segment &sg = segments_[static_cast<size_t>(gi)][si];
    const int64_t k0 = t * kNR;
    return {w + k0 * R_ * S_ * C_ + sg.woff + c0, std::min<int64_t>(kNR, K_ - k0), std::min(kChunk, sg.length - c0)};
  }

  struct Segment {
    int64_t r = 0, s_lo = 0, s_hi = 0;
    int64_t woff = 0;    // floats from a filter row's start to the segment's first tap
    int64_t length = 0;  // floats of the dot product: (s_hi - s_lo) * C
    std::vector<TapPixel> pixels;
  };

  graph::Uid x_ = 0, w_ = 0, y_ = 0;
  int64_t C_ = 0, K_ = 0, R_ = 1, S_ = 1, pixels_ = 0, groups_ = 0, group_pixels_ = 0;
  std::vector<std::vector<Segment>> segments_;  // [group]
  bool prefetch_ = true;  // FREEDNN_CONV_NHWC_DOT_TUNE=nopf: none
};

class NhwcDotConvolutionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.conv.nhwc_dot"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 5; }
  Support supports(const graph::Graph &g) const override { return applies(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    if (Support s = applies(g); !s) fail(CUDNN_STATUS_NOT_SUPPORTED, name(), ": ", s.reason);
    return std::make_unique<NhwcDotPlan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::NhwcDotConvolutionEngine;
FDNN_REGISTER_ENGINE(NhwcDotConvolutionEngine)
