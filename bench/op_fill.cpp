// --op=set: cudnnSetTensor, every element of y = value.
// --op=scale: cudnnScaleTensor, y = alpha * y in place.
#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

void validate_single(const Problem &p, const char *op) {
  if (p.shapes.size() != 1) throw std::invalid_argument(std::string(op) + " takes one shape");
  if (!p.knobs.alg.empty()) throw std::invalid_argument(std::string(op) + " has no --alg");
  if (!p.knobs.sdt.empty() || !p.knobs.ddt.empty()) throw std::invalid_argument(std::string(op) + " has one tensor: use --dt");
  letter_tag(p.knobs.dtag, p.shapes[0].size());
}

// ---------------------------------------------------------------- set

class SetRun : public OpRun {
 public:
  SetRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle), y_(p.shapes[0], p.knobs.dtag, p.knobs.dt), value_(p.knobs.dt, p.knobs.value) {
    // cudnnSetTensor reads its value like a scaling factor (a double for
    // DOUBLE tensors, else a float) and rounds it to y's type.
    want_ = fdnn_test::round_to_type(y_.cudnn_dt(), value_.value());
  }

  void fill(uint64_t) override {
    hy0_ = host_like(y_);
    poison(y_);
  }
  void execute() override {
    check_status(cudnnSetTensor(handle_, y_.desc(), y_.data(), value_.ptr()), "cudnnSetTensor");
  }
  CheckResult check() override {
    return compare(download(y_), fdnn_test::reference_scale_add(1.0, nullptr, want_, 0.0, hy0_,
                                                                default_compute_type(y_.dt())));
  }
  double bytes_moved() const override { return static_cast<double>(y_.bytes()); }

 private:
  cudnnHandle_t handle_;
  BenchTensor y_;
  Scaling value_;
  double want_ = 0;
  HostTensor hy0_;
};

class SetFamily : public OpFamily {
 public:
  const char *name() const override { return "set"; }
  const char *help() const override {
    return "  set        cudnnSetTensor: every element of y = --value [0.5]. SHAPES: y;\n"
           "             --dtag is its layout.\n";
  }
  void validate(const Problem &p) const override { validate_single(p, "set"); }
  std::string knobs_text(const Problem &p) const override {
    return "--dt=" + p.knobs.dt + " --dtag=" + p.knobs.dtag + " --value=" + number_text(p.knobs.value);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<SetRun>(handle, p);
  }
};

BENCH_REGISTER_OP(SetFamily)

// ---------------------------------------------------------------- scale

class ScaleRun : public OpRun {
 public:
  ScaleRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle), y_(p.shapes[0], p.knobs.dtag, p.knobs.dt), alpha_(p.knobs.dt, p.knobs.alpha) {}

  void fill(uint64_t seed) override { hy0_ = fill_random(y_, seed, -2, 2); }
  void execute() override {
    check_status(cudnnScaleTensor(handle_, y_.desc(), y_.data(), alpha_.ptr()), "cudnnScaleTensor");
  }
  CheckResult check() override {
    // y = 0 + alpha * y_prior
    return compare(download(y_), fdnn_test::reference_scale_add(0.0, nullptr, 0.0, alpha_.value(), hy0_,
                                                                default_compute_type(y_.dt())));
  }
  double bytes_moved() const override { return 2.0 * static_cast<double>(y_.bytes()); }
  std::unique_ptr<PeerRun> onednn_peer() const override {
    return onednn_scale(y_.peer(), static_cast<float>(alpha_.value()));
  }

 private:
  cudnnHandle_t handle_;
  BenchTensor y_;
  Scaling alpha_;
  HostTensor hy0_;
};

class ScaleFamily : public OpFamily {
 public:
  const char *name() const override { return "scale"; }
  const char *help() const override {
    return "  scale      cudnnScaleTensor: y = alpha*y in place. SHAPES: y; --dtag is its\n"
           "             layout.\n";
  }
  void validate(const Problem &p) const override { validate_single(p, "scale"); }
  std::string knobs_text(const Problem &p) const override {
    return "--dt=" + p.knobs.dt + " --dtag=" + p.knobs.dtag + " --alpha=" + number_text(p.knobs.alpha);
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<ScaleRun>(handle, p);
  }
};

BENCH_REGISTER_OP(ScaleFamily)

}  // namespace
}  // namespace bench
