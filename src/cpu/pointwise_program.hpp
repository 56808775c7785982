// A DAG of pointwise operations, and final reductions of its values,
// compiled for tile-wise evaluation on the CPU: the runtime-fusion engine's
// prologues and epilogues.
//
// The program walks an iteration space (the dims every tensor broadcasts
// to) in rows, one block of kBlock elements at a time. For each block, every
// operation runs in order on small buffers of the compute type: virtual
// tensors live only in those buffers, never in memory; tensors in memory
// (the caller's, or a library buffer such as the anchor's output tile) are
// loaded or stored by the load / compute / store kernels of the fast
// pointwise engine (pointwise_kernels.hpp). Reductions accumulate each block
// into per-worker partial results, combined by finish().
//
// A program runs on slices of its space: each run gets the slice's extents
// and the address of the slice's first element of every tensor, so the same
// program serves every tile of an anchor.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn::cpu {

// A tensor the program reads or writes in memory.
struct ProgramTensor {
  graph::Uid uid = graph::kNoTensor;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> strides;  // per space dim, in elements; 0 where the tensor broadcasts
  bool output = false;           // written by the program, else read
};

// An operand of a program operation: another operation's value, a tensor
// in memory (tensors() index) or a by-value constant.
struct ProgramOperand {
  enum class Kind { none, node, tensor, constant } kind = Kind::none;
  int index = -1;
};

// A pointwise operation of the program.
struct ProgramNode {
  int op = -1;                       // index in the graph's ops
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_IDENTITY;
  int arity = 1;
  ProgramOperand in[3];
  int store = -1;                    // tensors() index it writes, or -1
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  bool round = false;                // its type is not the compute type: readers see the rounded value
};

// A final reduction of a program value.
struct ProgramReduction {
  int op = -1;
  cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  bool propagate_nan = false;
  ProgramOperand in;
  std::vector<int64_t> index_strides;  // per space dim: step of the packed output index (0: reduced)
  int64_t outputs = 1;                 // elements of the output
  int64_t reduced = 1;                 // space elements per output element
};

struct ProgramNest;  // a slice's loop nest (pointwise_program.cpp)

class PointwiseProgram {
 public:
  // Memory strides of a tensor the program touches: the graph's own, or
  // those of the library buffer that holds it.
  using StridesOf = std::function<std::vector<int64_t>(graph::Uid)>;

  // Compiles `ops` (pointwise, in execution order) and `reductions` of g over
  // `space`. Virtual outputs of ops are kept in registers unless listed in
  // `stored` (values another operation reads from a buffer).
  PointwiseProgram(const graph::Graph &g, std::vector<int> ops, std::vector<int> reductions,
                   std::vector<int64_t> space, const StridesOf &strides_of, const std::vector<graph::Uid> &stored);

  const std::vector<int64_t> &space() const { return space_; }
  const std::vector<ProgramTensor> &tensors() const { return tensors_; }
  // Index of uid in tensors(), -1 if the program keeps it in registers.
  int tensor_index(graph::Uid uid) const;
  bool has_reductions() const { return !reductions_.empty(); }

  // Partial results of the reductions, for up to `slots` workers at once;
  // lives in memory the caller provides (workspace).
  size_t accumulator_bytes(int slots) const;
  struct Accumulators {
    void *memory = nullptr;
    int slots = 0;
  };
  void reset(const Accumulators &acc) const;

  // One slice of the space: its extents and, per tensors() entry, the
  // address of its first element; per reduction, the linear index of the
  // slice's first element in the reduction output (packed, row-major).
  struct Slice {
    std::vector<int64_t> dims;
    std::vector<char *> base;
    std::vector<int64_t> reduction_offset;
  };
  // Offset of a slice starting at `start` (per space dim) in reduction r.
  int64_t reduction_offset(size_t r, const std::vector<int64_t> &start) const;
  size_t reduction_count() const { return reductions_.size(); }

  // Runs a slice over ctx's thread pool (accumulator slots [0, acc.slots)).
  void run(const ExecContext &ctx, const graph::Graph &g, const Slice &s, const Accumulators &acc) const;
  // Runs a slice on the calling thread with accumulator slot `slot`.
  void run_serial(const graph::Graph &g, const Slice &s, const Accumulators &acc, int slot) const;
  // Combines the slots and writes each reduction output (with its blend).
  void finish(const graph::Graph &g, const Accumulators &acc, const VariantPack &pack) const;

  const std::vector<ProgramNode> &nodes() const { return nodes_; }
  const std::vector<ProgramReduction> &reductions() const { return reductions_; }
  const std::vector<int> &order() const { return order_; }
  const std::vector<graph::Uid> &constants() const { return constants_; }
  bool computes_in_double() const { return use_double_; }

 private:
  void dispatch(const ExecContext *ctx, const graph::Graph &g, const Slice &s, const Accumulators &acc,
                int slot) const;

  std::vector<int64_t> space_;
  std::vector<int> order_;  // space dims, outermost first in memory order
  std::vector<ProgramTensor> tensors_;
  std::vector<ProgramNode> nodes_;
  std::vector<ProgramReduction> reductions_;
  std::vector<graph::Uid> constants_;  // by-value inputs
  bool use_double_ = false;
};

}  // namespace fdnn::cpu
