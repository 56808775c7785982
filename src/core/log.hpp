// Logging as cuDNN users know it (CUDNN_LOGERR_DBG, CUDNN_LOGWARN_DBG,
// CUDNN_LOGINFO_DBG, CUDNN_LOGLEVEL_DBG, CUDNN_LOGDEST_DBG, cudnnSetCallback),
// plus FreeDNN's per-operation trace (FREEDNN_VERBOSE=1).
#pragma once

#include <cudnn_graph.h>

#include <string>

namespace fdnn::log {

// True when messages of this severity go anywhere (cheap; check before
// building an expensive message).
bool enabled(cudnnSeverity_t severity);

// Sends one message to the user's callback or the log destination.
void emit(cudnnSeverity_t severity, const char *api_function, const std::string &message,
          cudnnStatus_t status = CUDNN_STATUS_SUCCESS, cudnnHandle_t handle = nullptr);

void set_callback(unsigned mask, void *user_data, cudnnCallback_t callback);
void get_callback(unsigned *mask, void **user_data, cudnnCallback_t *callback);

// FREEDNN_VERBOSE=1: one line per executed operation.
bool verbose();
void verbose_line(const std::string &line);

// Re-reads the environment (tests change it at run time).
void reload_environment();

}  // namespace fdnn::log
