// The C API boundary. Every entry point runs its body through guarded(): C++
// exceptions become a cudnnStatus_t, and the message is kept for
// cudnnGetLastErrorString and sent to the log. Nothing escapes into C code.
#pragma once

#include <cudnn_graph.h>

#include <new>
#include <string>

#include "core/error.hpp"

namespace fdnn::api {

// Records a failure of `function` on this thread and logs it; returns status.
cudnnStatus_t record_failure(const char *function, cudnnStatus_t status, const std::string &message);

// INFO-level trace of API calls (only when CUDNN_LOGINFO_DBG or equivalent is on).
void trace_call(const char *function);

template <class Body>
cudnnStatus_t guarded(const char *function, Body &&body) noexcept {
  try {
    trace_call(function);
    body();
    return CUDNN_STATUS_SUCCESS;
  } catch (const Error &e) {
    return record_failure(function, e.status(), e.what());
  } catch (const std::bad_alloc &) {
    return record_failure(function, CUDNN_STATUS_ALLOC_FAILED, "host memory allocation failed");
  } catch (const std::exception &e) {
    return record_failure(function, CUDNN_STATUS_INTERNAL_ERROR, std::string("internal error: ") + e.what());
  } catch (...) {
    return record_failure(function, CUDNN_STATUS_INTERNAL_ERROR, "internal error: unknown exception");
  }
}

}  // namespace fdnn::api

// Entry points write `return FDNN_GUARDED([&] { ... });` so that messages carry
// the entry point's name (inside the lambda, __func__ would be "operator()").
// Variadic so that commas inside the body need no extra parentheses.
#define FDNN_GUARDED(...) ::fdnn::api::guarded(__func__, __VA_ARGS__)
