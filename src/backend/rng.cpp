// CUDNN_BACKEND_RNG_DESCRIPTOR (distribution and its parameters) and
// CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR (the node): a graph::RngOp (see
// graph/op_rng.hpp for which element gets which Philox counter).
// Rules probed against cuDNN 9 on the host (tests/oracle/backend_descriptors.c):
// the RNG descriptor defaults to BERNOULLI and refuses a probability outside
// [0, 1] (an unset one too) and an unknown distribution at finalize, with
// BAD_PARAM; the probability is DOUBLE only. The operation's finalize accepts
// missing attributes (the engines then refuse the graph), takes the seed as
// an INT64 value or a tensor descriptor (any other type is BAD_PARAM), and
// refuses a seed or offset tensor that is not a scalar (all dims 1).
// Uniform (default [0, 1]) and normal (default mean 0, deviation 1) draws are
// FreeDNN's own definitions; only the CPU reference engine runs them (on a GPU
// handle the heuristics offer no engine).
#include "backend/operation.hpp"
#include "backend/tensor_descriptor.hpp"
#include "core/error.hpp"

namespace fdnn::backend {

namespace {

class RngDescriptor : public Descriptor {
 public:
  RngDescriptor()
      : Descriptor(CUDNN_BACKEND_RNG_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, 1, true, CUDNN_TYPE_RNG_DISTRIBUTION,
                        true, true},
                       {CUDNN_ATTR_RNG_NORMAL_DIST_MEAN, CUDNN_TYPE_DOUBLE},
                       {CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION, CUDNN_TYPE_DOUBLE},
                       {CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM, CUDNN_TYPE_DOUBLE},
                       {CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, CUDNN_TYPE_DOUBLE},
                       {CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE},
                   }) {}
  graph::RngOp op;

 protected:
  void do_finalize() override {
    op = graph::RngOp{};
    op.distribution = scalar<cudnnRngDistribution_t>(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_BERNOULLI);
    switch (op.distribution) {
      case CUDNN_RNG_DISTRIBUTION_BERNOULLI: {
        // Unset reads as an invalid probability, as in cuDNN.
        const double p = scalar<double>(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, -1.0);
        check_arg(p >= 0.0 && p <= 1.0, "BERNOULLI_DIST_PROBABILITY = ", p,
                  ": must be set, between 0 and 1");
        op.probability = p;
        break;
      }
      case CUDNN_RNG_DISTRIBUTION_UNIFORM:
        op.uniform_min = scalar<double>(CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, 0.0);
        op.uniform_max = scalar<double>(CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM, 1.0);
        check_arg(op.uniform_min <= op.uniform_max, "UNIFORM_DIST_MINIMUM (", op.uniform_min,
                  ") exceeds UNIFORM_DIST_MAXIMUM (", op.uniform_max, ")");
        break;
      case CUDNN_RNG_DISTRIBUTION_NORMAL:
        op.normal_mean = scalar<double>(CUDNN_ATTR_RNG_NORMAL_DIST_MEAN, 0.0);
        op.normal_sd = scalar<double>(CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION, 1.0);
        check_arg(op.normal_sd >= 0.0, "NORMAL_DIST_STANDARD_DEVIATION = ", op.normal_sd, ": must not be negative");
        break;
      default:
        fail(CUDNN_STATUS_BAD_PARAM, "RNG distribution ", static_cast<int>(op.distribution),
             " is not a cudnnRngDistribution_t");
    }
    put(CUDNN_ATTR_RNG_DISTRIBUTION,
        AttrValue::of(CUDNN_TYPE_RNG_DISTRIBUTION, std::vector<int32_t>{static_cast<int32_t>(op.distribution)}));
  }
  void copy_state_from(const Descriptor &other) override { op = static_cast<const RngDescriptor &>(other).op; }
};

class RngOperation : public OperationDescriptor {
 public:
  RngOperation()
      : OperationDescriptor(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR,
                            {
                                {CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, 1, true,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, true, true},
                                {CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                                {CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR},
                            }) {}

 protected:
  void do_finalize() override {
    tensors_.clear();
    graph::RngOp op;
    if (has(CUDNN_ATTR_OPERATION_RNG_DESC)) {
      const auto rd = finalized_descriptors(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_BACKEND_RNG_DESCRIPTOR, "RNG_DESC");
      op = static_cast<const RngDescriptor *>(rd.front())->op;
    } else {
      // cuDNN finalizes the node without it; no engine runs it then.
      op.distribution = static_cast<cudnnRngDistribution_t>(-1);
    }
    op.y = use_tensor(CUDNN_ATTR_OPERATION_RNG_YDESC, "YDESC", false);
    if (has(CUDNN_ATTR_OPERATION_RNG_SEED)) {
      if (value(CUDNN_ATTR_OPERATION_RNG_SEED).type == CUDNN_TYPE_INT64) {
        op.seed_value = scalar<int64_t>(CUDNN_ATTR_OPERATION_RNG_SEED, 0);
      } else {
        op.seed = use_tensor(CUDNN_ATTR_OPERATION_RNG_SEED, "the seed tensor (RNG_SEED)", true);
        check_scalar(tensors_.back(), "the seed tensor");
      }
    }
    op.offset = use_tensor(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, "OFFSET_DESC", false);
    if (op.offset != graph::kNoTensor) check_scalar(tensors_.back(), "the offset tensor");
    op_ = op;
  }

 private:
  static void check_scalar(const graph::Tensor &t, const char *what) {
    for (size_t i = 0; i < t.dims.size(); ++i)
      check_arg(t.dims[i] == 1, what, " must have every dimension 1; dimension ", i, " is ", t.dims[i]);
  }
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_RNG_DESCRIPTOR, RngDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, RngOperation)

}  // namespace fdnn::backend
