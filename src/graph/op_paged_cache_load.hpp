// Paged K/V cache load (the backend API's OPERATION_PAGED_CACHE_LOAD, the
// paged attention of the flash-attention patterns): gathers a per-sequence
// K or V tensor out of a pool of fixed-size pages.
//
//   container  [num_blocks, H, block_size, D]   the pages (any type)
//   page_table [B, 1, pages, 1] INT32           page index of each block of a sequence
//   seq_len    [B, 1, 1, 1] INT32 or INT64      valid length of each sequence
//   y          [B, H, S, D], container's type   pages = ceil(S / block_size)
//
//   y[b,h,s,d] = container[page_table[b,0,s/block_size,0], h, s % block_size, d]
//
// y may be stored transposed, as cuDNN's K^T operand of the attention's first
// matmul: dims [B, H, D, S] with stride 1 on dim 2 (cuDNN and cudnn-frontend
// tell the two forms apart by that stride alone); the element (b,h,s,d) is
// then y's element [b,h,d,s].
//
// Positions past a sequence's end (s >= seq_len[b]) and positions whose page
// index is outside [0, num_blocks) are written as zeros, never read from the
// container: serving systems leave the page-table entries past a sequence's
// end unassigned (stale or -1), so reading them could fault or bring NaN
// garbage that survives the masked attention (0 * NaN in the P*V product);
// zeros keep y deterministic and the masked result identical.
#pragma once

#include <iosfwd>

#include "graph/tensor.hpp"

namespace fdnn::graph {

struct PagedCacheLoadOp {
  static constexpr const char *kKind = "paged_cache_load";
  Uid container = kNoTensor;
  Uid page_table = kNoTensor;
  Uid seq_len = kNoTensor;
  Uid y = kNoTensor;
};

// True when y is stored in the transposed [B, H, D, S] form (stride 1 on
// dimension 2), cuDNN's rule. y must have rank 4.
bool paged_y_transposed(const Tensor &y);

// One op in the graph's text forms (structural key and verbose lines).
void describe(std::ostream &os, const PagedCacheLoadOp &op, bool with_values);

}  // namespace fdnn::graph
