// --op=dropout: cudnnDropoutForward (--alg=fwd) or cudnnDropoutBackward
// (--alg=bwd, applying the mask of one forward call made at prepare time)
// with probability --value (default 0.5). The check predicts the mask with
// tests/common's independent Philox and compares y (dx) with the float64
// reference. No oneDNN peer: oneDNN has no dropout primitive of these
// semantics.
#include <stdexcept>

#include "common/buffer.hpp"
#include "common/dropout_reference.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "op.hpp"
#include "default_set.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

std::string alg_name(const Problem &p) { return p.knobs.alg.empty() ? "fwd" : p.knobs.alg; }

constexpr unsigned long long kSeed = 2024;

class DropoutRun : public OpRun {
 public:
  DropoutRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        backward_(alg_name(p) == "bwd"),
        p_(static_cast<float>(p.knobs.value)),
        x_(p.shapes[0], p.knobs.stag, p.knobs.dt),
        y_(p.shapes[0], p.knobs.dtag, p.knobs.dt) {
    check_status(cudnnCreateDropoutDescriptor(&desc_), "cudnnCreateDropoutDescriptor");
    try {
      size_t ss = 0, rs = 0;
      check_status(cudnnDropoutGetStatesSize(handle_, &ss), "cudnnDropoutGetStatesSize");
      states_ = fdnn_test::Buffer(ss);
      check_status(cudnnDropoutGetReserveSpaceSize(x_.desc(), &rs), "cudnnDropoutGetReserveSpaceSize");
      reserve_ = fdnn_test::Buffer(rs);
    } catch (...) {
      cudnnDestroyDropoutDescriptor(desc_);
      throw;
    }
  }
  ~DropoutRun() override { cudnnDestroyDropoutDescriptor(desc_); }

  void fill(uint64_t seed) override {
    hx_ = fill_random(x_, seed, -2, 2);
    poison(y_);
    // A fresh stream: forward calls use offsets 0, 1, ...; backward reads
    // the mask of the forward call made here (offset 0).
    check_status(cudnnSetDropoutDescriptor(desc_, handle_, p_, states_.get(), states_.size(), kSeed),
                 "cudnnSetDropoutDescriptor");
    if (backward_) forward();
  }

  void execute() override {
    if (backward_)
      check_status(cudnnDropoutBackward(handle_, desc_, x_.desc(), x_.data(), y_.desc(), y_.data(), reserve_.get(),
                                        reserve_.size()),
                   "cudnnDropoutBackward");
    else
      forward();
  }

  CheckResult check() override {
    // Right after fill() and one execute(): offset 0 in both directions.
    const std::vector<bool> keep = fdnn_test::dropout_keep_mask(kSeed, 0, x_.elements(), p_);
    return compare(download(y_), fdnn_test::dropout_expect(hx_, keep, p_, y_.cudnn_dt()));
  }

  double bytes_moved() const override {
    return static_cast<double>(x_.bytes()) + static_cast<double>(y_.bytes()) + static_cast<double>(reserve_.size());
  }

 private:
  void forward() {
    check_status(cudnnDropoutForward(handle_, desc_, x_.desc(), x_.data(), y_.desc(), y_.data(), reserve_.get(),
                                     reserve_.size()),
                 "cudnnDropoutForward");
  }

  cudnnHandle_t handle_;
  bool backward_;
  float p_;
  BenchTensor x_, y_;
  cudnnDropoutDescriptor_t desc_ = nullptr;
  fdnn_test::Buffer states_, reserve_;
  HostTensor hx_;
};

class DropoutFamily : public OpFamily {
 public:
  const char *name() const override { return "dropout"; }
  const char *help() const override {
    return "  dropout    cudnnDropoutForward / cudnnDropoutBackward: --alg=fwd|bwd [fwd],\n"
           "             --value = the drop probability [0.5]. SHAPES: X (dx/dy for bwd);\n"
           "             --stag is x's layout, --dtag y's; --dt.\n";
  }
  void validate(const Problem &p) const override {
    const std::string a = alg_name(p);
    if (a != "fwd" && a != "bwd") throw std::invalid_argument("dropout --alg must be fwd or bwd");
    if (p.shapes.size() != 1) throw std::invalid_argument("dropout takes one shape");
    if (p.knobs.value < 0 || p.knobs.value > 1) throw std::invalid_argument("dropout --value must be in [0, 1]");
    letter_tag(p.knobs.stag, padded4(p.shapes[0]).size());
    letter_tag(p.knobs.dtag, padded4(p.shapes[0]).size());
  }
  std::string knobs_text(const Problem &p) const override {
    return "--alg=" + alg_name(p) + " --dt=" + p.knobs.dt + " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag +
           " --value=" + number_text(p.knobs.value);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<DropoutRun>(handle, p);
  }
};

BENCH_REGISTER_OP(DropoutFamily)

}  // namespace

BENCH_DEFAULT_PROBLEMS(dropout, 80, {
    "--reset --name=dropout.fwd --op=dropout --alg=fwd --dt=f32 --value=0.5 32x256x56x56",
    "--reset --name=dropout.bwd --op=dropout --alg=bwd --dt=f32 --value=0.5 32x256x56x56",
    "--reset --name=dropout.fwd.f16 --op=dropout --alg=fwd --dt=f16 --value=0.1 32x256x56x56",
});

}  // namespace bench
