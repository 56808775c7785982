// Device-side reads and writes of tensor elements whose data type is known
// only at run time (cudnnDataType_t), through the shared conversions of
// core/numeric.hpp so that CUDA and CPU engines write the same values (half
// and bfloat16 from float through the hardware instructions, which round the
// same way; see storage_types.cuh).
// Offsets are in elements; sub-byte types (BOOLEAN: 1 bit, FP4/INT4/UINT4:
// 4 bits) are packed little-end first within each byte, and are written with
// 32-bit atomics so that neighbouring elements owned by other threads survive.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>

#include "core/numeric.hpp"
#include "cuda/storage_types.cuh"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {

// Bits of a sub-byte element, 0 for byte-addressed types.
__host__ __device__ inline int sub_byte_bits(int dtype) {
  switch (dtype) {
    case CUDNN_DATA_BOOLEAN: return 1;
    case CUDNN_DATA_FP4_E2M1:
    case CUDNN_DATA_INT4:
    case CUDNN_DATA_UINT4: return 4;
    default: return 0;
  }
}

__device__ inline uint32_t load_bits(const void *p, int64_t off, int bits) {
  const int64_t bit = off * bits;
  const uint8_t byte = static_cast<const uint8_t *>(p)[bit >> 3];
  return (byte >> (bit & 7)) & ((1u << bits) - 1u);
}

__device__ inline void store_bits(void *p, int64_t off, int bits, uint32_t code) {
  const int64_t bit = off * bits;
  const uintptr_t byte_addr = reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(bit >> 3);
  unsigned int *word = reinterpret_cast<unsigned int *>(byte_addr & ~uintptr_t{3});
  const unsigned int shift = static_cast<unsigned int>((byte_addr & 3) * 8 + (bit & 7));
  const unsigned int mask = ((1u << bits) - 1u) << shift;
  atomicAnd(word, ~mask);
  atomicOr(word, (code << shift) & mask);
}

template <class C>
__device__ inline C load_element(const void *p, int dtype, int64_t off) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: return static_cast<C>(static_cast<const float *>(p)[off]);
    case CUDNN_DATA_DOUBLE: return static_cast<C>(static_cast<const double *>(p)[off]);
    case CUDNN_DATA_HALF: return static_cast<C>(fast_half_to_float(static_cast<const uint16_t *>(p)[off]));
    case CUDNN_DATA_BFLOAT16: return static_cast<C>(num::bf16_to_float(static_cast<const uint16_t *>(p)[off]));
    case CUDNN_DATA_INT8: return static_cast<C>(static_cast<const int8_t *>(p)[off]);
    case CUDNN_DATA_UINT8: return static_cast<C>(static_cast<const uint8_t *>(p)[off]);
    case CUDNN_DATA_INT32: return static_cast<C>(static_cast<const int32_t *>(p)[off]);
    case CUDNN_DATA_UINT32: return static_cast<C>(static_cast<const uint32_t *>(p)[off]);
    case CUDNN_DATA_INT64: return static_cast<C>(static_cast<const int64_t *>(p)[off]);
    case CUDNN_DATA_FP8_E4M3: return static_cast<C>(num::e4m3_to_double(static_cast<const uint8_t *>(p)[off]));
    case CUDNN_DATA_FP8_E5M2: return static_cast<C>(num::e5m2_to_double(static_cast<const uint8_t *>(p)[off]));
    case CUDNN_DATA_FP8_E8M0: return static_cast<C>(num::e8m0_to_double(static_cast<const uint8_t *>(p)[off]));
    case CUDNN_DATA_BOOLEAN: return static_cast<C>(load_bits(p, off, 1));
    case CUDNN_DATA_FP4_E2M1: return static_cast<C>(num::e2m1_to_double(static_cast<uint8_t>(load_bits(p, off, 4))));
    case CUDNN_DATA_INT4: {
      const int v = static_cast<int>(load_bits(p, off, 4));
      return static_cast<C>(v >= 8 ? v - 16 : v);
    }
    case CUDNN_DATA_UINT4: return static_cast<C>(load_bits(p, off, 4));
    default: return C(0);
  }
}

template <class I>
__device__ inline I to_integer(float v) {
  return num::saturate_round<I>(static_cast<double>(v));
}
template <class I>
__device__ inline I to_integer(double v) {
  return num::saturate_round<I>(v);
}

__device__ inline uint16_t to_half(float v) { return fast_float_to_half(v); }
__device__ inline uint16_t to_half(double v) { return num::double_to_half(v); }
__device__ inline uint16_t to_bf16(float v) { return fast_float_to_bf16(v); }
__device__ inline uint16_t to_bf16(double v) { return num::double_to_bf16(v); }
__device__ inline int8_t to_int8(float v) { return num::float_to_int8(v); }
__device__ inline int8_t to_int8(double v) { return num::saturate_round<int8_t>(v); }
__device__ inline uint8_t to_uint8(float v) { return num::float_to_uint8(v); }
__device__ inline uint8_t to_uint8(double v) { return num::saturate_round<uint8_t>(v); }

template <class C>
__device__ inline void store_element(void *p, int dtype, int64_t off, C v) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_FAST_FLOAT_FOR_FP8: static_cast<float *>(p)[off] = static_cast<float>(v); break;
    case CUDNN_DATA_DOUBLE: static_cast<double *>(p)[off] = static_cast<double>(v); break;
    case CUDNN_DATA_HALF: static_cast<uint16_t *>(p)[off] = to_half(v); break;
    case CUDNN_DATA_BFLOAT16: static_cast<uint16_t *>(p)[off] = to_bf16(v); break;
    case CUDNN_DATA_INT8: static_cast<int8_t *>(p)[off] = to_int8(v); break;
    case CUDNN_DATA_UINT8: static_cast<uint8_t *>(p)[off] = to_uint8(v); break;
    case CUDNN_DATA_INT32: static_cast<int32_t *>(p)[off] = to_integer<int32_t>(v); break;
    case CUDNN_DATA_UINT32: static_cast<uint32_t *>(p)[off] = to_integer<uint32_t>(v); break;
    case CUDNN_DATA_INT64: static_cast<int64_t *>(p)[off] = to_integer<int64_t>(v); break;
    case CUDNN_DATA_FP8_E4M3: static_cast<uint8_t *>(p)[off] = num::double_to_e4m3(static_cast<double>(v)); break;
    case CUDNN_DATA_FP8_E5M2: static_cast<uint8_t *>(p)[off] = num::double_to_e5m2(static_cast<double>(v)); break;
    case CUDNN_DATA_FP8_E8M0: static_cast<uint8_t *>(p)[off] = num::double_to_e8m0(static_cast<double>(v)); break;
    case CUDNN_DATA_BOOLEAN: store_bits(p, off, 1, v != C(0) ? 1u : 0u); break;
    case CUDNN_DATA_FP4_E2M1: store_bits(p, off, 4, num::double_to_e2m1(static_cast<double>(v))); break;
    case CUDNN_DATA_INT4: store_bits(p, off, 4, static_cast<uint32_t>(num::saturate_round<int8_t>(
                                                    static_cast<double>(v) < -8.0 ? -8.0 : (static_cast<double>(v) > 7.0 ? 7.0 : static_cast<double>(v)))) & 0xfu);
      break;
    case CUDNN_DATA_UINT4: store_bits(p, off, 4, static_cast<uint32_t>(num::saturate_round<uint8_t>(
                                                     static_cast<double>(v) > 15.0 ? 15.0 : static_cast<double>(v))));
      break;
    default: break;
  }
}

}  // namespace fdnn::cuda
