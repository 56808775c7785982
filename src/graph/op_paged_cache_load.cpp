#include "graph/op_paged_cache_load.hpp"

#include <ostream>

namespace fdnn::graph {

bool paged_y_transposed(const Tensor &y) { return y.strides.size() == 4 && y.strides[2] == 1; }

void describe(std::ostream &os, const PagedCacheLoadOp &op, bool) {
  os << "paged_cache_load(container=" << op.container << ",page_table=" << op.page_table << ",seq_len=" << op.seq_len
     << ",y=" << op.y << ')';
}

}  // namespace fdnn::graph
