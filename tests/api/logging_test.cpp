// cudnnGetLastErrorString, the logging callback (cudnnSetCallback /
// cudnnGetCallback), the CUDNN_LOG*_DBG environment and FREEDNN_VERBOSE.
// The library reads its environment once per process, so the environment
// tests run their calls in a child process of this binary.
#include <cudnn.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.hpp"

namespace {

std::string take_last_error() {
  char buf[4096];
  std::memset(buf, 'Z', sizeof buf);
  cudnnGetLastErrorString(buf, sizeof buf);
  return buf;
}

// A failing call with a known cause: the output pointer is NULL.
void fail_get_property() { ASSERT_EQ(cudnnGetProperty(MAJOR_VERSION, nullptr), CUDNN_STATUS_BAD_PARAM); }

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// ---------------------------------------------------------------------------
// Last error
// ---------------------------------------------------------------------------

TEST(LastError, NamesTheFunctionAndTheArgument) {
  take_last_error();
  fail_get_property();
  std::string msg = take_last_error();
  EXPECT_NE(msg.find("cudnnGetProperty"), std::string::npos) << msg;
  EXPECT_NE(msg.find("value"), std::string::npos) << msg;

  cudnnHandle_t *no_out = nullptr;
  ASSERT_EQ(cudnnCreate(no_out), CUDNN_STATUS_BAD_PARAM);
  msg = take_last_error();
  EXPECT_NE(msg.find("cudnnCreate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("handle"), std::string::npos) << msg;
}

TEST(LastError, SecondReadIsEmpty) {
  fail_get_property();
  EXPECT_FALSE(take_last_error().empty());
  EXPECT_EQ(take_last_error(), "");
}

TEST(LastError, LatestFailureWins) {
  fail_get_property();
  ASSERT_EQ(cudnnCreate(nullptr), CUDNN_STATUS_BAD_PARAM);
  std::string msg = take_last_error();
  EXPECT_NE(msg.find("cudnnCreate"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("cudnnGetProperty"), std::string::npos) << msg;
}

TEST(LastError, SuccessfulCallKeepsThePendingMessage) {
  // NVIDIA's library behaves so: only a read consumes the message.
  fail_get_property();
  int v = 0;
  ASSERT_EQ(cudnnGetProperty(MAJOR_VERSION, &v), CUDNN_STATUS_SUCCESS);
  EXPECT_NE(take_last_error().find("cudnnGetProperty"), std::string::npos);
}

TEST(LastError, TruncatesToMaxSizeWithNul) {
  fail_get_property();
  const std::string full = take_last_error();
  ASSERT_GT(full.size(), 8u);
  for (size_t size : {size_t(1), size_t(2), size_t(8), full.size(), full.size() + 1, full.size() + 2}) {
    fail_get_property();
    std::vector<char> buf(full.size() + 16, 'Z');
    cudnnGetLastErrorString(buf.data(), size);
    size_t kept = std::min(size - 1, full.size());
    EXPECT_EQ(std::string(buf.data(), kept), full.substr(0, kept)) << "max_size " << size;
    EXPECT_EQ(buf[kept], '\0') << "max_size " << size;
    for (size_t i = kept + 1; i < buf.size(); ++i) ASSERT_EQ(buf[i], 'Z') << "wrote past max_size " << size;
    EXPECT_EQ(take_last_error(), "") << "a truncated read still consumes the message";
  }
}

TEST(LastError, ZeroSizeOrNullBufferConsumesWithoutWriting) {
  fail_get_property();
  char buf[8];
  std::memset(buf, 'Z', sizeof buf);
  cudnnGetLastErrorString(buf, 0);
  for (char c : buf) EXPECT_EQ(c, 'Z');
  EXPECT_EQ(take_last_error(), "");

  fail_get_property();
  cudnnGetLastErrorString(nullptr, 64);
  EXPECT_EQ(take_last_error(), "");
}

TEST(LastError, IsPerThread) {
  take_last_error();
  ASSERT_EQ(cudnnCreate(nullptr), CUDNN_STATUS_BAD_PARAM);  // main thread's pending message

  std::string seen_by_other, own_in_other;
  std::thread other([&] {
    seen_by_other = take_last_error();
    fail_get_property();
    own_in_other = take_last_error();
  });
  other.join();
  EXPECT_EQ(seen_by_other, "") << "another thread's failure leaked";
  EXPECT_NE(own_in_other.find("cudnnGetProperty"), std::string::npos) << own_in_other;

  std::string mine = take_last_error();
  EXPECT_NE(mine.find("cudnnCreate"), std::string::npos) << "a failure in another thread replaced this one: " << mine;
}

// ---------------------------------------------------------------------------
// Callback
// ---------------------------------------------------------------------------

struct Received {
  cudnnSeverity_t severity;
  void *udata;
  cudnnDebug_t dbg;
  std::string message;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Received> messages;

  static void callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg) {
    auto *self = static_cast<Recorder *>(udata);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->messages.push_back({sev, udata, dbg ? *dbg : cudnnDebug_t{}, msg ? msg : "<NULL>"});
  }
  std::vector<Received> take() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::move(messages);
  }
};

// Restores the process's logging state after a test changed it. The recorder
// is a member so that it outlives TearDown (restoring the callback is itself
// an API call that the recorder may still be asked to trace).
class Logging : public ::testing::Test {
 protected:
  Recorder rec;

  void SetUp() override { ASSERT_EQ(cudnnGetCallback(&mask_, &udata_, &fptr_), CUDNN_STATUS_SUCCESS); }
  void TearDown() override {
    EXPECT_EQ(cudnnSetCallback(mask_, udata_, fptr_), CUDNN_STATUS_SUCCESS);
    take_last_error();
  }

 private:
  unsigned mask_ = 0;
  void *udata_ = nullptr;
  cudnnCallback_t fptr_ = nullptr;
};

TEST_F(Logging, CallbackReceivesErrorsWithDebugInfo) {
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  fail_get_property();
  auto got = rec.take();
  ASSERT_EQ(got.size(), 1u);
  const Received &r = got[0];
  EXPECT_EQ(r.severity, CUDNN_SEV_ERROR);
  EXPECT_EQ(r.udata, &rec);
  EXPECT_EQ(r.dbg.cudnn_version, static_cast<unsigned>(CUDNN_VERSION));
  EXPECT_EQ(r.dbg.cudnnStatus, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(r.dbg.pid, static_cast<unsigned long long>(getpid()));
  EXPECT_EQ(r.dbg.tid, static_cast<unsigned long long>(syscall(SYS_gettid)));
  EXPECT_NE(r.dbg.time_sec, 0u);
  EXPECT_NE(r.message.find("cudnnGetProperty"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("value"), std::string::npos) << r.message;
}

TEST_F(Logging, GetCallbackReturnsWhatWasSet) {
  const unsigned mask = CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN;
  ASSERT_EQ(cudnnSetCallback(mask, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  unsigned m = 0;
  void *u = nullptr;
  cudnnCallback_t f = nullptr;
  ASSERT_EQ(cudnnGetCallback(&m, &u, &f), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, mask);
  EXPECT_EQ(u, &rec);
  EXPECT_EQ(f, &Recorder::callback);

  // Any one output alone is fine; all three NULL is a bad call.
  m = 0;
  EXPECT_EQ(cudnnGetCallback(&m, nullptr, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(m, mask);
  u = nullptr;
  EXPECT_EQ(cudnnGetCallback(nullptr, &u, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(u, &rec);
  f = nullptr;
  EXPECT_EQ(cudnnGetCallback(nullptr, nullptr, &f), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(f, &Recorder::callback);
  EXPECT_EQ(cudnnGetCallback(nullptr, nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
}

TEST_F(Logging, MaskZeroSilences) {
  ASSERT_EQ(cudnnSetCallback(0, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  fail_get_property();
  int v = 0;
  ASSERT_EQ(cudnnGetProperty(MAJOR_VERSION, &v), CUDNN_STATUS_SUCCESS);
  EXPECT_TRUE(rec.take().empty());
}

TEST_F(Logging, MaskSelectsSeverities) {
  // Warnings only: a BAD_PARAM failure is an error and is not delivered.
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_WARNING_EN, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  fail_get_property();
  EXPECT_TRUE(rec.take().empty());

  // Info: successful API calls are traced, and nothing of higher severity.
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_INFO_EN, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  rec.take();
  int v = 0;
  ASSERT_EQ(cudnnGetProperty(MINOR_VERSION, &v), CUDNN_STATUS_SUCCESS);
  fail_get_property();
  auto got = rec.take();
  ASSERT_FALSE(got.empty());
  for (const auto &r : got) {
    EXPECT_EQ(r.severity, CUDNN_SEV_INFO) << r.message;
    EXPECT_NE(r.message.find("cudnnGetProperty"), std::string::npos) << r.message;
  }
}

TEST_F(Logging, CallbackSeesTheFailingThread) {
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &rec, Recorder::callback), CUDNN_STATUS_SUCCESS);
  unsigned long long tid = 0;
  std::thread t([&] {
    tid = static_cast<unsigned long long>(syscall(SYS_gettid));
    fail_get_property();
    take_last_error();
  });
  t.join();
  auto got = rec.take();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].dbg.tid, tid);
}

// A callback that calls the library itself (to read a property, or with a
// bad argument) must neither deadlock nor feed itself its own messages.
std::atomic<int> g_reentrant_calls{0};
void reentrant_callback(cudnnSeverity_t, void *, const cudnnDebug_t *, const char *) {
  g_reentrant_calls.fetch_add(1);
  int v = 0;
  cudnnGetProperty(MAJOR_VERSION, &v);
  cudnnGetProperty(MAJOR_VERSION, nullptr);
}

TEST_F(Logging, CallbackMayCallTheLibrary) {
  g_reentrant_calls = 0;
  ASSERT_EQ(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_INFO_EN, nullptr, reentrant_callback),
            CUDNN_STATUS_SUCCESS);
  auto done = std::async(std::launch::async, [] {
    fail_get_property();
    take_last_error();
  });
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    std::fprintf(stderr, "a callback calling the library deadlocked\n");
    std::abort();  // the stuck thread cannot be joined
  }
  // One trace for the call and one error; none for the callback's own calls.
  EXPECT_EQ(g_reentrant_calls.load(), 2);
}

// ---------------------------------------------------------------------------
// Environment (child processes)
// ---------------------------------------------------------------------------

FDNN_CHILD_BODY(FailOneCall) {
  int v = 0;
  if (cudnnGetProperty(PATCH_LEVEL, &v) != CUDNN_STATUS_SUCCESS) return 2;
  return cudnnGetProperty(MAJOR_VERSION, nullptr) == CUDNN_STATUS_BAD_PARAM ? 0 : 3;
}

struct EnvCase {
  const char *what;
  std::vector<std::pair<std::string, std::string>> env;
  bool expect_error;
  bool expect_trace;
};

TEST(LoggingEnvironment, DebugVariablesWriteToTheLogFile) {
  const EnvCase cases[] = {
      {"nothing set", {}, false, false},
      {"CUDNN_LOGERR_DBG=1", {{"CUDNN_LOGERR_DBG", "1"}}, true, false},
      {"CUDNN_LOGERR_DBG=0", {{"CUDNN_LOGERR_DBG", "0"}}, false, false},
      {"CUDNN_LOGWARN_DBG=1", {{"CUDNN_LOGWARN_DBG", "1"}}, false, false},
      {"CUDNN_LOGINFO_DBG=1", {{"CUDNN_LOGINFO_DBG", "1"}}, false, true},
      {"CUDNN_LOGLEVEL_DBG=1", {{"CUDNN_LOGLEVEL_DBG", "1"}}, true, false},
      {"CUDNN_LOGLEVEL_DBG=3", {{"CUDNN_LOGLEVEL_DBG", "3"}}, true, true},
  };
  for (const EnvCase &c : cases) {
    SCOPED_TRACE(c.what);
    std::string path = fdnn_test::temp_path("log");
    auto env = c.env;
    env.emplace_back("CUDNN_LOGDEST_DBG", path);
    fdnn_test::ChildResult r = fdnn_test::run_child("FailOneCall", env);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string log = fdnn_test::read_file(path);
    std::remove(path.c_str());
    EXPECT_EQ(r.output, "") << "logged to a file, yet the child printed";
    if (c.expect_error) {
      EXPECT_EQ(count(log, "value is NULL"), 1u) << log;
      EXPECT_NE(log.find("cudnnGetProperty"), std::string::npos) << log;
      EXPECT_NE(log.find("E!"), std::string::npos) << log;
    } else {
      EXPECT_EQ(log.find("value is NULL"), std::string::npos) << log;
    }
    if (c.expect_trace) {
      EXPECT_NE(log.find("I!"), std::string::npos) << log;
    } else {
      EXPECT_EQ(log.find("I!"), std::string::npos) << log;
    }
  }
}

TEST(LoggingEnvironment, DestinationStdoutAndStderr) {
  for (const char *dest : {"stdout", "stderr"}) {
    SCOPED_TRACE(dest);
    fdnn_test::ChildResult r = fdnn_test::run_child("FailOneCall", {{"CUDNN_LOGERR_DBG", "1"}, {"CUDNN_LOGDEST_DBG", dest}});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(count(r.output, "value is NULL"), 1u) << r.output;
  }
}

// FREEDNN_VERBOSE=1: one line per executed operation (and one per handle).
FDNN_CHILD_BODY(VerboseTwoOps) {
  cudnnHandle_t handle = nullptr;
  if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) return 2;
  cudnnTensorDescriptor_t desc = nullptr;
  cudnnStatus_t s = cudnnCreateTensorDescriptor(&desc);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 3, 4);
  float data[24];
  for (float &x : data) x = -1.0f;
  const float value = 1.5f, scale = 2.0f;
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetTensor(handle, desc, data, &value);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnScaleTensor(handle, desc, data, &scale);
  if (s == CUDNN_STATUS_NOT_SUPPORTED) {
    std::printf("SKIP: tensor descriptors or cudnnSetTensor/cudnnScaleTensor not supported yet\n");
    return fdnn_test::kChildSkip;
  }
  if (s != CUDNN_STATUS_SUCCESS) {
    std::printf("FAIL: status %s\n", cudnnGetErrorString(s));
    return 3;
  }
  for (float x : data)
    if (x != 3.0f) {
      std::printf("FAIL: element %g, expected 3\n", x);
      return 4;
    }
  cudnnDestroyTensorDescriptor(desc);
  cudnnDestroy(handle);
  return 0;
}

TEST(LoggingEnvironment, VerbosePrintsOneLinePerExecutedOp) {
  fdnn_test::ChildResult r = fdnn_test::run_child("VerboseTwoOps", {{"FREEDNN_VERBOSE", "1"}, {"FREEDNN_DEVICE", "cpu"}});
  if (r.exit_code == fdnn_test::kChildSkip) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "freednn_verbose,create,cpu"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "freednn_verbose,exec,"), 2u) << r.output;
  EXPECT_EQ(count(r.output, "cudnnSetTensor"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "cudnnScaleTensor"), 1u) << r.output;

  fdnn_test::ChildResult quiet = fdnn_test::run_child("VerboseTwoOps", {{"FREEDNN_DEVICE", "cpu"}});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("freednn_verbose"), std::string::npos) << quiet.output;
}

}  // namespace
