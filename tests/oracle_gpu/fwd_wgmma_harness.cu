// Stand-alone check and timing of the wgmma forward convolution
// (src/cuda/convolution_fwd_wgmma.cu, #included so that this tests exactly
// the library's kernel) and of the stride-1 data gradient run through it
// (convolution_dgrad_as_fwd.cu's filter transform, then the forward; and
// the forward reading the data gradient's filter in place,
// launch_conv_dgrad_wgmma).
//
// 1. Small problems against a float64 host reference, for every tile the
//    kernel has and for the library's own tile choice: padding 0/1/2,
//    strides 1 and 2, dilation, 1x1 and 5x3 filters, pixel tails, both
//    modes, alpha/beta, beta = 0 on a NaN-poisoned y, HALF and BFLOAT16.
//    The split of the last wave (check_split, and in check_dgrad): every
//    tile with 2 .. 8 parts forced, on grids where every tile is a tail
//    tile and where whole tiles come first, the kernel's load variants,
//    beta = 0 and != 0, on garbage in the scratch (NaN bytes, random flag
//    values), each run twice and compared bit for bit; then the b256
//    512x7 layer (a 64-tile second wave) and b32 layers against cuDNN's
//    results, forward and data gradient in place (check_layer).
// 2. The ResNet-50 3x3 layers at batch 256 and 32 in HALF: ten calls back
//    to back between events, median of 5, every tile and the chosen one,
//    against NVIDIA cuDNN's best forward and backward-data algorithms
//    (cudnnFind*) timed the same way in the same process; then the split's
//    table (time_split; --split-timing: that alone, after the checks).
//
// Build and run on the device machine (H100), from the repository root:
//   NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Isrc -I$NV/include \
//     tests/oracle_gpu/fwd_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 \
//     -Xlinker -rpath=$NV/lib -o /tmp/fwdh && /tmp/fwdh
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/convolution_dgrad_as_fwd.cu"
#include "cuda/convolution_fwd_wgmma.cu"
#include "cuda/wgmma_probe.cu"
#include "cuda/cuda_util.cpp"
#include "cuda/tensor_map.cpp"
#include "core/env_words.cpp"
#include "harness_common.cuh"

namespace fc = fdnn::cuda;

struct Prob {
  int N, H, W, C, K, R, S, ph, pw, sh, sw, dh, dw, flip;
  float alpha, beta;
  bool bf16;
  int P() const { return (H + 2 * ph - dh * (R - 1) - 1) / sh + 1; }
  int Q() const { return (W + 2 * pw - dw * (S - 1) - 1) / sw + 1; }
};

// The engine's ConvArgs of a forward problem (packed NHWC x / y, KRSC w).
static fc::ConvArgs fwd_args(const Prob &p, const void *x, const void *w, void *y) {
  fc::ConvArgs a;
  a.dir = fc::kConvFwd;
  a.N = p.N, a.G = 1, a.Cg = p.C, a.Kg = p.K;
  a.in[1] = p.H, a.in[2] = p.W, a.filt[1] = p.R, a.filt[2] = p.S, a.out[1] = p.P(), a.out[2] = p.Q();
  a.pad[1] = p.ph, a.pad[2] = p.pw, a.str[1] = p.sh, a.str[2] = p.sw, a.dil[1] = p.dh, a.dil[2] = p.dw;
  a.flip = p.flip;
  const int P = p.P(), Q = p.Q();
  const int xs[5] = {p.H * p.W * p.C, 1, p.H * p.W * p.C, p.W * p.C, p.C};
  const int ws[5] = {p.R * p.S * p.C, 1, p.R * p.S * p.C, p.S * p.C, p.C};
  const int ys[5] = {P * Q * p.K, 1, P * Q * p.K, Q * p.K, p.K};
  for (int i = 0; i < 5; ++i) a.xs[i] = xs[i], a.ws[i] = ws[i], a.ys[i] = ys[i];
  a.T = p.R * p.S, a.P = P * Q, a.I = p.H * p.W;
  a.M = p.N * a.P, a.Ncol = p.K, a.R = a.T * p.C;
  a.alpha = p.alpha, a.beta = p.beta;
  a.A = x, a.B = w, a.dst = y;
  return a;
}

// y (float64) of problem p on host values.
static std::vector<double> reference(const Prob &p, const std::vector<uint16_t> &x, const std::vector<uint16_t> &w,
                                     const std::vector<uint16_t> &y0) {
  const int P = p.P(), Q = p.Q();
  std::vector<double> xd(x.size()), wd(w.size());
  for (size_t i = 0; i < x.size(); ++i) xd[i] = from16(x[i], p.bf16);
  for (size_t i = 0; i < w.size(); ++i) wd[i] = from16(w[i], p.bf16);
  std::vector<double> y(static_cast<size_t>(p.N) * P * Q * p.K);
  for (int n = 0; n < p.N; ++n)
    for (int pp = 0; pp < P; ++pp)
      for (int q = 0; q < Q; ++q)
        for (int k = 0; k < p.K; ++k) {
          double s = 0;
          for (int r = 0; r < p.R; ++r) {
            const int h = pp * p.sh - p.ph + r * p.dh;
            if (h < 0 || h >= p.H) continue;
            for (int t = 0; t < p.S; ++t) {
              const int ww = q * p.sw - p.pw + t * p.dw;
              if (ww < 0 || ww >= p.W) continue;
              const int rr = p.flip ? p.R - 1 - r : r, tt = p.flip ? p.S - 1 - t : t;
              const double *xr = &xd[((static_cast<size_t>(n) * p.H + h) * p.W + ww) * p.C];
              const double *wr = &wd[((static_cast<size_t>(k) * p.R + rr) * p.S + tt) * p.C];
              for (int c = 0; c < p.C; ++c) s += xr[c] * wr[c];
            }
          }
          const size_t o = ((static_cast<size_t>(n) * P + pp) * Q + q) * p.K + k;
          y[o] = p.alpha * s + (p.beta != 0 ? p.beta * from16(y0[o], p.bf16) : 0.0);
        }
  return y;
}

static void compare(const char *what, const Prob &p, const std::vector<uint16_t> &out, const std::vector<double> &ref) {
  double rel;
  size_t bad;
  const bool ok = close_to_reference(out, ref, p.bf16, &rel, &bad);
  std::printf(
      "%-4s %-28s N%d %dx%d C%d K%d %dx%d pad%d,%d str%d,%d dil%d,%d flip%d a%.2f b%.2f %s: rel %.2e nonfinite %zu\n",
      ok ? "ok" : "FAIL", what, p.N, p.H, p.W, p.C, p.K, p.R, p.S, p.ph, p.pw, p.sh, p.sw, p.dh, p.dw, p.flip, p.alpha,
      p.beta, p.bf16 ? "bf16" : "f16", rel, bad);
}

