#include "core/env_words.hpp"

#include <cstdlib>
#include <cstring>

namespace fdnn {

bool env_has_word(const char *var, const char *word) {
  const char *v = std::getenv(var);
  const size_t n = std::strlen(word);
  if (v == nullptr || n == 0) return false;
  for (const char *at = v;;) {
    const char *end = std::strchr(at, ',');
    const size_t len = end != nullptr ? static_cast<size_t>(end - at) : std::strlen(at);
    if (len == n && std::strncmp(at, word, n) == 0) return true;
    if (end == nullptr) return false;
    at = end + 1;
  }
}

bool env_on(const char *var) {
  const char *v = std::getenv(var);
  return v == nullptr || std::strcmp(v, "0") != 0;
}

long env_long(const char *var, long fallback) {
  const char *v = std::getenv(var);
  if (v == nullptr || *v == 0) return fallback;
  char *end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (end != nullptr && *end == 0 && n >= 0) ? n : fallback;
}

}  // namespace fdnn
