// Command-line parsing. Settings of the run (mode, threads, repetitions) and
// problem knobs (op, types, layouts, scalars) share one left-to-right pass:
// a knob changes the state for every later shape token, `--reset` restores
// the defaults, and each shape token adds one problem. `--batch=FILE` reads
// more tokens from a file ('#' starts a comment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem.hpp"

namespace bench {

struct Config {
  std::string mode = "perf";  // perf, check, bandwidth, list
  bool default_set = false;
  int threads = 0;            // 0: FREEDNN_NUM_THREADS, else all cores
  std::string engine;         // FREEDNN_ENGINE prefix for our library
  std::string device;         // "cpu": FREEDNN_DEVICE=cpu; empty: the library's choice
  int reps = 10;              // timed samples per problem (the median is reported)
  double min_sample_ms = 20;  // each sample repeats the call until it lasts this long
  double max_load = -1;       // >= 0: re-time while other processes used more cores than this
  bool paired_copy = false;   // CPU, memory-bound problems: rounds of ours against a copy of the same bytes
  bool paired_peer = false;   // CPU: rounds of ours against the oneDNN peer, both kept alive
  bool onednn = true;         // run the oneDNN peer where it fits
  bool check = true;          // perf mode: also check correctness
  uint64_t seed = 1;
  bool internal_check = false;  // child process: check one problem, print, exit
  bool help = false;
  std::vector<Problem> problems;
};

// Throws std::invalid_argument with a message that names the bad token.
Config parse_command_line(const std::vector<std::string> &args);

// Parses "64x256x56x56" / "32x64x56x56:1x64x1x1".
std::vector<Dims> parse_shapes(const std::string &token);

void print_help();

}  // namespace bench
