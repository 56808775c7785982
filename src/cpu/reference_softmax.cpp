// cpu.reference.softmax: the obviously-correct softmax engine. For every row
// (kept index) it walks the reduced elements with full index arithmetic, in
// double, any data type. Tests and the bench check the fast engines against it.
#include <cmath>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/softmax_support.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {
namespace {

// Offsets (in elements) of every index of dims for the given strides, in
// row-major order of dims.
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
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::SoftmaxOp>(g.ops().front());
    const SoftmaxGeometry G = softmax_geometry(g);
    std::vector<const void *> data(G.operands);
    for (int o = 0; o < G.operands; ++o) {
      data[o] = pack.get(G.uid[o]);
      if (data[o] == nullptr && G.rows * G.row_len > 0) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for uid ", G.uid[o]);
    }
    void *out = const_cast<void *>(data[G.operands - 1]);
    const cudnnDataType_t out_t = G.dtype[G.operands - 1];
    std::vector<std::vector<int64_t>> row_off(G.operands), red_off(G.operands);
    for (int o = 0; o < G.operands; ++o) {
      row_off[o] = offsets(G.kept_dims, G.kept_strides[o]);
      red_off[o] = offsets(G.red_dims, G.red_strides[o]);
    }
    const int64_t n = G.row_len;
    std::vector<double> a(n), b(n), r(n);
    for (int64_t row = 0; row < G.rows; ++row) {
      for (int64_t i = 0; i < n; ++i) {
        a[i] = load_lane(G.dtype[0], data[0], row_off[0][row] + red_off[0][i]);
        if (op.backward) b[i] = load_lane(G.dtype[1], data[1], row_off[1][row] + red_off[1][i]);
      }
      if (!op.backward) {
        double mx = -std::numeric_limits<double>::infinity();
        if (op.algorithm != CUDNN_SOFTMAX_FAST)
          for (double v : a) mx = std::max(mx, v);
        else
          mx = 0.0;
        double sum = 0;
        for (double v : a) sum += std::exp(v - mx);
        for (int64_t i = 0; i < n; ++i)
          r[i] = op.algorithm == CUDNN_SOFTMAX_LOG ? (a[i] - mx) - std::log(sum) : std::exp(a[i] - mx) / sum;
      } else {
        // a = y, b = dy
        double sum = 0;
        if (op.algorithm == CUDNN_SOFTMAX_LOG) {
          for (double v : b) sum += v;
          for (int64_t i = 0; i < n; ++i) r[i] = b[i] - std::exp(a[i]) * sum;
        } else {
          for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
          for (int64_t i = 0; i < n; ++i) r[i] = a[i] * (b[i] - sum);
        }
      }
      const int o = G.operands - 1;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = row_off[o][row] + red_off[o][i];
        double v = op.blend.alpha * r[i];
        if (op.blend.beta != 0.0) v += op.blend.beta * load_lane(out_t, out, off);
        store_lane(out_t, out, off, v);
      }
    }
  }
};

class ReferenceSoftmaxEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.softmax"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_softmax(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceSoftmaxEngine;
FDNN_REGISTER_ENGINE(ReferenceSoftmaxEngine)
