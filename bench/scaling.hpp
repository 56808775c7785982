// cuDNN's scaling parameters (alpha, beta) are host floats, or doubles when
// the data are double: tests/common's Scaling bound to one data type.
#pragma once

#include <string>

#include "common/tensor_data.hpp"
#include "dtype.hpp"

namespace bench {

class Scaling {
 public:
  Scaling(const std::string &dt, double v) : s_(v), type_(to_cudnn_dtype(dt)) {}
  const void *ptr() const { return s_.for_type(type_); }
  // The value the library sees (v rounded to float unless the data are double).
  double value() const { return s_.value(type_); }

 private:
  fdnn_test::Scaling s_;
  cudnnDataType_t type_;
};

}  // namespace bench
