// Reading and writing tensor elements of every cudnnDataType_t on the CPU.
//
//  - Lane access by index, as double (load_lane / store_lane): any scalar
//    type, sub-byte ones included. Slow and simple: the reference engines use
//    it.
//  - Storage<DT>: the C++ storage type of the byte-sized and larger types and
//    their conversions to and from the compute types, for the fast engines'
//    type-specialised loops. visit_fast_type() maps a runtime type to it.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/numeric.hpp"

namespace fdnn::cpu {

double load_lane(cudnnDataType_t t, const void *base, int64_t index);
void store_lane(cudnnDataType_t t, void *base, int64_t index, double value);

// Converts a double to what storing it in type t and reading it back gives.
double round_to_type(cudnnDataType_t t, double value);

template <cudnnDataType_t DT>
struct Storage;

template <>
struct Storage<CUDNN_DATA_FLOAT> {
  using type = float;
  static float to_float(float v) { return v; }
  static double to_double(float v) { return v; }
  static float from_float(float v) { return v; }
  static float from_double(double v) { return static_cast<float>(v); }
};
template <>
struct Storage<CUDNN_DATA_DOUBLE> {
  using type = double;
  static float to_float(double v) { return static_cast<float>(v); }
  static double to_double(double v) { return v; }
  static double from_float(float v) { return v; }
  static double from_double(double v) { return v; }
};
template <>
struct Storage<CUDNN_DATA_HALF> {
  using type = uint16_t;
  static float to_float(uint16_t v) { return num::half_to_float(v); }
  static double to_double(uint16_t v) { return num::half_to_float(v); }
  static uint16_t from_float(float v) { return num::float_to_half(v); }
  static uint16_t from_double(double v) { return num::double_to_half(v); }
};
template <>
struct Storage<CUDNN_DATA_BFLOAT16> {
  using type = uint16_t;
  static float to_float(uint16_t v) { return num::bf16_to_float(v); }
  static double to_double(uint16_t v) { return num::bf16_to_float(v); }
  static uint16_t from_float(float v) { return num::float_to_bf16(v); }
  static uint16_t from_double(double v) { return num::double_to_bf16(v); }
};
template <>
struct Storage<CUDNN_DATA_FP8_E4M3> {
  using type = uint8_t;
  static float to_float(uint8_t v) { return num::e4m3_to_float(v); }
  static double to_double(uint8_t v) { return num::e4m3_to_double(v); }
  static uint8_t from_float(float v) { return num::float_to_e4m3(v); }
  static uint8_t from_double(double v) { return num::double_to_e4m3(v); }
};
template <>
struct Storage<CUDNN_DATA_FP8_E5M2> {
  using type = uint8_t;
  static float to_float(uint8_t v) { return num::e5m2_to_float(v); }
  static double to_double(uint8_t v) { return num::e5m2_to_double(v); }
  static uint8_t from_float(float v) { return num::float_to_e5m2(v); }
  static uint8_t from_double(double v) { return num::double_to_e5m2(v); }
};
template <>
struct Storage<CUDNN_DATA_INT8> {
  using type = int8_t;
  static float to_float(int8_t v) { return v; }
  static double to_double(int8_t v) { return v; }
  static int8_t from_float(float v) { return num::float_to_int8(v); }
  static int8_t from_double(double v) { return num::saturate_round<int8_t>(v); }
};
template <>
struct Storage<CUDNN_DATA_UINT8> {
  using type = uint8_t;
  static float to_float(uint8_t v) { return v; }
  static double to_double(uint8_t v) { return v; }
  static uint8_t from_float(float v) { return num::float_to_uint8(v); }
  static uint8_t from_double(double v) { return num::saturate_round<uint8_t>(v); }
};
template <>
struct Storage<CUDNN_DATA_INT32> {
  using type = int32_t;
  static float to_float(int32_t v) { return static_cast<float>(v); }
  static double to_double(int32_t v) { return v; }
  static int32_t from_float(float v) { return num::saturate_round<int32_t>(v); }
  static int32_t from_double(double v) { return num::saturate_round<int32_t>(v); }
};
template <>
struct Storage<CUDNN_DATA_UINT32> {
  using type = uint32_t;
  static float to_float(uint32_t v) { return static_cast<float>(v); }
  static double to_double(uint32_t v) { return v; }
  static uint32_t from_float(float v) { return num::saturate_round<uint32_t>(v); }
  static uint32_t from_double(double v) { return num::saturate_round<uint32_t>(v); }
};
template <>
struct Storage<CUDNN_DATA_INT64> {
  using type = int64_t;
  static float to_float(int64_t v) { return static_cast<float>(v); }
  static double to_double(int64_t v) { return static_cast<double>(v); }
  static int64_t from_float(float v) { return num::saturate_round<int64_t>(v); }
  static int64_t from_double(double v) { return num::saturate_round<int64_t>(v); }
};

// The types with a Storage<> (byte-addressable): the fast engines' types.
inline bool is_fast_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_UINT32:
    case CUDNN_DATA_INT64: return true;
    default: return false;
  }
}

// Calls f(Storage<DT>{}) for a fast type; returns false for the others.
template <class F>
bool visit_fast_type(cudnnDataType_t t, F &&f) {
  switch (t) {
#define FDNN_VISIT_TYPE(DT) \
  case DT: f(Storage<DT>{}); return true;
    FDNN_VISIT_TYPE(CUDNN_DATA_FLOAT)
    FDNN_VISIT_TYPE(CUDNN_DATA_DOUBLE)
    FDNN_VISIT_TYPE(CUDNN_DATA_HALF)
    FDNN_VISIT_TYPE(CUDNN_DATA_BFLOAT16)
    FDNN_VISIT_TYPE(CUDNN_DATA_FP8_E4M3)
    FDNN_VISIT_TYPE(CUDNN_DATA_FP8_E5M2)
    FDNN_VISIT_TYPE(CUDNN_DATA_INT8)
    FDNN_VISIT_TYPE(CUDNN_DATA_UINT8)
    FDNN_VISIT_TYPE(CUDNN_DATA_INT32)
    FDNN_VISIT_TYPE(CUDNN_DATA_UINT32)
    FDNN_VISIT_TYPE(CUDNN_DATA_INT64)
#undef FDNN_VISIT_TYPE
    default: return false;
  }
}

// Element access of a fast engine's loops in compute type C (float or
// double) for storage S.
template <class S, class C>
struct ComputeIo {
  using T = typename S::type;
  static C load(const T *p) {
    if constexpr (std::is_same_v<C, double>) return S::to_double(*p);
    else return S::to_float(*p);
  }
  static T from(C v) {
    if constexpr (std::is_same_v<C, double>) return S::from_double(v);
    else return S::from_float(v);
  }
};

}  // namespace fdnn::cpu