static const fc::FwdTile kTiles[] = {{256, 1}, {128, 2}, {128, 1}, {64, 2}, {64, 1}};

// The scratch of the split of the last wave (its flags and float sums;
// the most a grid of 132 blocks needs is about 17 MB), and garbage to fill
// it with before a checked run: odd rounds all bytes 0xFF (NaN sums, flags
// past any count), even ones random words (kept on the device).
static void *g_scratch = nullptr, *g_garbage = nullptr;
static const size_t kScratchBytes = size_t{32} << 20;
static void poison_scratch() {
  static int round = 0;
  if (g_scratch == nullptr) {
    CK(cudaMalloc(&g_scratch, kScratchBytes));
    CK(cudaMalloc(&g_garbage, kScratchBytes));
    std::vector<uint32_t> words(kScratchBytes / 4);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (auto &w : words) state = state * 6364136223846793005ull + 1442695040888963407ull, w = state >> 32;
    CK(cudaMemcpy(g_garbage, words.data(), kScratchBytes, cudaMemcpyHostToDevice));
  }
  if (++round % 2 == 1)
    CK(cudaMemset(g_scratch, 0xFF, kScratchBytes));
  else
    CK(cudaMemcpy(g_scratch, g_garbage, kScratchBytes, cudaMemcpyDeviceToDevice));
}

// kTiles's index of tile t.
static int tile_index(fc::FwdTile t) {
  for (int i = 0; i < 5; ++i)
    if (kTiles[i].bn == t.bn && kTiles[i].mw == t.mw) return i;
  return 4;
}

// Tiles of tile ti for M output pixels and K channels.
static int tile_count(long long M, int K, int ti) {
  return static_cast<int>((M + 128 * kTiles[ti].mw - 1) / (128 * kTiles[ti].mw) * (K / kTiles[ti].bn));
}

// A kernel variant: ring depth (0: the tile's default), step order, x through
// L1, w by the copy engine, x by the copy engine's im2col copies (needs w's).
struct Variant {
  int stages = 0, taps_inner = 1, a_via_l1 = 1, b_via_tma = 1, a_via_tma = 1, y_via_tma = 1;
  int split_probe = 0;  // FwdArgs::split_probe (timing only: wrong results)
};

// tile_index < 0: the library's entry point (its own tile, split and
// variant). Else that tile on at most `blocks` blocks (0: one per
// multiprocessor), the last wave split into `parts` where split_grid
// finds room (1: none).
static void launch_with(const fc::ConvArgs &a, bool bf16, int tile_index, cudaStream_t st, Variant v = {},
                        int parts = 1, int blocks = 0) {
  if (g_scratch == nullptr) poison_scratch();
  if (tile_index < 0) {
    fc::launch_conv_fwd_wgmma(a, bf16 ? fc::ConvTypes::bf16 : fc::ConvTypes::f16, g_scratch, kScratchBytes, st);
    return;
  }
  fc::FwdArgs fa = fc::make_args(a);
  fa.stages = v.stages, fa.taps_inner = v.taps_inner, fa.a_via_l1 = v.a_via_l1, fa.b_via_tma = v.b_via_tma;
  fa.a_via_tma = v.a_via_tma;
  fa.y_via_tma = fa.y_via_tma && v.y_via_tma;  // make_args: beta = 0 and y aligned
  fa.split_probe = v.split_probe;
  const int grid = blocks > 0 ? blocks : fc::sm_count();
  if (bf16)
    fc::launch_tile<true>(fa, kTiles[tile_index], grid, parts, g_scratch, kScratchBytes, st);
  else
    fc::launch_tile<false>(fa, kTiles[tile_index], grid, parts, g_scratch, kScratchBytes, st);
}

// The label of a checked run: `what` on the library's own tile (ti < 0)
// or on tile ti, then `how`.
static std::string run_name(const char *what, int ti, const char *how) {
  char name[96];
  if (ti < 0)
    std::snprintf(name, sizeof name, "%s, chosen tile", what);
  else
    std::snprintf(name, sizeof name, "%s tile %dx%d%s", what, 128 * kTiles[ti].mw, kTiles[ti].bn, how);
  return name;
}

static bool tile_fits(int tile_index, int K) { return tile_index < 0 || K % kTiles[tile_index].bn == 0; }

// The grids the split checks run for T tiles of nsteps steps, as (blocks,
// parts wanted): 2 .. 8 parts on one block per multiprocessor (below 132
// tiles every tile is a tail tile), then 2 and 3 parts on (2T + 2) / 3
// blocks (a whole wave first, then a tail of at most a third) and 2 parts
// on 2 blocks (several whole tiles per block before the tail); each grid
// that splits, once.
static std::vector<std::pair<int, int>> split_configs(int T, int nsteps) {
  const int sms = fc::sm_count();
  std::vector<std::pair<int, int>> configs;
  std::vector<fc::FwdGrid> seen;
  auto add = [&](int blocks, int parts) {
    if (blocks < 1 || blocks > sms) return;
    const fc::FwdGrid g = fc::split_grid(T, nsteps, blocks, parts);
    if (g.parts < 2) return;
    for (const fc::FwdGrid &o : seen)
      if (o.blocks == g.blocks && o.whole == g.whole && o.parts == g.parts) return;
    seen.push_back(g);
    configs.emplace_back(blocks, parts);
  };
  for (int parts = 2; parts <= 8; ++parts) add(sms, parts);
  for (int parts : {2, 3}) add((2 * T + 2) / 3, parts);
  add(2, 2);
  return configs;
}

// "name: N parts of S steps, B blocks (W whole tiles, T tail tiles)" of a split run.
static std::string split_name(const char *what, int ti, int T, int nsteps, int blocks, int parts, const char *how) {
  const fc::FwdGrid g = fc::split_grid(T, nsteps, blocks, parts);
  char name[192];
  std::snprintf(name, sizeof name, "%s tile %dx%d: %d parts of %d steps, %d blocks (%d whole, %d tail)%s", what,
                128 * kTiles[ti].mw, kTiles[ti].bn, g.parts, nsteps, g.blocks, g.whole, g.tail, how);
  return name;
}

// Split runs repeated on other garbage in the scratch: identical outputs, and those that differed.
static int repeats_same = 0, repeats_differ = 0;
static void same_bits(const std::string &name, const std::vector<uint16_t> &a, const std::vector<uint16_t> &b) {
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
  if (differ == 0) {
    ++repeats_same;
    return;
  }
  ++repeats_differ;
  ++failures;
  std::printf("FAIL %s: a second run differs in %zu of %zu values\n", name.c_str(), differ, a.size());
}

