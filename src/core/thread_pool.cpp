#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fdnn {

namespace {

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
  std::vector<std::thread> workers;
  bool stop = false;

  void worker_loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stop || !queue.empty(); });
        if (stop) return;
        job = queue.front();
        // A job whose chunks are all claimed leaves the queue.
        if (job->next.load() >= job->chunks) {
          queue.pop_front();
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
    impl_->stop = true;
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
  }
  impl_->wake.notify_all();
  job->work();  // the caller works too
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == job->chunks; });
  }
  {
    // Remove it if no worker did (a worker may still hold a reference; fine).
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto &q = impl_->queue;
    q.erase(std::remove(q.begin(), q.end(), job), q.end());
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace fdnn
