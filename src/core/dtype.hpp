// Facts about cudnnDataType_t values: element size, vector width, category.
#pragma once

#include <cudnn_graph.h>

#include <cstddef>
#include <cstdint>

namespace fdnn {

enum class TypeClass { floating, integer, boolean, unknown };

struct DataTypeInfo {
  const char *name;     // short name used in messages and bench strings ("f32")
  const char *enum_name;  // "CUDNN_DATA_FLOAT"
  int bits;             // bits of one scalar lane (BOOLEAN is 1: packed 8 per byte)
  int vector_count;     // lanes per element: 4 for INT8x4, 32 for INT8x32, else 1
  TypeClass cls;
  bool is_signed;
  bool known;           // false for values this build does not recognise
};

const DataTypeInfo &type_info(cudnnDataType_t t);

// The scalar lane type of a vector type (INT8x4 -> INT8), else t itself.
cudnnDataType_t scalar_type(cudnnDataType_t t);

inline bool is_float_type(cudnnDataType_t t) { return type_info(t).cls == TypeClass::floating; }
inline bool is_vector_type(cudnnDataType_t t) { return type_info(t).vector_count > 1; }

// Bytes taken by `count` scalar lanes of type t (BOOLEAN packs bits).
inline size_t lanes_to_bytes(cudnnDataType_t t, int64_t count) {
  const auto &ti = type_info(t);
  return static_cast<size_t>((count * ti.bits + 7) / 8);
}

// Scaling factors (alpha/beta) are read as double for double tensors and as
// float for every other type, as cuDNN specifies.
double read_scaling(const void *p, cudnnDataType_t tensor_type);

}  // namespace fdnn
