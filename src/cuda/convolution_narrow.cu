// Kernels of cuda.conv.implicit_gemm for convolutions with few channels per
// group (Cg < 8, e.g. the RGB stem of ResNet-50: C = 3, 7x7, stride 2),
// where the tiled GEMMs waste most of a tile:
//  - conv_bwd_data_narrow_kernel: the data gradient with Cg <= 4. One thread
//    per input pixel computes all of its Cg channels: it visits only the
//    taps whose output position exists (stride gaps skipped), reads dy along
//    k (16-byte vectors when k is innermost) and the filter from shared
//    memory (float, [tap][k][4]); deterministic, no split. Threads walk W
//    by residue modulo the stride first (iw = q * stride + rw, q fastest),
//    so a warp's pixels share their valid taps: no divergence in the tap
//    loop, and the filter reads are broadcasts.
//  - conv_pad_x_kernel / conv_pad_w_kernel: copy x and w to packed
//    channels-innermost buffers with the channels zero-padded to 8, so that
//    the tensor-core kernel (convolution_wmma.cu) runs forward and the filter
//    gradient of HALF / BFLOAT16 problems with Cg < 8; conv_unpad_dw_kernel
//    blends the padded filter gradient into dw.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/error.hpp"
#include "cuda/convolution_index.cuh"
#include "cuda/convolution_narrow.hpp"
#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

// Input-side tap index (td, th, tw) -> the filter element's offset (flip applied).
__device__ inline void tap_dhw(const ConvArgs &a, int t, int &td, int &th, int &tw) {
  tw = t % a.filt[2];
  th = (t / a.filt[2]) % a.filt[1];
  td = t / (a.filt[2] * a.filt[1]);
}

// The output coordinate that input coordinate i reaches through tap t along
// dimension k, or -1 (a stride gap or outside).
// acc[0..3] += d * w[0..3] (w 16-byte aligned for float).
template <class Acc>
__device__ inline void mac4(Acc *acc, Acc d, const Acc *w) {
  if constexpr (sizeof(Acc) == 4) {
    const float4 v = *reinterpret_cast<const float4 *>(w);
    acc[0] = fmaf(d, v.x, acc[0]);
    acc[1] = fmaf(d, v.y, acc[1]);
    acc[2] = fmaf(d, v.z, acc[2]);
    acc[3] = fmaf(d, v.w, acc[3]);
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[c] = fma(d, w[c], acc[c]);
  }
}

__device__ inline int out_coord(const ConvArgs &a, int k, int i, int t) {
  const int q = i + a.pad[k] - t * a.dil[k];
  if (q < 0) return -1;
  uint32_t rem;
  const int o = static_cast<int>(a.d_s[k].divmod(static_cast<uint32_t>(q), rem));
  return (rem != 0 || o >= a.out[k]) ? -1 : o;
}

