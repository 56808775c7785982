// Compile-time storage types of the fast kernels: how one element is read
// into the compute type C and written back. Rounding is that of
// core/numeric.hpp (round to nearest even, overflow to infinity for half and
// bfloat16); float <-> half and float -> bfloat16 use the hardware conversion
// instructions, which round the same way (only NaN payloads may differ from
// the CPU's: the hardware writes the canonical NaN).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cudnn_graph.h>

#include <cstdint>

#include "core/numeric.hpp"

namespace fdnn::cuda {

struct half_bits {
  uint16_t bits;
};
struct bf16_bits {
  uint16_t bits;
};

__device__ inline float fast_half_to_float(uint16_t h) { return __half2float(__ushort_as_half(h)); }
__device__ inline uint16_t fast_float_to_half(float v) { return __half_as_ushort(__float2half_rn(v)); }
__device__ inline uint16_t fast_float_to_bf16(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }

template <class S>
struct Storage;

template <>
struct Storage<float> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  template <class C>
  __device__ static C load(float v) {
    return static_cast<C>(v);
  }
  template <class C>
  __device__ static float store(C v) {
    return static_cast<float>(v);
  }
};

template <>
struct Storage<double> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_DOUBLE;
  template <class C>
  __device__ static C load(double v) {
    return static_cast<C>(v);
  }
  template <class C>
  __device__ static double store(C v) {
    return static_cast<double>(v);
  }
};

template <>
struct Storage<half_bits> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_HALF;
  template <class C>
  __device__ static C load(half_bits v) {
    return static_cast<C>(fast_half_to_float(v.bits));
  }
  __device__ static half_bits store(float v) { return {fast_float_to_half(v)}; }
  __device__ static half_bits store(double v) { return {num::double_to_half(v)}; }
};

template <>
struct Storage<bf16_bits> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_BFLOAT16;
  template <class C>
  __device__ static C load(bf16_bits v) {
    return static_cast<C>(num::bf16_to_float(v.bits));
  }
  __device__ static bf16_bits store(float v) { return {fast_float_to_bf16(v)}; }
  __device__ static bf16_bits store(double v) { return {num::double_to_bf16(v)}; }
};

template <>
struct Storage<int8_t> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_INT8;
  template <class C>
  __device__ static C load(int8_t v) {
    return static_cast<C>(v);
  }
  __device__ static int8_t store(float v) { return num::float_to_int8(v); }
  __device__ static int8_t store(double v) { return num::saturate_round<int8_t>(v); }
};

template <>
struct Storage<uint8_t> {
  static constexpr cudnnDataType_t dtype = CUDNN_DATA_UINT8;
  template <class C>
  __device__ static C load(uint8_t v) {
    return static_cast<C>(v);
  }
  __device__ static uint8_t store(float v) { return num::float_to_uint8(v); }
  __device__ static uint8_t store(double v) { return num::saturate_round<uint8_t>(v); }
};

// VEC elements moved as one aligned access (16 bytes for the fast kernels).
template <class S, int VEC>
struct alignas(sizeof(S) * VEC) Pack {
  S v[VEC];
};

}  // namespace fdnn::cuda
