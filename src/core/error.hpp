// Internal error model. Library code reports failures by throwing fdnn::Error;
// the C API boundary (api/guard.hpp) turns it into a cudnnStatus_t and records
// the message for cudnnGetLastErrorString and the log.
#pragma once

#include <cudnn_graph.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace fdnn {

class Error : public std::runtime_error {
 public:
  Error(cudnnStatus_t status, std::string message)
      : std::runtime_error(std::move(message)), status_(status) {}
  cudnnStatus_t status() const { return status_; }

 private:
  cudnnStatus_t status_;
};

// Concatenates anything streamable: cat("dims[", i, "] = ", d).
template <class... Args>
std::string cat(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
[[noreturn]] void fail(cudnnStatus_t status, const Args &...args) {
  throw Error(status, cat(args...));
}

// Argument checks. The message names the argument, the value and what was
// expected, so that the user can fix the call without reading our source.
template <class... Args>
void check_arg(bool ok, const Args &...args) {
  if (!ok) fail(CUDNN_STATUS_BAD_PARAM, args...);
}

template <class... Args>
void check_supported(bool ok, const Args &...args) {
  if (!ok) fail(CUDNN_STATUS_NOT_SUPPORTED, args...);
}

template <class T>
void check_not_null(const T *p, const char *name) {
  if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
}

}  // namespace fdnn
