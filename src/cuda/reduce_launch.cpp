// Host side of the CUDA reductions: turns ReductionArgs into kernel arguments
// and launches the rows or columns kernel, then the finalize kernel when the
// slices are split.
#include "core/error.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/reduce_kernel_args.hpp"

namespace fdnn::cuda {
namespace {

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Element size of the types the kernels read with 16-byte vectors, else 0.
uint32_t element_bytes(int dtype) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    default: return 0;
  }
}

}  // namespace

size_t reduction_workspace_size(const ReductionArgs &a) {
  if (a.splits <= 1) return 0;
  const size_t slots = static_cast<size_t>(a.splits) * static_cast<size_t>(a.outputs);
  const size_t value_bytes = slots * (a.compute_double ? 8 : 4);
  return round_up(value_bytes, 256) + (a.with_index ? slots * 8 : 0);
}

void launch_reduction(const ReductionArgs &a, void *stream_ptr) {
  cudaStream_t stream = as_stream(stream_ptr);
  if (a.outputs == 0 || a.slice == 0) return;
  ReduceKernelArgs k;
  k.M = static_cast<uint32_t>(a.outputs);
  k.K = static_cast<uint32_t>(a.slice);
  k.S = static_cast<uint32_t>(a.splits);
  k.split_div = FastDivmod(k.S);
  k.group = static_cast<uint32_t>(a.lanes_per_output);
  k.group_shift = 0;
  while ((1u << k.group_shift) < k.group) ++k.group_shift;
  k.kept_rank = a.kept_rank;
  for (int d = 0; d < a.kept_rank; ++d) {
    k.kept_div[d] = FastDivmod(static_cast<uint32_t>(a.kept_extent[d]));
    k.kept_x[d] = a.kept_x[d];
    k.kept_y[d] = a.kept_y[d];
    k.kept_idx[d] = a.kept_idx[d];
  }
  k.red_rank = a.red_rank;
  for (int d = 0; d < a.red_rank; ++d) {
    k.red_div[d] = FastDivmod(static_cast<uint32_t>(a.red_extent[d]));
    k.red_x[d] = a.red_x[d];
    k.red_flat[d] = a.red_flat[d];
  }
  if (a.red_rank == 0) {  // nothing reduced: each output reads one element
    k.red_rank = 1;
    k.red_div[0] = FastDivmod(1);
  }
  if (a.columns) {
    k.inner_extent = static_cast<uint32_t>(a.kept_extent[a.kept_rank - 1]);
    // Aligned rows of f32/f16/bf16: V outputs per thread, one 16-byte load each.
    const uint32_t es = element_bytes(a.x_dtype);
    if (!a.compute_double && es != 0) {
      const uint32_t v = 16 / es;
      bool ok = k.inner_extent % v == 0 && aligned_to(a.x, 16);
      for (int d = 0; d + 1 < a.kept_rank && ok; ++d) ok = a.kept_x[d] % v == 0;
      for (int d = 0; d < a.red_rank && ok; ++d) ok = a.red_x[d] % v == 0;
      if (ok) k.cols_vec = v;
    }
    k.inner_tiles = FastDivmod((k.inner_extent + 32 * k.cols_vec - 1) / (32 * k.cols_vec));
  }
  k.x = a.x;
  k.x_dtype = a.x_dtype;
  k.y = a.y;
  k.y_dtype = a.y_dtype;
  k.indices = static_cast<uint32_t *>(a.indices);
  k.alpha = a.alpha;
  k.beta = a.beta;
  k.prop = a.propagate_nan;
  if (k.S > 1) {
    check_arg(a.workspace != nullptr, "the reduction needs a workspace of ", reduction_workspace_size(a), " bytes");
    const size_t slots = static_cast<size_t>(k.S) * k.M;
    k.part_value = a.workspace;
    k.part_index = reinterpret_cast<int64_t *>(static_cast<char *>(a.workspace) +
                                               round_up(slots * (a.compute_double ? 8 : 4), 256));
  }
  k.final_block = k.S > 256;
  // Contiguous slices of f32/f16/bf16 are read 16 bytes at a time.
  if (!a.columns && !a.compute_double && a.red_rank == 1 && a.red_x[0] == 1) {
    const uint32_t es = element_bytes(a.x_dtype);
    if (es != 0) {
      const uint32_t v = 16 / es;
      bool ok = k.K % v == 0 && aligned_to(a.x, 16);
      for (int d = 0; d < a.kept_rank && ok; ++d) ok = a.kept_x[d] % v == 0;
      if (ok) k.vec = v;
    }
  }
  if (a.columns) launch_reduce_cols(k, a, stream);
  else launch_reduce_rows(k, a, stream);
  if (k.S > 1) launch_reduce_finalize(k, a, stream);
}

}  // namespace fdnn::cuda
