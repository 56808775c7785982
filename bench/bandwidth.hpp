// The machine's copy bandwidth, measured in the same run as the problems so
// that each problem's GB/s can be put against it. Bytes counted as for the
// problems: bytes read + bytes written (STREAM's convention, no
// write-allocate traffic).
#pragma once

#include <string>

namespace bench {

struct CopyBandwidth {
  double memcpy_gbs = 0;     // CPU: memcpy per thread (glibc streams large copies past the cache)
  double loop_gbs = 0;       // CPU: STREAM "scale" loop, ordinary stores (pays write-allocate)
  double best_gbs = 0;       // the ceiling used for ratios: the larger of the two (GPU: device copy)
  double buffer_mib = 0;     // size of each of the two buffers
  int threads = 0;
  std::string how;           // one line describing the measurement
};

// `threads` CPU threads (ignored on a GPU). `samples` timed repetitions, median.
CopyBandwidth measure_copy_bandwidth(int threads, int samples = 10);

}  // namespace bench
