#include "backend/attributes.hpp"

#include "core/error.hpp"

namespace fdnn::backend {

size_t element_size(cudnnBackendAttributeType_t type) {
  switch (type) {
    case CUDNN_TYPE_HANDLE: return sizeof(cudnnHandle_t);
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    case CUDNN_TYPE_INT64: return sizeof(int64_t);
    case CUDNN_TYPE_FLOAT: return sizeof(float);
    case CUDNN_TYPE_DOUBLE: return sizeof(double);
    case CUDNN_TYPE_VOID_PTR: return sizeof(void *);
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(cudnnBackendDescriptor_t);
    case CUDNN_TYPE_CHAR: return sizeof(char);
    case CUDNN_TYPE_INT32: return sizeof(int32_t);
    case CUDNN_TYPE_FRACTION: return sizeof(cudnnFraction_t);
    default: return sizeof(int32_t);  // every enum type
  }
}

const char *type_name(cudnnBackendAttributeType_t type) {
  switch (type) {
    case CUDNN_TYPE_HANDLE: return "CUDNN_TYPE_HANDLE";
    case CUDNN_TYPE_DATA_TYPE: return "CUDNN_TYPE_DATA_TYPE";
    case CUDNN_TYPE_BOOLEAN: return "CUDNN_TYPE_BOOLEAN";
    case CUDNN_TYPE_INT64: return "CUDNN_TYPE_INT64";
    case CUDNN_TYPE_FLOAT: return "CUDNN_TYPE_FLOAT";
    case CUDNN_TYPE_DOUBLE: return "CUDNN_TYPE_DOUBLE";
    case CUDNN_TYPE_VOID_PTR: return "CUDNN_TYPE_VOID_PTR";
    case CUDNN_TYPE_CONVOLUTION_MODE: return "CUDNN_TYPE_CONVOLUTION_MODE";
    case CUDNN_TYPE_HEUR_MODE: return "CUDNN_TYPE_HEUR_MODE";
    case CUDNN_TYPE_KNOB_TYPE: return "CUDNN_TYPE_KNOB_TYPE";
    case CUDNN_TYPE_NUMERICAL_NOTE: return "CUDNN_TYPE_NUMERICAL_NOTE";
    case CUDNN_TYPE_POINTWISE_MODE: return "CUDNN_TYPE_POINTWISE_MODE";
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return "CUDNN_TYPE_BACKEND_DESCRIPTOR";
    case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE: return "CUDNN_TYPE_REDUCTION_OPERATOR_TYPE";
    case CUDNN_TYPE_BEHAVIOR_NOTE: return "CUDNN_TYPE_BEHAVIOR_NOTE";
    case CUDNN_TYPE_INT32: return "CUDNN_TYPE_INT32";
    case CUDNN_TYPE_CHAR: return "CUDNN_TYPE_CHAR";
    case CUDNN_TYPE_FRACTION: return "CUDNN_TYPE_FRACTION";
    case CUDNN_TYPE_RESAMPLE_MODE: return "CUDNN_TYPE_RESAMPLE_MODE";
    case CUDNN_TYPE_PADDING_MODE: return "CUDNN_TYPE_PADDING_MODE";
    default: return "an enum type";
  }
}

double as_double(const AttrValue &v) {
  if (v.type == CUDNN_TYPE_DOUBLE) return v.at<double>(0);
  if (v.type == CUDNN_TYPE_FLOAT) return v.at<float>(0);
  if (v.type == CUDNN_TYPE_INT64) return static_cast<double>(v.at<int64_t>(0));
  fail(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "expected a FLOAT or DOUBLE scalar, got ", type_name(v.type));
}

}  // namespace fdnn::backend