// One forward problem's operands: random x and w, y0 random (beta != 0) or
// NaN (so that an unwritten output shows), the float64 reference, and x, w
// and room for y on the device.
struct ForwardOperands {
  std::vector<uint16_t> x, w, y0;
  std::vector<double> ref;
  uint16_t *dx = nullptr, *dw = nullptr, *dy = nullptr;
  explicit ForwardOperands(const Prob &p)
      : x(static_cast<size_t>(p.N) * p.H * p.W * p.C), w(static_cast<size_t>(p.K) * p.R * p.S * p.C),
        y0(static_cast<size_t>(p.N) * p.P() * p.Q() * p.K) {
    for (auto &v : x) v = to16(urand(), p.bf16);
    for (auto &v : w) v = to16(urand(), p.bf16);
    const uint16_t nan16 = p.bf16 ? 0x7FC0 : 0x7E00;
    for (auto &v : y0) v = p.beta != 0 ? to16(urand(), p.bf16) : nan16;
    ref = reference(p, x, w, y0);
    CK(cudaMalloc(&dx, x.size() * 2));
    CK(cudaMalloc(&dw, w.size() * 2));
    CK(cudaMalloc(&dy, y0.size() * 2));
    CK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  }
  ~ForwardOperands() {
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
  }
  ForwardOperands(const ForwardOperands &) = delete;
  ForwardOperands &operator=(const ForwardOperands &) = delete;
};

static void check_forward(const Prob &p) {
  const ForwardOperands ops(p);
  const std::vector<uint16_t> &y0 = ops.y0;
  const std::vector<double> &ref = ops.ref;
  uint16_t *dx = ops.dx, *dw = ops.dw, *dy = ops.dy;
  // Every tile three times: the default variant (both operands by the copy
  // engine), A by the cp.async gather, and a 2-stage ring with the other
  // step order and the other load paths.
  for (int run = -3; run < 15; ++run) {
    const int ti = run < 0 ? -1 : run / 3;
    if (run < -1 || !tile_fits(ti, p.K)) continue;
    Variant v;
    if (run >= 0 && run % 3 == 1) v.a_via_tma = 0;
    if (run >= 0 && run % 3 == 2)
      v.stages = 2, v.taps_inner = 0, v.a_via_l1 = 0, v.b_via_tma = 0, v.a_via_tma = 0, v.y_via_tma = 0;
    CK(cudaMemcpy(dy, y0.data(), y0.size() * 2, cudaMemcpyHostToDevice));
    launch_with(fwd_args(p, dx, dw, dy), p.bf16, ti, 0, v);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<uint16_t> out(y0.size());
    CK(cudaMemcpy(out.data(), dy, out.size() * 2, cudaMemcpyDeviceToHost));
    const char *how = v.stages == 2 ? " 2st ch-inner cg no-tma y-direct" : v.a_via_tma ? " im2col copies" : " gather";
    compare(run_name("fwd", ti, how).c_str(), p, out, ref);
  }
}

// The split of the last wave on every tile that fits p (split_configs),
// the kernel's variants in turn (both operands by the copy engine, A by
// the gather, the 2-stage channel-inner ring with the cp.async loads and
// direct stores), each run twice on other garbage in the scratch and a
// poisoned y: within tolerance of the float64 reference, and the second
// run the same bits as the first.
static void check_split(const Prob &p) {
  const ForwardOperands ops(p);
  const std::vector<uint16_t> &y0 = ops.y0;
  const std::vector<double> &ref = ops.ref;
  uint16_t *dx = ops.dx, *dw = ops.dw, *dy = ops.dy;
  const long long M = static_cast<long long>(p.N) * p.P() * p.Q();
  const int nsteps = p.R * p.S * p.C / 64;
  std::vector<uint16_t> out(y0.size()), again(y0.size());
  int k = 0;
  for (int ti = 0; ti < 5; ++ti) {
    if (!tile_fits(ti, p.K)) continue;
    const int T = tile_count(M, p.K, ti);
    for (auto [blocks, parts] : split_configs(T, nsteps)) {
      Variant v;
      const char *how = "";
      if (k % 3 == 1) v.a_via_tma = 0, how = ", gather";
      if (k % 3 == 2)
        v.stages = 2, v.taps_inner = 0, v.a_via_l1 = 0, v.b_via_tma = 0, v.a_via_tma = 0, v.y_via_tma = 0,
        how = ", 2st ch-inner no-tma y-direct";
      ++k;
      for (std::vector<uint16_t> *o : {&out, &again}) {
        CK(cudaMemcpy(dy, y0.data(), y0.size() * 2, cudaMemcpyHostToDevice));
        poison_scratch();
        launch_with(fwd_args(p, dx, dw, dy), p.bf16, ti, 0, v, parts, blocks);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o->data(), dy, o->size() * 2, cudaMemcpyDeviceToHost));
      }
      const std::string name = split_name("fwd split", ti, T, nsteps, blocks, parts, how);
      compare(name.c_str(), p, out, ref);
      same_bits(name, out, again);
    }
  }
}

// The data gradient's ConvArgs (as the engine fills them for the filter
// transform): w packed KRSC with K = Kg, C = Cg.
static fc::ConvArgs dgrad_args(int C, int K, int R, int S, int flip, const void *w) {
  fc::ConvArgs a;
  a.dir = fc::kConvBwdData;
  a.G = 1, a.Cg = C, a.Kg = K, a.filt[1] = R, a.filt[2] = S, a.T = R * S, a.flip = flip;
  const int ws[5] = {R * S * C, 1, R * S * C, S * C, C};
  for (int i = 0; i < 5; ++i) a.ws[i] = ws[i];
  a.B = w;
  return a;
}

// The data gradient's forward f with the filter read in place: the
// library's entry (tile_index < 0) or one tile, A by the im2col copies or
// the gather.
static void launch_dgrad_in_place(const fc::ConvArgs &f, const fc::ConvArgs &dgrad, bool bf16, int tile_index,
                                  bool a_via_tma, cudaStream_t st, int parts = 1, int blocks = 0) {
  if (g_scratch == nullptr) poison_scratch();
  if (tile_index < 0) {
    if (!fc::launch_conv_dgrad_wgmma(f, dgrad, bf16 ? fc::ConvTypes::bf16 : fc::ConvTypes::f16, g_scratch,
                                     kScratchBytes, st)) {
      std::printf("FAIL launch_conv_dgrad_wgmma declined\n");
      ++failures;
    }
    return;
  }
  fc::FwdArgs fa = fc::make_args(f);
  fa.w = static_cast<const uint16_t *>(dgrad.B), fa.b_trans = 1, fa.flip = dgrad.flip ? 0 : 1;
  fa.a_via_tma = a_via_tma;
  const int grid = blocks > 0 ? blocks : fc::sm_count();
  const bool ok = bf16 ? fc::launch_tile<true>(fa, kTiles[tile_index], grid, parts, g_scratch, kScratchBytes, st)
                       : fc::launch_tile<false>(fa, kTiles[tile_index], grid, parts, g_scratch, kScratchBytes, st);
  if (!ok) {
    std::printf("FAIL in-place tile declined\n");
    ++failures;
  }
}

