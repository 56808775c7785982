// Probe (not a test): the float32 NCHW ResNet-50 stem (x N x 3 x 224 x 224,
// w 64 x 3 x 7 x 7, stride 2, pad 3) data and filter gradients as explicit
// GEMMs on cuBLAS (FP32 FMA, no TF32) around im2col / col2im kernels, timed
// next to NVIDIA cuDNN's best algorithm (FMA math) in the same process, and
// the results compared with cuDNN's. Question answered: whether the GEMM
// form beats the FMA kernels that run these today (0.53-0.63 of cuDNN).
#include <cublas_v2.h>

#include "harness_common.cuh"

#define CB(x)                                                     \
  do {                                                            \
    cublasStatus_t s_ = (x);                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                            \
      std::printf("cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

constexpr int C = 3, H = 224, K = 64, R = 7, STR = 2, PAD = 3, P = 112;
constexpr int CRS = C * R * R, PQ = P * P;

// cols[b][crs][pq] = x[n0 + b][c][2p - 3 + r][2q - 3 + s] (0 outside).
__global__ void im2col(const float *x, int n0, int nb, float *cols) {
  const int64_t total = int64_t{nb} * CRS * PQ;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int pq = int(e % PQ), crs = int((e / PQ) % CRS), b = int(e / (int64_t{PQ} * CRS));
    const int p = pq / P, q = pq % P, c = crs / (R * R), r = crs / R % R, s = crs % R;
    const int h = p * STR - PAD + r, w = q * STR - PAD + s;
    float v = 0;
    if (h >= 0 && h < H && w >= 0 && w < H) v = x[((int64_t{n0 + b} * C + c) * H + h) * H + w];
    cols[e] = v;
  }
}

// dx[n0 + b][c][h][w] = sum of cols over the taps that reach (h, w). Threads
// walk (b, c, h, rw, q), w = 2q + rw, so a warp's lanes share their taps.
__global__ void col2im(const float *cols, int n0, int nb, float *dx) {
  constexpr int QW = H / STR;
  const int64_t total = int64_t{nb} * C * H * H;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int q = int(e % QW), rw = int(e / QW % STR), h = int(e / (QW * STR) % H);
    const int c = int(e / (int64_t{H} * H) % C), b = int(e / (int64_t{C} * H * H));
    const int w = q * STR + rw;
    float acc = 0;
    const float *cb = cols + int64_t{b} * CRS * PQ + int64_t{c} * R * R * PQ;
    for (int r = (h + PAD) % STR; r < R; r += STR) {
      const int oh = (h + PAD - r) / STR;
      if (oh < 0 || oh >= P) continue;
      for (int s = (w + PAD) % STR; s < R; s += STR) {
        const int ow = (w + PAD - s) / STR;
        if (ow < 0 || ow >= P) continue;
        acc += cb[int64_t{r * R + s} * PQ + oh * P + ow];
      }
    }
    dx[((int64_t{n0 + b} * C + c) * H + h) * H + w] = acc;
  }
}

// dw[i] = sum over images of part[n][i].
__global__ void sum_parts(const float *part, int n, float *dw) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= K * CRS) return;
  float acc = 0;
  for (int b = 0; b < n; ++b) acc += part[int64_t{b} * K * CRS + i];
  dw[i] = acc;
}

static double rel_diff(const float *a_dev, const float *b_dev, size_t n) {
  std::vector<float> a(n), b(n);
  CK(cudaMemcpy(a.data(), a_dev, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), b_dev, n * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) num += double(a[i] - b[i]) * (a[i] - b[i]), den += double(b[i]) * b[i];
  return std::sqrt(num / std::max(den, 1e-300));
}

