#include "core/log.hpp"

#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace fdnn::log {
namespace {

struct State {
  std::mutex mutex;
  // Atomic: enabled() and verbose() read these without the mutex on every
  // API call while cudnnSetCallback may change the mask on another thread.
  std::atomic<unsigned> mask{0};  // CUDNN_SEV_*_EN bits that are active
  void *user_data = nullptr;
  cudnnCallback_t callback = nullptr;  // nullptr: write to `dest`
  FILE *dest = stderr;
  bool owns_dest = false;
  std::atomic<bool> verbose{false};
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

bool env_is_on(const char *name) {
  const char *v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

void read_environment(State &s) {
  unsigned mask = 0;
  // cuDNN 9 level: 0 off, 1 errors, 2 + warnings, 3 + info.
  if (const char *level = std::getenv("CUDNN_LOGLEVEL_DBG")) {
    int l = std::atoi(level);
    if (l >= 1) mask |= CUDNN_SEV_ERROR_EN;
    if (l >= 2) mask |= CUDNN_SEV_WARNING_EN;
    if (l >= 3) mask |= CUDNN_SEV_INFO_EN;
  }
  if (env_is_on("CUDNN_LOGERR_DBG")) mask |= CUDNN_SEV_ERROR_EN;
  if (env_is_on("CUDNN_LOGWARN_DBG")) mask |= CUDNN_SEV_WARNING_EN;
  if (env_is_on("CUDNN_LOGINFO_DBG")) mask |= CUDNN_SEV_INFO_EN;
  s.mask = mask;

  if (s.owns_dest && s.dest) std::fclose(s.dest);
  s.dest = stderr;
  s.owns_dest = false;
  if (const char *d = std::getenv("CUDNN_LOGDEST_DBG")) {
    if (std::strcmp(d, "stdout") == 0) {
      s.dest = stdout;
    } else if (std::strcmp(d, "stderr") == 0 || d[0] == '\0') {
      s.dest = stderr;
    } else if (FILE *f = std::fopen(d, "a")) {
      s.dest = f;
      s.owns_dest = true;
    }
  }
  s.verbose = env_is_on("FREEDNN_VERBOSE");
}

State &state() {
  static State *s = [] {
    auto *st = new State();  // never destroyed: logging may run during exit
    read_environment(*st);
    return st;
  }();
  return *s;
}

char severity_letter(cudnnSeverity_t sev) {
  switch (sev) {
    case CUDNN_SEV_FATAL: return 'F';
    case CUDNN_SEV_ERROR: return 'E';
    case CUDNN_SEV_WARNING: return 'W';
    default: return 'I';
  }
}

unsigned mask_bit(cudnnSeverity_t sev) {
  // FATAL has no mask bit of its own; it always goes out with errors.
  return sev == CUDNN_SEV_FATAL ? CUDNN_SEV_ERROR_EN : (1u << sev);
}

}  // namespace

bool enabled(cudnnSeverity_t severity) { return (state().mask & mask_bit(severity)) != 0; }

void emit(cudnnSeverity_t severity, const char *api_function, const std::string &message,
          cudnnStatus_t status, cudnnHandle_t handle) {
  // A user callback that calls back into the library must neither deadlock
  // on our mutex nor recurse through its own messages.
  thread_local bool in_callback = false;
  if (in_callback) return;
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  if ((s.mask & mask_bit(severity)) == 0) return;

  timeval now{};
  gettimeofday(&now, nullptr);
  auto since = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::steady_clock::now() - s.start).count();
  cudnnDebug_t dbg{};
  dbg.cudnn_version = CUDNN_VERSION;
  dbg.cudnnStatus = status;
  dbg.time_sec = static_cast<unsigned>(now.tv_sec);
  dbg.time_usec = static_cast<unsigned>(now.tv_usec);
  dbg.time_delta = static_cast<unsigned>(since);
  dbg.handle = handle;
  dbg.stream = nullptr;
  dbg.pid = static_cast<unsigned long long>(getpid());
  dbg.tid = static_cast<unsigned long long>(syscall(SYS_gettid));
  dbg.cudaDeviceId = -1;

  std::string text = std::string(api_function ? api_function : "") + ": " + message;
  if (s.callback) {
    cudnnCallback_t callback = s.callback;
    void *user_data = s.user_data;
    lock.unlock();
    in_callback = true;
    callback(severity, user_data, &dbg, text.c_str());
    in_callback = false;
    return;
  }
  char c = severity_letter(severity);
  std::fprintf(s.dest,
               "%c! FreeDNN (v%d) function %s() called:\n"
               "%c!     Info: %s\n"
               "%c!     Status: %d\n"
               "%c! Time: %u.%06u (%llus since start)\n"
               "%c! Process=%llu; Thread=%llu; Handle=%p.\n\n",
               c, CUDNN_VERSION, api_function ? api_function : "?", c + 32, message.c_str(),
               c + 32, static_cast<int>(status), c, dbg.time_sec, dbg.time_usec,
               static_cast<unsigned long long>(since), c, dbg.pid, dbg.tid,
               static_cast<void *>(handle));
  std::fflush(s.dest);
}

void set_callback(unsigned mask, void *user_data, cudnnCallback_t callback) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.mask = mask;
  s.user_data = user_data;
  s.callback = callback;
}

void get_callback(unsigned *mask, void **user_data, cudnnCallback_t *callback) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (mask) *mask = s.mask;
  if (user_data) *user_data = s.user_data;
  if (callback) *callback = s.callback;
}

bool verbose() { return state().verbose; }

void verbose_line(const std::string &line) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::fprintf(stdout, "freednn_verbose,%s\n", line.c_str());
  std::fflush(stdout);
}

void reload_environment() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  read_environment(s);
}

}  // namespace fdnn::log
