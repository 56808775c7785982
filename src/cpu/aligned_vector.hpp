// std::vector whose storage starts on a 64-byte boundary (a cache line, one
// AVX-512 register), for the scratch that vector kernels load and store
// whole registers from.
//
// Why: std::vector<float> is only 16-byte aligned, so where its first
// element lands within a cache line depends on the heap's state, which in
// turn depends on things as remote as the size of the environment. A
// 512-bit access at an unaligned address spans two lines; a kernel whose
// scratch is read and written that way ran up to 3x slower, and differently
// from process to process: cpu.lrn's planes forward (NCHW f32
// 32x64x56x56, 2 threads) took 4.9-5.8 ms or 2.4 ms depending on the
// environment's size, 1.4-1.7 ms with its ring 64-byte aligned.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace fdnn::cpu {

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U> &) noexcept {}
  T *allocate(std::size_t n) { return static_cast<T *>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T *p, std::size_t n) noexcept { ::operator delete(p, n * sizeof(T), kAlign); }
  template <class U>
  bool operator==(const CacheLineAllocator<U> &) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U> &) const noexcept {
    return false;
  }
};

template <class T>
using LineVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace fdnn::cpu
