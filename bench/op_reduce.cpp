// --op=reduce: cudnnReduceTensor, C = alpha * reduce(A) + beta * C over the
// dimensions where C has size 1, optionally with flattened indices (min, max,
// amax).
#include <cmath>
#include <cstring>

#include "common/buffer.hpp"
#include "dtype.hpp"
#include "host_data.hpp"
#include "layout.hpp"
#include "onednn_peer.hpp"
#include "op.hpp"
#include "scaling.hpp"
#include "tensor.hpp"

namespace bench {
namespace {

struct ReduceAlg {
  const char *name;
  cudnnReduceTensorOp_t op;
  bool has_indices;    // min, max, amax can return where the result came from
  const char *onednn;  // reduction algorithm of the same meaning, or nullptr
};

const ReduceAlg kReduceAlgs[] = {
    {"add", CUDNN_REDUCE_TENSOR_ADD, false, "sum"},
    {"mul", CUDNN_REDUCE_TENSOR_MUL, false, "mul"},
    {"min", CUDNN_REDUCE_TENSOR_MIN, true, "min"},
    {"max", CUDNN_REDUCE_TENSOR_MAX, true, "max"},
    {"amax", CUDNN_REDUCE_TENSOR_AMAX, true, nullptr},
    {"avg", CUDNN_REDUCE_TENSOR_AVG, false, "mean"},
    {"norm1", CUDNN_REDUCE_TENSOR_NORM1, false, "norm1"},
    {"norm2", CUDNN_REDUCE_TENSOR_NORM2, false, "norm2"},
    {"mul_no_zeros", CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS, false, nullptr},
};

const ReduceAlg &reduce_alg(const std::string &name) {
  for (const ReduceAlg &a : kReduceAlgs)
    if (name == a.name) return a;
  throw std::invalid_argument("unknown reduce --alg '" + name +
                              "' (add, mul, min, max, amax, avg, norm1, norm2, mul_no_zeros)");
}

std::string alg_name(const Problem &p) { return p.knobs.alg.empty() ? "add" : p.knobs.alg; }

cudnnIndicesType_t indices_type(const std::string &bits) {
  if (bits == "8") return CUDNN_8BIT_INDICES;
  if (bits == "16") return CUDNN_16BIT_INDICES;
  if (bits == "64") return CUDNN_64BIT_INDICES;
  return CUDNN_32BIT_INDICES;
}

// Reads index i of an indices buffer of `bits` width (unsigned, as cuDNN writes).
uint64_t index_at(const std::vector<uint8_t> &buf, const std::string &bits, size_t i) {
  if (bits == "8") return buf[i];
  if (bits == "16") { uint16_t v; std::memcpy(&v, &buf[2 * i], 2); return v; }
  if (bits == "64") { uint64_t v; std::memcpy(&v, &buf[8 * i], 8); return v; }
  uint32_t v;
  std::memcpy(&v, &buf[4 * i], 4);
  return v;
}

class ReduceRun : public OpRun {
 public:
  ReduceRun(cudnnHandle_t handle, const Problem &p)
      : handle_(handle),
        alg_(reduce_alg(alg_name(p))),
        indices_bits_(p.knobs.indices),
        a_(p.shapes[0], p.knobs.stag, p.knobs.src_dt()),
        c_(p.shapes[1], p.knobs.dtag, p.knobs.dst_dt()),
        alpha_(p.knobs.dst_dt(), p.knobs.alpha),
        beta_(p.knobs.dst_dt(), p.beta_or(0)),
        propagate_nan_(p.knobs.nan == "prop"),
        compute_type_(!p.knobs.cdt.empty() ? to_cudnn_dtype(p.knobs.cdt) : default_compute_type(p.knobs.src_dt())) {
    check_status(cudnnCreateReduceTensorDescriptor(&desc_), "cudnnCreateReduceTensorDescriptor");
    try {
      check_status(cudnnSetReduceTensorDescriptor(
                       desc_, alg_.op, compute_type_, propagate_nan_ ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                       with_indices() ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES : CUDNN_REDUCE_TENSOR_NO_INDICES,
                       indices_type(indices_bits_)),
                   "cudnnSetReduceTensorDescriptor");
      size_t ws = 0, ind = 0;
      check_status(cudnnGetReductionWorkspaceSize(handle_, desc_, a_.desc(), c_.desc(), &ws),
                   "cudnnGetReductionWorkspaceSize");
      check_status(cudnnGetReductionIndicesSize(handle_, desc_, a_.desc(), c_.desc(), &ind),
                   "cudnnGetReductionIndicesSize");
      workspace_ = fdnn_test::Buffer(ws);
      indices_ = fdnn_test::Buffer(ind);
    } catch (...) {
      cudnnDestroyReduceTensorDescriptor(desc_);
      throw;
    }
  }
  ~ReduceRun() override { cudnnDestroyReduceTensorDescriptor(desc_); }

