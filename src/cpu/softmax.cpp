// cpu.softmax: the fast CPU softmax engine. Rows (the kept indices) are
// spread over the thread pool; each row is gathered into a buffer of the
// compute type (one load call per innermost reduced run, contiguous rows
// with a single call), computed by the vectorised row kernels of
// softmax_math.hpp and stored back with the pointwise store kernels (blend
// with beta, conversion to the output type).
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/softmax_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/pointwise_kernels.hpp"
#include "cpu/softmax_math.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kParallelElements = 16384;  // below this, the caller runs alone

// Offsets of every index of dims (row-major) for strides.
std::vector<int64_t> offsets(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  std::vector<int64_t> out{0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * dims[d]);
    for (int64_t base : out)
      for (int64_t i = 0; i < dims[d]; ++i) next.push_back(base + i * strides[d]);
    out.swap(next);
  }
  return out;
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g) : ExecutionPlan(e), G_(softmax_geometry(g)) {
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    use_double_ = softmax_computes_in_double(g, op);
    // A row: runs of `run_` elements (the innermost reduced dim) at run_off_.
    const int nred = static_cast<int>(G_.red_dims.size());
    run_ = nred == 0 ? 1 : G_.red_dims.back();
    std::vector<int64_t> outer_dims(G_.red_dims.begin(), G_.red_dims.end() - (nred ? 1 : 0));
    for (int o = 0; o < G_.operands; ++o) {
      run_stride_.push_back(nred == 0 ? 1 : G_.red_strides[o].back());
      std::vector<int64_t> s(G_.red_strides[o].begin(), G_.red_strides[o].end() - (nred ? 1 : 0));
      run_off_.push_back(offsets(outer_dims, s));
      es_.push_back(type_info(G_.dtype[o]).bits / 8);
    }
  }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    if (use_double_) run<double>(ctx, g, pack);
    else run<float>(ctx, g, pack);
  }

 private:
  int64_t row_offset(int o, int64_t row) const {
    int64_t off = 0;
    for (int d = static_cast<int>(G_.kept_dims.size()) - 1; d >= 0; --d) {
      off += (row % G_.kept_dims[d]) * G_.kept_strides[o][d];
      row /= G_.kept_dims[d];
    }
    return off;
  }

  template <class C>
  void run(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    const int nops = G_.operands, out = nops - 1, nin = nops - 1;
    std::vector<char *> base(nops);
    for (int o = 0; o < nops; ++o) {
      base[o] = static_cast<char *>(pack.get(G_.uid[o]));
      if (base[o] == nullptr && G_.rows * G_.row_len > 0) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for uid ", G_.uid[o]);
    }
    LoadFn<C> load[2] = {};
    for (int j = 0; j < nin; ++j) load[j] = load_fn_for<C>(G_.dtype[j]);
    const StoreFn<C> store = store_fn_for<C>(G_.dtype[out], op.blend.beta != 0.0);
    const C alpha = static_cast<C>(op.blend.alpha), beta = static_cast<C>(op.blend.beta);
    const int64_t n = G_.row_len;
    const int nruns = static_cast<int>(run_off_[0].size());

    auto body = [&](int64_t lo, int64_t hi) {
      std::vector<C> buf(static_cast<size_t>(3 * n));
      C *in[2] = {buf.data(), buf.data() + n};
      C *res = buf.data() + 2 * n;
      for (int64_t row = lo; row < hi; ++row) {
        for (int j = 0; j < nin; ++j) {
          const char *p = base[j] + row_offset(j, row) * es_[j];
          for (int k = 0; k < nruns; ++k)
            load[j](p + run_off_[j][k] * es_[j], run_stride_[j], static_cast<int>(run_), in[j] + k * run_);
        }
        if (op.backward) softmax::backward_row(op.algorithm, in[0], in[1], n, res);
        else softmax::forward_row(op.algorithm, in[0], n, res);
        char *p = base[out] + row_offset(out, row) * es_[out];
        for (int k = 0; k < nruns; ++k)
          store(p + run_off_[out][k] * es_[out], run_stride_[out], static_cast<int>(run_), res + k * run_, alpha, beta);
      }
    };
    if (ctx.pool == nullptr || ctx.pool->size() <= 1 || G_.rows < 2 || G_.rows * n < kParallelElements) {
      body(0, G_.rows);
      return;
    }
    ctx.pool->parallel_for(G_.rows, body, std::min<int64_t>(G_.rows, ctx.pool->size() * 4));
  }

  SoftmaxGeometry G_;
  bool use_double_ = false;
  int64_t run_ = 1;
  std::vector<int64_t> run_stride_;
  std::vector<std::vector<int64_t>> run_off_;  // [operand][run]
  std::vector<int64_t> es_;
};

class CpuSoftmaxEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.softmax"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 10; }
  Support supports(const graph::Graph &g) const override {
    Support s = check_single_softmax(g);
    if (!s) return s;
    for (graph::Uid uid : softmax_operands(std::get<graph::SoftmaxOp>(g.ops().front()))) {
      const cudnnDataType_t t = g.tensor(uid).dtype;
      if (!is_fast_type(t)) return Support::no(cat("data type ", type_info(t).enum_name, " has no fast CPU kernels"));
    }
    const SoftmaxGeometry G = softmax_geometry(g);
    if (G.red_dims.size() > 0 && G.red_dims.back() > (int64_t{1} << 30))
      return Support::no("innermost reduced run is too long");
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this, g);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::CpuSoftmaxEngine;
FDNN_REGISTER_ENGINE(CpuSoftmaxEngine)
