// The streamed ACCURATE softmax backward row (src/cpu/softmax_rows.hpp,
// non-temporal stores of whole aligned vectors) gives the bits of the
// ordinary row kernel. The engine takes it only for tensors larger than the
// machine's last-level cache, which the API tests do not reach on a machine
// with a large one, so the two kernels are compared here directly, in both
// compiled copies (AVX2 and, where the CPU has it, AVX-512).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpu/softmax_math.hpp"

namespace {

namespace sm = fdnn::cpu::softmax;

// A row of n floats starting `head` floats past a 64-byte boundary, with
// 16 poisoned floats (-7) on either side: window() is those n + 32.
struct Row {
  std::vector<float> store;
  float *row;
  int64_t n;
  Row(int64_t n_, int64_t head) : store(static_cast<size_t>(n_ + 64), -7.0f), n(n_) {
    const auto p = reinterpret_cast<uintptr_t>(store.data() + 16);
    row = reinterpret_cast<float *>((p + 63) & ~uintptr_t{63}) + head;
  }
  std::vector<float> window() const { return std::vector<float>(row - 16, row + n + 16); }
};

template <class Kernels>
void check_copy(Kernels k, const char *copy) {
  std::mt19937 gen(936);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), grad(-2.0f, 2.0f);
  for (int64_t n : {1, 7, 15, 16, 17, 33, 100, 1000, 1003})
    for (int64_t head = 0; head < 16; ++head) {
      std::vector<float> y(static_cast<size_t>(n)), dy(static_cast<size_t>(n));
      for (size_t i = 0; i < y.size(); ++i) {
        y[i] = unit(gen);
        dy[i] = grad(gen);
      }
      Row want(n, head), got(n, head);
      k.row(y.data(), dy.data(), n, want.row);
      k.stream(y.data(), dy.data(), n, got.row);
      EXPECT_EQ(got.window(), want.window()) << copy << " n " << n << " head " << head;
    }
}

struct Avx2 {
  void row(const float *y, const float *dy, int64_t n, float *r) const {
    sm::v256::backward_row<float>(CUDNN_SOFTMAX_ACCURATE, y, dy, n, r, 1.5f);
  }
  void stream(const float *y, const float *dy, int64_t n, float *r) const {
    sm::v256::backward_accurate_stream(y, dy, n, r, 1.5f);
  }
};
struct Avx512 {
  void row(const float *y, const float *dy, int64_t n, float *r) const {
    sm::v512::backward_row<float>(CUDNN_SOFTMAX_ACCURATE, y, dy, n, r, 1.5f);
  }
  void stream(const float *y, const float *dy, int64_t n, float *r) const {
    sm::v512::backward_accurate_stream(y, dy, n, r, 1.5f);
  }
};

TEST(CpuSoftmaxStreamedRow, AccurateBackwardMatchesTheRowKernel) {
  check_copy(Avx2{}, "avx2");
  if (fdnn::cpu::vm::has_avx512()) check_copy(Avx512{}, "avx512");
}

}  // namespace
