// A bench tensor: its cuDNN descriptor and its memory on the handle's device
// (tests/common Buffer). Shapes of rank < 4 get trailing 1s, because cuDNN's
// legacy tensor operations are defined on 4-d and 5-d tensors.
#pragma once

#include <cudnn.h>

#include <string>

#include "common/buffer.hpp"
#include "onednn_peer.hpp"
#include "problem.hpp"

namespace bench {

class BenchTensor {
 public:
  BenchTensor(const Dims &dims, const std::string &tag, const std::string &dt);
  ~BenchTensor();
  BenchTensor(const BenchTensor &) = delete;
  BenchTensor &operator=(const BenchTensor &) = delete;

  cudnnTensorDescriptor_t desc() const { return desc_; }
  void *data() const { return buffer_.get(); }
  fdnn_test::Buffer &buffer() { return buffer_; }
  const Dims &dims() const { return dims_; }       // padded to rank >= 4
  const Dims &strides() const { return strides_; }
  const std::string &dt() const { return dt_; }
  cudnnDataType_t cudnn_dt() const;
  int64_t elements() const { return element_count(dims_); }
  size_t bytes() const { return bytes_; }         // the span the strides cover
  // As written on the command line (unpadded): oneDNN picks its optimised
  // kernels by rank, and trailing 1s can send it to its reference code.
  PeerTensor peer() const;

 private:
  Dims dims_, strides_;
  size_t written_rank_ = 0;
  std::string dt_;
  cudnnTensorDescriptor_t desc_ = nullptr;
  size_t bytes_ = 0;
  fdnn_test::Buffer buffer_;
};

// Dims padded with trailing 1s to rank 4 (unchanged when rank >= 4).
Dims padded4(const Dims &d);

}  // namespace bench
