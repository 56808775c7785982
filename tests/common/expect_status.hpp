// Checking a failed call: its status and the last-error message that names
// the function and the offending argument.
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include <string>

namespace fdnn_test {

// Reads (and so clears) this thread's last error message.
inline std::string last_error() {
  char buf[1024];
  buf[0] = '\0';
  cudnnGetLastErrorString(buf, sizeof buf);
  return buf;
}

}  // namespace fdnn_test

// Expects `status` and a last-error message naming `function` and `needle`
// (the argument). Built with FDNN_TEST_STATUS_ONLY (to run the tests against
// another cuDNN, whose messages differ) only the status is checked.
#ifdef FDNN_TEST_STATUS_ONLY
#define EXPECT_FAILS_NAMING(call, status, function, needle) \
  do {                                                      \
    EXPECT_EQ((call), (status));                            \
    ::fdnn_test::last_error();                              \
  } while (0)
#else
#define EXPECT_FAILS_NAMING(call, status, function, needle)                                  \
  do {                                                                                       \
    EXPECT_EQ((call), (status));                                                             \
    const std::string msg_ = ::fdnn_test::last_error();                                      \
    EXPECT_NE(msg_.find(function), std::string::npos) << msg_;                               \
    EXPECT_NE(msg_.find(needle), std::string::npos) << "no '" << needle << "' in: " << msg_; \
  } while (0)
#endif
