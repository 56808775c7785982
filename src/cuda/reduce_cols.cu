// Instantiations and launcher of the column-shaped reduction kernel
// (reduce_kernels.cuh).
#include "cuda/cuda_util.hpp"
#include "cuda/reduce_kernels.cuh"

namespace fdnn::cuda {

void launch_reduce_cols(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream) {
  const uint64_t tiles = static_cast<uint64_t>(k.M / k.inner_extent) * k.inner_tiles.divisor;
  const dim3 grid(static_cast<unsigned>(tiles), k.S);
  const dim3 block(32, kColRows);
  const bool known = visit_reduction(a.mode, a.compute_double, a.x_dtype, a.with_index, [&](auto m, auto c, auto sx, auto idx) {
    using M = decltype(m);
    using C = typename decltype(c)::type;
    using SX = typename decltype(sx)::type;
    constexpr bool kIdx = decltype(idx)::value;
    if constexpr (!std::is_same_v<SX, DynamicType>) {
      constexpr int V = static_cast<int>(16 / sizeof(SX));
      if (k.cols_vec == V) {
        reduce_cols_kernel<M, C, SX, kIdx, V><<<grid, block, 0, stream>>>(k);
        return;
      }
    }
    reduce_cols_kernel<M, C, SX, kIdx, 1><<<grid, block, 0, stream>>>(k);
  });
  check_supported(known, "reduction mode ", static_cast<int>(a.mode), " has no CUDA kernel");
  check_launch("reduce_cols_kernel");
}

}  // namespace fdnn::cuda