int main(int argc, char **argv) {
  const int N = argc > 1 ? std::atoi(argv[1]) : 256;
  const double flops = 2.0 * N * PQ * K * CRS;
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  cudnnHandle_t dnn;
  DNN(cudnnCreate(&dnn));
  DNN(cudnnSetStream(dnn, st));
  cublasHandle_t blas;
  CB(cublasCreate(&blas));
  CB(cublasSetStream(blas, st));
  CB(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH));

  const size_t nx = size_t(N) * C * H * H, ny = size_t(N) * K * PQ, nw = size_t(K) * CRS;
  std::vector<float> h(std::max(nx, ny));
  float *x, *dy, *w, *dx_ref, *dx, *dw_ref, *dw;
  CK(cudaMalloc(&x, nx * 4));
  CK(cudaMalloc(&dy, ny * 4));
  CK(cudaMalloc(&w, nw * 4));
  CK(cudaMalloc(&dx_ref, nx * 4));
  CK(cudaMalloc(&dx, nx * 4));
  CK(cudaMalloc(&dw_ref, nw * 4));
  CK(cudaMalloc(&dw, nw * 4));
  for (size_t i = 0; i < nx; ++i) h[i] = urand();
  CK(cudaMemcpy(x, h.data(), nx * 4, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < ny; ++i) h[i] = urand();
  CK(cudaMemcpy(dy, h.data(), ny * 4, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < nw; ++i) h[i] = urand();
  CK(cudaMemcpy(w, h.data(), nw * 4, cudaMemcpyHostToDevice));

  const DnnConv dc(N, C, K, H, R, PAD, STR, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_FMA_MATH);
  const cudnnTensorDescriptor_t xd = dc.xd, yd = dc.yd;
  const cudnnFilterDescriptor_t wd = dc.wd;
  const cudnnConvolutionDescriptor_t cd = dc.cd;
  size_t ws_bytes = size_t(1) << 30;
  void *ws;
  CK(cudaMalloc(&ws, ws_bytes));
  const float one = 1, zero = 0;

  int got = 0;
  cudnnConvolutionBwdDataAlgoPerf_t dperf[8];
  DNN(cudnnFindConvolutionBackwardDataAlgorithmEx(dnn, wd, w, yd, dy, cd, xd, dx_ref, 8, &got, dperf, ws, ws_bytes));
  const auto dalgo = dperf[0].algo;
  const double dnn_dgrad = median_ms_per_call(
      [&] { DNN(cudnnConvolutionBackwardData(dnn, &one, wd, w, yd, dy, cd, dalgo, ws, ws_bytes, &zero, xd, dx_ref)); },
      st);
  cudnnConvolutionBwdFilterAlgoPerf_t fperf[8];
  DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(dnn, xd, x, yd, dy, cd, wd, dw_ref, 8, &got, fperf, ws, ws_bytes));
  const auto falgo = fperf[0].algo;
  const double dnn_wgrad = median_ms_per_call(
      [&] { DNN(cudnnConvolutionBackwardFilter(dnn, &one, xd, x, yd, dy, cd, falgo, ws, ws_bytes, &zero, wd, dw_ref)); },
      st);
  std::printf("cuDNN dgrad algo %d %.3f ms %.1f TFLOP/s; wgrad algo %d %.3f ms %.1f TFLOP/s\n", int(dalgo), dnn_dgrad,
              flops / dnn_dgrad * 1e-9, int(falgo), dnn_wgrad, flops / dnn_wgrad * 1e-9);

  float *cols = static_cast<float *>(ws);  // up to 1 GiB: 34 images of 29.5 MB... chunks below
  float *part;
  CK(cudaMalloc(&part, size_t(N) * K * CRS * 4));
  for (int nb : {1, 2, 4, 8, 16, 32}) {
    if (size_t(nb) * CRS * PQ * 4 > ws_bytes) break;
    // Data gradient: cols_b^T (PQ x CRS, col-major) = dy_b^T (PQ x K) W (K x CRS).
    auto dgrad = [&] {
      for (int n0 = 0; n0 < N; n0 += nb) {
        const int b = std::min(nb, N - n0);
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, PQ, CRS, K, &one, dy + size_t(n0) * K * PQ, PQ,
                                     int64_t{K} * PQ, w, CRS, 0, &zero, cols, PQ, int64_t{CRS} * PQ, b));
        col2im<<<132 * 16, 256, 0, st>>>(cols, n0, b, dx);
      }
    };
    auto gemm_only = [&] {
      for (int n0 = 0; n0 < N; n0 += nb) {
        const int b = std::min(nb, N - n0);
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, PQ, CRS, K, &one, dy + size_t(n0) * K * PQ, PQ,
                                     int64_t{K} * PQ, w, CRS, 0, &zero, cols, PQ, int64_t{CRS} * PQ, b));
      }
    };
    CK(cudaMemset(dx, 0xFF, nx * 4));
    const double t_d = median_ms_per_call(dgrad, st);
    const double e_d = rel_diff(dx, dx_ref, nx);
    const double t_dg = median_ms_per_call(gemm_only, st);
    // Filter gradient: part_n^T (CRS x K, col-major) = cols_b (CRS x PQ) dy_b^T (PQ x K).
    auto wgrad = [&] {
      for (int n0 = 0; n0 < N; n0 += nb) {
        const int b = std::min(nb, N - n0);
        im2col<<<132 * 16, 256, 0, st>>>(x, n0, b, cols);
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, CRS, K, PQ, &one, cols, PQ, int64_t{CRS} * PQ,
                                     dy + size_t(n0) * K * PQ, PQ, int64_t{K} * PQ, &zero,
                                     part + size_t(n0) * K * CRS, CRS, int64_t{K} * CRS, b));
      }
      sum_parts<<<(K * CRS + 255) / 256, 256, 0, st>>>(part, N, dw);
    };
    auto wgemm_only = [&] {
      for (int n0 = 0; n0 < N; n0 += nb) {
        const int b = std::min(nb, N - n0);
        CB(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, CRS, K, PQ, &one, cols, PQ, int64_t{CRS} * PQ,
                                     dy + size_t(n0) * K * PQ, PQ, int64_t{K} * PQ, &zero,
                                     part + size_t(n0) * K * CRS, CRS, int64_t{K} * CRS, b));
      }
    };
    CK(cudaMemset(dw, 0xFF, nw * 4));
    const double t_w = median_ms_per_call(wgrad, st);
    const double e_w = rel_diff(dw, dw_ref, nw);
    const double t_wg = median_ms_per_call(wgemm_only, st);
    std::printf("chunk %2d images: dgrad %.3f ms %.1f TFLOP/s (%.2f of cuDNN; GEMMs alone %.3f) rel %.1e | wgrad %.3f ms "
                "%.1f TFLOP/s (%.2f; GEMMs alone %.3f) rel %.1e\n",
                nb, t_d, flops / t_d * 1e-9, dnn_dgrad / t_d, t_dg, e_d, t_w, flops / t_w * 1e-9, dnn_wgrad / t_w, t_wg,
                e_w);
  }
  return 0;
}
