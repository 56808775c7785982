#include "check_child.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "op.hpp"

extern char **environ;

namespace bench {
namespace {

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "freednn-bench";
  buf[n] = '\0';
  return buf;
}

std::vector<std::string> split_words(const std::string &s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

// Runs argv with FREEDNN_VERBOSE=1 and stdout+stderr captured; returns the
// exit code (-1 when killed by a signal, with the signal in `output`).
int spawn_captured(const std::vector<std::string> &args, std::string *output) {
  std::vector<std::string> vars;
  for (char **e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "FREEDNN_VERBOSE=", 16) != 0) vars.emplace_back(*e);
  vars.emplace_back("FREEDNN_VERBOSE=1");
  std::vector<char *> envp, argv;
  for (auto &v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::vector<std::string> a = args;
  for (auto &s : a) argv.push_back(s.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) {
    *output = std::string("pipe failed: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, a[0].c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    *output = std::string("posix_spawn failed: ") + std::strerror(rc);
    return -1;
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output->append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) *output += "\n[killed by signal " + std::to_string(WTERMSIG(status)) + "]";
  return -1;
}

// "freednn_verbose,exec,cpu,cudnnAddTensor,engine=cpu.x,..." -> device, engine
void parse_verbose_line(const std::string &line, CheckOutcome *out) {
  static const std::string prefix = "freednn_verbose,exec,";
  if (line.rfind(prefix, 0) != 0) return;
  std::string rest = line.substr(prefix.size());
  std::string device = rest.substr(0, rest.find(','));
  auto at = rest.find(",engine=");
  if (at == std::string::npos) return;
  std::string engine = rest.substr(at + 8);
  engine = engine.substr(0, engine.find(','));
  if (out->device.empty()) out->device = device;
  // Several calls (e.g. a reduce that runs two graphs): list each engine once.
  std::string joined = "+" + out->engine + "+";
  if (joined.find("+" + engine + "+") == std::string::npos)
    out->engine += (out->engine.empty() ? "" : "+") + engine;
}

std::string status_name(cudnnStatus_t s) {
  return s == CUDNN_STATUS_NOT_SUPPORTED ? "UNIMPLEMENTED" : "ERROR";
}

void print_result(const std::string &status, const std::string &detail) {
  std::string flat = detail;
  for (char &c : flat)
    if (c == '\n') c = ' ';
  std::fflush(stdout);
  std::printf("%s%s,%s\n", kCheckLinePrefix, status.c_str(), flat.c_str());
  std::fflush(stdout);
}

}  // namespace

CheckOutcome check_in_child(const Config &cfg, const Problem &p) {
  std::vector<std::string> args = {self_path(), "--internal-check", "--seed=" + std::to_string(cfg.seed)};
  for (const std::string &w : split_words(problem_text(p))) args.push_back(w);

  CheckOutcome out;
  int code = spawn_captured(args, &out.output);
  std::istringstream lines(out.output);
  std::string line;
  bool got_result = false;
  while (std::getline(lines, line)) {
    parse_verbose_line(line, &out);
    if (line.rfind(kCheckLinePrefix, 0) == 0) {
      std::string rest = line.substr(std::strlen(kCheckLinePrefix));
      out.status = rest.substr(0, rest.find(','));
      out.detail = rest.find(',') == std::string::npos ? "" : rest.substr(rest.find(',') + 1);
      got_result = true;
    }
  }
  if (!got_result) {
    out.status = "CRASHED";
    out.detail = code < 0 ? "the check process died (see its output)" : "the check process exited with code " +
                                                                           std::to_string(code) + " and no result";
  }
  return out;
}

int run_internal_check(const Config &cfg) {
  if (cfg.problems.size() != 1) {
    print_result("ERROR", "--internal-check takes exactly one problem");
    return 2;
  }
  const Problem &p = cfg.problems.front();
  cudnnHandle_t handle = nullptr;
  try {
    check_status(cudnnCreate(&handle), "cudnnCreate");
    auto run = OpRegistry::instance().find(p.knobs.op)->prepare(handle, p);
    run->fill(cfg.seed);
    run->execute();
    CheckResult r = run->check();
    run.reset();
    cudnnDestroy(handle);
    print_result(r.passed ? "PASSED" : "FAILED", r.detail);
    return 0;
  } catch (const ApiError &e) {
    print_result(status_name(e.status), e.what());
  } catch (const std::exception &e) {
    print_result("ERROR", e.what());
  }
  if (handle) cudnnDestroy(handle);
  return 0;
}

}  // namespace bench
