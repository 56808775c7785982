#include "common/grouped_reduction_reference.hpp"

#include <cmath>
#include <limits>

namespace fdnn_test {

std::vector<double> grouped_reduction_reference(cudnnReduceTensorOp_t mode, const HostTensor &x,
                                                const std::vector<int64_t> &y_dims) {
  int64_t outputs = 1;
  for (int64_t e : y_dims) outputs *= e;
  // Every x element goes to the y element whose index is x's index divided
  // by the group size of each dimension (x extent / y extent).
  std::vector<std::vector<double>> slices(static_cast<size_t>(outputs));
  for_each_index(x.dims, [&](const std::vector<int64_t> &xi) {
    int64_t flat = 0;
    for (size_t d = 0; d < y_dims.size(); ++d) flat = flat * y_dims[d] + xi[d] / (x.dims[d] / y_dims[d]);
    slices[static_cast<size_t>(flat)].push_back(x.get(xi));
  });
  std::vector<double> out;
  for (const std::vector<double> &v : slices) {
    double r = 0;
    switch (mode) {
      case CUDNN_REDUCE_TENSOR_ADD:
        for (double e : v) r += e;
        break;
      case CUDNN_REDUCE_TENSOR_AVG:
        for (double e : v) r += e;
        r /= static_cast<double>(v.size());
        break;
      case CUDNN_REDUCE_TENSOR_NORM1:
        for (double e : v) r += std::fabs(e);
        break;
      case CUDNN_REDUCE_TENSOR_NORM2:
        for (double e : v) r += e * e;
        r = std::sqrt(r);
        break;
      case CUDNN_REDUCE_TENSOR_MUL:
        r = 1;
        for (double e : v) r *= e;
        break;
      case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
        r = 1;
        for (double e : v)
          if (e != 0) r *= e;
        break;
      case CUDNN_REDUCE_TENSOR_MIN:
        r = std::numeric_limits<double>::infinity();
        for (double e : v) r = std::min(r, e);
        break;
      case CUDNN_REDUCE_TENSOR_MAX:
        r = -std::numeric_limits<double>::infinity();
        for (double e : v) r = std::max(r, e);
        break;
      case CUDNN_REDUCE_TENSOR_AMAX:
        for (double e : v) r = std::max(r, std::fabs(e));
        break;
      default: ADD_FAILURE() << "mode " << mode << " has no reference";
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace fdnn_test
