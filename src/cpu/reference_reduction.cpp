// cpu.reference.reduction: the obviously-correct reduction engine. For each
// element of y it gathers the reduced slice of x in logical order into a
// vector of doubles and reduces it with plain code. Grouped reductions (a y
// extent dividing x's) run with their grouped dims split in two.
#include <cmath>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/reduction_support.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/reduction_support.hpp"

namespace fdnn::cpu {
namespace {

struct Result {
  double value;
  int64_t index;  // for MIN, MAX, AMAX
};

Result reduce_slice(cudnnReduceTensorOp_t mode, bool propagate_nan, const std::vector<double> &v) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (mode) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG:
    case CUDNN_REDUCE_TENSOR_NORM1:
    case CUDNN_REDUCE_TENSOR_NORM2: {
      double s = 0;
      for (double e : v) {
        if (mode == CUDNN_REDUCE_TENSOR_NORM1) s += std::fabs(e);
        else if (mode == CUDNN_REDUCE_TENSOR_NORM2) s += e * e;
        else s += e;
      }
      if (mode == CUDNN_REDUCE_TENSOR_AVG) s /= static_cast<double>(v.size());
      if (mode == CUDNN_REDUCE_TENSOR_NORM2) s = std::sqrt(s);
      return {s, 0};
    }
    case CUDNN_REDUCE_TENSOR_MUL:
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: {
      double p = 1;
      for (double e : v)
        if (mode == CUDNN_REDUCE_TENSOR_MUL || e != 0.0) p *= e;
      return {p, 0};
    }
    case CUDNN_REDUCE_TENSOR_MIN:
    case CUDNN_REDUCE_TENSOR_MAX:
    case CUDNN_REDUCE_TENSOR_AMAX: {
      // NaN first: with PROPAGATE the first NaN is the answer.
      int64_t first_nan = -1, best = -1;
      for (size_t i = 0; i < v.size(); ++i) {
        double e = mode == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[i]) : v[i];
        if (std::isnan(e)) {
          if (first_nan < 0) first_nan = static_cast<int64_t>(i);
          continue;
        }
        if (best < 0) {
          best = static_cast<int64_t>(i);
          continue;
        }
        double b = mode == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[best]) : v[best];
        bool better = mode == CUDNN_REDUCE_TENSOR_MIN ? e < b : e > b;  // strict: ties keep the first
        if (better) best = static_cast<int64_t>(i);
      }
      if (first_nan >= 0 && (propagate_nan || best < 0)) return {nan, first_nan};
      double b = mode == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v[best]) : v[best];
      return {b, best};
    }
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "reduction mode ", static_cast<int>(mode), " is not implemented");
  }
}

class Plan final : public ExecutionPlan {
 public:
  using ExecutionPlan::ExecutionPlan;

  void execute(const ExecContext &, const graph::Graph &g, const VariantPack &pack) const override {
    const auto &op = std::get<graph::ReductionOp>(g.ops().front());
    // A grouped reduction (y extents dividing x's) as the plain one it is
    // with its grouped dims split (core/reduction_support.hpp).
    graph::Tensor x = g.tensor(op.x), y = g.tensor(op.y);
    split_grouped_reduction(x, y);
    const graph::Tensor *idx = op.indices != graph::kNoTensor ? &g.tensor(op.indices) : nullptr;
    const void *x_data = pack.get(op.x);
    void *y_data = pack.get(op.y);
    void *idx_data = idx ? pack.get(op.indices) : nullptr;
    const int rank = x.rank();
    const bool propagate = op.nan_propagation != CUDNN_NOT_PROPAGATE_NAN;

    // The reduced dimensions, in logical order.
    std::vector<int> reduced;
    for (int d = 0; d < rank; ++d)
      if (y.dims[d] == 1 && x.dims[d] != 1) reduced.push_back(d);
    int64_t slice = 1;
    for (int d : reduced) slice *= x.dims[d];

    std::vector<int64_t> yi(rank, 0), xi(rank, 0);
    std::vector<double> values(static_cast<size_t>(slice));
    const int64_t outputs = y.element_count();
    for (int64_t o = 0; o < outputs; ++o) {
      int64_t rest = o;
      for (int d = rank - 1; d >= 0; --d) {
        yi[d] = rest % y.dims[d];
        rest /= y.dims[d];
      }
      // Gather the slice: position s is row-major over the reduced dims.
      for (int64_t s = 0; s < slice; ++s) {
        xi = yi;
        int64_t r = s;
        for (int k = static_cast<int>(reduced.size()) - 1; k >= 0; --k) {
          xi[reduced[k]] = r % x.dims[reduced[k]];
          r /= x.dims[reduced[k]];
        }
        int64_t off = 0;
        for (int d = 0; d < rank; ++d) off += xi[d] * x.strides[d];
        values[static_cast<size_t>(s)] = load_lane(x.dtype, x_data, off);
      }
      Result res = reduce_slice(op.mode, propagate, values);

      int64_t y_off = 0;
      for (int d = 0; d < rank; ++d) y_off += yi[d] * y.strides[d];
      double out = op.blend.alpha * res.value;
      if (op.blend.beta != 0.0) out += op.blend.beta * load_lane(y.dtype, y_data, y_off);
      store_lane(y.dtype, y_data, y_off, out);
      if (idx != nullptr) {
        int64_t i_off = 0;
        for (int d = 0; d < rank; ++d) i_off += yi[d] * idx->strides[d];
        store_lane(idx->dtype, idx_data, i_off, static_cast<double>(res.index));
      }
    }
  }
};

class ReferenceReductionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.reference.reduction"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  int priority() const override { return 1000; }
  bool is_reference() const override { return true; }
  Support supports(const graph::Graph &g) const override { return check_single_reduction(g); }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &, const std::vector<KnobChoice> &) const override {
    return std::make_unique<Plan>(*this);
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::ReferenceReductionEngine;
FDNN_REGISTER_ENGINE(ReferenceReductionEngine)
