#include "common/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char **environ;

namespace fdnn_test {

namespace {

constexpr const char *kChildVar = "FREEDNN_TEST_CHILD";

// Variables that change what the library prints; the parent's values must
// not leak into a child that checks output.
bool is_controlled(const std::string &entry) {
  static const char *const prefixes[] = {"CUDNN_LOG", "FREEDNN_VERBOSE=", "FREEDNN_TEST_CHILD="};
  for (const char *p : prefixes)
    if (entry.rfind(p, 0) == 0) return true;
  return false;
}

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  buf[n] = '\0';
  return buf;
}

}  // namespace

ChildEntry::ChildEntry(const char *name, int (*body)()) {
  const char *wanted = std::getenv(kChildVar);
  if (wanted == nullptr || std::strcmp(wanted, name) != 0) return;
  int code = body();
  std::fflush(stdout);
  std::fflush(stderr);
  // _exit: the rest of the binary's static objects may not exist yet.
  _exit(code);
}

std::string temp_path(const std::string &stem) {
  static std::atomic<int> counter{0};
  const char *dir = std::getenv("TMPDIR");
  std::ostringstream os;
  os << (dir && *dir ? dir : "/tmp") << "/freednn_" << stem << '_' << getpid() << '_' << counter++;
  return os.str();
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

ChildResult run_child(const std::string &name, const std::vector<std::pair<std::string, std::string>> &env) {
  ChildResult result;
  std::vector<std::string> vars;
  for (char **e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    bool overridden = is_controlled(entry);
    for (const auto &kv : env)
      if (entry.rfind(kv.first + "=", 0) == 0) overridden = true;
    if (!overridden) vars.push_back(entry);
  }
  for (const auto &kv : env) vars.push_back(kv.first + "=" + kv.second);
  vars.push_back(std::string(kChildVar) + "=" + name);

  std::vector<char *> envp;
  for (auto &v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);

  std::string exe = self_path();
  std::string out_path = temp_path("child_out");
  std::vector<char *> argv = {exe.data(), nullptr};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.output = std::string("posix_spawn failed: ") + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.output = read_file(out_path);
  if (WIFSIGNALED(status)) result.output += "\n[child killed by signal " + std::to_string(WTERMSIG(status)) + "]";
  std::remove(out_path.c_str());
  return result;
}

}  // namespace fdnn_test