// dx (float64) of the stride-1 problem p, straight from the definition:
// dx[n][h][w][c] = sum over (k, r, s) of dy[n][p][q][k] * w[k][r'][s'][c]
// where h = p - pad + r dil.
static std::vector<double> reference_dgrad(const Prob &p, const std::vector<uint16_t> &dy,
                                           const std::vector<uint16_t> &w, const std::vector<uint16_t> &dx0) {
  const int P = p.P(), Q = p.Q();
  std::vector<double> dx(dx0.size(), 0.0);
  for (int n = 0; n < p.N; ++n)
    for (int pp = 0; pp < P; ++pp)
      for (int q = 0; q < Q; ++q)
        for (int r = 0; r < p.R; ++r) {
          const int h = pp - p.ph + r * p.dh;
          if (h < 0 || h >= p.H) continue;
          for (int t = 0; t < p.S; ++t) {
            const int ww = q - p.pw + t * p.dw;
            if (ww < 0 || ww >= p.W) continue;
            const int rr = p.flip ? p.R - 1 - r : r, tt = p.flip ? p.S - 1 - t : t;
            for (int k = 0; k < p.K; ++k) {
              const double g = from16(dy[((static_cast<size_t>(n) * P + pp) * Q + q) * p.K + k], p.bf16);
              const uint16_t *wr = &w[((static_cast<size_t>(k) * p.R + rr) * p.S + tt) * p.C];
              double *o = &dx[((static_cast<size_t>(n) * p.H + h) * p.W + ww) * p.C];
              for (int c = 0; c < p.C; ++c) o[c] += g * from16(wr[c], p.bf16);
            }
          }
        }
  for (size_t i = 0; i < dx.size(); ++i)
    dx[i] = p.alpha * dx[i] + (p.beta != 0 ? p.beta * from16(dx0[i], p.bf16) : 0.0);
  return dx;
}

// dx of a stride-1 problem p (x: N H W C, w: K R S C, dy: N P Q K) as the
// library runs it: w' = the filter transform of w, then the forward of dy
// with w' and padding dil (f - 1) - pad, cross-correlation.
static void check_dgrad(const Prob &p) {
  const int P = p.P(), Q = p.Q();
  std::vector<uint16_t> dyv(static_cast<size_t>(p.N) * P * Q * p.K), w(static_cast<size_t>(p.K) * p.R * p.S * p.C);
  for (auto &v : dyv) v = to16(urand(), p.bf16);
  for (auto &v : w) v = to16(urand(), p.bf16);
  Prob f = p;  // the equivalent forward problem
  f.H = P, f.W = Q, f.C = p.K, f.K = p.C, f.ph = p.dh * (p.R - 1) - p.ph, f.pw = p.dw * (p.S - 1) - p.pw;
  f.flip = 0;
  const uint16_t nan16 = p.bf16 ? 0x7FC0 : 0x7E00;
  std::vector<uint16_t> dx0(static_cast<size_t>(p.N) * p.H * p.W * p.C);
  for (auto &v : dx0) v = p.beta != 0 ? to16(urand(), p.bf16) : nan16;
  if (f.P() != p.H || f.Q() != p.W) {
    std::printf("FAIL dgrad shape mismatch\n");
    ++failures;
    return;
  }
  const std::vector<double> ref = reference_dgrad(p, dyv, w, dx0);
  uint16_t *d_dy, *d_w, *d_wt, *d_dx;
  CK(cudaMalloc(&d_dy, dyv.size() * 2));
  CK(cudaMalloc(&d_w, w.size() * 2));
  CK(cudaMalloc(&d_wt, w.size() * 2));
  CK(cudaMalloc(&d_dx, dx0.size() * 2));
  CK(cudaMemcpy(d_dy, dyv.data(), dyv.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_w, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_dx, dx0.data(), dx0.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_wt, 0xFF, w.size() * 2));
  fc::launch_conv_dgrad_filter_transform(dgrad_args(p.C, p.K, p.R, p.S, p.flip, d_w), d_wt, 0);
  launch_with(fwd_args(f, d_dy, d_wt, d_dx), p.bf16, -1, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<uint16_t> out(dx0.size());
  CK(cudaMemcpy(out.data(), d_dx, out.size() * 2, cudaMemcpyDeviceToHost));
  compare("dgrad (transform + fwd)", p, out, ref);
  // The filter in place: the library's choice, then every tile with A by
  // the im2col copies and by the gather.
  for (int run = -1; run < 10; ++run) {
    const int ti = run < 0 ? -1 : run / 2;
    if (!tile_fits(ti, p.C)) continue;
    CK(cudaMemcpy(d_dx, dx0.data(), dx0.size() * 2, cudaMemcpyHostToDevice));
    launch_dgrad_in_place(fwd_args(f, d_dy, nullptr, d_dx), dgrad_args(p.C, p.K, p.R, p.S, p.flip, d_w), p.bf16, ti,
                          run < 0 || run % 2 == 0, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), d_dx, out.size() * 2, cudaMemcpyDeviceToHost));
    compare(run_name("dgrad in place", ti, run % 2 == 0 ? "" : " gather").c_str(), p, out, ref);
  }
  // The split of the last wave with the filter in place (split_configs),
  // A by the im2col copies and the gather in turn, each run twice on other
  // garbage in the scratch.
  const long long M = static_cast<long long>(p.N) * p.H * p.W;
  const int nsteps = p.R * p.S * p.K / 64;
  std::vector<uint16_t> again(out.size());
  int k = 0;
  for (int ti = 0; ti < 5; ++ti) {
    if (!tile_fits(ti, p.C)) continue;
    const int T = tile_count(M, p.C, ti);
    for (auto [blocks, parts] : split_configs(T, nsteps)) {
      const bool a_via_tma = k++ % 2 == 0;
      for (std::vector<uint16_t> *o : {&out, &again}) {
        CK(cudaMemcpy(d_dx, dx0.data(), dx0.size() * 2, cudaMemcpyHostToDevice));
        poison_scratch();
        launch_dgrad_in_place(fwd_args(f, d_dy, nullptr, d_dx), dgrad_args(p.C, p.K, p.R, p.S, p.flip, d_w), p.bf16,
                              ti, a_via_tma, 0, parts, blocks);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o->data(), d_dx, o->size() * 2, cudaMemcpyDeviceToHost));
      }
      const std::string name =
          split_name("dgrad in place split", ti, T, nsteps, blocks, parts, a_via_tma ? "" : ", gather");
      compare(name.c_str(), p, out, ref);
      same_bits(name, out, again);
    }
  }
  CK(cudaFree(d_dy));
  CK(cudaFree(d_w));
  CK(cudaFree(d_wt));
  CK(cudaFree(d_dx));
}

