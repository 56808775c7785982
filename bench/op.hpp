// The interface every op family implements (one file per family:
// op_transform.cpp, op_binary.cpp, ...). A family validates a problem and
// binds it to a handle; the resulting OpRun owns the descriptors and buffers
// and knows how to run, check and count bytes. New families register
// themselves with BENCH_REGISTER_OP and appear in --help automatically.
#pragma once

#include <cudnn.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"

namespace bench {

// A cuDNN call failed: its status and the library's last error message.
struct ApiError : std::runtime_error {
  cudnnStatus_t status;
  ApiError(cudnnStatus_t s, const std::string &what) : std::runtime_error(what), status(s) {}
};

// Throws ApiError naming `call` when `s` is not SUCCESS.
void check_status(cudnnStatus_t s, const char *call);

struct CheckResult {
  bool passed = false;
  double max_error = 0;     // largest |got - want| / tolerance scale, see the op
  std::string detail;       // first mismatches, or why it failed
};

// Passed when every value is finite (the attention benches check only that:
// their exact checks are in the tests); `what` names the output in the detail.
CheckResult all_finite(const std::vector<double> &values, const std::string &what);

// A peer library running the same problem (oneDNN on the CPU).
class PeerRun {
 public:
  virtual ~PeerRun() = default;
  virtual void execute() = 0;
  virtual std::string name() const = 0;  // "oneDNN reorder (jit:uni)"
};

class OpRun {
 public:
  virtual ~OpRun() = default;
  // Fills inputs, and the output where beta reads it, with random data; keeps
  // host copies for the check.
  virtual void fill(uint64_t seed) = 0;
  // One call of the function under test.
  virtual void execute() = 0;
  // Right after fill() and one execute(): the output against the float64
  // reference of tests/common.
  virtual CheckResult check() = 0;
  // Bytes one execute() reads plus writes. Each tensor counts once (a
  // broadcast operand is read from cache), an output with beta == 0 is not read.
  virtual double bytes_moved() const = 0;
  // Floating-point operations of one execute() for compute-bound ops (a
  // multiply-add counts 2); 0 for the memory-bound ones. When non-zero the
  // runner also prints GFLOP/s and the fraction of the measured FMA peak.
  virtual double flops() const { return 0; }
  // The same problem through oneDNN where its semantics are exactly ours; null otherwise.
  virtual std::unique_ptr<PeerRun> onednn_peer() const { return nullptr; }
};

class OpFamily {
 public:
  virtual ~OpFamily() = default;
  virtual const char *name() const = 0;
  // Lines for --help: the shape grammar, algorithms and defaults of this op.
  virtual const char *help() const = 0;
  // Throws std::invalid_argument when the knobs or shapes do not fit the op.
  virtual void validate(const Problem &p) const = 0;
  // The knobs that matter to this op, as command-line text (repro lines).
  virtual std::string knobs_text(const Problem &p) const = 0;
  // Descriptors and buffers on the handle's device. Throws ApiError.
  virtual std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const = 0;
};

class OpRegistry {
 public:
  static OpRegistry &instance();
  void add(std::unique_ptr<OpFamily> family);
  const OpFamily *find(const std::string &name) const;
  std::vector<const OpFamily *> all() const;

 private:
  std::vector<std::unique_ptr<OpFamily>> families_;
};

// A knob value as short text: 1, 0.5, 1e-05.
std::string number_text(double v);

// " --alpha=A" unless alpha is 1, then " --beta=B" when beta was given: the
// blending knobs of a problem as knobs_text() writes them.
std::string blend_text(const Problem &p);

// The full command-line text of a problem ("--op=add --dt=f32 ... 8x8:1x8").
std::string problem_text(const Problem &p);

}  // namespace bench

// Use inside namespace bench, after the family's definition.
#define BENCH_REGISTER_OP(Type)                                                  \
  namespace {                                                                    \
  const bool bench_registered_##Type = [] {                                      \
    ::bench::OpRegistry::instance().add(std::make_unique<Type>());               \
    return true;                                                                 \
  }();                                                                           \
  }
