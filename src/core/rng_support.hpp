// Checks of a single RNG graph (graph/op_rng.hpp) shared by every device's
// engines, and what they need to write 0 and 1 in any output type.
#pragma once

#include <cstdint>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// Support::yes() when g is one RngOp of a known distribution, a real output
// of a supported type (floating point for UNIFORM and NORMAL) without
// overlapping elements, and INT64 (or INT32) scalar seed / offset tensors
// where given. Engines that draw only Bernoulli values check that themselves.
Support check_single_rng(const graph::Graph &g);

// Output types the RNG engines write (0 and 1 are exact in all of them).
bool is_rng_output_type(cudnnDataType_t t);

// The bytes of the value 1 in type t (little-endian, `size` bytes); 0 is all
// zero bytes in every supported type.
uint64_t one_bits(cudnnDataType_t t, int *size);

// The seed and offset of an execution: by-value tensors from the graph,
// others from memory (host memory only: the CPU engines).
uint64_t rng_host_seed(const graph::Graph &g, const graph::RngOp &op, const VariantPack &pack);
uint64_t rng_host_offset(const graph::Graph &g, const graph::RngOp &op, const VariantPack &pack);

}  // namespace fdnn
