// CUDA dropout kernels. One thread per group of 4 elements (one Philox
// block, core/philox.hpp, so the masks are those of the CPU engines); the 8
// threads of a 32-element mask word assemble it with warp shuffles and one of
// them stores it. Packed tensors move 4 elements per access; other layouts
// decompose the logical index per element. Forward reads the seed and offset
// from the states buffer in device memory, and a one-thread kernel ordered
// after it advances the offset.
#include <cuda_runtime.h>

#include "core/philox.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/dropout_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline int64_t operand_offset(const DropoutOperand &o, int64_t i) {
  int64_t off = 0;
  for (int d = o.rank - 1; d >= 0; --d) {
    const int64_t e = o.dims[d];
    off += (i % e) * o.strides[d];
    i /= e;
  }
  return off;
}

template <class S, class C>
__global__ void __launch_bounds__(kThreads) dropout_kernel(DropoutArgs a, C scale) {
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = group * 4;
  const bool active = first < a.n;
  uint32_t nibble = 0;
  if (a.forward) {
    const uint64_t seed = *a.seed, offset = *a.offset;
    if (active) nibble = philox::keep_nibble(seed, offset, static_cast<uint64_t>(group), a.threshold);
    // Word = OR of the nibbles of 8 neighbouring lanes (aligned: blocks are
    // whole warps and a word covers groups 8w .. 8w+7).
    const int lane = threadIdx.x & 31;
    uint32_t word = nibble << (4 * (lane & 7));
    word |= __shfl_xor_sync(0xffffffffu, word, 1);
    word |= __shfl_xor_sync(0xffffffffu, word, 2);
    word |= __shfl_xor_sync(0xffffffffu, word, 4);
    if (active && (lane & 7) == 0) a.mask[group / 8] = word;
  } else if (active) {
    nibble = (a.mask[group / 8] >> (4 * (group & 7))) & 0xfu;
  }
  if (!active) return;
  const S *x = static_cast<const S *>(a.x.ptr);
  S *y = static_cast<S *>(a.y.ptr);
  const int count = a.n - first < 4 ? static_cast<int>(a.n - first) : 4;
  if (a.packed && count == 4) {
    using P = Pack<S, 4>;
    P v = *reinterpret_cast<const P *>(x + first), o;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      o.v[j] = Storage<S>::store(((nibble >> j) & 1u) ? Storage<S>::template load<C>(v.v[j]) * scale : C(0));
    *reinterpret_cast<P *>(y + first) = o;
    return;
  }
  for (int j = 0; j < count; ++j) {
    const int64_t i = first + j;
    const int64_t xo = a.packed ? i : operand_offset(a.x, i), yo = a.packed ? i : operand_offset(a.y, i);
    const C v = ((nibble >> j) & 1u) ? Storage<S>::template load<C>(x[xo]) * scale : C(0);
    y[yo] = Storage<S>::store(v);
  }
}

__global__ void advance_offset_kernel(uint64_t *offset) { *offset += 1; }

template <class S, class C>
void launch_typed(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const int64_t groups = (a.n + 3) / 4;
  const int64_t blocks = (groups + kThreads - 1) / kThreads;
  check_arg(blocks < (int64_t{1} << 31), "cuda.dropout: tensor too large");
  dropout_kernel<S, C><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, scale);
  check_launch("dropout_kernel");
}

}  // namespace

void launch_dropout(const DropoutArgs &a, void *stream_p) {
  cudaStream_t stream = as_stream(stream_p);
  switch (a.dtype) {
    case CUDNN_DATA_FLOAT: launch_typed<float, float>(a, a.scale_f, stream); break;
    case CUDNN_DATA_DOUBLE: launch_typed<double, double>(a, a.scale_d, stream); break;
    case CUDNN_DATA_HALF: launch_typed<half_bits, float>(a, a.scale_f, stream); break;
    case CUDNN_DATA_BFLOAT16: launch_typed<bf16_bits, float>(a, a.scale_f, stream); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.dropout: unsupported data type");
  }
  if (a.forward && a.advance_offset) {
    advance_offset_kernel<<<1, 1, 0, stream>>>(a.offset);
    check_launch("advance_offset_kernel");
  }
}

}  // namespace fdnn::cuda
