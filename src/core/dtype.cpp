#include "core/dtype.hpp"

namespace fdnn {

const DataTypeInfo &type_info(cudnnDataType_t t) {
  static const DataTypeInfo unknown{"unknown", "?", 0, 1, TypeClass::unknown, false, false};
  static const DataTypeInfo table[] = {
      /* FLOAT    */ {"f32", "CUDNN_DATA_FLOAT", 32, 1, TypeClass::floating, true, true},
      /* DOUBLE   */ {"f64", "CUDNN_DATA_DOUBLE", 64, 1, TypeClass::floating, true, true},
      /* HALF     */ {"f16", "CUDNN_DATA_HALF", 16, 1, TypeClass::floating, true, true},
      /* INT8     */ {"s8", "CUDNN_DATA_INT8", 8, 1, TypeClass::integer, true, true},
      /* INT32    */ {"s32", "CUDNN_DATA_INT32", 32, 1, TypeClass::integer, true, true},
      /* INT8x4   */ {"s8x4", "CUDNN_DATA_INT8x4", 8, 4, TypeClass::integer, true, true},
      /* UINT8    */ {"u8", "CUDNN_DATA_UINT8", 8, 1, TypeClass::integer, false, true},
      /* UINT8x4  */ {"u8x4", "CUDNN_DATA_UINT8x4", 8, 4, TypeClass::integer, false, true},
      /* INT8x32  */ {"s8x32", "CUDNN_DATA_INT8x32", 8, 32, TypeClass::integer, true, true},
      /* BFLOAT16 */ {"bf16", "CUDNN_DATA_BFLOAT16", 16, 1, TypeClass::floating, true, true},
      /* INT64    */ {"s64", "CUDNN_DATA_INT64", 64, 1, TypeClass::integer, true, true},
      /* BOOLEAN  */ {"bool", "CUDNN_DATA_BOOLEAN", 1, 1, TypeClass::boolean, false, true},
      /* FP8_E4M3 */ {"e4m3", "CUDNN_DATA_FP8_E4M3", 8, 1, TypeClass::floating, true, true},
      /* FP8_E5M2 */ {"e5m2", "CUDNN_DATA_FP8_E5M2", 8, 1, TypeClass::floating, true, true},
      /* FAST_FLOAT_FOR_FP8 */ {"ff8", "CUDNN_DATA_FAST_FLOAT_FOR_FP8", 32, 1, TypeClass::floating, true, true},
      /* FP8_E8M0 */ {"e8m0", "CUDNN_DATA_FP8_E8M0", 8, 1, TypeClass::floating, false, true},
      /* FP4_E2M1 */ {"e2m1", "CUDNN_DATA_FP4_E2M1", 4, 1, TypeClass::floating, true, true},
      /* INT4     */ {"s4", "CUDNN_DATA_INT4", 4, 1, TypeClass::integer, true, true},
      /* UINT4    */ {"u4", "CUDNN_DATA_UINT4", 4, 1, TypeClass::integer, false, true},
      /* UINT32   */ {"u32", "CUDNN_DATA_UINT32", 32, 1, TypeClass::integer, false, true},
  };
  int i = static_cast<int>(t);
  if (i < 0 || i >= static_cast<int>(sizeof(table) / sizeof(table[0]))) return unknown;
  return table[i];
}

cudnnDataType_t scalar_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32: return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4: return CUDNN_DATA_UINT8;
    default: return t;
  }
}

double read_scaling(const void *p, cudnnDataType_t tensor_type) {
  if (tensor_type == CUDNN_DATA_DOUBLE) return *static_cast<const double *>(p);
  return static_cast<double>(*static_cast<const float *>(p));
}

}  // namespace fdnn
