#include "problem.hpp"

namespace bench {

std::string dims_to_string(const Dims &d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

std::string shapes_to_string(const std::vector<Dims> &shapes) {
  std::string s;
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ":" : "") + dims_to_string(shapes[i]);
  return s;
}

int64_t element_count(const Dims &d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

}  // namespace bench
