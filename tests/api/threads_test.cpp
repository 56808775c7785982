// Concurrency: many threads with a handle each, several threads sharing one
// handle, and logging changes while other threads fail calls. Results are
// checked against a float64 reference; scripts/sanitize.sh thread runs these
// under ThreadSanitizer.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/buffer.hpp"

namespace {

constexpr int kThreads = 8;

// What a worker thread found: empty when all was right, "SKIP: ..." when a
// needed function is not implemented yet, else a description of the failure.
using Outcome = std::string;

bool is_skip(const Outcome &o) { return o.rfind("SKIP:", 0) == 0; }

std::string last_error() {
  char buf[1024];
  cudnnGetLastErrorString(buf, sizeof buf);
  return buf;
}

#define WORKER_CHECK(call)                                                                          \
  do {                                                                                              \
    cudnnStatus_t status_ = (call);                                                                 \
    if (status_ == CUDNN_STATUS_NOT_SUPPORTED) return "SKIP: " #call " is not supported yet";       \
    if (status_ != CUDNN_STATUS_SUCCESS)                                                            \
      return std::string(#call " -> ") + cudnnGetErrorString(status_) + ": " + last_error();        \
  } while (0)

// Runs `body(thread_index)` on kThreads threads at once and collects outcomes.
template <class Body>
std::vector<Outcome> run_threads(Body body, int threads = kThreads) {
  std::vector<Outcome> outcomes(threads);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      // Start together so that the calls really overlap.
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      outcomes[t] = body(t);
    });
  }
  for (auto &th : pool) th.join();
  return outcomes;
}

// Fails the test for failures, skips it when every thread was skipped.
void judge(const std::vector<Outcome> &outcomes) {
  bool skipped = false;
  for (size_t t = 0; t < outcomes.size(); ++t) {
    if (is_skip(outcomes[t])) {
      skipped = true;
      continue;
    }
    EXPECT_EQ(outcomes[t], "") << "thread " << t;
  }
  if (skipped) GTEST_SKIP() << outcomes[0];
}

// One round of tensor work on `handle`: a tensor descriptor with a random
// shape, then y = v; y *= s; y = alpha * x + beta * y, where x is either the
// same shape or a per-channel bias. Checked against float64 arithmetic.
// `large` makes a tensor big enough for the engines to split it over the CPU
// thread pool, so that pool workers run for several callers at once.
Outcome tensor_round(cudnnHandle_t handle, std::mt19937 &rng, bool large = false) {
  std::uniform_int_distribution<int> dim(1, 5);
  std::uniform_real_distribution<double> val(-2.0, 2.0);
  const int n = dim(rng), c = dim(rng), h = large ? 64 + dim(rng) : dim(rng), w = large ? 128 : dim(rng);
  const bool bias = rng() % 2 == 0;
  const size_t count = static_cast<size_t>(n) * c * h * w;
  const size_t x_count = bias ? static_cast<size_t>(c) : count;

  cudnnTensorDescriptor_t y_desc = nullptr, x_desc = nullptr;
  struct Cleanup {
    cudnnTensorDescriptor_t &a, &b;
    ~Cleanup() {
      if (a) cudnnDestroyTensorDescriptor(a);
      if (b) cudnnDestroyTensorDescriptor(b);
    }
  } cleanup{y_desc, x_desc};
  WORKER_CHECK(cudnnCreateTensorDescriptor(&y_desc));
  WORKER_CHECK(cudnnCreateTensorDescriptor(&x_desc));
  WORKER_CHECK(cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  if (bias) {
    WORKER_CHECK(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, 1, 1));
  } else {
    WORKER_CHECK(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  }

  // The descriptor reads back as set, in this thread, while others set theirs.
  cudnnDataType_t dt;
  int gn, gc, gh, gw, sn, sc, sh, sw;
  WORKER_CHECK(cudnnGetTensor4dDescriptor(y_desc, &dt, &gn, &gc, &gh, &gw, &sn, &sc, &sh, &sw));
  if (dt != CUDNN_DATA_FLOAT || gn != n || gc != c || gh != h || gw != w || sw != 1 || sh != w || sc != h * w ||
      sn != c * h * w)
    return "descriptor read back differently";
  size_t bytes = 0;
  WORKER_CHECK(cudnnGetTensorSizeInBytes(y_desc, &bytes));
  if (bytes != count * sizeof(float)) return "cudnnGetTensorSizeInBytes gave " + std::to_string(bytes);

  std::vector<float> x_host(x_count);
  for (float &v : x_host) v = static_cast<float>(val(rng));
  const float fill = static_cast<float>(val(rng)), scale = static_cast<float>(val(rng));
  const float alpha = static_cast<float>(val(rng)), beta = static_cast<float>(val(rng));

  fdnn_test::Buffer x(x_count * sizeof(float)), y(count * sizeof(float));
  x.upload(x_host.data(), x_count * sizeof(float));
  std::vector<float> poison(count, std::nanf(""));
  y.upload(poison.data(), count * sizeof(float));

  WORKER_CHECK(cudnnSetTensor(handle, y_desc, y.get(), &fill));
  WORKER_CHECK(cudnnScaleTensor(handle, y_desc, y.get(), &scale));
  WORKER_CHECK(cudnnAddTensor(handle, &alpha, x_desc, x.get(), &beta, y_desc, y.get()));

  std::vector<float> got(count);
  y.download(got.data(), count * sizeof(float));
  const size_t plane = static_cast<size_t>(h) * w;
  for (size_t i = 0; i < count; ++i) {
    double xi = bias ? x_host[(i / plane) % c] : x_host[i];
    double want = double(alpha) * xi + double(beta) * (double(fill) * double(scale));
    double tol = 1e-5 * (1.0 + std::fabs(want)) + 1e-5 * (std::fabs(alpha * xi) + std::fabs(beta * fill * scale));
    if (!(std::fabs(got[i] - want) <= tol)) {
      std::ostringstream os;
      os << "element " << i << " of [" << n << "," << c << "," << h << "," << w << "]" << (bias ? " (bias)" : "")
         << ": got " << got[i] << ", want " << want;
      return os.str();
    }
  }
  return "";
}

TEST(Threads, EachThreadItsOwnHandle) {
  auto outcomes = run_threads([](int t) -> Outcome {
    cudnnHandle_t handle = nullptr;
    WORKER_CHECK(cudnnCreate(&handle));
    std::mt19937 rng(1234u + static_cast<unsigned>(t));
    Outcome result;
    for (int round = 0; round < 40 && result.empty(); ++round) result = tensor_round(handle, rng, round % 10 == 0);
    if (cudnnDestroy(handle) != CUDNN_STATUS_SUCCESS && result.empty()) result = "cudnnDestroy failed";
    return result;
  });
  judge(outcomes);
}

TEST(Threads, HandlesCreatedAndDestroyedConcurrently) {
  auto outcomes = run_threads([](int t) -> Outcome {
    for (int i = 0; i < 50; ++i) {
      cudnnHandle_t handle = nullptr;
      WORKER_CHECK(cudnnCreate(&handle));
      cudaStream_t want = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(0x1000 * (t + 1) + i));
      if (fdnn_test::gpu_mode()) want = nullptr;  // a GPU handle may check the stream
      WORKER_CHECK(cudnnSetStream(handle, want));
      cudaStream_t got = nullptr;
      WORKER_CHECK(cudnnGetStream(handle, &got));
      WORKER_CHECK(cudnnDestroy(handle));
      if (got != want) return "stream of another handle came back";
    }
    return "";
  });
  judge(outcomes);
}