  void fill(uint64_t seed) override {
    // Products of many numbers leave the float range unless they stay near 1.
    bool product = alg_.op == CUDNN_REDUCE_TENSOR_MUL || alg_.op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    ha_ = product ? fill_random(a_, seed, 0.99, 1.01) : fill_random(a_, seed, -2, 2);
    if (beta_.value() != 0) {
      hc0_ = fill_random(c_, seed + 1, -2, 2);
    } else {
      hc0_ = host_like(c_);  // not read when beta == 0
      poison(c_);
    }
  }

  void execute() override {
    check_status(cudnnReduceTensor(handle_, desc_, indices_.get(), indices_.size(), workspace_.get(), workspace_.size(),
                                   alpha_.ptr(), a_.desc(), a_.data(), beta_.ptr(), c_.desc(), c_.data()),
                 "cudnnReduceTensor");
  }

  CheckResult check() override {
    fdnn_test::ReduceExpect want =
        fdnn_test::reference_reduce(alg_.op, propagate_nan_, alpha_.value(), ha_, beta_.value(), hc0_, compute_type_);
    CheckResult r = compare(download(c_), want.values);
    if (r.passed && with_indices()) check_indices(want.indices, &r);
    return r;
  }

  double bytes_moved() const override {
    return static_cast<double>(a_.bytes()) + static_cast<double>(c_.bytes()) * (beta_.value() != 0 ? 2 : 1) +
           (with_indices() ? static_cast<double>(indices_.size()) : 0.0);
  }

  std::unique_ptr<PeerRun> onednn_peer() const override {
    if (!alg_.onednn || with_indices() || alpha_.value() != 1 || beta_.value() != 0) return nullptr;
    return onednn_reduction(alg_.onednn, a_.peer(), c_.peer());
  }

 private:
  bool with_indices() const { return indices_bits_ != "none"; }

  // Each index must lie inside its reduced slice and point at an element
  // equal to the one the reference found (ties may pick any of them).
  void check_indices(const std::vector<int64_t> &expected, CheckResult *r) const {
    std::vector<uint8_t> got = indices_.download();
    const Dims &ad = a_.dims(), &cd = c_.dims();
    const size_t rank = ad.size();
    Dims slice(rank, 1);
    int64_t slice_size = 1;
    for (size_t k = 0; k < rank; ++k)
      if (cd[k] == 1) slice[k] = ad[k], slice_size *= ad[k];
    // Logical index in A of output `ci`'s slice element `flat`.
    auto element = [&](const std::vector<int64_t> &ci, int64_t flat) {
      std::vector<int64_t> ai(ci);
      for (size_t k = rank; k-- > 0;)
        if (cd[k] == 1) {
          ai[k] = flat % slice[k];
          flat /= slice[k];
        }
      double v = ha_.get(ai);
      return alg_.op == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v) : v;
    };
    size_t j = 0, bad = 0;
    std::string first;
    fdnn_test::for_each_index(cd, [&](const std::vector<int64_t> &ci) {
      uint64_t idx = index_at(got, indices_bits_, j);
      int64_t want = expected[j];
      bool ok = idx < static_cast<uint64_t>(slice_size);
      if (ok) {
        double a = element(ci, static_cast<int64_t>(idx)), b = element(ci, want);
        ok = a == b || (std::isnan(a) && std::isnan(b));
      }
      if (!ok && bad++ == 0)
        first = "output " + std::to_string(j) + ": index " + std::to_string(idx) + ", reference " + std::to_string(want) +
                " (slice of " + std::to_string(slice_size) + ")";
      ++j;
    });
    if (bad) {
      r->passed = false;
      r->detail = std::to_string(bad) + " of " + std::to_string(j) + " indices wrong; first: " + first;
    } else {
      r->detail += "; indices ok";
    }
  }

