#include "core/paged_cache_support.hpp"

#include <variant>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/op_support.hpp"
#include "graph/op_paged_cache_load.hpp"

namespace fdnn {

void validate_paged_cache_load(const graph::Tensor &c, const graph::Tensor &y, const graph::Tensor &seq,
                               const graph::Tensor &table) {
  check_arg(y.dtype == c.dtype, "YDESC's data type ", y.to_string(), " differs from CONTAINER_DESC's ",
            c.to_string(), ": the load copies elements unchanged");
  check_arg(seq.dtype == CUDNN_DATA_INT32 || seq.dtype == CUDNN_DATA_INT64, "SEQUENCE_DESC ", seq.to_string(),
            " must be INT32 or INT64");
  check_arg(table.dtype == CUDNN_DATA_INT32, "PAGE_TABLE_DESC ", table.to_string(), " must be INT32");
  check_arg(c.rank() == 4, "CONTAINER_DESC ", c.to_string(), " must have 4 dimensions [num_blocks, H, block_size, D]");
  check_arg(y.rank() == 4, "YDESC ", y.to_string(), " must have 4 dimensions [B, H, S, D]");
  check_arg(seq.rank() == 4, "SEQUENCE_DESC ", seq.to_string(), " must have 4 dimensions [B, 1, 1, 1]");
  check_arg(table.rank() == 4, "PAGE_TABLE_DESC ", table.to_string(), " must have 4 dimensions [B, 1, pages, 1]");
  const bool transposed = graph::paged_y_transposed(y);
  const int64_t batch = y.dims[0], heads = y.dims[1], head_dim = c.dims[3];
  const int64_t seq_len = transposed ? y.dims[3] : y.dims[2];
  const int64_t y_head_dim = transposed ? y.dims[2] : y.dims[3];
  check_arg(c.dims[1] == heads, "CONTAINER_DESC has ", c.dims[1], " heads (dim 1) but YDESC has ", heads);
  check_arg(y_head_dim == head_dim, "YDESC ", y.to_string(), " has head dimension ", y_head_dim,
            (transposed ? " (dim 2: stride 1 on dim 2 means the transposed [B, H, D, S] form)" : " (dim 3)"),
            " but CONTAINER_DESC's D (dim 3) is ", head_dim);
  const int64_t block = c.dims[2];
  check_arg(block > 0 && (block & (block - 1)) == 0, "CONTAINER_DESC's block size (dim 2) is ", block,
            ": it must be a power of two");
  check_arg(table.dims[0] == batch, "PAGE_TABLE_DESC's batch (dim 0) is ", table.dims[0], " but YDESC's is ", batch);
  check_arg(table.dims[1] == 1 && table.dims[3] == 1, "PAGE_TABLE_DESC ", table.to_string(),
            " must have dims [B, 1, pages, 1]");
  check_arg(table.dims[2] == (seq_len + block - 1) / block, "PAGE_TABLE_DESC has ", table.dims[2],
            " pages per sequence (dim 2) but ceil(S / block_size) = ceil(", seq_len, " / ", block, ") = ",
            (seq_len + block - 1) / block);
  check_arg(seq.dims[0] == batch, "SEQUENCE_DESC's batch (dim 0) is ", seq.dims[0], " but YDESC's is ", batch);
  for (int d = 1; d < 4; ++d)
    check_arg(seq.dims[d] == 1, "SEQUENCE_DESC ", seq.to_string(), " must have dims [B, 1, 1, 1]");
}

PagedGeometry paged_geometry(const graph::Tensor &c, const graph::Tensor &y, const graph::Tensor &seq,
                             const graph::Tensor &table) {
  PagedGeometry g;
  const bool transposed = graph::paged_y_transposed(y);
  g.batch = y.dims[0];
  g.heads = y.dims[1];
  g.seq = transposed ? y.dims[3] : y.dims[2];
  g.head_dim = c.dims[3];
  g.block_size = c.dims[2];
  g.num_blocks = c.dims[0];
  g.pages = table.dims[2];
  g.y_strides[0] = y.strides[0];
  g.y_strides[1] = y.strides[1];
  g.y_strides[2] = transposed ? y.strides[3] : y.strides[2];
  g.y_strides[3] = transposed ? y.strides[2] : y.strides[3];
  for (int d = 0; d < 4; ++d) g.c_strides[d] = c.strides[d];
  g.table_batch_stride = table.strides[0];
  g.table_page_stride = table.strides[2];
  g.seq_stride = seq.strides[0];
  return g;
}

Support check_single_paged_cache_load(const graph::Graph &g) {
  if (g.ops().size() != 1) return Support::no(cat("graph has ", g.ops().size(), " operations; this engine runs one"));
  const auto *op = std::get_if<graph::PagedCacheLoadOp>(&g.ops().front());
  if (op == nullptr) return Support::no("not a paged cache load");
  const graph::Tensor *c = g.find_tensor(op->container), *y = g.find_tensor(op->y),
                      *seq = g.find_tensor(op->seq_len), *table = g.find_tensor(op->page_table);
  if (!c || !y || !seq || !table) return Support::no("a tensor of the paged load is missing");
  for (const graph::Tensor *t : {c, y, seq, table}) {
    if (t->by_value) return Support::no(cat("tensor ", t->uid, " is by-value"));
    if (t->strides.size() != t->dims.size()) return Support::no(cat("tensor ", t->uid, ": strides do not match dims"));
  }
  try {
    validate_paged_cache_load(*c, *y, *seq, *table);
  } catch (const Error &e) {
    return Support::no(e.what());
  }
  if (type_info(y->dtype).bits < 8) return Support::no("sub-byte element types are not supported");
  if (has_overlapping_elements(*y)) return Support::no("y has overlapping elements");
  return Support::yes();
}

}  // namespace fdnn