TEST(Threads, SharedHandleDescriptorFreeCalls) {
  cudnnHandle_t handle = nullptr;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  auto outcomes = run_threads([handle](int t) -> Outcome {
    for (int i = 0; i < 200; ++i) {
      cudaStream_t s = reinterpret_cast<cudaStream_t>(0x1);
      WORKER_CHECK(cudnnGetStream(handle, &s));
      if (s != nullptr) return "unexpected stream";
      cudnnStatus_t rstatus = CUDNN_STATUS_INTERNAL_ERROR;
      WORKER_CHECK(cudnnQueryRuntimeError(handle, &rstatus, CUDNN_ERRQUERY_RAWCODE, nullptr));
      if (rstatus != CUDNN_STATUS_SUCCESS) return "runtime error reported";
      int major = -1;
      WORKER_CHECK(cudnnGetProperty(MAJOR_VERSION, &major));
      if (major != CUDNN_MAJOR || cudnnGetVersion() != CUDNN_VERSION) return "wrong version";
      if (std::strcmp(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM") != 0)
        return "wrong error string";
      // Failures on the shared handle: each thread reads back its own message.
      if (i % 3 == t % 3) {
        const bool odd = t % 2 == 1;
        cudnnStatus_t st = odd ? cudnnGetStream(handle, nullptr) : cudnnGetProperty(PATCH_LEVEL, nullptr);
        if (st != CUDNN_STATUS_BAD_PARAM) return "bad call did not fail";
        std::string msg = last_error();
        const char *want = odd ? "cudnnGetStream" : "cudnnGetProperty";
        if (msg.find(want) == std::string::npos) return "thread read another thread's error: " + msg;
      }
    }
    return "";
  });
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
  judge(outcomes);
}

TEST(Threads, SharedHandleTensorOps) {
  // cuDNN asks for a handle per thread; FreeDNN's handle state (plan cache,
  // scratch) is locked, so sharing one must not corrupt results either.
  cudnnHandle_t handle = nullptr;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  auto outcomes = run_threads(
      [handle](int t) -> Outcome {
        std::mt19937 rng(777u + static_cast<unsigned>(t));
        Outcome result;
        for (int round = 0; round < 25 && result.empty(); ++round) result = tensor_round(handle, rng, round % 8 == 0);
        return result;
      },
      4);
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
  judge(outcomes);
}

void ignore_message(cudnnSeverity_t, void *udata, const cudnnDebug_t *, const char *) {
  static_cast<std::atomic<int> *>(udata)->fetch_add(1, std::memory_order_relaxed);
}

TEST(Threads, CallbackChangesWhileOtherThreadsFail) {
  unsigned mask0 = 0;
  void *udata0 = nullptr;
  cudnnCallback_t fptr0 = nullptr;
  ASSERT_EQ(cudnnGetCallback(&mask0, &udata0, &fptr0), CUDNN_STATUS_SUCCESS);
  std::atomic<int> delivered{0};
  std::atomic<bool> done{false};
  std::thread switcher([&] {
    for (int i = 0; !done.load(); ++i) {
      cudnnSetCallback(i % 2 ? CUDNN_SEV_ERROR_EN : 0, &delivered, ignore_message);
      std::this_thread::yield();
    }
  });
  auto outcomes = run_threads([](int) -> Outcome {
    for (int i = 0; i < 300; ++i) {
      if (cudnnGetProperty(MAJOR_VERSION, nullptr) != CUDNN_STATUS_BAD_PARAM) return "bad call did not fail";
      if (last_error().find("cudnnGetProperty") == std::string::npos) return "message lost";
    }
    return "";
  });
  done = true;
  switcher.join();
  ASSERT_EQ(cudnnSetCallback(mask0, udata0, fptr0), CUDNN_STATUS_SUCCESS);
  judge(outcomes);
}

}  // namespace
