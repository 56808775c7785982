#include "core/rng_support.hpp"

#include <variant>

#include "core/error.hpp"
#include "core/op_support.hpp"

namespace fdnn {

bool is_rng_output_type(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT64:
    case CUDNN_DATA_BOOLEAN: return true;
    default: return false;
  }
}

uint64_t one_bits(cudnnDataType_t t, int *size) {
  switch (t) {
    case CUDNN_DATA_FLOAT: *size = 4; return 0x3f800000u;
    case CUDNN_DATA_DOUBLE: *size = 8; return 0x3ff0000000000000ull;
    case CUDNN_DATA_HALF: *size = 2; return 0x3c00u;
    case CUDNN_DATA_BFLOAT16: *size = 2; return 0x3f80u;
    case CUDNN_DATA_INT32: *size = 4; return 1;
    case CUDNN_DATA_INT64: *size = 8; return 1;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_BOOLEAN: *size = 1; return 1;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "RNG output type ", static_cast<int>(t), " is not supported");
  }
}

namespace {

bool is_integer_scalar(const graph::Tensor *t) {
  return t != nullptr && (t->dtype == CUDNN_DATA_INT64 || t->dtype == CUDNN_DATA_INT32) && t->element_count() == 1;
}

uint64_t host_scalar(const graph::Graph &g, graph::Uid uid, const VariantPack &pack) {
  const graph::Tensor &t = g.tensor(uid);
  if (t.by_value) return static_cast<uint64_t>(static_cast<int64_t>(t.value));
  const void *p = pack.get(uid);
  check_not_null(p, "the RNG seed/offset pointer");
  if (t.dtype == CUDNN_DATA_INT32) return static_cast<uint64_t>(static_cast<int64_t>(*static_cast<const int32_t *>(p)));
  return *static_cast<const uint64_t *>(p);
}

}  // namespace

Support check_single_rng(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::RngOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not an RNG operation");
  const bool bernoulli = op->distribution == CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  if (!bernoulli && op->distribution != CUDNN_RNG_DISTRIBUTION_UNIFORM &&
      op->distribution != CUDNN_RNG_DISTRIBUTION_NORMAL)
    return Support::no(cat("RNG distribution ", static_cast<int>(op->distribution), " is not known"));
  const graph::Tensor *y = g.find_tensor(op->y);
  if (y == nullptr || y->by_value) return Support::no("y is missing or by-value");
  if (y->strides.size() != y->dims.size()) return Support::no("strides do not match dims");
  if (!is_rng_output_type(y->dtype)) return Support::no(cat("y has unsupported type ", static_cast<int>(y->dtype)));
  if (!bernoulli && y->dtype != CUDNN_DATA_FLOAT && y->dtype != CUDNN_DATA_DOUBLE && y->dtype != CUDNN_DATA_HALF &&
      y->dtype != CUDNN_DATA_BFLOAT16)
    return Support::no("uniform and normal draws need a floating-point y");
  if (has_overlapping_elements(*y)) return Support::no("y has overlapping elements");
  if (op->seed != graph::kNoTensor && !is_integer_scalar(g.find_tensor(op->seed)))
    return Support::no("the seed must be an INT64 (or INT32) scalar tensor");
  if (op->offset != graph::kNoTensor && !is_integer_scalar(g.find_tensor(op->offset)))
    return Support::no("the offset must be an INT64 (or INT32) scalar tensor");
  return Support::yes();
}

uint64_t rng_host_seed(const graph::Graph &g, const graph::RngOp &op, const VariantPack &pack) {
  if (op.seed == graph::kNoTensor) return static_cast<uint64_t>(op.seed_value);
  return host_scalar(g, op.seed, pack);
}

uint64_t rng_host_offset(const graph::Graph &g, const graph::RngOp &op, const VariantPack &pack) {
  if (op.offset == graph::kNoTensor) return 0;
  return host_scalar(g, op.offset, pack);
}

}  // namespace fdnn