  cudnnHandle_t handle_;
  const ReduceAlg &alg_;
  std::string indices_bits_;
  BenchTensor a_, c_;
  Scaling alpha_, beta_;
  cudnnReduceTensorDescriptor_t desc_ = nullptr;
  fdnn_test::Buffer workspace_, indices_;
  bool propagate_nan_;
  cudnnDataType_t compute_type_;
  HostTensor ha_, hc0_;
};

class ReduceFamily : public OpFamily {
 public:
  const char *name() const override { return "reduce"; }
  const char *help() const override {
    return "  reduce     cudnnReduceTensor: C = alpha*reduce(A) + beta*C [beta 0] over the\n"
           "             dimensions where C has size 1. --alg=add|mul|min|max|amax|avg|norm1|\n"
           "             norm2|mul_no_zeros [add]; --indices[=8|16|32|64] (min, max, amax:\n"
           "             flattened indices); --cdt, --nan. SHAPES: A:C, C's sizes 1 or A's;\n"
           "             --stag is A's layout, --dtag C's; --sdt / --ddt.\n";
  }
  void validate(const Problem &p) const override {
    const ReduceAlg &alg = reduce_alg(alg_name(p));
    if (p.shapes.size() != 2) throw std::invalid_argument("reduce takes A:C");
    const Dims &a = p.shapes[0], &c = p.shapes[1];
    if (a.size() != c.size()) throw std::invalid_argument("A and C must have the same rank");
    for (size_t i = 0; i < a.size(); ++i)
      if (c[i] != 1 && c[i] != a[i]) throw std::invalid_argument("C's sizes must be 1 or A's");
    if (p.knobs.indices != "none" && !alg.has_indices)
      throw std::invalid_argument("--indices needs --alg=min, max or amax");
    letter_tag(p.knobs.stag, a.size());
    letter_tag(p.knobs.dtag, c.size());
  }
  std::string knobs_text(const Problem &p) const override {
    std::string t = "--alg=" + alg_name(p);
    t += p.knobs.sdt.empty() && p.knobs.ddt.empty() ? " --dt=" + p.knobs.dt
                                                    : " --sdt=" + p.knobs.src_dt() + " --ddt=" + p.knobs.dst_dt();
    if (!p.knobs.cdt.empty()) t += " --cdt=" + p.knobs.cdt;
    t += " --stag=" + p.knobs.stag + " --dtag=" + p.knobs.dtag;
    if (p.knobs.indices != "none") t += " --indices=" + p.knobs.indices;
    t += blend_text(p);
    if (p.knobs.nan != "noprop") t += " --nan=" + p.knobs.nan;
    return t;
  }
  std::unique_ptr<OpRun> prepare(cudnnHandle_t handle, const Problem &p) const override {
    return std::make_unique<ReduceRun>(handle, p);
  }
};

BENCH_REGISTER_OP(ReduceFamily)

}  // namespace
}  // namespace bench
