// Harness: correctness vs float64 host reference (small problems, both
// descriptor variants) and timing vs NVIDIA cuDNN on the ResNet 3x3 layers.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
#include <algorithm>
#include <functional>
#include <string>
#include <cudnn.h>
#include "wgrad_kernel.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CD(x) do { cudnnStatus_t e_ = (x); if (e_ != CUDNN_STATUS_SUCCESS) { printf("cuDNN %s at %s:%d\n", cudnnGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

static int g_sms = 132;

static uint16_t to16(float f, bool bf) {
  if (bf) { __nv_bfloat16 h = __float2bfloat16(f); return *reinterpret_cast<uint16_t *>(&h); }
  __half h = __float2half(f); return *reinterpret_cast<uint16_t *>(&h);
}
static float from16(uint16_t v, bool bf) {
  if (bf) { __nv_bfloat16 h; memcpy(&h, &v, 2); return __bfloat162float(h); }
  __half h; memcpy(&h, &v, 2); return __half2float(h);
}

struct Problem { int N, H, W, C, K, pad; };

struct Launch {
  bool bf, ksplit, xca; int variant; int splits; int mw = 1;
};

static size_t parts_of(const Problem &pr, const Launch &l) { return l.ksplit ? l.splits : 2 * l.splits; }

static void launch(const Problem &pr, const Launch &l, const void *x, const void *dy, float *partial, void *dw,
                   float alpha, float beta, cudaStream_t st) {
  w4::WgradParams p{};
  p.x = x; p.dy = dy; p.partial = partial;
  p.N = pr.N; p.H = pr.H; p.W = pr.W; p.C = pr.C; p.K = pr.K;
  p.P = pr.H + 2 * pr.pad - 2; p.Q = pr.W + 2 * pr.pad - 2; p.pad_h = pr.pad; p.pad_w = pr.pad;
  p.npix = pr.N * p.P * p.Q; p.nchunks = (p.npix + 63) / 64; p.splits = l.splits; p.desc_variant = l.variant;
  const int kblocks = l.ksplit ? pr.K / (128 * l.mw) : pr.K / 64;
  dim3 grid((pr.C / 64) * 3 * kblocks, l.splits);
  const int smem = w4::stages_for(l.mw) * ((l.ksplit ? 2 * l.mw : 1) + 3) * w4::kSlabBytes + 1024;
#define W4_GO(BF, KS, CA, MWV)                                                                                 \
  do {                                                                                                     \
    auto kern = w4::wgrad_wgmma_kernel<BF, KS, CA, MWV>;                                                        \
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));                     \
    kern<<<grid, w4::kThreads, smem, st>>>(p);                                                             \
  } while (0)
  if (l.mw == 2) { if (l.bf) W4_GO(true, true, false, 2); else W4_GO(false, true, false, 2); }
  else if (l.bf) { if (l.ksplit) W4_GO(true, true, false, 1); else W4_GO(true, false, false, 1); }
  else { if (l.ksplit) W4_GO(false, true, false, 1); else W4_GO(false, false, false, 1); }
  CK(cudaGetLastError());
  const long long elems = static_cast<long long>(pr.K) * 9 * pr.C;
  const int parts = static_cast<int>(parts_of(pr, l));
  const int blocks = static_cast<int>((elems / 4 + 255) / 256);
  if (l.bf) w4::wgrad_reduce_kernel<__nv_bfloat16><<<blocks, 256, 0, st>>>(partial, parts, elems, (__nv_bfloat16 *)dw, alpha, beta);
  else w4::wgrad_reduce_kernel<__half><<<blocks, 256, 0, st>>>(partial, parts, elems, (__half *)dw, alpha, beta);
  CK(cudaGetLastError());
}

static int auto_splits(const Problem &pr, bool ksplit, int waves, int mw = 1) {
  const int tiles = (pr.C / 64) * 3 * (ksplit ? pr.K / (128 * mw) : pr.K / 64);
  const int P = pr.H + 2 * pr.pad - 2, Q = pr.W + 2 * pr.pad - 2;
  const int nch = (pr.N * P * Q + 63) / 64;
  int s = std::max(1, (g_sms * waves + tiles / 2) / tiles);
  return std::min(s, std::max(1, nch / 4));
}

