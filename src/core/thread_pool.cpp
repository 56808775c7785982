#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace fdnn {

namespace {

// How long a thread that runs out of work spins before it sleeps: a
// worker waiting for the next job, the caller waiting for a job's last
// chunk. A thread asleep on a condition variable took 15-50 us to wake in
// the 2-vCPU guest where this was measured, on every parallel_for; ops
// with several phases (statistics, then output) paid it per phase, and
// back-to-back calls per call, where OpenMP's runtimes keep their threads
// spinning a while between regions (libgomp: OMP_WAIT_POLICY unset). 200
// us covers the phases of one op and back-to-back calls; a thread that has
// nothing to do for longer sleeps as before. FREEDNN_POOL_SPIN_US=<us>
// sets it (0: sleep at once, the earlier behaviour).
std::chrono::nanoseconds spin_time() {
  // getenv rather than env_long: the pool builds alone into its
  // ThreadSanitizer test.
  static const std::chrono::nanoseconds t = [] {
    const char *e = std::getenv("FREEDNN_POOL_SPIN_US");
    const long us = e != nullptr && *e != '\0' ? std::strtol(e, nullptr, 10) : 200;
    return std::chrono::nanoseconds{std::max(0L, us) * 1000};
  }();
  return t;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until ready() or spin_time() has passed; returns ready()'s last answer.
template <class Ready>
bool spin_until(const Ready &ready) {
  const auto limit = spin_time();
  if (limit.count() <= 0) return ready();
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() - start >= limit) return ready();
  }
}

struct Job {
  const std::function<void(int64_t, int64_t)> *body;
  int64_t n;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;

  // Claims and runs chunks until none are left. Returns after its last one.
  void work() {
    for (;;) {
      int64_t c = next.fetch_add(1);
      if (c >= chunks) return;
      int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
      try {
        (*body)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};

}  // namespace

struct ThreadPool::Impl {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<Job>> queue;
  std::atomic<size_t> queued{0};  // queue.size(), for spinning workers to look at without the mutex
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};

  void worker_loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      spin_until([&] { return queued.load(std::memory_order_acquire) > 0 || stop.load(std::memory_order_relaxed); });
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stop || !queue.empty(); });
        if (stop) return;
        job = queue.front();
        // A job whose chunks are all claimed leaves the queue.
        if (job->next.load() >= job->chunks) {
          queue.pop_front();
          queued.store(queue.size(), std::memory_order_release);
          continue;
        }
      }
      job->work();
    }
  }
};

ThreadPool &ThreadPool::global() {
  static ThreadPool *pool = [] {
    int n = static_cast<int>(std::thread::hardware_concurrency());
    if (const char *env = std::getenv("FREEDNN_NUM_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) n = v;
    }
    return new ThreadPool(std::max(1, n));  // lives until exit; workers are detached by then
  }();
  return *pool;
}

ThreadPool::ThreadPool(int threads) : impl_(new Impl), threads_(std::max(1, threads)) {
  for (int i = 1; i < threads_; ++i) impl_->workers.emplace_back([this] { impl_->worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop.store(true);
  }
  impl_->wake.notify_all();
  for (auto &t : impl_->workers) t.join();
  delete impl_;
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)> &body, int64_t max_chunks) {
  if (n <= 0) return;
  int64_t chunks = max_chunks > 0 ? max_chunks : threads_;
  chunks = std::min<int64_t>(chunks, n);
  if (chunks <= 1 || threads_ == 1) {
    body(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n;
  job->chunks = chunks;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->queue.push_back(job);
    impl_->queued.store(impl_->queue.size(), std::memory_order_release);
  }
  impl_->wake.notify_all();
  job->work();  // the caller works too
  if (!spin_until([&] { return job->done.load(std::memory_order_acquire) == job->chunks; })) {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == job->chunks; });
  }
  {
    // Remove it if no worker did (a worker may still hold a reference; fine).
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto &q = impl_->queue;
    q.erase(std::remove(q.begin(), q.end(), job), q.end());
    impl_->queued.store(q.size(), std::memory_order_release);
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace fdnn
