// cpu.softmax: the fast CPU softmax engine. Rows (the kept indices) are
// spread over the thread pool; a row that is one contiguous run of the
// compute type is used where it lies, any other is gathered into a buffer
// of the compute type (one load call per innermost reduced run). The
// vectorised row kernels of softmax_math.hpp (online max and sum, AVX-512
// where the CPU has it) write straight into y when y is such a row and
// beta = 0, else into a buffer that the pointwise store kernels blend into
// y (beta, conversion to the output type). Rows whose elements are strided
// but whose neighbours are neighbours in memory (CHANNEL mode on NCHW) go a
// vector of rows at a time through the lanes kernels (run, lanes_layout).
#include <immintrin.h>

#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "core/engine.hpp"
#include "core/env_words.hpp"
#include "core/error.hpp"
#include "core/softmax_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/pointwise_kernels.hpp"
#include "cpu/softmax_math.hpp"

namespace fdnn::cpu {
namespace {

constexpr int64_t kParallelElements = 16384;  // below this, the caller runs alone
constexpr int64_t kStreamBytes = int64_t{8} << 20;  // outputs at least this large bypass the caches

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

template <class C>
constexpr cudnnDataType_t ctype() {
  return std::is_same_v<C, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
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
    lanes_layout_ = lanes_layout();
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

    // Rows that are contiguous runs of C values are used where they lie (no
    // gather), and the result goes straight to y when y is such a row and
    // beta = 0 (alpha folds into the kernels' last pass).
    bool direct_in[2] = {false, false};
    for (int j = 0; j < nin; ++j) direct_in[j] = nruns == 1 && run_stride_[j] == 1 && G_.dtype[j] == ctype<C>();
    const bool direct_out = nruns == 1 && run_stride_[out] == 1 && G_.dtype[out] == ctype<C>() && beta == C(0);
    // A float ACCURATE backward far larger than the caches writes dx with
    // streaming stores: 4096 x 1000 on a 2-vCPU Zen 5, two threads, five
    // alternating runs each, 0.95-1.22 ms against 1.12-1.85 with ordinary
    // stores (FREEDNN_CPU_STREAM_STORES=0); oneDNN 1.2-1.9 in the same runs.
    // Not where y, dy and dx fit the last-level cache: on a 2-vCPU Xeon with
    // 480 MB of L3, three alternating runs, 0.90-0.91 ms streamed against
    // 0.86-0.88 (0.93-0.94 of oneDNN against 0.98-0.99).
    const int64_t out_bytes = G_.rows * n * static_cast<int64_t>(sizeof(C));
    const bool stream = std::is_same_v<C, float> && direct_out && op.backward && op.algorithm != CUDNN_SOFTMAX_LOG &&
                        out_bytes >= kStreamBytes && 3 * out_bytes > last_level_cache_bytes() &&
                        streaming_stores_allowed();
    // One row through the row kernels; buf holds 3 * n values.
    auto one_row = [&](int64_t row, C *buf) {
      C *in_buf[2] = {buf, buf + n};
      const C *in[2] = {in_buf[0], in_buf[1]};
      for (int j = 0; j < nin; ++j) {
        const char *p = base[j] + row_offset(j, row) * es_[j];
        if (direct_in[j]) {
          in[j] = reinterpret_cast<const C *>(p + run_off_[j][0] * es_[j]);
          continue;
        }
        for (int k = 0; k < nruns; ++k)
          load[j](p + run_off_[j][k] * es_[j], run_stride_[j], static_cast<int>(run_), in_buf[j] + k * run_);
      }
      char *p = base[out] + row_offset(out, row) * es_[out];
      C *res = direct_out ? reinterpret_cast<C *>(p + run_off_[out][0] * es_[out]) : buf + 2 * n;
      const C scale = direct_out ? alpha : C(1);
      if constexpr (std::is_same_v<C, float>) {
        if (stream) {
          softmax::backward_accurate_stream(in[0], in[1], n, res, scale);
          return;  // direct_out
        }
      }
      if (op.backward) softmax::backward_row(op.algorithm, in[0], in[1], n, res, scale);
      else softmax::forward_row(op.algorithm, in[0], n, res, scale);
      if (direct_out) return;
      for (int k = 0; k < nruns; ++k)
        store(p + run_off_[out][k] * es_[out], run_stride_[out], static_cast<int>(run_), res + k * run_, alpha, beta);
    };
    const bool par = ctx.pool != nullptr && ctx.pool->size() > 1 && G_.rows >= 2 && G_.rows * n >= kParallelElements;

    // Lanes: rows whose elements are strided (one run, its stride at least
    // a vector) and whose neighbours along the innermost kept dim are the
    // next floats in every operand (CHANNEL mode on NCHW) go softmax::lanes()
    // at a time through the lanes kernels, each element one vector load;
    // the last rows of each line of that dim, fewer than a vector, through
    // the row kernels. Row by row, a 19-channel softmax of 32x19x64x64
    // gathered 19 floats from 19 lines per pixel (2 threads, alternating
    // processes with FREEDNN_CPU_SOFTMAX_LANES=0, a compile on the same
    // cores: ACCURATE forward 18.7-19.9 -> 1.8-2.2 ms, backward 18.0-18.9 ->
    // 1.9 ms; oneDNN's reference kernel 90-107 ms).
    if constexpr (std::is_same_v<C, float>) {
      if (lanes_layout_ && beta == C(0)) {  // no blend with y
        const int64_t L = softmax::lanes(), I = G_.kept_dims.back(), per_line = (I + L - 1) / L;
        auto items = [&](int64_t lo, int64_t hi) {
          std::vector<C> buf(static_cast<size_t>(3 * n));
          for (int64_t it = lo; it < hi; ++it) {
            const int64_t row0 = (it / per_line) * I + (it % per_line) * L;
            const int64_t count = std::min(L, I - (it % per_line) * L);
            if (count < L) {
              for (int64_t row = row0; row < row0 + count; ++row) one_row(row, buf.data());
              continue;
            }
            auto at = [&](int o) { return reinterpret_cast<C *>(base[o] + (row_offset(o, row0) + run_off_[o][0]) * es_[o]); };
            if (op.backward)
              softmax::backward_lanes(op.algorithm, at(0), run_stride_[0], at(1), run_stride_[1], n, at(out),
                                      run_stride_[out], alpha);
            else
              softmax::forward_lanes(op.algorithm, at(0), n, run_stride_[0], at(out), run_stride_[out], alpha);
          }
        };
        const int64_t count = (G_.rows / I) * per_line;
        if (par && count > 1) ctx.pool->parallel_for(count, items, std::min<int64_t>(count, ctx.pool->size() * 4));
        else items(0, count);
        return;
      }
    }

    auto body = [&](int64_t lo, int64_t hi) {
      std::vector<C> buf(static_cast<size_t>(3 * n));
      for (int64_t row = lo; row < hi; ++row) one_row(row, buf.data());
      if (stream) _mm_sfence();  // the streaming stores are visible before the call returns
    };
    if (!par) {
      body(0, G_.rows);
      return;
    }
    ctx.pool->parallel_for(G_.rows, body, std::min<int64_t>(G_.rows, ctx.pool->size() * 4));
  }

  // Whether the lanes kernels can take this graph's rows (see run): FLOAT
  // operands, one strided run per row (stride >= a vector, so that the
  // lanes of one load are different rows), the innermost kept dim of
  // stride 1 in every operand and at least a vector long.
  // FREEDNN_CPU_SOFTMAX_LANES=0 turns them off (to measure against them).
  bool lanes_layout() const {
    if (!env_on("FREEDNN_CPU_SOFTMAX_LANES") || run_off_[0].size() != 1 || G_.kept_dims.empty() ||
        G_.kept_dims.back() < softmax::lanes())
      return false;
    for (int o = 0; o < G_.operands; ++o)
      if (G_.dtype[o] != CUDNN_DATA_FLOAT || G_.kept_strides[o].back() != 1 || run_stride_[o] < softmax::lanes())
        return false;
    return true;
  }

  SoftmaxGeometry G_;
  bool use_double_ = false;
  int64_t run_ = 1;
  std::vector<int64_t> run_stride_;
  std::vector<std::vector<int64_t>> run_off_;  // [operand][run]
  std::vector<int64_t> es_;
  bool lanes_layout_ = false;  // lanes_layout(), worked out with the plan
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
