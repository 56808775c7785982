// Independent float64 expectation of a concatenation (the backend API's
// OPERATION_CONCAT): y's element at multi-index idx is input k's element at
// idx shifted back along the axis by the extents of inputs 0 .. k-1, where k
// is the input whose range along the axis holds idx[axis].
#pragma once

#include <cstdint>
#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// The expected y in row-major order over y_dims (the inputs' dims with the
// axis extents summed), exact: a copy, at most one rounding to y's type,
// which matches() applies itself.
std::vector<Expect> concat_expected(const std::vector<const HostTensor *> &inputs, int axis);

// y's dims for these inputs.
std::vector<int64_t> concat_dims(const std::vector<const HostTensor *> &inputs, int axis);

}  // namespace fdnn_test
