// Host tensors of a random memory layout for API tests, and a one-line
// description of a tensor for failure messages.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

// Packed NCHW, packed NHWC, or random strides (permuted, padded): equally likely.
std::vector<int64_t> random_layout_strides(Rng &rng, const std::vector<int64_t> &dims);

// A zeroed tensor of random layout.
HostTensor random_layout(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims);
// A tensor of random layout filled with fill_random(lo, hi).
HostTensor random_layout(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims, double lo, double hi);

// "f32 2 3 4 / 12 4 1": type, dims, strides.
std::string describe(const HostTensor &t);

}  // namespace fdnn_test
