#include "common/random.hpp"

#include <cstdlib>
#include <utility>

namespace fdnn_test {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }

int64_t Rng::integer(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(span == 0 ? next() : next() % span);
}

bool Rng::coin(double p_true) { return uniform(0.0, 1.0) < p_true; }

std::vector<int64_t> random_dims(Rng &rng, int rank, int64_t max_extent, int64_t max_elements) {
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  int64_t total = 1;
  // Visit the dimensions in random order so that no position is favoured.
  std::vector<int> order;
  for (int i = 0; i < rank; ++i) order.push_back(i);
  rng.shuffle(order);
  for (int i : order) {
    const int64_t room = max_elements / total;
    const int64_t hi = room < max_extent ? room : max_extent;
    dims[static_cast<size_t>(i)] = hi <= 1 ? 1 : rng.integer(1, hi);
    total *= dims[static_cast<size_t>(i)];
  }
  return dims;
}

uint64_t test_seed(uint64_t fallback) {
  if (const char *s = std::getenv("FREEDNN_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return fallback;
}

}  // namespace fdnn_test
