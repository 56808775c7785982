// Seeded random numbers for test data and random problem shapes. Every test
// prints or derives its seed, so a failure can be replayed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fdnn_test {

// splitmix64: small, fast, and the same sequence on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed = 1) : state_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}
  uint64_t next();
  // Uniform in [lo, hi).
  double uniform(double lo, double hi);
  // Uniform integer in [lo, hi] (inclusive).
  int64_t integer(int64_t lo, int64_t hi);
  bool coin(double p_true = 0.5);
  template <class T>
  const T &pick(const std::vector<T> &v) {
    return v[static_cast<size_t>(integer(0, static_cast<int64_t>(v.size()) - 1))];
  }
  template <class T>
  void shuffle(std::vector<T> &v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(integer(0, static_cast<int64_t>(i) - 1))]);
  }

 private:
  uint64_t state_;
};

// Random extents whose product stays at or below max_elements (each >= 1).
std::vector<int64_t> random_dims(Rng &rng, int rank, int64_t max_extent, int64_t max_elements);

// The seed tests use: FREEDNN_TEST_SEED when set, else `fallback`.
uint64_t test_seed(uint64_t fallback);

}  // namespace fdnn_test
