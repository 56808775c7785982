#include "common/concat_reference.hpp"

namespace fdnn_test {

std::vector<int64_t> concat_dims(const std::vector<const HostTensor *> &inputs, int axis) {
  std::vector<int64_t> dims = inputs.front()->dims;
  dims[static_cast<size_t>(axis)] = 0;
  for (const HostTensor *t : inputs) dims[static_cast<size_t>(axis)] += t->dims[static_cast<size_t>(axis)];
  return dims;
}

std::vector<Expect> concat_expected(const std::vector<const HostTensor *> &inputs, int axis) {
  std::vector<Expect> want;
  const size_t a = static_cast<size_t>(axis);
  for_each_index(concat_dims(inputs, axis), [&](const std::vector<int64_t> &idx) {
    std::vector<int64_t> j = idx;
    size_t k = 0;
    while (j[a] >= inputs[k]->dims[a]) j[a] -= inputs[k++]->dims[a];
    want.push_back({inputs[k]->get(j), 0.0});
  });
  return want;
}

}  // namespace fdnn_test