template <class TI, class TO, class Acc, int VEC>
__global__ void __launch_bounds__(kThreads) conv_bwd_data_narrow_kernel(const ConvArgs a) {
  constexpr int NC = 4;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Acc *wsm = reinterpret_cast<Acc *>(smem_raw);  // [T][Kg][NC]
  const int g = blockIdx.y;
  const TI *__restrict__ dy = static_cast<const TI *>(a.A);
  const TI *__restrict__ w = static_cast<const TI *>(a.B);
  const int Kg = a.Kg, Cg = a.Cg;
  for (int i = threadIdx.x; i < a.T * Kg * NC; i += blockDim.x) {
    const int c = i % NC, tk = i / NC, k = tk % Kg, t = tk / Kg;
    Acc v = 0;
    if (c < Cg) {
      int td, th, tw;
      tap_dhw(a, t, td, th, tw);
      v = Storage<TI>::template load<Acc>(w[(g * Kg + k) * a.ws[0] + c * a.ws[1] + filter_tap_offset(a, a.ws, td, th, tw)]);
    }
    wsm[i] = v;
  }
  __syncthreads();
  TO *out = static_cast<TO *>(a.dst);
  const Acc alpha = static_cast<Acc>(a.alpha), beta = static_cast<Acc>(a.beta);
  const int sw = a.str[2], Q = (a.in[2] + sw - 1) / sw;
  const int64_t total = int64_t{a.N} * a.in[0] * a.in[1] * sw * Q;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    int64_t r = e / Q;
    const int q = static_cast<int>(e - r * Q);
    const int rw = static_cast<int>(r % sw);
    r /= sw;
    const int ih = static_cast<int>(r % a.in[1]);
    r /= a.in[1];
    const int id = static_cast<int>(r % a.in[0]);
    const int n = static_cast<int>(r / a.in[0]);
    const int iw = q * sw + rw;
    if (iw >= a.in[2]) continue;
    Acc acc[NC];
#pragma unroll
    for (int c = 0; c < NC; ++c) acc[c] = 0;
    const TI *base = dy + n * a.ys[0] + g * Kg * a.ys[1];
    for (int td = 0; td < a.filt[0]; ++td) {
      const int od = out_coord(a, 0, id, td);
      if (od < 0) continue;
      for (int th = 0; th < a.filt[1]; ++th) {
        const int oh = out_coord(a, 1, ih, th);
        if (oh < 0) continue;
        for (int tw = 0; tw < a.filt[2]; ++tw) {
          const int ow = out_coord(a, 2, iw, tw);
          if (ow < 0) continue;
          const TI *src = base + od * a.ys[2] + oh * a.ys[3] + ow * a.ys[4];
          const Acc *wt = wsm + ((td * a.filt[1] + th) * a.filt[2] + tw) * Kg * NC;
          if constexpr (VEC > 1) {
            for (int k = 0; k < Kg; k += VEC) {
              const Pack<TI, VEC> v = *reinterpret_cast<const Pack<TI, VEC> *>(src + k);
#pragma unroll
              for (int j = 0; j < VEC; ++j) mac4(acc, Storage<TI>::template load<Acc>(v.v[j]), wt + (k + j) * NC);
            }
          } else {
            for (int k = 0; k < Kg; ++k) mac4(acc, Storage<TI>::template load<Acc>(src[k * a.ys[1]]), wt + k * NC);
          }
        }
      }
    }
    const int ob = n * a.xs[0] + id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4];
#pragma unroll
    for (int c = 0; c < NC; ++c)
      if (c < Cg) blend_store<TO, Acc>(out, ob + (g * Cg + c) * a.xs[1], acc[c], alpha, beta);
  }
}

template <class TI, class TO, class Acc>
void launch_narrow_typed(const ConvArgs &a, cudaStream_t s) {
  constexpr int VEC = static_cast<int>(16 / sizeof(TI));
  const size_t smem = conv_bwd_data_narrow_smem(a, sizeof(Acc));
  const int64_t want = (int64_t{a.M} * 2 + kThreads - 1) / kThreads, cap = int64_t{sm_count()} * 16;
  const dim3 grid(static_cast<unsigned>(want < cap ? want : cap), a.G);
  // Vector loads of dy along k: k innermost, every offset a multiple of VEC.
  bool vec = a.ys[1] == 1 && a.Kg % VEC == 0 && aligned_to(a.A, 16);
  for (int d : {0, 2, 3, 4}) vec = vec && a.ys[d] % VEC == 0;
  if (vec) {
    const auto kernel = conv_bwd_data_narrow_kernel<TI, TO, Acc, VEC>;
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
               "cudaFuncSetAttribute");
    kernel<<<grid, kThreads, smem, s>>>(a);
  } else {
    const auto kernel = conv_bwd_data_narrow_kernel<TI, TO, Acc, 1>;
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
               "cudaFuncSetAttribute");
    kernel<<<grid, kThreads, smem, s>>>(a);
  }
  check_launch("conv_bwd_data_narrow_kernel");
}

// x (any strides, group 0 of a G == 1 problem) -> [N][D][H][W][8].
template <class TI>
__global__ void conv_pad_x_kernel(const ConvArgs a, TI *dst) {
  const TI *__restrict__ x = static_cast<const TI *>(a.dir == kConvFwd ? a.A : a.B);
  const int64_t total = int64_t{a.N} * a.I;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int n = static_cast<int>(e / a.I), p = static_cast<int>(e % a.I);
    const int iw = p % a.in[2], ih = (p / a.in[2]) % a.in[1], id = p / (a.in[2] * a.in[1]);
    const int b = n * a.xs[0] + id * a.xs[2] + ih * a.xs[3] + iw * a.xs[4];
    Pack<TI, 8> v;
#pragma unroll
    for (int c = 0; c < 8; ++c) v.v[c] = c < a.Cg ? x[b + c * a.xs[1]] : TI{0};
    reinterpret_cast<Pack<TI, 8> *>(dst)[e] = v;
  }
}

