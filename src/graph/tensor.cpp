#include "graph/tensor.hpp"

#include <sstream>

#include "core/dtype.hpp"

namespace fdnn::graph {

int64_t Tensor::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t Tensor::span() const {
  if (element_count() == 0) return 0;
  int64_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) last += (dims[i] - 1) * strides[i];
  return last + 1;
}

bool Tensor::is_packed_row_major() const {
  int64_t expect = 1;
  for (int i = rank() - 1; i >= 0; --i) {
    if (dims[i] != 1 && strides[i] != expect) return false;
    expect *= dims[i];
  }
  return true;
}

std::string Tensor::to_string() const {
  std::ostringstream os;
  os << type_info(dtype).name << ':';
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "x" : "") << dims[i];
  os << ':';
  for (size_t i = 0; i < strides.size(); ++i) os << (i ? "," : "") << strides[i];
  if (by_value) os << ":value=" << value;
  return os.str();
}

}  // namespace fdnn::graph