// ------------------------------------------------------------- correctness
static bool check_small(const Problem &pr, const Launch &l, float alpha, float beta, unsigned seed, double *err_out) {
  const int P = pr.H + 2 * pr.pad - 2, Q = pr.W + 2 * pr.pad - 2;
  const size_t nx = (size_t)pr.N * pr.H * pr.W * pr.C, ndy = (size_t)pr.N * P * Q * pr.K, nw = (size_t)pr.K * 9 * pr.C;
  std::mt19937 rng(seed); std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<uint16_t> hx(nx), hdy(ndy), hw(nw);
  for (auto &v : hx) v = to16(U(rng), l.bf);
  for (auto &v : hdy) v = to16(U(rng), l.bf);
  for (auto &v : hw) v = to16(U(rng), l.bf);
  std::vector<double> ref(nw, 0.0);
  for (int n = 0; n < pr.N; ++n)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) {
            int h = p + r - pr.pad, w = q + s - pr.pad;
            if (h < 0 || h >= pr.H || w < 0 || w >= pr.W) continue;
            const uint16_t *xr = &hx[(((size_t)n * pr.H + h) * pr.W + w) * pr.C];
            const uint16_t *dr = &hdy[(((size_t)n * P + p) * Q + q) * pr.K];
            for (int k = 0; k < pr.K; ++k) {
              double dv = from16(dr[k], l.bf);
              double *o = &ref[((size_t)k * 9 + r * 3 + s) * pr.C];
              for (int c = 0; c < pr.C; ++c) o[c] += dv * from16(xr[c], l.bf);
            }
          }
  for (size_t i = 0; i < nw; ++i) ref[i] = alpha * ref[i] + beta * from16(hw[i], l.bf);
  void *dx, *ddy, *ddw; float *dpart;
  CK(cudaMalloc(&dx, nx * 2)); CK(cudaMalloc(&ddy, ndy * 2)); CK(cudaMalloc(&ddw, nw * 2));
  CK(cudaMalloc(&dpart, parts_of(pr, l) * nw * 4));
  CK(cudaMemcpy(dx, hx.data(), nx * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ddy, hdy.data(), ndy * 2, cudaMemcpyHostToDevice));
  if (beta != 0.f) CK(cudaMemcpy(ddw, hw.data(), nw * 2, cudaMemcpyHostToDevice));
  else CK(cudaMemset(ddw, 0xFF, nw * 2));  // poison: NaN
  CK(cudaMemset(dpart, 0xFF, parts_of(pr, l) * nw * 4));
  launch(pr, l, dx, ddy, dpart, ddw, alpha, beta, 0);
  CK(cudaDeviceSynchronize());
  std::vector<uint16_t> out(nw);
  CK(cudaMemcpy(out.data(), ddw, nw * 2, cudaMemcpyDeviceToHost));
  double num = 0, den = 0; bool nan = false;
  for (size_t i = 0; i < nw; ++i) {
    double o = from16(out[i], l.bf);
    if (std::isnan(o)) nan = true;
    num += (o - ref[i]) * (o - ref[i]); den += ref[i] * ref[i];
  }
  double err = std::sqrt(num / std::max(den, 1e-30));
  *err_out = nan ? NAN : err;
  cudaFree(dx); cudaFree(ddy); cudaFree(ddw); cudaFree(dpart);
  return !nan && err < (l.bf ? 1e-2 : 2e-3);
}

// ------------------------------------------------------------- timing vs cuDNN

static float time_fn(int iters, const std::function<void()> &fn) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) fn();
  CK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < iters; ++i) fn();
    CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms / iters);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a); cudaEventDestroy(b);
  return best;
}

