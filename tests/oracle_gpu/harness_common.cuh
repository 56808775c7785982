// Shared pieces of the stand-alone GPU kernel harnesses
// (fwd_wgmma_harness.cu, wgrad_wgmma_harness.cu): error checks, 16-bit
// conversions, a deterministic generator and the back-to-back timer.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #x); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
#define DNN(x)                                                                                       \
  do {                                                                                               \
    cudnnStatus_t s_ = (x);                                                                          \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                                \
      std::printf("cuDNN error %s at %s:%d: %s\n", cudnnGetErrorString(s_), __FILE__, __LINE__, #x); \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

static uint16_t to16(float v, bool bf16) {
  if (bf16) {
    const __nv_bfloat16 b = __float2bfloat16_rn(v);
    return *reinterpret_cast<const uint16_t *>(&b);
  }
  const __half h = __float2half_rn(v);
  return *reinterpret_cast<const uint16_t *>(&h);
}
static double from16(uint16_t u, bool bf16) {
  if (bf16) return __bfloat162float(*reinterpret_cast<const __nv_bfloat16 *>(&u));
  return __half2float(*reinterpret_cast<const __half *>(&u));
}

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static float urand() {  // uniform in [-1, 1)
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<float>((rng_state >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f;
}

// Milliseconds per call of `call`: three warm-up calls, then ten calls back
// to back between two events, median of 5.
template <class F>
static double median_ms_per_call(F &&call, cudaStream_t st) {
  static cudaEvent_t ev0 = nullptr, ev1 = nullptr;
  if (ev0 == nullptr) {
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
  }
  for (int i = 0; i < 3; ++i) call();
  CK(cudaStreamSynchronize(st));
  std::vector<float> t(5);
  for (int rep = 0; rep < 5; ++rep) {
    CK(cudaEventRecord(ev0, st));
    for (int i = 0; i < 10; ++i) call();
    CK(cudaEventRecord(ev1, st));
    CK(cudaEventSynchronize(ev1));
    CK(cudaEventElapsedTime(&t[rep], ev0, ev1));
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[2] / 10.0;
}

// Failed checks so far (the harnesses' exit status).
static int failures = 0;

// Whether 16-bit results `out` match the float64 reference `ref`:
// ||out - ref|| / ||ref|| (*rel) under 3e-3 (HALF) or 1.5e-2 (BFLOAT16) and
// no non-finite value (*bad counts them); a mismatch counts a failure.
static bool close_to_reference(const std::vector<uint16_t> &out, const std::vector<double> &ref, bool bf16, double *rel,
                               size_t *bad) {
  double num = 0, den = 0;
  *bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double v = from16(out[i], bf16);
    if (!std::isfinite(v)) {
      ++*bad;
      continue;
    }
    num += (v - ref[i]) * (v - ref[i]);
    den += ref[i] * ref[i];
  }
  *rel = std::sqrt(num / std::max(den, 1e-300));
  const bool ok = *bad == 0 && *rel < (bf16 ? 1.5e-2 : 3e-3);
  if (!ok) ++failures;
  return ok;
}

// cuDNN's descriptors of a square 2-D cross-correlation: x N x C x H x H,
// w K x C x R x R, padding and stride the same along both dims, data type
// `t` with float compute, tensors and filter in `format`, math `math`.
struct DnnConv {
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  DnnConv(int N, int C, int K, int H, int R, int pad, int stride, cudnnDataType_t t, cudnnTensorFormat_t format,
          cudnnMathType_t math) {
    const int P = (H + 2 * pad - R) / stride + 1;
    DNN(cudnnCreateTensorDescriptor(&xd));
    DNN(cudnnCreateTensorDescriptor(&yd));
    DNN(cudnnCreateFilterDescriptor(&wd));
    DNN(cudnnCreateConvolutionDescriptor(&cd));
    DNN(cudnnSetTensor4dDescriptor(xd, format, t, N, C, H, H));
    DNN(cudnnSetTensor4dDescriptor(yd, format, t, N, K, P, P));
    DNN(cudnnSetFilter4dDescriptor(wd, t, format, K, C, R, R));
    DNN(cudnnSetConvolution2dDescriptor(cd, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DNN(cudnnSetConvolutionMathType(cd, math));
  }
  ~DnnConv() {
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
  }
  DnnConv(const DnnConv &) = delete;
  DnnConv &operator=(const DnnConv &) = delete;
};

// The HALF NHWC 3x3 pad-1 unit-stride convolution of the wgmma harnesses
// (KRSC filter), tensor-op math.
struct DnnConv3x3 : DnnConv {
  DnnConv3x3(int N, int C, int K, int HW)
      : DnnConv(N, C, K, HW, 3, 1, 1, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH) {}
};
