// The CPU thread pool (an internal class, so this test is its own small
// executable that compiles src/core/thread_pool.cpp; see tests/CMakeLists.txt).
#include "core/thread_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace {

using fdnn::ThreadPool;
using Range = std::pair<int64_t, int64_t>;

// Runs one parallel_for and checks that its ranges tile [0, n): each index
// exactly once, no empty range, at most the allowed number of ranges.
void check_cover(ThreadPool &pool, int64_t n, int64_t max_chunks) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::mutex mutex;
  std::vector<Range> ranges;
  pool.parallel_for(
      n,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(mutex);
        ranges.emplace_back(begin, end);
      },
      max_chunks);

  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "index " << i;
  if (n <= 0) {
    EXPECT_TRUE(ranges.empty());
    return;
  }
  std::sort(ranges.begin(), ranges.end());
  int64_t at = 0;
  for (const Range &r : ranges) {
    EXPECT_EQ(r.first, at) << "gap or overlap";
    EXPECT_LT(r.first, r.second) << "empty range";
    at = r.second;
  }
  EXPECT_EQ(at, n);
  int64_t allowed = max_chunks > 0 ? max_chunks : pool.size();
  EXPECT_LE(static_cast<int64_t>(ranges.size()), std::min(allowed, n));
}

TEST(ThreadPool, CoversTheRangeExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t n : {-5, 0, 1, 2, 3, 5, 7, 16, 17, 100, 1000, 4099}) {
      for (int64_t chunks : {0, 1, 2, 3, 7, 64, 5000}) {
        SCOPED_TRACE(testing::Message() << "threads " << threads << " n " << n << " chunks " << chunks);
        check_cover(pool, n, chunks);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ThreadPool, NonPositiveThreadCountMeansOne) {
  ThreadPool zero(0), negative(-3);
  EXPECT_EQ(zero.size(), 1);
  EXPECT_EQ(negative.size(), 1);
  check_cover(zero, 10, 4);
}

TEST(ThreadPool, WorkersTakePart) {
  // Each chunk waits until two different threads are inside the body, which
  // only happens when a worker (not just the caller) runs chunks.
  ThreadPool pool(4);
  std::mutex mutex;
  std::condition_variable cv;
  std::set<std::thread::id> inside;
  bool met = false;
  pool.parallel_for(
      4,
      [&](int64_t, int64_t) {
        std::unique_lock<std::mutex> lock(mutex);
        inside.insert(std::this_thread::get_id());
        if (inside.size() >= 2) met = true;
        cv.notify_all();
        cv.wait_for(lock, std::chrono::seconds(10), [&] { return met; });
      },
      4);
  EXPECT_TRUE(met) << "only the calling thread ran chunks";
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(4);
  for (int64_t bad_chunk : {int64_t(0), int64_t(3), int64_t(7)}) {
    std::atomic<int64_t> ran{0};
    try {
      pool.parallel_for(
          8,
          [&](int64_t begin, int64_t) {
            ran.fetch_add(1);
            if (begin == bad_chunk) throw std::invalid_argument("chunk failed");
          },
          8);
      ADD_FAILURE() << "no exception for failing chunk " << bad_chunk;
    } catch (const std::invalid_argument &e) {
      EXPECT_STREQ(e.what(), "chunk failed");
    }
    // The other chunks still ran, and the call returned only after them.
    EXPECT_EQ(ran.load(), 8);
  }
  // Every chunk failing: one of them arrives, the pool stays usable.
  EXPECT_THROW(pool.parallel_for(100, [](int64_t, int64_t) { throw std::runtime_error("all"); }, 10),
               std::runtime_error);
  check_cover(pool, 1000, 0);
}

TEST(ThreadPool, SingleChunkExceptionAlsoPropagates) {
  ThreadPool pool(1);
  EXPECT_THROW(pool.parallel_for(5, [](int64_t, int64_t) { throw std::out_of_range("x"); }), std::out_of_range);
}

TEST(ThreadPool, ConcurrentCallersShareOnePool) {
  ThreadPool pool(3);
  constexpr int kCallers = 6, kRounds = 150;
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < kRounds; ++round) {
        const int64_t n = 1 + (c * 131 + round * 17) % 997;
        std::vector<int64_t> out(static_cast<size_t>(n), -1);
        pool.parallel_for(
            n,
            [&](int64_t begin, int64_t end) {
              for (int64_t i = begin; i < end; ++i) out[static_cast<size_t>(i)] = i * (c + 1);
            },
            (round % 5));
        for (int64_t i = 0; i < n; ++i)
          if (out[static_cast<size_t>(i)] != i * (c + 1)) {
            failures.fetch_add(1);
            break;
          }
      }
    });
  }
  for (auto &t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, NestedCallsComplete) {
  // An engine may call parallel_for from inside a chunk; the inner caller
  // works on its own job, so this cannot deadlock.
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(
      6,
      [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
          pool.parallel_for(
              100,
              [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) sum.fetch_add(i);
              },
              4);
      },
      6);
  EXPECT_EQ(sum.load(), 6 * (99 * 100 / 2));
}

TEST(ThreadPool, ManyPoolsStartAndStop) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(1 + i % 5);
    if (i % 2) check_cover(pool, 37, 0);
  }
}

TEST(ThreadPool, GlobalPoolIsUsable) {
  ThreadPool &pool = ThreadPool::global();
  EXPECT_EQ(&pool, &ThreadPool::global());
  EXPECT_GE(pool.size(), 1);
  check_cover(pool, 12345, 0);
}

TEST(ThreadPoolDeathTest, GlobalPoolSizeFromEnvironment) {
  // The global pool is made once per process; a re-executed child sees the
  // variable before its first use.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("FREEDNN_NUM_THREADS", "3", 1);
        std::exit(ThreadPool::global().size() == 3 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