// ---- timing ----

static FILE *csv = stdout;  // every variant's time: N,C,HW,rows,cols,stages,taps_inner,l1,tma,TFLOP/s

struct Bufs {
  uint16_t *x, *w, *wt, *y;
  void *ws;
  size_t ws_bytes;
};

// cuDNN's best forward and backward-data times of the layer (C = K) and
// their algorithms, by its own Find, then timed as ours.
static void cudnn_best(cudnnHandle_t h, Bufs &b, int N, int C, int HW, cudaStream_t st, double *fwd_ms, int *fwd_algo,
                       double *bwd_ms, int *bwd_algo) {
  const int K = C;
  const DnnConv3x3 dc(N, C, K, HW);
  const cudnnTensorDescriptor_t xd = dc.xd, yd = dc.yd;
  const cudnnFilterDescriptor_t wd = dc.wd;
  const cudnnConvolutionDescriptor_t cd = dc.cd;
  const float one = 1.f, zero = 0.f;
  cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int n = 0;
  DNN(cudnnFindConvolutionForwardAlgorithmEx(h, xd, b.x, wd, b.w, cd, yd, b.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, fp,
                                             b.ws, b.ws_bytes));
  *fwd_ms = 1e30, *fwd_algo = -1;
  for (int i = 0; i < n; ++i) {
    if (fp[i].status != CUDNN_STATUS_SUCCESS || fp[i].memory > b.ws_bytes) continue;
    const auto algo = fp[i].algo;
    const double ms = median_ms_per_call(
        [&] { DNN(cudnnConvolutionForward(h, &one, xd, b.x, wd, b.w, cd, algo, b.ws, b.ws_bytes, &zero, yd, b.y)); },
        st);
    if (ms < *fwd_ms) *fwd_ms = ms, *fwd_algo = algo;
    if (i >= 2) break;  // Find's first three (sorted by its own time)
  }
  cudnnConvolutionBwdDataAlgoPerf_t bp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  DNN(cudnnFindConvolutionBackwardDataAlgorithmEx(h, wd, b.w, yd, b.y, cd, xd, b.x,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, bp, b.ws, b.ws_bytes));
  *bwd_ms = 1e30, *bwd_algo = -1;
  for (int i = 0; i < n; ++i) {
    if (bp[i].status != CUDNN_STATUS_SUCCESS || bp[i].memory > b.ws_bytes) continue;
    const auto algo = bp[i].algo;
    const double ms = median_ms_per_call(
        [&] {
          DNN(cudnnConvolutionBackwardData(h, &one, wd, b.w, yd, b.y, cd, algo, b.ws, b.ws_bytes, &zero, xd, b.x));
        },
        st);
    if (ms < *bwd_ms) *bwd_ms = ms, *bwd_algo = algo;
    if (i >= 2) break;
  }
}

static void time_layer(cudnnHandle_t h, Bufs &b, int N, int C, int HW, cudaStream_t st) {
  const int K = C;
  Prob p{N, HW, HW, C, K, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1.f, 0.f, false};
  const double flop = 2.0 * N * HW * HW * double(K) * C * 9;
  const fc::ConvArgs a = fwd_args(p, b.x, b.w, b.y);
  double best_ms = 1e30;
  int best_tile = -1;
  Variant best_v;
  char tiles_text[512] = "";
  for (int ti = 0; ti < 5; ++ti) {
    if (!tile_fits(ti, K)) continue;
    double tile_best = 1e30;
    const int maxst = fc::max_stages(kTiles[ti].bn, kTiles[ti].mw);
    // FWD_WGMMA_SWEEP=1: every ring depth, step order and load path; else
    // the defaults.
    const bool sweep = std::getenv("FWD_WGMMA_SWEEP") != nullptr;
    for (int stages : {2, 3, 4, 5, 6, 8}) {
      if (stages > maxst || (!sweep && stages != fc::default_stages(kTiles[ti].bn, kTiles[ti].mw))) continue;
      for (int order = sweep ? 0 : 1; order < 2; ++order)
        for (int l1 = sweep ? 0 : 1; l1 < 2; ++l1)
          for (int tma = 0; tma < 3; ++tma) {  // 2: A by the copy engine too
            Variant v;
            v.stages = stages, v.taps_inner = order, v.a_via_l1 = l1, v.b_via_tma = tma > 0, v.a_via_tma = tma == 2;
            const double ms = median_ms_per_call([&] { launch_with(a, false, ti, st, v); }, st);
            std::fprintf(csv, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f\n", N, C, HW, 128 * kTiles[ti].mw, kTiles[ti].bn, stages,
                         order, l1, tma, flop / ms / 1e9);
            char part[24];
            std::snprintf(part, sizeof part, "%s%.0f", tma ? "/" : " ", flop / ms / 1e9);  // gather / B tma / im2col
            if (!sweep) std::strcat(tiles_text, part);
            if (ms < tile_best) tile_best = ms;
            if (ms < best_ms) best_ms = ms, best_tile = ti, best_v = v;
          }
    }
    char part[48];
    std::snprintf(part, sizeof part, " %dx%d:%.0f", 128 * kTiles[ti].mw, kTiles[ti].bn, flop / tile_best / 1e9);
    if (sweep) std::strcat(tiles_text, part);
  }
  const double chosen_ms = median_ms_per_call([&] { launch_with(a, false, -1, st); }, st);
  // The tile the library would run without the split, whole.
  const fc::FwdChoice whole = fc::choose_tile(a.M, K, 9 * C / 64, fc::grid_blocks(), 0);
  const double whole_ms = median_ms_per_call([&] { launch_with(a, false, tile_index(whole.tile), st); }, st);
  // The best variant with y by the consumers' direct stores.
  Variant direct = best_v;
  direct.y_via_tma = 0;
  const double direct_ms = median_ms_per_call([&] { launch_with(a, false, best_tile, st, direct); }, st);
  // Our data gradient: the filter transform + the same forward GEMM (C = K).
  const fc::ConvArgs da = dgrad_args(C, K, 3, 3, 0, b.w);
  fc::ConvArgs fa = fwd_args(p, b.x, b.wt, b.y);
  const double dgrad_ms = median_ms_per_call(
      [&] {
        fc::launch_conv_dgrad_filter_transform(da, b.wt, st);
        launch_with(fa, false, -1, st);
      },
      st);
  // The same with the filter read in place (the library's path).
  const double dgrad_ip_ms = median_ms_per_call([&] { launch_dgrad_in_place(fa, da, false, -1, true, st); }, st);

  double cudnn_fwd_ms, cudnn_bwd_ms;
  int fwd_algo, bwd_algo;
  cudnn_best(h, b, N, C, HW, st, &cudnn_fwd_ms, &fwd_algo, &cudnn_bwd_ms, &bwd_algo);
  const double t_ours = flop / chosen_ms / 1e9, t_dnn = flop / cudnn_fwd_ms / 1e9;
  const double t_dg = flop / dgrad_ms / 1e9, t_dnn_dg = flop / cudnn_bwd_ms / 1e9;
  std::printf(
      "| %3dx%-2d N%-3d | fwd %4.0f (no split %4.0f; best %dx%d st%d taps%d l1%d tma%d%d %4.0f, y direct %4.0f) | cuDNN %4.0f (algo %d) | %.2f | dgrad "
      "%4.0f, in place %4.0f | cuDNN %4.0f (algo %d) | %.2f |%s\n",
      C, HW, N, t_ours, flop / whole_ms / 1e9, 128 * kTiles[best_tile].mw, kTiles[best_tile].bn, best_v.stages, best_v.taps_inner,
      best_v.a_via_l1, best_v.b_via_tma, best_v.a_via_tma, flop / best_ms / 1e9, flop / direct_ms / 1e9, t_dnn, fwd_algo, t_ours / t_dnn, t_dg,
      flop / dgrad_ip_ms / 1e9, t_dnn_dg, bwd_algo, flop / dgrad_ip_ms / 1e9 / t_dnn_dg, tiles_text);
  std::fflush(stdout);
}

