// CUDA kernel of the paged K/V cache gather (graph/op_paged_cache_load.hpp).
// One thread per unit of a y row (b, h, s): up to 16 contiguous bytes of the
// row's D elements when both rows are contiguous and aligned (K and V caches
// with D = 64 or 128 in half: 8 or 16 threads per row, 16-byte loads and
// stores), else one element. The row's page comes from the page table (each
// thread of the row reads the same entry: a broadcast through L1); rows past
// the sequence's end or with a page outside the container are zeros. The
// index arithmetic uses FastDivmod on 32-bit indices; the host splits the
// rows so that a launch stays below 2^31 units.
#include <cuda_runtime.h>

#include "cuda/cuda_util.hpp"
#include "cuda/paged_cache_load_args.hpp"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

template <class U>
__global__ void __launch_bounds__(kThreads) paged_load_kernel(PagedLoadArgs a, int64_t row_begin, uint32_t count) {
  const uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= count) return;
  uint32_t unit, s, h;
  const uint32_t local_row = a.upr.divmod(i, unit);
  const int64_t row = row_begin + local_row;
  // row < 2^31 is not guaranteed for the whole tensor, so decompose it in
  // 64 bits when it is large (rare: a y of more than 2^31 rows).
  int64_t b;
  if (row < (int64_t{1} << 31)) {
    const uint32_t bh = a.seq.divmod(static_cast<uint32_t>(row), s);
    b = a.heads.divmod(bh, h);
  } else {
    s = static_cast<uint32_t>(row % a.seq.divisor);
    const int64_t bh = row / a.seq.divisor;
    h = static_cast<uint32_t>(bh % a.heads.divisor);
    b = bh / a.heads.divisor;
  }
  const int64_t valid = a.seq64 ? static_cast<const int64_t *>(a.seq_len)[b * a.seq_b]
                                : static_cast<const int32_t *>(a.seq_len)[b * a.seq_b];
  U *y = static_cast<U *>(a.y) + b * a.ys[0] + h * a.ys[1] + s * a.ys[2] + unit * a.ys[3];
  int64_t page = -1;
  uint32_t pos = 0;
  if (static_cast<int64_t>(s) < valid) {
    const uint32_t blk = a.block.divmod(s, pos);
    page = __ldg(a.table + b * a.table_b + static_cast<int64_t>(blk) * a.table_page);
  }
  if (page < 0 || page >= a.num_blocks) {
    *y = U{};
    return;
  }
  const U *c = static_cast<const U *>(a.container) + page * a.cs[0] + h * a.cs[1] + pos * a.cs[2] + unit * a.cs[3];
  *y = __ldg(c);
}


template <class U>
void launch_typed(const PagedLoadArgs &a, cudaStream_t stream) {
  const int64_t max_rows = ((int64_t{1} << 31) - kThreads) / a.units_per_row;
  for (int64_t r = 0; r < a.rows; r += max_rows) {
    const int64_t n = (a.rows - r < max_rows ? a.rows - r : max_rows) * a.units_per_row;
    const unsigned blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
    paged_load_kernel<U><<<blocks, kThreads, 0, stream>>>(a, r, static_cast<uint32_t>(n));
    check_launch("paged_load_kernel");
  }
}

}  // namespace

void launch_paged_cache_load(const PagedLoadArgs &a, void *stream_p) {
  if (a.rows == 0 || a.units_per_row == 0) return;
  cudaStream_t stream = as_stream(stream_p);
  switch (a.unit_bytes) {
    case 16: launch_typed<uint4>(a, stream); break;
    case 8: launch_typed<uint2>(a, stream); break;
    case 4: launch_typed<unsigned int>(a, stream); break;
    case 2: launch_typed<unsigned short>(a, stream); break;
    case 1: launch_typed<unsigned char>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.paged_cache_load: unsupported unit of ", a.unit_bytes, " bytes");
  }
}

}  // namespace fdnn::cuda
