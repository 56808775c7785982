#include "tensor.hpp"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "dtype.hpp"
#include "layout.hpp"
#include "op.hpp"

namespace bench {

Dims padded4(const Dims &d) {
  Dims p = d;
  while (p.size() < 4) p.push_back(1);
  return p;
}

BenchTensor::BenchTensor(const Dims &dims, const std::string &tag, const std::string &dt) : dt_(dt) {
  // The layout applies to the shape as written; padded dimensions are size 1
  // and innermost, so they do not change the memory order.
  Dims strides = dense_strides(dims, tag);
  written_rank_ = dims.size();
  dims_ = padded4(dims);
  strides_ = strides;
  while (strides_.size() < dims_.size()) strides_.push_back(1);

  std::vector<int> d(dims_.begin(), dims_.end()), s(strides_.begin(), strides_.end());
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] > INT32_MAX || strides_[i] > INT32_MAX)
      throw std::invalid_argument("tensor " + dims_to_string(dims) + " exceeds cuDNN's int dimensions/strides");
  check_status(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
  try {
    check_status(cudnnSetTensorNdDescriptor(desc_, cudnn_dt(), static_cast<int>(d.size()), d.data(), s.data()),
                 "cudnnSetTensorNdDescriptor");
    check_status(cudnnGetTensorSizeInBytes(desc_, &bytes_), "cudnnGetTensorSizeInBytes");
  } catch (...) {
    cudnnDestroyTensorDescriptor(desc_);  // the destructor does not run for a throwing constructor
    throw;
  }
  buffer_ = fdnn_test::Buffer(bytes_);
}

BenchTensor::~BenchTensor() {
  if (desc_) cudnnDestroyTensorDescriptor(desc_);
}

PeerTensor BenchTensor::peer() const {
  return {Dims(dims_.begin(), dims_.begin() + written_rank_), Dims(strides_.begin(), strides_.begin() + written_rank_),
          dt_};
}

cudnnDataType_t BenchTensor::cudnn_dt() const { return to_cudnn_dtype(dt_); }

}  // namespace bench