// The split of the last wave, timed: the library's choice with and
// without it (FREEDNN_CONV_FWD_WGMMA_SPLIT=0's tile, whole), forward and
// data gradient in place, cuDNN's best beside; then each tile that fits,
// whole and split into 2 .. 8 parts (each distinct grid), forward.
static void time_split(cudnnHandle_t h, Bufs &b, int N, int C, int HW, cudaStream_t st) {
  const int K = C, nsteps = 9 * C / 64, sms = fc::grid_blocks();
  Prob p{N, HW, HW, C, K, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1.f, 0.f, false};
  const double flop = 2.0 * N * HW * HW * double(K) * C * 9;
  const fc::ConvArgs a = fwd_args(p, b.x, b.w, b.y);
  const fc::FwdChoice split = fc::choose_tile(a.M, K, nsteps, sms, -1), whole = fc::choose_tile(a.M, K, nsteps, sms, 0);
  const int ts = tile_index(split.tile), tw = tile_index(whole.tile);
  auto tf = [&](double ms) { return flop / ms / 1e9; };
  const double fwd_split = median_ms_per_call([&] { launch_with(a, false, ts, st, {}, split.grid.parts); }, st);
  const double fwd_whole = median_ms_per_call([&] { launch_with(a, false, tw, st); }, st);
  // What a memset of the flags ahead of each call would add (the split
  // clears them in a kernel that its own overlaps instead).
  const double memset_ms = median_ms_per_call(
      [&] {
        CK(cudaMemsetAsync(g_scratch, 0, 1024, st));
        launch_with(a, false, tw, st);
      },
      st);
  const fc::ConvArgs da = dgrad_args(C, K, 3, 3, 0, b.w);
  const fc::ConvArgs fa = fwd_args(p, b.x, nullptr, b.y);
  const double dg_split =
      median_ms_per_call([&] { launch_dgrad_in_place(fa, da, false, ts, true, st, split.grid.parts); }, st);
  const double dg_whole = median_ms_per_call([&] { launch_dgrad_in_place(fa, da, false, tw, true, st); }, st);
  double cudnn_fwd_ms, cudnn_bwd_ms;
  int fwd_algo, bwd_algo;
  cudnn_best(h, b, N, C, HW, st, &cudnn_fwd_ms, &fwd_algo, &cudnn_bwd_ms, &bwd_algo);
  std::printf("| %3dx%-2d N%-3d | %dx%d %d parts (%d whole + %d tail tiles) | fwd %4.0f | dgrad %4.0f "
              "| %dx%d whole (%d tiles) | fwd %4.0f | dgrad %4.0f | cuDNN fwd %4.0f dgrad %4.0f | memset %+.1f us |\n",
              C, HW, N, 128 * split.tile.mw, split.tile.bn, split.grid.parts, split.grid.whole, split.grid.tail,
              tf(fwd_split), tf(dg_split), 128 * whole.tile.mw, whole.tile.bn, whole.grid.whole, tf(fwd_whole),
              tf(dg_whole), tf(cudnn_fwd_ms), tf(cudnn_bwd_ms), (memset_ms - fwd_whole) * 1e3);
  for (int ti = 0; ti < 5; ++ti) {
    if (!tile_fits(ti, K)) continue;
    const int T = tile_count(a.M, K, ti);
    std::printf("    %dx%d, %d tiles: whole %4.0f", 128 * kTiles[ti].mw, kTiles[ti].bn, T,
                tf(median_ms_per_call([&] { launch_with(a, false, ti, st); }, st)));
    int last = 1;
    for (int parts = 2; parts <= 8; ++parts) {
      const fc::FwdGrid g = fc::split_grid(T, nsteps, sms, parts);
      if (g.parts <= last) continue;
      last = g.parts;
      std::printf(", %d parts %4.0f", g.parts,
                  tf(median_ms_per_call([&] { launch_with(a, false, ti, st, {}, g.parts); }, st)));
    }
    std::printf("\n");
  }
  // Where the split's time goes, on the widest tile in 2 and 4 parts (us):
  // the parts' steps alone (probe 1: no slots, no flags), + the slots'
  // stores and the flags (probe 2: the last part adds none), all.
  const int wide = tile_fits(0, K) ? 0 : 2, T = tile_count(a.M, K, wide);
  std::printf("    %dx%d probes, us:", 128 * kTiles[wide].mw, kTiles[wide].bn);
  int last = 1;
  for (int parts : {2, 4}) {
    const fc::FwdGrid g = fc::split_grid(T, nsteps, sms, parts);
    if (g.parts <= last) continue;
    last = g.parts;
    double us[3];
    for (int probe = 0; probe < 3; ++probe) {
      Variant v;
      v.split_probe = probe == 2 ? 0 : probe + 1;
      us[probe] = 1e3 * median_ms_per_call([&] { launch_with(a, false, wide, st, v, g.parts); }, st);
    }
    std::printf(" %d parts: steps %.1f, + stores and flags %.1f, all %.1f;", g.parts, us[0], us[1], us[2]);
  }
  std::printf(" whole %.1f\n", 1e3 * median_ms_per_call([&] { launch_with(a, false, wide, st); }, st));
  std::fflush(stdout);
}

