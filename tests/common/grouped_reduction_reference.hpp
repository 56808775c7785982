// float64 reference of a reduction whose y extents divide x's (cuDNN 9's
// reduction operation: y extent equal to x's, 1, or a divisor of it, where
// y[.., k, ..] combines the consecutive x positions k * g .. k * g + g - 1),
// written from that definition independently of the library.
#pragma once

#include <cudnn.h>

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// y's values in logical row-major order of y_dims.
std::vector<double> grouped_reduction_reference(cudnnReduceTensorOp_t mode, const HostTensor &x,
                                                const std::vector<int64_t> &y_dims);

}  // namespace fdnn_test
