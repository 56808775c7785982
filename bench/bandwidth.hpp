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
  // The ceilings of the other access patterns (CPU only; 0 on a GPU), with
  // the same threads and buffers, AVX2 where the CPU has it:
  double read_gbs = 0;       // read-only stream: sum of one buffer, 4 accumulators (reductions)
  double triad_gbs = 0;      // 2 reads + 1 write, streaming stores: c = a + b (OpTensor)
  double inplace_gbs = 0;    // 1 read + 1 write of the same lines: a = q * a (in-place add / scale)
  double best_gbs = 0;       // the ceiling used for ratios: the larger of the two (GPU: device copy)
  double buffer_mib = 0;     // size of each of the two buffers
  int threads = 0;
  std::string how;           // one line describing the measurement
};

// Which memory streams a problem's call moves, to put its GB/s against the
// ceiling of the same pattern (copy: 1 read + 1 write to another buffer).
enum class AccessPattern { copy, read_only, two_read_one_write, in_place, write_only };

struct Problem;
AccessPattern access_pattern(const Problem &p);
const char *pattern_name(AccessPattern a);
// The measured ceiling for the pattern (falls back to best_gbs where it was
// not measured, e.g. on a GPU).
double pattern_ceiling(const CopyBandwidth &c, AccessPattern a);

// Each figure the better of the two measurements (before and after the problems).
CopyBandwidth best_of(const CopyBandwidth &a, const CopyBandwidth &b);

// `threads` CPU threads (ignored on a GPU). `samples` timed repetitions, median.
CopyBandwidth measure_copy_bandwidth(int threads, int samples = 10);

// A streaming copy (AVX2 non-temporal stores, else memcpy) of `bytes`
// (read + written, as problems count them: bytes / 2 copied) on `threads`
// CPU threads between two buffers of its own, first
// touched by those threads. --paired-copy times it in rounds alternating
// with a problem's calls, so that the ratio of the two compares them at the
// same moment: the run-long copy figure misses the swings of a shared
// machine's memory bandwidth.
class PairedCopy {
 public:
  PairedCopy(double bytes, int threads);
  ~PairedCopy();
  PairedCopy(const PairedCopy &) = delete;
  PairedCopy &operator=(const PairedCopy &) = delete;
  double seconds();  // one copy, wall time
 private:
  size_t n_ = 0;  // floats per buffer
  int threads_ = 1;
  float *src_ = nullptr, *dst_ = nullptr;
};

}  // namespace bench