static void bench(cudnnHandle_t h, const Problem &pr, bool bf, int variant, const char *tag) {
  const int P = pr.H + 2 * pr.pad - 2, Q = pr.W + 2 * pr.pad - 2;
  const size_t nx = (size_t)pr.N * pr.H * pr.W * pr.C, ndy = (size_t)pr.N * P * Q * pr.K, nw = (size_t)pr.K * 9 * pr.C;
  const double flops = 2.0 * pr.K * pr.C * 9 * (double)pr.N * P * Q;
  std::vector<uint16_t> hx(nx), hdy(ndy);
  std::mt19937 rng(7); std::uniform_real_distribution<float> U(-1.f, 1.f);
  for (auto &v : hx) v = to16(U(rng), bf);
  for (auto &v : hdy) v = to16(U(rng), bf);
  void *dx, *ddy, *ddw, *ddw2;
  CK(cudaMalloc(&dx, nx * 2)); CK(cudaMalloc(&ddy, ndy * 2)); CK(cudaMalloc(&ddw, nw * 2)); CK(cudaMalloc(&ddw2, nw * 2));
  CK(cudaMemcpy(dx, hx.data(), nx * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ddy, hdy.data(), ndy * 2, cudaMemcpyHostToDevice));
  // cuDNN: every algorithm, best time.
  cudnnDataType_t dt = bf ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  cudnnTensorDescriptor_t xd, yd; cudnnFilterDescriptor_t wd; cudnnConvolutionDescriptor_t cd;
  CD(cudnnCreateTensorDescriptor(&xd)); CD(cudnnCreateTensorDescriptor(&yd));
  CD(cudnnCreateFilterDescriptor(&wd)); CD(cudnnCreateConvolutionDescriptor(&cd));
  CD(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, dt, pr.N, pr.C, pr.H, pr.W));
  CD(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, dt, pr.N, pr.K, P, Q));
  CD(cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NHWC, pr.K, pr.C, 3, 3));
  CD(cudnnSetConvolution2dDescriptor(cd, pr.pad, pr.pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CD(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
  float one = 1.f, zero = 0.f;
  float best_nv = 1e30f; int best_algo = -1;
  for (int algo = 0; algo < CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT; ++algo) {
    size_t ws = 0;
    if (cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, (cudnnConvolutionBwdFilterAlgo_t)algo, &ws) != CUDNN_STATUS_SUCCESS) continue;
    void *w = nullptr; if (ws && cudaMalloc(&w, ws) != cudaSuccess) { cudaGetLastError(); continue; }
    cudnnStatus_t s0 = cudnnConvolutionBackwardFilter(h, &one, xd, hx.empty() ? nullptr : dx, yd, ddy, cd, (cudnnConvolutionBwdFilterAlgo_t)algo, w, ws, &zero, wd, ddw2);
    if (s0 == CUDNN_STATUS_SUCCESS && cudaDeviceSynchronize() == cudaSuccess) {
      float ms = time_fn(10, [&] { cudnnConvolutionBackwardFilter(h, &one, xd, dx, yd, ddy, cd, (cudnnConvolutionBwdFilterAlgo_t)algo, w, ws, &zero, wd, ddw2); });
      if (ms < best_nv) { best_nv = ms; best_algo = algo; }
    }
    cudaGetLastError();
    if (w) cudaFree(w);
  }
  // rerun the best algorithm for the reference output
  {
    size_t ws = 0; cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, (cudnnConvolutionBwdFilterAlgo_t)best_algo, &ws);
    void *w = nullptr; if (ws) CK(cudaMalloc(&w, ws));
    CD(cudnnConvolutionBackwardFilter(h, &one, xd, dx, yd, ddy, cd, (cudnnConvolutionBwdFilterAlgo_t)best_algo, w, ws, &zero, wd, ddw2));
    CK(cudaDeviceSynchronize()); if (w) cudaFree(w);
  }
  std::vector<uint16_t> ref(nw), out(nw);
  CK(cudaMemcpy(ref.data(), ddw2, nw * 2, cudaMemcpyDeviceToHost));
  const bool ksplit = pr.K % 128 == 0;
  float best_ours = 1e30f; int best_splits = 0; bool best_ca = false; double err = -1;
  std::string line;
  for (int ca = 0; ca < 2; ++ca)
    for (int waves = 1; waves <= 2; waves *= 2) {
      const int mw = ca ? 2 : 1;
      if (mw == 2 && pr.K % 256 != 0) continue;
      Launch l{bf, ksplit, false, variant, auto_splits(pr, ksplit, waves, mw), mw};
      float *part; CK(cudaMalloc(&part, parts_of(pr, l) * nw * 4));
      float ms = time_fn(10, [&] { launch(pr, l, dx, ddy, part, ddw, 1.f, 0.f, 0); });
      char buf[96]; snprintf(buf, sizeof buf, " mw%d/s%d:%.0f", mw, l.splits, flops / ms / 1e9);
      line += buf;
      if (ms < best_ours) {
        best_ours = ms; best_splits = l.splits; best_ca = ca;
        CK(cudaMemcpy(out.data(), ddw, nw * 2, cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        for (size_t i = 0; i < nw; ++i) { double o = from16(out[i], bf), rr = from16(ref[i], bf); num += (o - rr) * (o - rr); den += rr * rr; }
        err = std::sqrt(num / den);
      }
      cudaFree(part);
    }
  printf("%-6s %-4s N=%3d C=%3d K=%3d %2dx%-2d | ours %6.1f TF/s (%s s=%d) | cuDNN %6.1f TF/s (algo %d) | ratio %.2f | relerr vs cudnn %.1e |%s\n",
         tag, bf ? "bf16" : "f16", pr.N, pr.C, pr.K, pr.H, pr.W, flops / best_ours / 1e9, best_ca ? "ca" : "cg", best_splits,
         flops / best_nv / 1e9, best_algo, best_nv / best_ours, err, line.c_str());
  fflush(stdout);
  cudaFree(dx); cudaFree(ddy); cudaFree(ddw); cudaFree(ddw2);
  cudnnDestroyTensorDescriptor(xd); cudnnDestroyTensorDescriptor(yd); cudnnDestroyFilterDescriptor(wd); cudnnDestroyConvolutionDescriptor(cd);
}

int main(int argc, char **argv) {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); g_sms = prop.multiProcessorCount;
  printf("device %s, %d SMs\n", prop.name, g_sms);
  // Correctness, both descriptor variants.
  const Problem small[] = {{3, 9, 11, 64, 128, 1}, {2, 7, 5, 128, 64, 0}, {5, 6, 6, 64, 64, 1}, {1, 13, 9, 192, 256, 2}, {3, 8, 8, 128, 128, 0}};
  int good_variant = -1;
  for (int variant = 0; variant < 1; ++variant) {
    bool all = true;
    int idx = 0;
    for (const Problem &pr : small)
      for (int bf = 0; bf < 2; ++bf) {
        const bool ksplit = pr.K % 128 == 0;
        for (int ca = 0; ca < 2; ++ca) {
          Launch l{bf == 1, ksplit, ca == 1, variant, 1 + (idx++ % 3)};
          double err;
          float beta = (idx % 2) ? 0.f : 0.5f, alpha = (idx % 3) ? 1.f : 1.5f;
          bool ok = check_small(pr, l, alpha, beta, 100 + idx, &err);
          printf("check v%d %s N=%d H=%d W=%d C=%d K=%d pad=%d ksplit=%d ca=%d splits=%d a=%.1f b=%.1f: relerr %.2e %s\n", variant,
                 bf ? "bf16" : "f16", pr.N, pr.H, pr.W, pr.C, pr.K, pr.pad, ksplit, ca, l.splits, alpha, beta, err, ok ? "OK" : "FAIL");
          all = all && ok;
        }
      }
    {
      const Problem p2[] = {{1, 13, 9, 192, 256, 2}, {3, 6, 7, 64, 512, 1}, {2, 9, 9, 128, 256, 0}};
      int q = 0;
      for (const Problem &pr : p2)
        for (int bf = 0; bf < 2; ++bf, ++q) {
          Launch l{bf == 1, true, false, variant, 1 + q % 3, 2};
          double err; bool ok = check_small(pr, l, 1.f, bf ? 0.5f : 0.f, 555 + q, &err);
          printf("check mw2 %s C=%d K=%d splits=%d: relerr %.2e %s\n", bf ? "bf16" : "f16", pr.C, pr.K, l.splits, err, ok ? "OK" : "FAIL");
          all = all && ok;
        }
    }
    // also the pixel-split mode on a K=128 problem
    {
      Problem pr{2, 9, 9, 64, 128, 1};
      Launch l{false, false, false, variant, 2};
      double err; bool ok = check_small(pr, l, 1.f, 0.f, 999, &err);
      printf("check v%d f16 pixel-split K=128: relerr %.2e %s\n", variant, err, ok ? "OK" : "FAIL");
      all = all && ok;
    }
    printf("variant %d: %s\n", variant, all ? "ALL OK" : "FAILURES");
    if (all && good_variant < 0) good_variant = variant;
  }
  if (good_variant < 0) { printf("no variant correct; skip timing\n"); return 1; }
  cudnnHandle_t h; CD(cudnnCreate(&h));
  const Problem layers[] = {{256, 28, 28, 128, 128, 1}, {256, 14, 14, 256, 256, 1}, {256, 7, 7, 512, 512, 1}, {32, 14, 14, 256, 256, 1}};
  for (Problem pr : layers) bench(h, pr, false, good_variant, pr.N == 256 ? "b256" : "b32");
  bench(h, layers[1], true, good_variant, "b256");
  cudnnDestroy(h);
  return 0;
}
