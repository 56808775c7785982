// Timing of repeated calls: warm-up, then samples of back-to-back calls, the
// median sample reported. On a GPU the samples are bracketed by CUDA events
// on the default stream, so launch overhead that overlaps with work is not
// counted twice; on the CPU by the steady clock.
#pragma once

#include <cstdint>
#include <functional>

namespace bench {

struct Timing {
  double median_ms = 0;  // per call
  double min_ms = 0;     // per call, best sample
  int samples = 0;
  int64_t calls_per_sample = 0;
};

// True when the library's handles (and tests/common buffers) live on a GPU.
bool on_gpu();
// Waits until the GPU is idle (no-op on the CPU).
void device_sync();

// `samples` samples (3 when one call takes more than 10 x min_sample_ms),
// each repeating the call until it lasts min_sample_ms.
Timing measure(const std::function<void()> &call, int samples, double min_sample_ms);

}  // namespace bench
