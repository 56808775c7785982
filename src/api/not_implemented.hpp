// Entry points that exist in the ABI but have no implementation yet call this.
#pragma once

#include <cudnn_graph.h>

namespace fdnn::api {
// Records "<function> is not implemented in FreeDNN" as the last error and
// returns CUDNN_STATUS_NOT_SUPPORTED.
cudnnStatus_t not_implemented(const char *function_name);
}  // namespace fdnn::api
