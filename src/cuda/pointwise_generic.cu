// The generic element-wise kernel: any mode of the shared table
// (core/pointwise_math.hpp), any supported data types, any strides and
// broadcasts, up to 8 dims. One element per thread; the coordinates come from
// the linear index through FastDivmod; loads and stores dispatch on the run-time
// data type (a warp-uniform branch).
#include <cuda_runtime.h>

#include "cuda/compute_params.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/element_access.cuh"
#include "cuda/pointwise_paths.hpp"

namespace fdnn::cuda {
namespace {

struct GenericArgs {
  int rank = 1;
  uint32_t total = 0;
  FastDivmod div[kMaxRank];
  int64_t stride[kMaxOperands][kMaxRank] = {};
  void *y = nullptr;
  const void *in[3] = {};
  int dtype[kMaxOperands] = {};
  int64_t base[kMaxOperands] = {};
  bool by_value[3] = {};
  double value[3] = {};
  double alpha1 = 1, alpha2 = 1, blend_alpha = 1, blend_beta = 0;
  pw::Params<double> params;
  int gen_axis = -1;
};

// Offsets of element i for every operand; coords[d] is its coordinate in dim d.
__device__ inline void element_offsets(const GenericArgs &a, uint32_t i, int64_t (&off)[kMaxOperands],
                                       uint32_t (&coords)[kMaxRank]) {
#pragma unroll
  for (int k = 0; k < kMaxOperands; ++k) off[k] = a.base[k];
  uint32_t rest = i;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    coords[d] = 0;
    if (d < a.rank) {
      uint32_t c;
      rest = a.div[d].divmod(rest, c);
      coords[d] = c;
#pragma unroll
      for (int k = 0; k < kMaxOperands; ++k) off[k] += static_cast<int64_t>(c) * a.stride[k][d];
    }
  }
}

template <class C>
__device__ inline C operand(const GenericArgs &a, int k, int64_t off) {
  return a.by_value[k] ? static_cast<C>(a.value[k]) : load_element<C>(a.in[k], a.dtype[k + 1], off);
}

template <class C>
__device__ inline void write_result(const GenericArgs &a, int64_t off, C r) {
  C out = static_cast<C>(a.blend_alpha) * r;
  if (a.blend_beta != 0.0) out += static_cast<C>(a.blend_beta) * load_element<C>(a.y, a.dtype[0], off);
  store_element<C>(a.y, a.dtype[0], off, out);
}

template <class OpT, class C>
__global__ void __launch_bounds__(256) pointwise_generic_kernel(GenericArgs a) {
  const pw::Params<C> p = to_compute<C>(a.params);
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.total; i += step) {
    int64_t off[kMaxOperands];
    uint32_t coords[kMaxRank];
    element_offsets(a, i, off, coords);
    C x = C(0), b = C(0), t = C(0);
    if (OpT::arity >= 1) x = static_cast<C>(a.alpha1) * operand<C>(a, 0, off[1]);
    if (OpT::arity >= 2) b = static_cast<C>(a.alpha2) * operand<C>(a, 1, off[2]);
    if (OpT::arity >= 3) t = operand<C>(a, 2, off[3]);
    write_result<C>(a, off[0], OpT::template apply<C>(x, b, t, p));
  }
}

// GEN_INDEX: y = coordinate of the element along the axis.
template <class C>
__global__ void __launch_bounds__(256) gen_index_kernel(GenericArgs a) {
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.total; i += step) {
    int64_t off[kMaxOperands];
    uint32_t coords[kMaxRank];
    element_offsets(a, i, off, coords);
    uint32_t c = 0;
#pragma unroll
    for (int d = 0; d < kMaxRank; ++d)
      if (d == a.gen_axis) c = coords[d];
    write_result<C>(a, off[0], static_cast<C>(c));
  }
}

// Bit-exact copy of E-byte elements (identity with alpha 1 and beta 0 on
// integer types whose values a float or double would round).
template <class E>
__global__ void __launch_bounds__(256) copy_kernel(GenericArgs a) {
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.total; i += step) {
    int64_t off[kMaxOperands];
    uint32_t coords[kMaxRank];
    element_offsets(a, i, off, coords);
    static_cast<E *>(a.y)[off[0]] = static_cast<const E *>(a.in[0])[off[1]];
  }
}

GenericArgs make_generic_args(const PointwiseArgs &pa) {
  GenericArgs a;
  const StridedLayout &l = pa.layout;
  a.rank = l.rank;
  a.total = static_cast<uint32_t>(l.element_count());
  for (int d = 0; d < l.rank; ++d) {
    a.div[d] = FastDivmod(static_cast<uint32_t>(l.extent[d]));
    for (int k = 0; k < kMaxOperands; ++k) a.stride[k][d] = k < l.operands ? l.stride[k][d] : 0;
  }
  a.y = pa.y;
  a.dtype[0] = pa.y_dtype;
  a.base[0] = pa.y_base;
  for (int k = 0; k < 3; ++k) {
    a.in[k] = pa.in[k].ptr;
    a.dtype[k + 1] = pa.in[k].dtype;
    a.base[k + 1] = pa.in[k].base;
    a.by_value[k] = pa.in[k].by_value;
    a.value[k] = pa.in[k].value;
  }
  a.alpha1 = pa.alpha1;
  a.alpha2 = pa.alpha2;
  a.blend_alpha = pa.blend_alpha;
  a.blend_beta = pa.blend_beta;
  a.params = pa.params;
  a.gen_axis = pa.gen_index_axis;
  return a;
}

template <class Kernel>
void launch(Kernel kernel, const GenericArgs &a, cudaStream_t stream) {
  const int threads = 256;
  int64_t blocks = (static_cast<int64_t>(a.total) + threads - 1) / threads;
  // Enough blocks to fill the GPU several times over; the loop does the rest.
  const int64_t cap = static_cast<int64_t>(sm_count()) * 64;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(a);
  check_launch("pointwise_generic_kernel");
}

}  // namespace

void launch_pointwise_generic(const PointwiseArgs &pa, cudaStream_t stream) {
  const GenericArgs a = make_generic_args(pa);
  if (a.total == 0) return;
  const bool raw_copy = pa.mode == CUDNN_POINTWISE_IDENTITY && !pa.in[0].by_value && pa.in[0].dtype == pa.y_dtype &&
                        pa.alpha1 * pa.blend_alpha == 1.0 && pa.blend_beta == 0.0;
  if (raw_copy && (pa.y_dtype == CUDNN_DATA_INT32 || pa.y_dtype == CUDNN_DATA_UINT32)) {
    launch(copy_kernel<uint32_t>, a, stream);
    return;
  }
  if (raw_copy && pa.y_dtype == CUDNN_DATA_INT64) {
    launch(copy_kernel<uint64_t>, a, stream);
    return;
  }
  if (pa.mode == CUDNN_POINTWISE_GEN_INDEX) {
    if (pa.compute_double)
      launch(gen_index_kernel<double>, a, stream);
    else
      launch(gen_index_kernel<float>, a, stream);
    return;
  }
  const bool known = pw::visit_mode(pa.mode, [&](auto op) {
    using OpT = decltype(op);
    if (pa.compute_double)
      launch(pointwise_generic_kernel<OpT, double>, a, stream);
    else
      launch(pointwise_generic_kernel<OpT, float>, a, stream);
  });
  check_supported(known, "pointwise mode ", static_cast<int>(pa.mode), " has no CUDA kernel");
}

}  // namespace fdnn::cuda
