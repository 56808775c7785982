#include "common/matmul_reference.hpp"

#include <cmath>

namespace fdnn_test {

std::vector<Expect> matmul_expected(const HostTensor &a, const HostTensor &b, const std::vector<int64_t> &c_dims,
                                    double u) {
  const int r = static_cast<int>(c_dims.size());
  const int64_t k = a.dims[static_cast<size_t>(r - 1)];
  std::vector<Expect> want;
  for_each_index(c_dims, [&](const std::vector<int64_t> &ci) {
    std::vector<int64_t> ai(ci), bi(ci);
    for (int d = 0; d < r - 2; ++d) {
      const size_t s = static_cast<size_t>(d);
      ai[s] = ci[s] / (c_dims[s] / a.dims[s]);
      bi[s] = ci[s] / (c_dims[s] / b.dims[s]);
    }
    double sum = 0, magnitude = 0;
    for (int64_t q = 0; q < k; ++q) {
      ai[static_cast<size_t>(r - 1)] = q;
      bi[static_cast<size_t>(r - 2)] = q;
      const double p = a.get(ai) * b.get(bi);
      sum += p;
      magnitude += std::fabs(p);
    }
    want.push_back({sum, 2.0 * static_cast<double>(k) * u * magnitude});
  });
  return want;
}

}  // namespace fdnn_test