// The split on the layers it is for, against cuDNN's results (a float64
// reference of these takes minutes): the batch-256 512x7 layer (a second
// wave of 64 tiles) and batch-32 ones (fewer tiles than multiprocessors),
// forward and the data gradient in place, with beta = 0 (staged stores,
// a NaN-poisoned output) and 0.5 (direct stores): the library's choice,
// then the widest tile with 2 .. 5 parts forced; each run twice on other
// garbage in the scratch (the same bits).
static void check_layer(cudnnHandle_t h, int N, int C, int HW) {
  const int K = C, nsteps = 9 * C / 64;
  const DnnConv3x3 dc(N, C, K, HW);
  const size_t act = size_t{1} * N * HW * HW * C, wel = size_t{9} * C * K, ws_bytes = size_t{256} << 20;
  std::vector<uint16_t> x(act), w(wel), y0(act), out(act), again(act);
  std::vector<double> ref(act);
  for (auto &v : x) v = to16(urand(), false);
  for (auto &v : w) v = to16(urand() * 0.05f, false);
  uint16_t *dx, *dw, *dy, *dref;
  void *ws;
  CK(cudaMalloc(&dx, act * 2));
  CK(cudaMalloc(&dw, wel * 2));
  CK(cudaMalloc(&dy, act * 2));
  CK(cudaMalloc(&dref, act * 2));
  CK(cudaMalloc(&ws, ws_bytes));
  CK(cudaMemcpy(dx, x.data(), act * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dw, w.data(), wel * 2, cudaMemcpyHostToDevice));
  cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  cudnnConvolutionBwdDataAlgoPerf_t bp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int nf = 0, nb = 0;
  DNN(cudnnGetConvolutionForwardAlgorithm_v7(h, dc.xd, dc.wd, dc.cd, dc.yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &nf, fp));
  DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, dc.wd, dc.yd, dc.cd, dc.xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                  &nb, bp));
  int falgo = -1, balgo = -1;
  for (int i = nf - 1; i >= 0; --i)
    if (fp[i].status == CUDNN_STATUS_SUCCESS && fp[i].memory <= ws_bytes) falgo = fp[i].algo;
  for (int i = nb - 1; i >= 0; --i)
    if (bp[i].status == CUDNN_STATUS_SUCCESS && bp[i].memory <= ws_bytes) balgo = bp[i].algo;
  const int wide = tile_fits(0, K) ? 0 : 2;  // 128 x 256, else 128 x 128
  const int T = tile_count(static_cast<long long>(N) * HW * HW, K, wide);
  const float one = 1.f;
  for (int dir = 0; dir < 2; ++dir)
    for (float beta : {0.f, 0.5f}) {
      // The forward: x -> y; the data gradient: dy (x's buffer) -> dx (y's).
      Prob p{N, HW, HW, C, K, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1.f, beta, false};
      for (auto &v : y0) v = beta != 0 ? to16(urand(), false) : 0x7E00;
      CK(cudaMemcpy(dref, y0.data(), act * 2, cudaMemcpyHostToDevice));
      if (dir == 0)
        DNN(cudnnConvolutionForward(h, &one, dc.xd, dx, dc.wd, dw, dc.cd, static_cast<cudnnConvolutionFwdAlgo_t>(falgo),
                                    ws, ws_bytes, &beta, dc.yd, dref));
      else
        DNN(cudnnConvolutionBackwardData(h, &one, dc.wd, dw, dc.yd, dx, dc.cd,
                                         static_cast<cudnnConvolutionBwdDataAlgo_t>(balgo), ws, ws_bytes, &beta, dc.xd,
                                         dref));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(out.data(), dref, act * 2, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < act; ++i) ref[i] = from16(out[i], false);
      std::vector<std::pair<int, int>> runs = {{-1, 0}};  // (tile, parts): the library's choice first
      int last = 1;
      for (int parts = 2; parts <= 5; ++parts) {
        const fc::FwdGrid g = fc::split_grid(T, nsteps, fc::sm_count(), parts);
        if (g.parts > last) runs.emplace_back(wide, g.parts), last = g.parts;
      }
      for (auto [ti, parts] : runs) {
        for (std::vector<uint16_t> *o : {&out, &again}) {
          CK(cudaMemcpy(dy, y0.data(), act * 2, cudaMemcpyHostToDevice));
          poison_scratch();
          if (dir == 0)
            launch_with(fwd_args(p, dx, dw, dy), false, ti, 0, {}, parts);
          else
            launch_dgrad_in_place(fwd_args(p, dx, nullptr, dy), dgrad_args(C, K, 3, 3, 0, dw), false, ti, true, 0,
                                  parts);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(o->data(), dy, act * 2, cudaMemcpyDeviceToHost));
        }
        char what[64];
        std::snprintf(what, sizeof what, "%s vs cuDNN", dir == 0 ? "fwd" : "dgrad in place");
        const std::string name = ti < 0 ? run_name(what, -1, "")
                                        : split_name(what, ti, T, nsteps, fc::sm_count(), parts, "");
        compare(name.c_str(), p, out, ref);
        same_bits(name, out, again);
      }
    }
  CK(cudaFree(dx));
  CK(cudaFree(dw));
  CK(cudaFree(dy));
  CK(cudaFree(dref));
  CK(cudaFree(ws));
}

