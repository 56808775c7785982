#include "common/random_layout.hpp"

namespace fdnn_test {

std::vector<int64_t> random_layout_strides(Rng &rng, const std::vector<int64_t> &dims) {
  switch (rng.integer(0, 2)) {
    case 0: return packed_strides(dims, Layout::nchw);
    case 1: return packed_strides(dims, Layout::nhwc);
    default: return random_strides(rng, dims);
  }
}

HostTensor random_layout(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims) {
  return make_tensor(t, dims, random_layout_strides(rng, dims));
}

HostTensor random_layout(Rng &rng, cudnnDataType_t t, const std::vector<int64_t> &dims, double lo, double hi) {
  HostTensor h = random_layout(rng, t, dims);
  fill_random(h, rng, lo, hi);
  return h;
}

std::string describe(const HostTensor &t) {
  std::string s = type_name(t.dtype);
  for (int64_t d : t.dims) s += " " + std::to_string(d);
  s += " /";
  for (int64_t d : t.strides) s += " " + std::to_string(d);
  return s;
}

}  // namespace fdnn_test
