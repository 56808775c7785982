// Instantiations and launchers of the row-shaped reduction kernel and of the
// finalize kernel (reduce_kernels.cuh).
#include "cuda/cuda_util.hpp"
#include "cuda/reduce_kernels.cuh"

namespace fdnn::cuda {

void launch_reduce_rows(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream) {
  const uint64_t threads = static_cast<uint64_t>(k.M) * k.S * k.group;
  const unsigned blocks = static_cast<unsigned>((threads + 255) / 256);
  const bool known = visit_reduction(a.mode, a.compute_double, a.x_dtype, a.with_index, [&](auto m, auto c, auto sx, auto idx) {
    using M = decltype(m);
    using C = typename decltype(c)::type;
    using SX = typename decltype(sx)::type;
    reduce_rows_kernel<M, C, SX, decltype(idx)::value><<<blocks, 256, 0, stream>>>(k);
  });
  check_supported(known, "reduction mode ", static_cast<int>(a.mode), " has no CUDA kernel");
  check_launch("reduce_rows_kernel");
}

void launch_reduce_finalize(const ReduceKernelArgs &k, const ReductionArgs &a, cudaStream_t stream) {
  const unsigned blocks =
      k.final_block ? k.M : static_cast<unsigned>((static_cast<uint64_t>(k.M) + 7) / 8);
  auto launch = [&](auto m, auto idx) {
    using M = decltype(m);
    using C = std::remove_cv_t<decltype(M::init(false))>;
    reduce_finalize_kernel<M, C, decltype(idx)::value><<<blocks, 256, 0, stream>>>(k);
  };
  auto by_mode = [&](auto c_tag) {
    using C = typename decltype(c_tag)::type;
    return red::visit_mode<C>(a.mode, [&](auto m) {
      if constexpr (decltype(m)::indexable) {
        if (a.with_index) {
          launch(m, std::true_type{});
          return;
        }
      }
      launch(m, std::false_type{});
    });
  };
  const bool known = a.compute_double ? by_mode(TypeTag<double>{}) : by_mode(TypeTag<float>{});
  check_supported(known, "reduction mode ", static_cast<int>(a.mode), " has no CUDA kernel");
  check_launch("reduce_finalize_kernel");
}

}  // namespace fdnn::cuda
