// The last failure message of the calling thread (cudnnGetLastErrorString).
#pragma once

#include <string>

namespace fdnn {
void set_last_error(std::string message);
// Copies the message into buf (always NUL-terminated when size > 0) and
// clears it, as cuDNN does: a second call returns an empty string.
void take_last_error(char *buf, size_t size);
}  // namespace fdnn
