// Stand-alone check and timing of the wgmma filter gradient
// (src/cuda/convolution_wgrad_wgmma.cu, #included so that this tests exactly
// the library's kernel).
//
// 1. Small 3x3 problems against a float64 host reference, for every tile
//    height (64, 128, 256 rows of k), several ring depths and split counts
//    (more parts than pixel chunks included), x through L1 or not: padding
//    0/1/2, pixel tails, both modes, alpha/beta, beta = 0 on a NaN-poisoned
//    dw, HALF and BFLOAT16.
// 2. The ResNet-50 3x3 layers in HALF at batch 256 and 32: ten calls back
//    to back between events, median of 5, the library's choice and the
//    other tile heights / ring depths / split counts, against NVIDIA cuDNN's
//    best backward-filter algorithm (cudnnFind*) timed the same way in the
//    same process.
//
// Build and run on the device machine (H100), from the repository root:
//   NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Isrc -I$NV/include \
//     tests/oracle_gpu/wgrad_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 \
//     -Xlinker -rpath=$NV/lib -o /tmp/wgh && /tmp/wgh
// (--check-only: part 1 alone; WGRAD_SWEEP=1: every variant in part 2;
// WGRAD_ONLY=<C>: part 2 on the layer of C channels alone.)
#include <cmath>
#include <cstring>

#include "cuda/convolution_wgrad_wgmma.cu"
#include "cuda/cuda_util.cpp"
#include "cuda/tensor_map.cpp"
#include "core/env_words.cpp"
#include "cuda/wgmma_probe.cu"
#include "harness_common.cuh"

namespace fc = fdnn::cuda;

struct Prob {
  int N, H, W, C, K, pad;  // 3x3, stride 1, pad on both sides
  int flip;
  float alpha, beta;
  bool bf16;
  int P() const { return H + 2 * pad - 2; }
  int Q() const { return W + 2 * pad - 2; }
};

// The engine's ConvArgs of a filter-gradient problem (packed NHWC x / dy, KRSC dw).
static fc::ConvArgs wgrad_args(const Prob &p, const void *dy, const void *x, void *dw) {
  fc::ConvArgs a;
  a.dir = fc::kConvBwdFilter;
  a.N = p.N, a.G = 1, a.Cg = p.C, a.Kg = p.K;
  a.in[1] = p.H, a.in[2] = p.W, a.filt[1] = 3, a.filt[2] = 3, a.out[1] = p.P(), a.out[2] = p.Q();
  a.pad[1] = p.pad, a.pad[2] = p.pad, a.str[1] = a.str[2] = 1, a.dil[1] = a.dil[2] = 1;
  a.flip = p.flip;
  const int P = p.P(), Q = p.Q();
  const int xs[5] = {p.H * p.W * p.C, 1, p.H * p.W * p.C, p.W * p.C, p.C};
  const int ws[5] = {9 * p.C, 1, 9 * p.C, 3 * p.C, p.C};
  const int ys[5] = {P * Q * p.K, 1, P * Q * p.K, Q * p.K, p.K};
  for (int i = 0; i < 5; ++i) a.xs[i] = xs[i], a.ws[i] = ws[i], a.ys[i] = ys[i];
  a.T = 9, a.P = P * Q, a.I = p.H * p.W;
  a.alpha = p.alpha, a.beta = p.beta;
  a.A = dy, a.B = x, a.dst = dw;
  return a;
}

