#include "core/last_error.hpp"

#include <algorithm>
#include <cstring>

namespace fdnn {
namespace {
thread_local std::string g_last_error;
}

void set_last_error(std::string message) { g_last_error = std::move(message); }

void take_last_error(char *buf, size_t size) {
  // NVIDIA's library consumes the message even when it cannot be copied out.
  if (buf == nullptr || size == 0) {
    g_last_error.clear();
    return;
  }
  size_t n = std::min(size - 1, g_last_error.size());
  std::memcpy(buf, g_last_error.data(), n);
  buf[n] = '\0';
  g_last_error.clear();
}

}  // namespace fdnn
