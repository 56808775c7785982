// CUDA dropout kernels. One thread per group of 4 elements (one Philox
// block, core/philox.hpp, so the masks are those of the CPU engines); the 8
// threads of a 32-element mask word assemble it with warp shuffles and one of
// them stores it. Packed tensors move 4 elements per access; other layouts
// decompose the logical index per element. Forward reads the seed and offset
// from the states buffer in device memory, and a one-thread kernel ordered
// after it advances the offset.
//
// dropout_wide_kernel: E = 8 or 16 elements (E / 4 Philox blocks) per
// thread, the same masks bit for bit. A 16-bit thread of the kernel above
// had 8 bytes of x in flight, and its forward issued that load only after
// the Philox rounds and the shuffles. Here every x load of the thread is
// issued first, in 16-byte vectors, and the Philox rounds run while they
// are in flight. H100, 64x256x64x64 p = 0.5, of copy (2922 GB/s) forward /
// backward, dropout_kernel -> wide: f16 0.60 / 0.61 -> 0.89 / 0.92 (E = 16;
// 0.84 / 0.91 with 8), f32 0.90 / 0.87 -> 0.98 / 0.99 (E = 8; 0.80 / 0.79
// with 16).
#include <cuda_runtime.h>

#include "core/env_words.hpp"
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

// Elements first .. first + E - 1 to thread t (first = t E); their keep bits
// are bits j = 0 .. E - 1 of `bits`, bit first % 32 + j of mask word first / 32,
// as in dropout_kernel. The L = 32 / E threads of a word are neighbouring lanes.
template <class S, class C, int E>
__global__ void __launch_bounds__(kThreads) dropout_wide_kernel(DropoutArgs a, C scale) {
  static_assert(E == 8 || E == 16, "8 or 16 elements a thread");
  constexpr int kVec = static_cast<int>(16 / sizeof(S)) < E ? static_cast<int>(16 / sizeof(S)) : E;
  constexpr int kAccesses = E / kVec, kLanes = 32 / E;
  using P = Pack<S, kVec>;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t first = t * E;
  const bool active = first < a.n;
  const bool full = a.packed && first + E <= a.n;
  const S *x = static_cast<const S *>(a.x.ptr);
  S *y = static_cast<S *>(a.y.ptr);
  P v[kAccesses];
  if (full) {
#pragma unroll
    for (int j = 0; j < kAccesses; ++j) v[j] = reinterpret_cast<const P *>(x + first)[j];
  }
  uint32_t bits = 0;
  if (a.forward) {
    const uint64_t seed = *a.seed, offset = *a.offset;
#pragma unroll
    for (int q = 0; q < E / 4; ++q) {
      // Computed for every group and dropped past the end, so that the
      // blocks' rounds have no branches between them and interleave.
      const int64_t group = t * (E / 4) + q;
      const uint32_t nibble = philox::keep_nibble(seed, offset, static_cast<uint64_t>(group), a.threshold);
      bits |= group * 4 < a.n ? nibble << (4 * q) : 0u;
    }
    const int lane = threadIdx.x & 31;
    uint32_t word = bits << (E * (lane % kLanes));
#pragma unroll
    for (int m = 1; m < kLanes; m <<= 1) word |= __shfl_xor_sync(0xffffffffu, word, m);
    if (active && lane % kLanes == 0) a.mask[first / 32] = word;
  } else if (active) {
    bits = (a.mask[first / 32] >> (first % 32)) & ((1u << E) - 1u);
  }
  if (!active) return;
  if (full) {
#pragma unroll
    for (int j = 0; j < kAccesses; ++j) {
      P o;
#pragma unroll
      for (int i = 0; i < kVec; ++i)
        o.v[i] = Storage<S>::store(((bits >> (j * kVec + i)) & 1u) ? Storage<S>::template load<C>(v[j].v[i]) * scale
                                                                   : C(0));
      reinterpret_cast<P *>(y + first)[j] = o;
    }
    return;
  }
  const int count = a.n - first < E ? static_cast<int>(a.n - first) : E;
  for (int j = 0; j < count; ++j) {
    const int64_t i = first + j;
    const int64_t xo = a.packed ? i : operand_offset(a.x, i), yo = a.packed ? i : operand_offset(a.y, i);
    const C val = ((bits >> j) & 1u) ? Storage<S>::template load<C>(x[xo]) * scale : C(0);
    y[yo] = Storage<S>::store(val);
  }
}

__global__ void advance_offset_kernel(uint64_t *offset) { *offset += 1; }

// FREEDNN_DROPOUT_TUNE (comma-separated words, for measurements): "old"
// (dropout_kernel for every type), "e8" / "e16" (dropout_wide_kernel with
// that many elements a thread for FLOAT, HALF and BFLOAT16). Unset: 16-bit
// types on the wide kernel with 16, FLOAT with 8, DOUBLE on dropout_kernel.
struct DropoutTune {
  bool old = false;
  int elements = 0;  // 0: the default per type
};
const DropoutTune &dropout_tune() {
  static const DropoutTune t = [] {
    DropoutTune r;
    r.old = env_has_word("FREEDNN_DROPOUT_TUNE", "old");
    if (env_has_word("FREEDNN_DROPOUT_TUNE", "e8")) r.elements = 8;
    if (env_has_word("FREEDNN_DROPOUT_TUNE", "e16")) r.elements = 16;
    return r;
  }();
  return t;
}

template <class S, class C, int E>
void launch_wide(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const int64_t threads = (a.n + E - 1) / E;
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  check_arg(blocks < (int64_t{1} << 31), "cuda.dropout: tensor too large");
  dropout_wide_kernel<S, C, E><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, scale);
  check_launch("dropout_wide_kernel");
}

template <class S, class C>
void launch_typed(const DropoutArgs &a, C scale, cudaStream_t stream) {
  const DropoutTune &tune = dropout_tune();
  // The wide kernel's vectors need 16-byte alignment (the engine's `packed`
  // checks only 4 elements' worth).
  if constexpr (sizeof(S) <= 4) {
    const bool aligned = a.packed && aligned_to(a.x.ptr, 16) && aligned_to(a.y.ptr, 16);
    const int e = tune.old || !aligned ? 0 : tune.elements != 0 ? tune.elements : (sizeof(S) == 2 ? 16 : 8);
    if (e == 8) return launch_wide<S, C, 8>(a, scale, stream);
    if (e == 16) return launch_wide<S, C, 16>(a, scale, stream);
  }
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
