// An independent float64 reference of the backend MATMUL operation:
// c[..., i, j] = sum_k a[..., i, k] * b[..., k, j] over the last two dims,
// every leading (batch) dim of a and b broadcasting to c's: an operand whose
// extent e divides c's extent E supplies matrix idx / (E / e) to c's batch
// index idx (extent 1 repeats one matrix; a proper divisor repeats each of
// its matrices over E / e consecutive indices, as grouped-query attention's
// K/V heads).
#pragma once

#include <vector>

#include "common/tensor_data.hpp"

namespace fdnn_test {

// The expected elements of c (logical row-major order over c_dims) for
// alpha = 1, beta = 0: the exact sum, and as tolerance the error of
// accumulating k products in arithmetic of unit roundoff `u` (2 k u sum |a b|;
// u = 0 for exact integer sums). matches() adds the output rounding itself.
std::vector<Expect> matmul_expected(const HostTensor &a, const HostTensor &b, const std::vector<int64_t> &c_dims,
                                    double u);

}  // namespace fdnn_test
