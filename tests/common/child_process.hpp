// Runs a piece of test code in a fresh process of the test binary itself.
// Needed where the library reads its environment once per process (logging,
// FREEDNN_VERBOSE, FREEDNN_DEVICE at cudnnCreate): the child starts with the
// variables a test chooses and the parent checks what it printed.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fdnn_test {

// Exit codes of a child body: 0 passed, kChildSkip skipped (the reason is in
// its output), anything else failed.
constexpr int kChildSkip = 77;

// Registers `body` under `name`. When the test binary starts with
// FREEDNN_TEST_CHILD=<name>, the body runs during static initialisation, before
// any test, and the process exits with its return value.
struct ChildEntry {
  ChildEntry(const char *name, int (*body)());
};

struct ChildResult {
  int exit_code = -1;  // -1: did not exit normally (signal, or could not start)
  std::string output;  // stdout and stderr, interleaved
};

// Starts the test binary with FREEDNN_TEST_CHILD=<name> and `env` added to the
// current environment (minus the logging/verbose variables, so that the child
// sees only what the test sets) and waits for it.
ChildResult run_child(const std::string &name, const std::vector<std::pair<std::string, std::string>> &env);

// A fresh path under $TMPDIR (or /tmp) for a child's files; not created.
std::string temp_path(const std::string &stem);

std::string read_file(const std::string &path);

}  // namespace fdnn_test

// Defines a child body: FDNN_CHILD_BODY(LogToFile) { ...; return 0; }
// The body may use only the C API and the C library (it runs before main).
#define FDNN_CHILD_BODY(name)                                                   \
  static int fdnn_child_body_##name();                                          \
  static ::fdnn_test::ChildEntry fdnn_child_entry_##name(#name, fdnn_child_body_##name); \
  static int fdnn_child_body_##name()
