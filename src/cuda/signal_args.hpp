// Launchers of the CUDA signal kernels (cuda.signal <-> signal_kernels.cu).
#pragma once

#include <cstdint>

namespace fdnn::cuda {

// Enqueues on `stream` (a cudaStream_t) one thread that publishes `value`
// to the INT64 at `flag` with system-scope release ordering: writes that
// precede it in stream order are visible to any observer (another stream,
// GPU or the host) that reads the new value with acquire ordering.
void launch_signal_set(int64_t *flag, int64_t value, void *stream);

// Enqueues on `stream` one thread that spins, with system-scope acquire
// loads, until the INT64 at `flag` equals `value`; the stream's later work
// starts after that.
void launch_signal_wait(const int64_t *flag, int64_t value, void *stream);

}  // namespace fdnn::cuda
