// Operand checks and pointers shared by the engines for layer / RMS and
// instance norm (cpu.normalization.rows, cpu.normalization.instance,
// cuda.normalization.rows): they take FLOAT / HALF / BFLOAT16 data with float statistics, or DOUBLE
// throughout, x, y, dy and dx in one type and one layout, and the seven
// statistics tensors of a NormalizationOp by their slot.
#pragma once

#include <cudnn_graph.h>

#include <array>
#include <variant>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/normalization_support.hpp"
#include "graph/op_normalization.hpp"

namespace fdnn::normop {

inline bool data_type_ok(cudnnDataType_t t) {
  return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}

// x's type, the compute type that goes with it, and y / dy / dx in x's type
// and strides.
inline Support check_data_operands(const graph::Graph &g, const graph::NormalizationOp &op) {
  const graph::Tensor &x = g.tensor(op.x);
  if (!data_type_ok(x.dtype)) return Support::no("x's type");
  const bool dbl = x.dtype == CUDNN_DATA_DOUBLE;
  if (normalization_computes_in_double(op) != dbl) return Support::no("compute type does not fit x's type");
  for (graph::Uid u : {op.y, op.dy, op.dx}) {
    if (u == graph::kNoTensor) continue;
    const graph::Tensor &t = g.tensor(u);
    if (t.dtype != x.dtype) return Support::no("data tensors differ in type");
    if (t.strides != x.strides) return Support::no("data tensors differ in strides");
  }
  return Support::yes();
}

// A statistics or parameter tensor: in memory, float (double with DOUBLE data).
inline Support check_side_operand(const graph::Tensor &t, bool dbl) {
  if (t.by_value) return Support::no("a statistics tensor is a by-value scalar");
  if (t.dtype != (dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT)) return Support::no("statistics / parameter type");
  return Support::yes();
}

// The pointer of tensor u in the variant pack (null for an absent tensor).
inline void *operand(const VariantPack &pack, graph::Uid u) {
  if (u == graph::kNoTensor) return nullptr;
  void *p = pack.get(u);
  if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u);
  return p;
}

// Slots of the statistics tensors, as stat_pointers() lists them.
enum StatSlot { kMean, kInv, kVar, kRmIn, kRvIn, kRmOut, kRvOut };

inline std::array<graph::Uid, 7> stat_uids(const graph::NormalizationOp &op) {
  return {op.mean,           op.inv_variance,   op.variance,       op.running_mean_in,
          op.running_var_in, op.running_mean_out, op.running_var_out};
}

inline std::array<void *, 7> stat_pointers(const VariantPack &pack, const graph::NormalizationOp &op) {
  std::array<void *, 7> p{};
  const std::array<graph::Uid, 7> u = stat_uids(op);
  for (size_t i = 0; i < p.size(); ++i) p[i] = operand(pack, u[i]);
  return p;
}

}  // namespace fdnn::normop
