// Independent reference for the legacy size queries
// (cudnnGetTensorSizeInBytes, cudnnGetFilterSizeInBytes).
#pragma once

#include <cudnn.h>

#include <cstddef>

namespace fdnn_test {

// Bytes of one element as the legacy size queries count them; a vector type
// (INT8x4, ...) counts as one element of all its lanes. 0 for types the
// legacy descriptors refuse.
inline size_t legacy_element_bytes(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 0;
  }
}

}  // namespace fdnn_test