// w (any strides, storage tap order) -> [K][T][8].
template <class TI>
__global__ void conv_pad_w_kernel(const ConvArgs a, TI *dst) {
  const TI *__restrict__ w = static_cast<const TI *>(a.B);
  const int total = a.Kg * a.T;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
    const int k = e / a.T, t = e % a.T;
    int td, th, tw;
    tap_dhw(a, t, td, th, tw);
    const int b = k * a.ws[0] + td * a.ws[2] + th * a.ws[3] + tw * a.ws[4];
    Pack<TI, 8> v;
#pragma unroll
    for (int c = 0; c < 8; ++c) v.v[c] = c < a.Cg ? w[b + c * a.ws[1]] : TI{0};
    reinterpret_cast<Pack<TI, 8> *>(dst)[e] = v;
  }
}

// dw = alpha * padded (float) + beta * dw over the real channels.
template <class TI>
__global__ void conv_unpad_dw_kernel(const ConvArgs a, const float *src) {
  TI *dw = static_cast<TI *>(a.dst);
  const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
  const int total = a.Kg * a.T * a.Cg;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
    const int c = e % a.Cg, kt = e / a.Cg, k = kt / a.T, t = kt % a.T;
    int td, th, tw;
    tap_dhw(a, t, td, th, tw);
    const float v = src[kt * 8 + c];
    blend_store<TI, float>(dw, k * a.ws[0] + c * a.ws[1] + td * a.ws[2] + th * a.ws[3] + tw * a.ws[4], v, alpha, beta);
  }
}

int blocks_for(int64_t total) {
  const int64_t want = (total + 255) / 256, cap = int64_t{sm_count()} * 32;
  return static_cast<int>(want < 1 ? 1 : want > cap ? cap : want);
}

}  // namespace

size_t conv_bwd_data_narrow_smem(const ConvArgs &a, size_t acc_bytes) {
  return static_cast<size_t>(a.T) * a.Kg * 4 * acc_bytes;
}

bool conv_bwd_data_narrow_applies(const ConvArgs &a, ConvTypes t) {
  const size_t acc = t == ConvTypes::f64 ? 8 : 4;
  return a.dir == kConvBwdData && a.Cg <= 4 && conv_bwd_data_narrow_smem(a, acc) <= size_t{96} << 10;
}

void launch_conv_bwd_data_narrow(const ConvArgs &a, ConvTypes t, void *stream) {
  const cudaStream_t s = as_stream(stream);
  switch (t) {
    case ConvTypes::f32: launch_narrow_typed<float, float, float>(a, s); return;
    case ConvTypes::f64: launch_narrow_typed<double, double, double>(a, s); return;
    case ConvTypes::f16: launch_narrow_typed<half_bits, half_bits, float>(a, s); return;
    case ConvTypes::bf16: launch_narrow_typed<bf16_bits, bf16_bits, float>(a, s); return;
    default: break;
  }
  fail(CUDNN_STATUS_INTERNAL_ERROR, "no narrow data-gradient kernel for these types");
}

void launch_conv_pad_channels(const ConvArgs &a, bool half_type, void *x8, void *w8, void *stream) {
  const cudaStream_t s = as_stream(stream);
  (void)half_type;  // both 16-bit types move as raw bits
  conv_pad_x_kernel<half_bits><<<blocks_for(int64_t{a.N} * a.I), 256, 0, s>>>(a, static_cast<half_bits *>(x8));
  check_launch("conv_pad_x_kernel");
  if (w8 != nullptr) {
    conv_pad_w_kernel<half_bits><<<blocks_for(int64_t{a.Kg} * a.T), 256, 0, s>>>(a, static_cast<half_bits *>(w8));
    check_launch("conv_pad_w_kernel");
  }
}

void launch_conv_unpad_dw(const ConvArgs &a, ConvTypes t, const void *dw8, void *stream) {
  const cudaStream_t s = as_stream(stream);
  const int blocks = blocks_for(int64_t{a.Kg} * a.T * a.Cg);
  const float *src = static_cast<const float *>(dw8);
  if (t == ConvTypes::f16) conv_unpad_dw_kernel<half_bits><<<blocks, 256, 0, s>>>(a, src);
  else conv_unpad_dw_kernel<bf16_bits><<<blocks, 256, 0, s>>>(a, src);
  check_launch("conv_unpad_dw_kernel");
}

}  // namespace fdnn::cuda
