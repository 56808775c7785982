// CUDA matmul: 64x64 tiles of c per block, 16-deep slices of k staged in
// shared memory, 4x4 outputs per thread, float (or double) accumulation.
// Any strides: every load goes through the row/column strides, so row- and
// column-major operands need no copies. A plain FMA kernel: correct for
// every type and layout; tensor cores are a later engine's job.
// Types: a and b each FLOAT, HALF or BFLOAT16 with c FLOAT, HALF or BFLOAT16
// (float accumulation: the attention graphs' half x half -> float form and
// its converses); FP8 E4M3 / E5M2 a and b with such a c (decoded to float as
// they are staged); DOUBLE throughout; INT8 a and b with INT32 or FLOAT c,
// accumulated exactly in int32 and blended in double. Every other mix of the
// element types of cuda/element_access.cuh (double with float, half with
// int8, FP8 with float, integer or sub-byte operands, int8 sums too long for
// int32 ...) runs the same kernel with run-time typed loads and stores
// (dyn_elem: the type switch is uniform over the block and sits in the
// staging loads, not in the FMA loop), computed in double when an operand is
// DOUBLE or a wide integer type, else in float.
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/cuda_util.hpp"
#include "cuda/element_access.cuh"
#include "cuda/kernel_args.hpp"
#include "cuda/matmul_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kTile = 64, kDepth = 16, kThreads = 256, kPer = 4;

// Element conversions: Storage<S> (cuda/storage_types.cuh), plus the int32
// output of int8 products (rounded and saturated as the CPU's store_lane).
template <class S>
struct Elem {
  template <class C>
  __device__ static C load(S v) {
    return Storage<S>::template load<C>(v);
  }
  template <class C>
  __device__ static S store(C v) {
    return Storage<S>::store(v);
  }
};
template <>
struct Elem<int32_t> {
  template <class C>
  __device__ static C load(int32_t v) {
    return static_cast<C>(v);
  }
  __device__ static int32_t store(double v) { return num::saturate_round<int32_t>(v); }
};

// FP8 operands (inputs only).
struct e4m3_bits {
  uint8_t bits;
};
struct e5m2_bits {
  uint8_t bits;
};
template <>
struct Elem<e4m3_bits> {
  template <class C>
  __device__ static C load(e4m3_bits v) {
    return static_cast<C>(num::e4m3_to_float(v.bits));
  }
};
template <>
struct Elem<e5m2_bits> {
  template <class C>
  __device__ static C load(e5m2_bits v) {
    return static_cast<C>(num::e5m2_to_float(v.bits));
  }
};

// An operand whose type is known only at run time (args' dtype_a/b/c).
struct dyn_elem {};

template <class S, class C>
__device__ inline C ld(const void *p, int dtype, int64_t i) {
  if constexpr (std::is_same_v<S, dyn_elem>) return load_element<C>(p, dtype, i);
  else return Elem<S>::template load<C>(static_cast<const S *>(p)[i]);
}