int main(int argc, char **argv) {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  if (!fc::device_runs_wgmma(fc::kRingBudget + 2048)) {
    std::printf("FAIL: the device does not run the sm_90a kernel\n");
    return 1;
  }
  // --profile N C HW: three launches of the library's choice on that layer
  // (for ncu), nothing else.
  if (argc == 5 && std::strcmp(argv[1], "--profile") == 0) {
    const int N = std::atoi(argv[2]), C = std::atoi(argv[3]), HW = std::atoi(argv[4]);
    Prob p{N, HW, HW, C, C, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1.f, 0.f, false};
    const size_t act = size_t{1} * N * HW * HW * C, wel = size_t{9} * C * C;
    std::vector<uint16_t> hx(act), hw(wel);
    for (auto &v : hx) v = to16(urand(), false);
    for (auto &v : hw) v = to16(urand() * 0.05f, false);
    uint16_t *x, *w, *y;
    CK(cudaMalloc(&x, act * 2));
    CK(cudaMalloc(&w, wel * 2));
    CK(cudaMalloc(&y, act * 2));
    CK(cudaMemcpy(x, hx.data(), act * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(w, hw.data(), wel * 2, cudaMemcpyHostToDevice));
    for (int i = 0; i < 3; ++i) launch_with(fwd_args(p, x, w, y), false, -1, 0);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  // 1. Correctness.
  auto P = [](int N, int H, int W, int C, int K, int R, int S, int ph, int pw, int sh, int sw, int dh, int dw, int flip,
              float alpha, float beta,
              bool bf16) { return Prob{N, H, W, C, K, R, S, ph, pw, sh, sw, dh, dw, flip, alpha, beta, bf16}; };
  const Prob checks[] = {
      P(2, 10, 10, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, false),         // pixel tail (200 pixels)
      P(3, 7, 9, 128, 256, 3, 3, 0, 0, 1, 1, 1, 1, 0, 1, 0, false),         // pad 0
      P(2, 13, 13, 64, 128, 3, 3, 1, 1, 2, 2, 1, 1, 0, 1, 0, false),        // stride 2
      P(2, 11, 11, 192, 128, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, false),       // 1x1
      P(2, 12, 12, 64, 64, 1, 1, 0, 0, 2, 2, 1, 1, 0, 1, 0, false),         // 1x1 stride 2
      P(2, 12, 11, 64, 192, 5, 3, 2, 2, 1, 1, 2, 1, 0, 1, 0, false),        // 5x3, dilation, pad 2
      P(2, 9, 9, 128, 256, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0.7f, 0.5f, false),   // alpha / beta
      P(3, 9, 8, 64, 192, 3, 3, 1, 1, 1, 1, 1, 1, 0, -1.25f, 0, false),     // alpha, beta 0 (staged stores)
      P(2, 9, 9, 64, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, false),          // CONVOLUTION mode
      P(5, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, false),         // 512x7, 245 pixels
      P(2, 10, 10, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, true),          // bf16
      P(2, 9, 9, 128, 256, 3, 3, 1, 1, 2, 1, 1, 1, 1, -1.5f, 0.25f, true),  // bf16 flip beta stride (2,1)
  };
  for (const Prob &p : checks) check_forward(p);
  const Prob dchecks[] = {
      P(2, 10, 10, 64, 128, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, false),
      P(2, 9, 9, 128, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0.5f, 0.5f, false),
      P(2, 9, 9, 128, 128, 3, 3, 0, 0, 1, 1, 1, 1, 0, 1, 0, true),
      P(3, 7, 7, 256, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, -0.5f, 1.5f, true),   // dx 256, dy 512, CONVOLUTION
      P(2, 12, 11, 192, 64, 5, 3, 2, 1, 1, 1, 2, 1, 0, 1, 0, false),       // 5x3 dilated, dy 64 channels
  };
  for (const Prob &p : dchecks) check_dgrad(p);
  // The split of the last wave on every tile (the data gradients above
  // ran theirs): 72 steps (2 .. 8 parts, most of them not dividing it) and
  // 9 (parts of one or two steps), beta = 0 (staged stores) and beta != 0
  // (direct stores), pixel tails, both modes, a stride, BFLOAT16.
  const Prob split_checks[] = {
      P(5, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, false),          // 512x7, 245 pixels
      P(5, 7, 7, 512, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0.7f, 0.5f, false),    // beta, CONVOLUTION
      P(2, 10, 10, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, false),          // 9 steps
      P(3, 9, 8, 64, 192, 3, 3, 1, 1, 1, 1, 1, 1, 0, -1.25f, 0, true),       // K = 192, bf16
      P(2, 13, 13, 128, 128, 3, 3, 1, 1, 2, 2, 1, 1, 0, 1, 0.25f, false),    // stride 2, beta
  };
  for (const Prob &p : split_checks) check_split(p);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudnnHandle_t h;
  DNN(cudnnCreate(&h));
  for (auto [N, C, HW] : {std::tuple{256, 512, 7}, {32, 512, 7}, {32, 256, 14}, {32, 128, 28}})
    check_layer(h, N, C, HW);
  std::printf("correctness: %d failures; split runs repeated: %d the same bits, %d not\n", failures, repeats_same,
              repeats_differ);
  if (argc > 1 && std::strcmp(argv[1], "--check-only") == 0) return failures != 0;

  // 2. Timing.
  DNN(cudnnSetStream(h, st));
  Bufs b;
  const size_t act = size_t{256} * 56 * 56 * 64, wel = size_t{512} * 9 * 512;
  CK(cudaMalloc(&b.x, act * 2));
  CK(cudaMalloc(&b.y, act * 2));
  CK(cudaMalloc(&b.w, wel * 2));
  CK(cudaMalloc(&b.wt, wel * 2));
  b.ws_bytes = size_t{1} << 30;
  CK(cudaMalloc(&b.ws, b.ws_bytes));
  {
    std::vector<uint16_t> hx(act), hw(wel);
    for (auto &v : hx) v = to16(urand(), false);
    for (auto &v : hw) v = to16(urand() * 0.05f, false);
    CK(cudaMemcpy(b.x, hx.data(), act * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b.y, hx.data(), act * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b.w, hw.data(), wel * 2, cudaMemcpyHostToDevice));
  }
  if (const char *path = std::getenv("FWD_WGMMA_CSV")) csv = std::fopen(path, "w");
  if (csv == nullptr) csv = stdout;
  std::fprintf(csv, "N,C,HW,rows,cols,stages,taps_inner,l1,tma,tflops\n");
  std::printf("HALF NHWC 3x3 pad 1, TFLOP/s, ten calls back to back, median of 5\n");
  std::printf(
      "| layer | ours fwd (chosen tile) | cuDNN fwd | ratio | ours dgrad (transform + fwd, in place) | cuDNN dgrad | ratio (in place) | each tile: "
      "cp.async/TMA B\n");
  // --split-timing: the split's table alone.
  if (argc <= 1 || std::strcmp(argv[1], "--split-timing") != 0)
    for (int N : {256, 32})
      for (auto [C, HW] : {std::pair{64, 56}, {128, 28}, {256, 14}, {512, 7}}) time_layer(h, b, N, C, HW, st);
  std::printf("\nThe split of the last wave, TFLOP/s (as above): the library's tile and split | "
              "its tile without the split | cuDNN\n");
  for (auto [N, C, HW] : {std::tuple{256, 512, 7}, {32, 512, 7}, {32, 256, 14}, {32, 128, 28}})
    time_split(h, b, N, C, HW, st);
  DNN(cudnnDestroy(h));
  if (csv != stdout) std::fclose(csv);
  return failures != 0;
}
