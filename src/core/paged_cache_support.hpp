// Validation of the paged K/V cache load (graph/op_paged_cache_load.hpp):
// the descriptor-level rules (cuDNN 9's finalize checks, BAD_PARAM) and the
// check of a single-op graph that the engines of every device share.
#pragma once

#include <cstdint>

#include "core/engine.hpp"
#include "graph/graph.hpp"

namespace fdnn {

// The sizes of a paged load, with y's strides in logical (b, h, s, d) order
// (dims 2 and 3 swapped when y is stored transposed).
struct PagedGeometry {
  int64_t batch = 0, heads = 0, seq = 0, head_dim = 0;
  int64_t block_size = 0, num_blocks = 0, pages = 0;
  int64_t y_strides[4] = {};  // b, h, s, d
  int64_t c_strides[4] = {};  // block, h, position in block, d
  int64_t table_batch_stride = 0, table_page_stride = 0, seq_stride = 0;
};

// Throws BAD_PARAM (fdnn::Error, the message naming the rule) unless the
// four tensors form a valid paged load as cuDNN 9 checks it at finalize:
// all rank 4; y of the container's type; seq_len INT32 or INT64; page table
// INT32; container [num_blocks, H, block_size, D] with block_size a power of
// two; y [B, H, S, D] (or [B, H, D, S] with stride 1 on dim 2); page table
// [B, 1, ceil(S / block_size), 1]; seq_len [B, 1, 1, 1].
void validate_paged_cache_load(const graph::Tensor &container, const graph::Tensor &y, const graph::Tensor &seq_len,
                               const graph::Tensor &page_table);

// The geometry of a validated load.
PagedGeometry paged_geometry(const graph::Tensor &container, const graph::Tensor &y, const graph::Tensor &seq_len,
                             const graph::Tensor &page_table);

// Support::yes() when g is one PagedCacheLoadOp whose tensors exist, are not
// by-value, pass validate_paged_cache_load, have byte-sized (or larger)
// elements, and whose y does not overlap itself.
Support check_single_paged_cache_load(const graph::Graph &g);

}  // namespace fdnn