// dw (float64) of problem p, straight from the definition.
static std::vector<double> reference(const Prob &p, const std::vector<uint16_t> &dy, const std::vector<uint16_t> &x,
                                     const std::vector<uint16_t> &dw0) {
  const int P = p.P(), Q = p.Q();
  std::vector<double> xd(x.size()), dyd(dy.size()), dw(dw0.size(), 0.0);
  for (size_t i = 0; i < x.size(); ++i) xd[i] = from16(x[i], p.bf16);
  for (size_t i = 0; i < dy.size(); ++i) dyd[i] = from16(dy[i], p.bf16);
  for (int n = 0; n < p.N; ++n)
    for (int pp = 0; pp < P; ++pp)
      for (int q = 0; q < Q; ++q)
        for (int r = 0; r < 3; ++r) {
          const int h = pp + r - p.pad;
          if (h < 0 || h >= p.H) continue;
          for (int s = 0; s < 3; ++s) {
            const int w = q + s - p.pad;
            if (w < 0 || w >= p.W) continue;
            const int tap = p.flip ? 8 - (3 * r + s) : 3 * r + s;
            const double *xr = &xd[((static_cast<size_t>(n) * p.H + h) * p.W + w) * p.C];
            const double *g = &dyd[((static_cast<size_t>(n) * P + pp) * Q + q) * p.K];
            for (int k = 0; k < p.K; ++k) {
              double *o = &dw[(static_cast<size_t>(k) * 9 + tap) * p.C];
              for (int c = 0; c < p.C; ++c) o[c] += g[k] * xr[c];
            }
          }
        }
  for (size_t i = 0; i < dw.size(); ++i)
    dw[i] = p.alpha * dw[i] + (p.beta != 0 ? p.beta * from16(dw0[i], p.bf16) : 0.0);
  return dw;
}

static void compare(const char *what, const Prob &p, const std::vector<uint16_t> &out, const std::vector<double> &ref) {
  double rel;
  size_t bad;
  const bool ok = close_to_reference(out, ref, p.bf16, &rel, &bad);
  std::printf("%-4s %-30s N%d %dx%d C%d K%d pad%d flip%d a%.2f b%.2f %s: rel %.2e nonfinite %zu\n", ok ? "ok" : "FAIL",
              what, p.N, p.H, p.W, p.C, p.K, p.pad, p.flip, p.alpha, p.beta, p.bf16 ? "bf16" : "f16", rel, bad);
}

// A variant: tile height (0: the library's), ring depth (0: the tile's
// default, kDeepest: the deepest ring that fits), split parts (0: the
// library's, kWgradStreamK: stream-K), x through L1 (the cp.async gather),
// x by the copy engine's im2col copies (the library's default), the
// library's staging (1: row windows where they apply) or 64-pixel stages (0).
constexpr int kDeepest = 99;
struct Variant {
  int kb = 0, stages = 0, splits = 0, x_via_l1 = 1, x_via_tma = 1, rows = 1;
};

// Scratch for any variant of these problems (the library's partials of up
// to 512 parts of 512 x 9 x 512 floats stay under 256 MB by construction).
static float *g_scratch = nullptr;
static const size_t kScratchBytes = size_t{600} << 20;

static void launch_with(const fc::ConvArgs &a, bool bf16, Variant v, cudaStream_t st) {
  const int kb = v.kb > 0 ? v.kb : fc::tile_rows(a);
  const int splits = v.splits != 0 ? v.splits : fc::conv_wgrad_wgmma_splits(a);
  if (fc::partial_bytes(a, kb, splits, v.rows) > kScratchBytes) {
    std::printf("FAIL scratch too small\n");
    std::exit(1);
  }
  fc::WgradArgs p = fc::make_args(a, kb, splits, g_scratch, v.rows);
  if (v.stages > 0) p.stages = v.stages == kDeepest ? fc::max_stages_of(p.stage_bytes) : v.stages;
  p.x_via_l1 = v.x_via_l1;
  p.x_via_tma = v.x_via_tma;
  if (bf16)
    fc::launch_rows<true>(p, kb, a.A, st);
  else
    fc::launch_rows<false>(p, kb, a.A, st);
  fc::launch_sum(a, bf16 ? fc::ConvTypes::bf16 : fc::ConvTypes::f16, p, kb, st);
}

