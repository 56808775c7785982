// Error checking for the demo: every cuDNN call goes through CHECK_CUDNN,
// which on failure prints the call, the status and the library's own message
// (cudnnGetLastErrorString, cuDNN 9) and exits.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cudnn.h>

namespace demo {

inline void check_cudnn(cudnnStatus_t status, const char *call, const char *file, int line) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  char message[1024] = {0};
  cudnnGetLastErrorString(message, sizeof message);
  std::fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", file, line, call, cudnnGetErrorString(status), message);
  if (status == CUDNN_STATUS_NOT_SUPPORTED)
    std::fprintf(stderr, "  (with FreeDNN, FREEDNN_DEVICE=cpu runs every function on the CPU backend)\n");
  std::exit(2);
}

}  // namespace demo

#define CHECK_CUDNN(call) ::demo::check_cudnn((call), #call, __FILE__, __LINE__)
