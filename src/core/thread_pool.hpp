// The CPU backend's worker threads. One pool per process, shared by every
// CPU handle; calls from several threads at once are safe (each call's chunks
// are claimed by whichever threads are free, the caller included).
#pragma once

#include <cstdint>
#include <functional>

namespace fdnn {

class ThreadPool {
 public:
  // The process-wide pool: FREEDNN_NUM_THREADS threads, default all cores.
  static ThreadPool &global();

  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return threads_; }

  // Runs body(begin, end) over [0, n) split into at most `max_chunks`
  // contiguous ranges (0: one per thread), and returns when all are done.
  // Exceptions thrown by body are rethrown in the caller (the first one).
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)> &body, int64_t max_chunks = 0);

 private:
  struct Impl;
  Impl *impl_;
  int threads_;
};

}  // namespace fdnn
