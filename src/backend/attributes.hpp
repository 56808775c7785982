// Attribute values of backend descriptors: what cudnnBackendSetAttribute
// stores and cudnnBackendGetAttribute returns, kept as raw elements of their
// cudnnBackendAttributeType_t.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace fdnn::backend {

// Bytes of one element of an attribute type (CUDNN_TYPE_BOOLEAN is a C++
// bool, CUDNN_TYPE_FRACTION a cudnnFraction_t, enums are 4 bytes).
size_t element_size(cudnnBackendAttributeType_t type);
const char *type_name(cudnnBackendAttributeType_t type);

struct AttrValue {
  cudnnBackendAttributeType_t type = CUDNN_TYPE_INT64;
  int64_t count = 0;
  std::vector<unsigned char> bytes;

  template <class T>
  T at(int64_t i) const {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <class T>
  std::vector<T> all() const {
    std::vector<T> v(static_cast<size_t>(count));
    if (count > 0) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  template <class T>
  static AttrValue of(cudnnBackendAttributeType_t type, const std::vector<T> &values) {
    AttrValue a;
    a.type = type;
    a.count = static_cast<int64_t>(values.size());
    a.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
    return a;
  }
};

// A scalar given as FLOAT or DOUBLE (alpha, beta, epsilon ...), as double.
double as_double(const AttrValue &v);

}  // namespace fdnn::backend
