// The machine's measured FMA throughput: the ceiling that GFLOP/s of the
// compute-bound ops (convolutions) are compared with. Every thread runs
// independent chains of vector FMAs (AVX-512 when the CPU has it, else AVX2),
// enough of them to cover the FMA latency on two ports.
#pragma once

namespace bench {

struct FmaPeak {
  double gflops = 0;  // best of a few runs: the threads' rates over their CPU time, summed
  int threads = 0;
  const char *isa = "";
};

// Measures with `threads` threads (a fraction of a second).
FmaPeak measure_fma_peak(int threads);

}  // namespace bench
