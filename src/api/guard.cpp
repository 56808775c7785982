#include "api/guard.hpp"

#include "api/not_implemented.hpp"
#include "core/last_error.hpp"
#include "core/log.hpp"

namespace fdnn::api {

cudnnStatus_t record_failure(const char *function, cudnnStatus_t status, const std::string &message) {
  std::string full = std::string(function) + ": " + message;
  set_last_error(full);
  cudnnSeverity_t sev = status == CUDNN_STATUS_NOT_SUPPORTED ? CUDNN_SEV_WARNING : CUDNN_SEV_ERROR;
  if (log::enabled(sev)) log::emit(sev, function, message, status);
  return status;
}

void trace_call(const char *function) {
  if (log::enabled(CUDNN_SEV_INFO)) log::emit(CUDNN_SEV_INFO, function, "called");
}

cudnnStatus_t not_implemented(const char *function_name) {
  return record_failure(function_name, CUDNN_STATUS_NOT_SUPPORTED,
                        "not implemented in FreeDNN yet (see docs/coverage.md)");
}

}  // namespace fdnn::api
