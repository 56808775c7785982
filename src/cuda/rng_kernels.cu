// CUDA kernels of the RNG operation. One thread per group of 4
// elements: one Philox4x32-10 block (core/rng_math.hpp, the CPU engines'
// code), so both devices draw the same values. The output is written as raw
// bit patterns of its element size (0 or the bits of 1 in y's type): packed
// outputs with one 4-element vector store per thread, other layouts through
// the logical index decomposed over y's dims. Seed and offset are read from
// device memory when they are tensors there. Uniform and normal draws
// (continuous_kernel) compute the same doubles as the CPU engines
// (rng::uniform01, rng::standard_normal) and round them to y's type with the
// CPU's conversions (Storage<S>::store(double)).
#include <cuda_runtime.h>

#include "core/rng_math.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/rng_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

template <class W>
struct alignas(4 * sizeof(W)) Quad {
  W v[4];
};

__device__ inline uint64_t read_scalar(const void *p, bool int32, uint64_t value) {
  if (p == nullptr) return value;
  if (int32) return static_cast<uint64_t>(static_cast<int64_t>(*static_cast<const int32_t *>(p)));
  return *static_cast<const uint64_t *>(p);
}

template <class W>
__global__ void __launch_bounds__(kThreads) rng_kernel(RngArgs a) {
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = group * 4;
  if (first >= a.n) return;
  const uint64_t seed = read_scalar(a.seed_ptr, a.seed_int32, a.seed_value);
  const uint64_t offset = read_scalar(a.offset_ptr, a.offset_int32, a.offset_value);
  const uint32_t bits = rng::bernoulli_nibble(seed, offset, static_cast<uint64_t>(group), a.threshold);
  const W one = static_cast<W>(a.one);
  W *y = static_cast<W *>(a.y);
  const int count = a.n - first < 4 ? static_cast<int>(a.n - first) : 4;
  if (a.packed && count == 4) {
    Quad<W> q;
#pragma unroll
    for (int j = 0; j < 4; ++j) q.v[j] = ((bits >> j) & 1u) ? one : W(0);
    *reinterpret_cast<Quad<W> *>(y + first) = q;
    return;
  }
  for (int j = 0; j < count; ++j) {
    int64_t i = first + j, off = 0;
    if (a.packed) {
      off = i;
    } else {
      for (int d = a.rank - 1; d >= 0; --d) {
        off += (i % a.dims[d]) * a.strides[d];
        i /= a.dims[d];
      }
    }
    y[off] = ((bits >> j) & 1u) ? one : W(0);
  }
}

// Element offset of logical index i (row-major over y's dims).
__device__ inline int64_t strided_offset(const RngArgs &a, int64_t i) {
  int64_t off = 0;
  for (int d = a.rank - 1; d >= 0; --d) {
    off += (i % a.dims[d]) * a.strides[d];
    i /= a.dims[d];
  }
  return off;
}

template <class S, bool NORMAL>
__global__ void __launch_bounds__(kThreads) continuous_kernel(RngArgs a) {
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = group * 4;
  if (first >= a.n) return;
  const uint64_t seed = read_scalar(a.seed_ptr, a.seed_int32, a.seed_value);
  const uint64_t offset = read_scalar(a.offset_ptr, a.offset_int32, a.offset_value);
  const philox::Word4 w = philox::stream_block(seed, offset, static_cast<uint64_t>(group));
  double draw[4];
  if (NORMAL) {
    rng::standard_normal_pair(w, 0, &draw[0], &draw[1]);
    rng::standard_normal_pair(w, 2, &draw[2], &draw[3]);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) draw[j] = rng::uniform01(w.v[j]);
  }
  Quad<S> q;
#pragma unroll
  for (int j = 0; j < 4; ++j) q.v[j] = Storage<S>::store(a.p0 + a.p1 * draw[j]);
  S *y = static_cast<S *>(a.y);
  const int count = a.n - first < 4 ? static_cast<int>(a.n - first) : 4;
  if (a.packed && count == 4) {
    *reinterpret_cast<Quad<S> *>(y + first) = q;
    return;
  }
  for (int j = 0; j < count; ++j) y[a.packed ? first + j : strided_offset(a, first + j)] = q.v[j];
}

int64_t rng_blocks(const RngArgs &a) {
  const int64_t groups = (a.n + 3) / 4;
  const int64_t blocks = (groups + kThreads - 1) / kThreads;
  check_arg(blocks < (int64_t{1} << 31), "cuda.rng: tensor too large");
  return blocks;
}

template <class S>
void launch_continuous(const RngArgs &a, cudaStream_t stream) {
  const int64_t blocks = rng_blocks(a);
  if (blocks == 0) return;
  if (a.distribution == CUDNN_RNG_DISTRIBUTION_NORMAL)
    continuous_kernel<S, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  else
    continuous_kernel<S, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  check_launch("rng continuous_kernel");
}

template <class W>
void launch_typed(const RngArgs &a, cudaStream_t stream) {
  const int64_t blocks = rng_blocks(a);
  if (blocks == 0) return;
  rng_kernel<W><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  check_launch("rng_kernel");
}

}  // namespace

void launch_rng(const RngArgs &a, void *stream_p) {
  cudaStream_t stream = as_stream(stream_p);
  if (a.distribution != CUDNN_RNG_DISTRIBUTION_BERNOULLI) {
    switch (a.dtype) {
      case CUDNN_DATA_FLOAT: launch_continuous<float>(a, stream); return;
      case CUDNN_DATA_DOUBLE: launch_continuous<double>(a, stream); return;
      case CUDNN_DATA_HALF: launch_continuous<half_bits>(a, stream); return;
      case CUDNN_DATA_BFLOAT16: launch_continuous<bf16_bits>(a, stream); return;
      default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.rng: uniform and normal draws need a floating-point y");
    }
  }
  switch (a.elem_bytes) {
    case 1: launch_typed<uint8_t>(a, stream); break;
    case 2: launch_typed<uint16_t>(a, stream); break;
    case 4: launch_typed<uint32_t>(a, stream); break;
    case 8: launch_typed<unsigned long long>(a, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.rng: unsupported element size ", a.elem_bytes);
  }
}

}  // namespace fdnn::cuda
