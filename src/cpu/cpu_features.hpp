// Which optional x86 vector extensions the CPU kernels may use, decided once
// per process. The library is built for x86-64-v3 (AVX2, FMA, F16C); kernels
// with AVX-512 copies (target attributes) take them only when this says so.
// FREEDNN_CPU_NO_AVX512=1 keeps them on their AVX2 paths, so that tests cover
// both on an AVX-512 machine.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "core/env_words.hpp"

namespace fdnn::cpu {

inline bool avx512_usable() {
  static const bool yes = [] {
    const char *off = std::getenv("FREEDNN_CPU_NO_AVX512");
    if (off != nullptr && off[0] != '\0' && off[0] != '0') return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  }();
  return yes;
}

// Whether kernels may write large outputs with non-temporal (streaming)
// stores, which skip reading the old lines and keep the inputs cached.
// FREEDNN_CPU_STREAM_STORES=0 turns them off, for comparisons: on a 2-vCPU
// Zen 5 guest, two threads streaming at once measured slower than ordinary
// stores on some kernels (see docs/perf.md, fourteenth session).
inline bool streaming_stores_allowed() {
  static const bool yes = env_on("FREEDNN_CPU_STREAM_STORES");
  return yes;
}

// Bytes of the last-level cache as the OS reports it (the L3; 0 where it
// does not say). Streaming stores save the read of each output line only
// where that line would not be in this cache anyway.
inline int64_t last_level_cache_bytes() {
  static const int64_t bytes = [] {
    const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return v > 0 ? static_cast<int64_t>(v) : int64_t{0};
  }();
  return bytes;
}

}  // namespace fdnn::cpu