template <class SA, class SB, class SC, class C>
__global__ void __launch_bounds__(kThreads) matmul_kernel(MatmulArgs a) {
  __shared__ C as[kDepth][kTile + 1];
  __shared__ C bs[kDepth][kTile + 1];
  // Batch offsets.
  int64_t rest = blockIdx.z, ao = 0, bo = 0, co = 0;
  for (int d = a.batch_dims - 1; d >= 0; --d) {
    const int64_t i = rest % a.batch_extent[d];
    rest /= a.batch_extent[d];
    ao += i / a.a_div[d] * a.a_bs[d];
    bo += i / a.b_div[d] * a.b_bs[d];
    co += i * a.c_bs[d];
  }
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile, col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int tr = threadIdx.x / 16, tc = threadIdx.x % 16;  // 16x16 threads, 4x4 outputs each
  C acc[kPer][kPer] = {};
  for (int64_t k0 = 0; k0 < a.k; k0 += kDepth) {
    // Stage a[row0:+64, k0:+16] and b[k0:+16, col0:+64]: 1024 elements each.
    for (int e = threadIdx.x; e < kTile * kDepth; e += kThreads) {
      const int r = e / kDepth, kk = e % kDepth;  // a: consecutive threads walk k
      const int64_t gr = row0 + r, gk = k0 + kk;
      as[kk][r] = (gr < a.m && gk < a.k) ? ld<SA, C>(a.a, a.dtype_a, ao + gr * a.a_rs + gk * a.a_cs) : C(0);
      const int kb = e / kTile, cc = e % kTile;  // b: consecutive threads walk n
      const int64_t gkb = k0 + kb, gc = col0 + cc;
      bs[kb][cc] = (gkb < a.k && gc < a.n) ? ld<SB, C>(a.b, a.dtype_b, bo + gkb * a.b_rs + gc * a.b_cs) : C(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      C av[kPer], bv[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) av[i] = as[kk][tr + 16 * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) bv[j] = bs[kk][tc + 16 * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  // Integer sums are blended in double (alpha and beta need not be integers).
  using B = std::conditional_t<std::is_integral_v<C>, double, C>;
  const B alpha = static_cast<B>(a.alpha), beta = static_cast<B>(a.beta);
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int64_t gr = row0 + tr + 16 * i, gc = col0 + tc + 16 * j;
      if (gr >= a.m || gc >= a.n) continue;
      const int64_t off = co + gr * a.c_rs + gc * a.c_cs;
      B v = alpha * static_cast<B>(acc[i][j]);
      if constexpr (std::is_same_v<SC, dyn_elem>) {
        // Sub-byte c elements are written with atomics (element_access.cuh):
        // neighbours owned by other threads survive.
        if (beta != B(0)) v += beta * load_element<B>(a.c, a.dtype_c, off);  // beta == 0 never reads c
        store_element<B>(a.c, a.dtype_c, off, v);
      } else {
        SC *out = static_cast<SC *>(a.c) + off;
        if (beta != B(0)) v += beta * Elem<SC>::template load<B>(*out);  // beta == 0 never reads c
        *out = Elem<SC>::store(v);
      }
    }
}

template <class C, class SA, class SB, class SC>
void launch3(const MatmulArgs &a, cudaStream_t stream) {
  check_arg(a.batches < 65536, "cuda.matmul: at most 65535 batches");
  const dim3 grid(static_cast<unsigned>((a.n + kTile - 1) / kTile), static_cast<unsigned>((a.m + kTile - 1) / kTile),
                  static_cast<unsigned>(a.batches));
  matmul_kernel<SA, SB, SC, C><<<grid, kThreads, 0, stream>>>(a);
  check_launch("matmul_kernel");
}

// Float-computed kernels: c's storage type chosen, then b's, then a's.
template <class SA, class SB>
void launch_float_c(const MatmulArgs &a, cudaStream_t stream) {
  switch (a.dtype_c) {
    case CUDNN_DATA_FLOAT: launch3<float, SA, SB, float>(a, stream); break;
    case CUDNN_DATA_HALF: launch3<float, SA, SB, half_bits>(a, stream); break;
    case CUDNN_DATA_BFLOAT16: launch3<float, SA, SB, bf16_bits>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.matmul: unsupported c type ", a.dtype_c);
  }
}

template <class SA>
void launch_float_b(const MatmulArgs &a, cudaStream_t stream) {
  switch (a.dtype_b) {
    case CUDNN_DATA_FLOAT: launch_float_c<SA, float>(a, stream); break;
    case CUDNN_DATA_HALF: launch_float_c<SA, half_bits>(a, stream); break;
    case CUDNN_DATA_BFLOAT16: launch_float_c<SA, bf16_bits>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.matmul: unsupported b type ", a.dtype_b);
  }
}

template <class SA>
void launch_fp8_b(const MatmulArgs &a, cudaStream_t stream) {
  if (a.dtype_b == CUDNN_DATA_FP8_E4M3) launch_float_c<SA, e4m3_bits>(a, stream);
  else launch_float_c<SA, e5m2_bits>(a, stream);
}

bool is_fp8(int t) { return t == CUDNN_DATA_FP8_E4M3 || t == CUDNN_DATA_FP8_E5M2; }

bool is_float_family(int t) { return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16; }

// The types with typed kernels (the forms above, before the dyn_elem one).
bool typed_kernel_types(int ta, int tb, int tc) {
  if (ta == CUDNN_DATA_DOUBLE || tb == CUDNN_DATA_DOUBLE || tc == CUDNN_DATA_DOUBLE)
    return ta == CUDNN_DATA_DOUBLE && tb == CUDNN_DATA_DOUBLE && tc == CUDNN_DATA_DOUBLE;
  if (ta == CUDNN_DATA_INT8 || tb == CUDNN_DATA_INT8)
    return ta == CUDNN_DATA_INT8 && tb == CUDNN_DATA_INT8 && (tc == CUDNN_DATA_INT32 || tc == CUDNN_DATA_FLOAT);
  if (is_fp8(ta) || is_fp8(tb)) return is_fp8(ta) && is_fp8(tb) && is_float_family(tc);
  return is_float_family(ta) && is_float_family(tb) && is_float_family(tc);
}

// Types whose values float does not hold (beyond 2^24): the dyn_elem form
// computes in double when an operand has one.
bool wide_type(int t) {
  return t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_INT32 || t == CUDNN_DATA_UINT32 || t == CUDNN_DATA_INT64;
}

}  // namespace

bool matmul_types_supported(cudnnDataType_t ta, cudnnDataType_t tb, cudnnDataType_t tc) {
  return element_access_type(ta) && element_access_type(tb) && element_access_type(tc);
}

void launch_matmul(const MatmulArgs &a, void *stream_p) {
  if (a.m == 0 || a.n == 0 || a.batches == 0) return;
  check_supported(matmul_types_supported(static_cast<cudnnDataType_t>(a.dtype_a), static_cast<cudnnDataType_t>(a.dtype_b),
                                         static_cast<cudnnDataType_t>(a.dtype_c)),
                  "cuda.matmul: no kernel for a type ", a.dtype_a, ", b type ", a.dtype_b, ", c type ", a.dtype_c);
  cudaStream_t stream = as_stream(stream_p);
  const bool int8_overflows = a.dtype_a == CUDNN_DATA_INT8 && a.k > kMatmulMaxInt8K;
  if (!typed_kernel_types(a.dtype_a, a.dtype_b, a.dtype_c) || int8_overflows) {
    // Run-time typed loads and stores; int8 sums past int32's range in double
    // (exact up to 2^53, as the CPU's float64 sum).
    if (int8_overflows || wide_type(a.dtype_a) || wide_type(a.dtype_b) || wide_type(a.dtype_c))
      launch3<double, dyn_elem, dyn_elem, dyn_elem>(a, stream);
    else launch3<float, dyn_elem, dyn_elem, dyn_elem>(a, stream);
  } else if (a.dtype_c == CUDNN_DATA_DOUBLE) {
    launch3<double, double, double, double>(a, stream);
  } else if (a.dtype_a == CUDNN_DATA_INT8) {
    if (a.dtype_c == CUDNN_DATA_INT32) launch3<int32_t, int8_t, int8_t, int32_t>(a, stream);
    else launch3<int32_t, int8_t, int8_t, float>(a, stream);
  } else if (a.dtype_a == CUDNN_DATA_FP8_E4M3) {
    launch_fp8_b<e4m3_bits>(a, stream);
  } else if (a.dtype_a == CUDNN_DATA_FP8_E5M2) {
    launch_fp8_b<e5m2_bits>(a, stream);
  } else {
    switch (a.dtype_a) {
      case CUDNN_DATA_FLOAT: launch_float_b<float>(a, stream); break;
      case CUDNN_DATA_HALF: launch_float_b<half_bits>(a, stream); break;
      default: launch_float_b<bf16_bits>(a, stream); break;
    }
  }
}

}  // namespace fdnn::cuda
