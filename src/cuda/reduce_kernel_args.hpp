// Device-side arguments of the reduction kernels (reduce_kernels.cuh), made
// from ReductionArgs by reduce_launch.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/fast_divmod.hpp"
#include "cuda/kernel_args.hpp"

namespace fdnn::cuda {

struct ReduceKernelArgs {
  uint32_t M = 0, K = 0, S = 1;
  FastDivmod split_div;  // S
  uint32_t group = 32, group_shift = 5;  // rows: lanes per (output, split)
  uint32_t vec = 1;       // rows: x read in vectors of this many elements (16 bytes), 1 = scalar
  uint32_t cols_vec = 1;  // columns: outputs per thread, read with one 16-byte load
  bool final_block = false;  // finalize: a 256-thread block per output (many splits), else a warp
  int kept_rank = 0, red_rank = 0;
  FastDivmod kept_div[kMaxRank], red_div[kMaxRank];
  int64_t kept_x[kMaxRank] = {}, kept_y[kMaxRank] = {}, kept_idx[kMaxRank] = {};
  int64_t red_x[kMaxRank] = {}, red_flat[kMaxRank] = {};
  // Column shape: the innermost kept dim (also kept_div[kept_rank - 1]).
  uint32_t inner_extent = 1;
  FastDivmod inner_tiles;  // ceil(inner_extent / 32)
  const void *x = nullptr;
  int x_dtype = 0;
  void *y = nullptr;
  int y_dtype = 0;
  uint32_t *indices = nullptr;
  double alpha = 1, beta = 0;
  bool prop = false;
  void *part_value = nullptr;  // [S][M] compute-type values
  int64_t *part_index = nullptr;  // [S][M]
};

// Kernel launchers (reduce_rows.cu, reduce_cols.cu).
void launch_reduce_rows(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream);
void launch_reduce_cols(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream);
void launch_reduce_finalize(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream);

}  // namespace fdnn::cuda