static void check(const Prob &p) {
  const int P = p.P(), Q = p.Q();
  std::vector<uint16_t> x(static_cast<size_t>(p.N) * p.H * p.W * p.C), dy(static_cast<size_t>(p.N) * P * Q * p.K),
      dw0(static_cast<size_t>(p.K) * 9 * p.C);
  for (auto &v : x) v = to16(urand(), p.bf16);
  for (auto &v : dy) v = to16(urand(), p.bf16);
  const uint16_t nan16 = p.bf16 ? 0x7FC0 : 0x7E00;
  for (auto &v : dw0) v = p.beta != 0 ? to16(urand(), p.bf16) : nan16;
  const std::vector<double> ref = reference(p, dy, x, dw0);
  uint16_t *d_x, *d_dy, *d_dw;
  CK(cudaMalloc(&d_x, x.size() * 2));
  CK(cudaMalloc(&d_dy, dy.size() * 2));
  CK(cudaMalloc(&d_dw, dw0.size() * 2));
  CK(cudaMemcpy(d_x, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_dy, dy.data(), dy.size() * 2, cudaMemcpyHostToDevice));
  const fc::ConvArgs a = wgrad_args(p, d_dy, d_x, d_dw);
  const int nchunks = (p.N * P * Q + 63) / 64;
  std::vector<Variant> variants(1);  // the library's own choices
  for (int kb : {64, 128, 256}) {
    if (p.K % kb != 0) continue;
    const int minst = kb == 64 ? 4 : 2;
    variants.push_back({kb, minst, 1, 1});
    variants.push_back({kb, kDeepest, 3, 0, 0});
    variants.push_back({kb, 0, 2, 1, 0});
    variants.push_back({kb, 0, nchunks + 2, 1});  // parts past the chunks run empty
    variants.push_back({kb, minst + 1, std::max(1, nchunks / 2), 1});
    variants.push_back({kb, 0, fc::kWgradStreamK, 1, 1});  // a block per multiprocessor
    variants.push_back({kb, minst, fc::kWgradStreamK, 1, 0});
  }
  // Where row windows apply, every variant again on 64-pixel stages.
  if (fc::library_staging(a, fc::tile_rows(a)).rows > 0) {
    const size_t n0 = variants.size();
    for (size_t i = 0; i < n0; ++i) {
      variants.push_back(variants[i]);
      variants.back().rows = 0;
      if (variants.back().kb == 0) variants.back().kb = fc::tile_rows(a);
    }
  }
  const int nv = static_cast<int>(variants.size());
  // Stream-K on 3 and 7 blocks: ranges across several tiles.
  for (int i = 0; i < nv; ++i)
    if (variants[i].splits == fc::kWgradStreamK) variants.push_back(variants[i]);
  for (int i = 0; i < static_cast<int>(variants.size()); ++i) {
    const Variant &v = variants[i];
    const char *cap = i < nv ? nullptr : i % 2 ? "3" : "7";
    if (cap) setenv("FREEDNN_CONV_WGRAD_WGMMA_BLOCKS", cap, 1);
    CK(cudaMemcpy(d_dw, dw0.data(), dw0.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(g_scratch, 0xFF, kScratchBytes));  // NaN partials: every part must be written
    launch_with(a, p.bf16, v, 0);
    if (cap) unsetenv("FREEDNN_CONV_WGRAD_WGMMA_BLOCKS");
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<uint16_t> out(dw0.size());
    CK(cudaMemcpy(out.data(), d_dw, out.size() * 2, cudaMemcpyDeviceToHost));
    char name[64];
    if (v.kb == 0)
      std::snprintf(name, sizeof name, "library's choice");
    else
      std::snprintf(name, sizeof name, "rows %d st%d parts %d%s %s", v.kb, v.stages, v.splits,
                    cap ? (i % 2 ? " (3 blocks)" : " (7 blocks)") : "",
                    v.rows && fc::library_staging(a, v.kb).rows ? "windows"
                    : v.x_via_tma                               ? "im2col"
                    : v.x_via_l1                                ? "ca"
                                                                : "cg");
    compare(name, p, out, ref);
  }
  CK(cudaFree(d_x));
  CK(cudaFree(d_dy));
  CK(cudaFree(d_dw));
}

// ---- timing ----

struct Bufs {
  uint16_t *x, *dy, *dw;
  void *ws;
  size_t ws_bytes;
};

static void time_layer(cudnnHandle_t h, Bufs &b, int N, int C, int HW, cudaStream_t st) {
  const int K = C;
  const Prob p{N, HW, HW, C, K, 1, 0, 1.f, 0.f, false};
  const double flop = 2.0 * N * HW * HW * double(K) * C * 9;
  const fc::ConvArgs a = wgrad_args(p, b.dy, b.x, b.dw);
  const int kb = fc::tile_rows(a), splits = fc::conv_wgrad_wgmma_splits(a);
  const double chosen_ms = median_ms_per_call([&] { launch_with(a, false, {}, st); }, st);
  // The library's choice in BFLOAT16 (the same buffers' bits: finite
  // values), and its sum kernel alone.
  const double bf16_ms = median_ms_per_call([&] { launch_with(a, true, {}, st); }, st);
  const fc::WgradArgs sp = fc::make_args(a, kb, splits, g_scratch);
  const double sum_ms = median_ms_per_call([&] { fc::launch_sum(a, fc::ConvTypes::f16, sp, kb, st); }, st);
  // The 64-pixel stages (three im2col slabs) where the library takes row windows.
  const bool windows = fc::library_staging(a, kb).rows > 0;
  const double slabs_ms = windows ? median_ms_per_call([&] { launch_with(a, false, {0, 0, 0, 1, 1, 0}, st); }, st) : 0;
  // The other variants: staging x tile heights x ring depths x split counts around the chosen one.
  char text[4096] = "";
  const bool sweep = std::getenv("WGRAD_SWEEP") != nullptr;
  double best_ms = chosen_ms;
  Variant best{kb, 0, splits, 1, 1};
  for (int rows : {1, 0}) {
    for (int vkb : {64, 128, 256}) {
      if (K % vkb != 0) continue;
      const fc::Staging g = rows ? fc::library_staging(a, vkb) : fc::Staging{};
      if (rows && g.rows == 0) continue;
      const int deepest = fc::max_stages_of(g.rows ? g.stage_bytes : fc::stage_bytes(vkb));
      const int dflt = std::min(fc::default_stages(vkb), deepest);
      for (int stages = 2; stages <= deepest; ++stages) {
        if (vkb == 64 && (stages < 4 || stages % 2 != 0)) continue;
        if (!sweep && stages != (vkb == 64 ? std::max(4, dflt & ~1) : dflt)) continue;
        // Split counts around the chosen one (they scale with the tile count
        // so that units fill the machine alike), and stream-K.
        const int base = splits == fc::kWgradStreamK ? 2 : splits;
        std::vector<int> parts;
        for (double f : {0.5, 1.0, 2.0})
          if (sweep || f == 1.0) parts.push_back(std::max(1, static_cast<int>(base * f * kb / vkb + 0.5)));
        parts.push_back(fc::kWgradStreamK);
        for (int s : parts) {
          // 0 / 1: x gathered by cp.async .cg / .ca; 2: x by im2col copies
          // (row windows: their own copies).
          for (int l1 = rows ? 2 : sweep ? 0 : 1; l1 < 3; ++l1) {
            const Variant v{vkb, stages, s, l1 > 0, l1 == 2, rows};
            const double ms = median_ms_per_call([&] { launch_with(a, false, v, st); }, st);
            char part[64];
            std::snprintf(part, sizeof part, " %d/%d/%d%s:%.0f", vkb, stages, s,
                          rows ? "win" : l1 == 2 ? "i2c" : l1 ? "" : "cg", flop / ms / 1e9);
            if (std::strlen(text) + std::strlen(part) < sizeof text) std::strcat(text, part);
            if (ms < best_ms) best_ms = ms, best = v;
          }
        }
      }
    }
  }

  const DnnConv3x3 dc(N, C, K, HW);
  const cudnnTensorDescriptor_t xd = dc.xd, yd = dc.yd;
  const cudnnFilterDescriptor_t wd = dc.wd;
  const cudnnConvolutionDescriptor_t cd = dc.cd;
  const float one = 1.f, zero = 0.f;
  cudnnConvolutionBwdFilterAlgoPerf_t fp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int n = 0;
  DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, xd, b.x, yd, b.dy, cd, wd, b.dw,
                                                    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, fp, b.ws, b.ws_bytes));
  double cudnn_ms = 1e30;
  int algo_best = -1;
  for (int i = 0; i < n && i < 3; ++i) {  // Find's first three (sorted by its own time)
    if (fp[i].status != CUDNN_STATUS_SUCCESS || fp[i].memory > b.ws_bytes) continue;
    const auto algo = fp[i].algo;
    const double ms = median_ms_per_call(
        [&] {
          DNN(cudnnConvolutionBackwardFilter(h, &one, xd, b.x, yd, b.dy, cd, algo, b.ws, b.ws_bytes, &zero, wd, b.dw));
        },
        st);
    if (ms < cudnn_ms) cudnn_ms = ms, algo_best = algo;
  }
  const double ours = flop / chosen_ms / 1e9, dnn = flop / cudnn_ms / 1e9;
  char slabs[48] = "";
  if (windows) std::snprintf(slabs, sizeof slabs, ", 64-pixel stages %4.0f", flop / slabs_ms / 1e9);
  std::printf("| %3dx%-2d N%-3d | %4.0f (bf16 %4.0f, sum %.1f us; rows %d, %d parts%s%s) | best %4.0f (%d/%d/%d%s) | cuDNN %4.0f (algo %d) | %.2f |%s\n",
              C, HW, N, ours, flop / bf16_ms / 1e9, sum_ms * 1e3, kb, splits, windows ? ", windows" : "", slabs, flop / best_ms / 1e9, best.kb,
              best.stages, best.splits, best.rows && windows ? "win" : best.x_via_tma ? "i2c" : best.x_via_l1 ? "" : "cg",
              dnn, algo_best, ours / dnn, text);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  if (!fc::device_runs_wgmma(fc::smem_bytes(256, 4)) || !fc::tensor_maps_available()) {
    std::printf("FAIL: the device does not run the sm_90a kernel\n");
    return 1;
  }
  CK(cudaMalloc(&g_scratch, kScratchBytes));
  // --repeat N C HW kb stages splits reps: that variant on one layer, reps
  // times, synchronising and comparing dw bitwise with the first run's.
  if (argc == 9 && std::strcmp(argv[1], "--repeat") == 0) {
    const Prob p{std::atoi(argv[2]), std::atoi(argv[4]), std::atoi(argv[4]), std::atoi(argv[3]), std::atoi(argv[3]), 1,
                 0, 1.f, 0.f, false};
    const Variant v{std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7]), 1, 1};
    const size_t act = size_t{1} * p.N * p.H * p.W * p.C, wel = size_t{9} * p.C * p.K;
    std::vector<uint16_t> hx(act), first(wel), out(wel);
    uint16_t *x, *dy, *dw;
    CK(cudaMalloc(&x, act * 2));
    CK(cudaMalloc(&dy, act * 2));
    CK(cudaMalloc(&dw, wel * 2));
    for (auto &e : hx) e = to16(urand(), false);
    CK(cudaMemcpy(x, hx.data(), act * 2, cudaMemcpyHostToDevice));
    for (auto &e : hx) e = to16(urand() * 0.05f, false);
    CK(cudaMemcpy(dy, hx.data(), act * 2, cudaMemcpyHostToDevice));
    const fc::ConvArgs a = wgrad_args(p, dy, x, dw);
    int differ = 0;
    for (int rep = 0; rep < std::atoi(argv[8]); ++rep) {
      launch_with(a, false, v, 0);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(rep == 0 ? first.data() : out.data(), dw, wel * 2, cudaMemcpyDeviceToHost));
      if (rep > 0 && out != first) ++differ;
    }
    std::printf("repeat: %d of %s runs differ from the first\n", differ, argv[8]);
    return differ != 0;
  }
  // 1. Correctness.
  const Prob checks[] = {
      {2, 10, 10, 64, 64, 1, 0, 1, 0, false},         // pixel tail (200 pixels)
      {3, 7, 9, 128, 128, 0, 0, 1, 0, false},         // pad 0
      {2, 6, 5, 64, 256, 2, 0, 1, 0, false},          // pad 2 (output larger than input)
      {2, 9, 9, 128, 256, 1, 0, 0.7f, 0.5f, false},   // alpha / beta
      {2, 9, 9, 64, 192, 1, 1, 1, 0, false},          // CONVOLUTION mode, K = 192 (64-row tiles)
      {5, 7, 7, 256, 512, 1, 0, 1, 0, false},         // 512 k, 245 pixels
      {2, 10, 10, 64, 128, 1, 0, 1, 0, true},         // bf16
      {2, 9, 9, 128, 256, 1, 1, -1.5f, 0.25f, true},  // bf16 flip beta
      // Row windows (Q divides 112): 2 rows of 56 a stage, pad 1 / 0 / 2
      {1, 56, 56, 64, 64, 1, 0, 1, 0, false},
      {3, 9, 58, 64, 64, 0, 0, 1, 0, false},           // 27 rows: the last stage's second row past the last image
      {2, 6, 54, 64, 128, 2, 1, 0.7f, 0.5f, true},     // output wider than the input, bf16 flip alpha / beta
      {3, 7, 16, 64, 64, 1, 0, 1, 0, false},           // 7 rows of 16 a stage, stages across images
      {2, 5, 8, 128, 256, 1, 0, 1, 0, false},          // 14 rows of 8 a stage (only 10 rows in all)
      {5, 8, 16, 64, 64, 1, 1, 1, 0, true},            // bf16 flip
  };
  for (const Prob &p : checks) check(p);
  std::printf("correctness: %d failures\n", failures);
  if (argc > 1 && std::strcmp(argv[1], "--check-only") == 0) return failures != 0;

  // 2. Timing.
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudnnHandle_t h;
  DNN(cudnnCreate(&h));
  DNN(cudnnSetStream(h, st));
  Bufs b;
  const size_t act = size_t{256} * 56 * 56 * 64, wel = size_t{512} * 9 * 512;
  CK(cudaMalloc(&b.x, act * 2));
  CK(cudaMalloc(&b.dy, act * 2));
  CK(cudaMalloc(&b.dw, wel * 2));
  b.ws_bytes = size_t{1} << 30;
  CK(cudaMalloc(&b.ws, b.ws_bytes));
  {
    std::vector<uint16_t> hx(act);
    for (auto &v : hx) v = to16(urand(), false);
    CK(cudaMemcpy(b.x, hx.data(), act * 2, cudaMemcpyHostToDevice));
    for (auto &v : hx) v = to16(urand() * 0.05f, false);
    CK(cudaMemcpy(b.dy, hx.data(), act * 2, cudaMemcpyHostToDevice));
  }
  std::printf("HALF NHWC 3x3 pad 1 filter gradient, TFLOP/s, ten calls back to back, median of 5\n");
  std::printf("| layer | ours (library's choice) | best variant (rows/stages/parts) | cuDNN | ratio | variants\n");
  for (int N : {256, 32})
    for (auto [C, HW] : {std::pair{64, 56}, {128, 28}, {256, 14}, {512, 7}})
      if (const char *only = std::getenv("WGRAD_ONLY"); only == nullptr || std::atoi(only) == C)
        time_layer(h, b, N, C, HW, st);  // WGRAD_ONLY=<C>: that layer alone
  DNN(cudnnDestroy(h));
  return failures != 0;
}
