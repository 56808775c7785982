#include "backend/tensor_descriptor.hpp"

#include <algorithm>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

// cuDNN 9 accepts up to 12 dimensions on set; engines handle up to CUDNN_DIM_MAX.
constexpr int64_t kMaxDims = 12;

}  // namespace

TensorDescriptor::TensorDescriptor()
    : Descriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,
                 {
                     {CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64},
                     {CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE},
                     {CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, 1, true, CUDNN_TYPE_INT64, false},
                     {CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 1, kMaxDims},
                     {CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 1, kMaxDims},
                     {CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64},
                     {CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64},
                     {CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN},
                     {CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN},
                     {CUDNN_ATTR_TENSOR_REORDERING_MODE, CUDNN_TYPE_TENSOR_REORDERING_MODE},
                 }) {}

void TensorDescriptor::do_finalize() {
  graph::Tensor t;
  // cuDNN 9 defaults an unset uid to 0 and an unset type to FLOAT.
  t.uid = scalar<int64_t>(CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
  t.dtype = scalar<cudnnDataType_t>(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
  t.dims = array<int64_t>(CUDNN_ATTR_TENSOR_DIMENSIONS);
  t.strides = array<int64_t>(CUDNN_ATTR_TENSOR_STRIDES);
  if (t.dims.size() != t.strides.size())
    fail(CUDNN_STATUS_BAD_PARAM, "the tensor has ", t.dims.size(), " dimensions but ", t.strides.size(),
         " strides");
  for (size_t i = 0; i < t.dims.size(); ++i) {
    check_arg(t.dims[i] >= 0, "dimension ", i, " = ", t.dims[i], ": must not be negative");
    check_arg(t.strides[i] >= 0, "stride ", i, " = ", t.strides[i], ": must not be negative");
  }
  const int64_t alignment = scalar<int64_t>(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 0);
  const DataTypeInfo &info = type_info(t.dtype);
  // The legacy vector types belong to VECTOR_COUNT now.
  check_supported(info.vector_count == 1, "data type ", info.enum_name,
                  " is a vector type: use a scalar type with VECTOR_COUNT instead");
  check_arg(info.known && info.bits > 0 && t.dtype != CUDNN_DATA_FAST_FLOAT_FOR_FP8, "data type ",
            static_cast<int>(t.dtype), " cannot be the type of a tensor");
  const int64_t elem = std::max<int64_t>(1, info.bits * info.vector_count / 8);
  check_arg(alignment > 0 && elem > 0 && alignment % elem == 0, "byte alignment = ", alignment,
            ": must be a positive multiple of the element size (", elem, " bytes)");
  const int64_t vector_count = scalar<int64_t>(CUDNN_ATTR_TENSOR_VECTOR_COUNT, 1);
  check_supported(vector_count == 1, "vectorized tensors (VECTOR_COUNT = ", vector_count,
                  ") are not supported by FreeDNN's backend API yet");
  t.is_virtual = scalar<bool>(CUDNN_ATTR_TENSOR_IS_VIRTUAL, false);
  t.by_value = scalar<bool>(CUDNN_ATTR_TENSOR_IS_BY_VALUE, false);
  tensor_ = t;
  // Defaults become readable values, as cuDNN reports them.
  if (!has(CUDNN_ATTR_TENSOR_UNIQUE_ID)) put(CUDNN_ATTR_TENSOR_UNIQUE_ID, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{t.uid}));
  if (!has(CUDNN_ATTR_TENSOR_DATA_TYPE))
    put(CUDNN_ATTR_TENSOR_DATA_TYPE, AttrValue::of(CUDNN_TYPE_DATA_TYPE, std::vector<cudnnDataType_t>{t.dtype}));
  if (!has(CUDNN_ATTR_TENSOR_VECTOR_COUNT))
    put(CUDNN_ATTR_TENSOR_VECTOR_COUNT, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{1}));
  if (!has(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION))
    put(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{-1}));
  if (!has(CUDNN_ATTR_TENSOR_IS_VIRTUAL))
    put(CUDNN_ATTR_TENSOR_IS_VIRTUAL, AttrValue::of(CUDNN_TYPE_BOOLEAN, std::vector<char>{0}));
  if (!has(CUDNN_ATTR_TENSOR_IS_BY_VALUE))
    put(CUDNN_ATTR_TENSOR_IS_BY_VALUE, AttrValue::of(CUDNN_TYPE_BOOLEAN, std::vector<char>{0}));
}

void TensorDescriptor::copy_state_from(const Descriptor &other) {
  tensor_ = static_cast<const TensorDescriptor &>(other).tensor_;
}

const graph::Tensor *tensor_of(const Descriptor *d) {
  if (d == nullptr) return nullptr;
  return &static_cast<const TensorDescriptor *>(d)->tensor();
}

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_TENSOR_DESCRIPTOR, TensorDescriptor)

}  // namespace fdnn::backend
