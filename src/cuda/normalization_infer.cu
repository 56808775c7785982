// The inference form of cuda.normalization (NormArgs::infer_*): forward
// with the statistics given (batch-norm inference) of the vectorised rows
// and cols forms in ONE launch that reads x once and writes y once. Tried
// first by run_fast in normalization_kernels.cu; FREEDNN_NORM_TUNE=noinf
// turns it off (the finalize kernel and the apply pass of the training
// forward run instead).
//
// Why not the training forward's apply pass: its grid is the statistics
// pass's (one wave of long parts, sized so few partial sums are combined),
// it needs the finalize launch before it, and with eight vectors in flight
// and the fused-op paths it ran at 117 registers, two blocks per
// multiprocessor (H100, f16 NHWC N=256 C=256 28x28: 24% occupancy, DRAM
// 62%, 0.71-0.74 of copy). Here:
//  - each block computes the coefficients it needs from the given
//    statistics (normdev::affine_coefficients and given_inv, as the
//    finalize kernel does): cols one channel a thread into a shared tile,
//    rows every set's into shared memory;
//  - the grid is infer_blocks (8) blocks per multiprocessor, more than are
//    resident, each walking steps of the tensor in memory order (f16 NHWC,
//    one run, four vectors a step: 0.70 of copy; only the resident blocks,
//    "ib=0": 0.65);
//  - the common call (no z, mask, activation or blending: PLAIN) has none
//    of fwd_vec's per-element branches, which compiled to predicated code
//    and made the general loop instruction-bound on 16-bit types (ncu: SM
//    55%, DRAM 46%);
//  - cols steps hold eight vectors a thread; rows steps four, with the
//    next step's loads issued before this step's stores (x and y may be
//    one buffer, so the compiler cannot reorder them; the steps touch
//    different elements, so it is safe).
// The runs: docs/perf-logs-gpu-memops-2026-11-24.md (twenty-first session).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_args.hpp"
#include "cuda/normalization_device.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

using namespace normdev;

constexpr int kInferThreads = 256;
// Blocks per multiprocessor the register budget is sized for: 4 (64
// registers), 3 for the cols form's eight vectors in flight (80: each
// thread also keeps its V channels' coefficients).
constexpr int kRowsMinBlocks = 4;
constexpr int cols_min_blocks(int unroll) { return unroll >= 8 ? 3 : 4; }
constexpr int kInferMaxSmemGroups = 4096;    // rows form: the coefficient table's channels

// ca, cb of set k from the given statistics (forward_finalize's arithmetic).
template <class C>
__device__ inline void infer_coefficients(const NormArgs &a, uint32_t k, C &ca, C &cb) {
  affine_coefficients(ldst<C>(a, kSScale, k), ldst<C>(a, kSBias, k), ldst<C>(a, kSMean, k), given_inv<C>(a, k), ca, cb);
}

// One vector of y. PLAIN (no z, no mask, no activation, beta = 0, the
// common inference call): y = alpha * (ca x + cb), fwd_vec's arithmetic
// without its per-element branches (which, compiled to predicated code,
// made the general loop instruction-bound on 16-bit types), and plain
// loads and stores (the apply passes' evict-first hints are for L2 reuse
// across passes; this is the only pass).
template <bool PLAIN, class S, int V>
__device__ inline VecPack<S, V> infer_load(const NormArgs &a, int64_t off) {
  if constexpr (PLAIN) return ldv<S, V>(a.data[kNX], off);
  else return ldv_h<S, V>(a.data[kNX], off, a.stream_hints);
}
template <bool PLAIN, class S, class C, int V>
__device__ inline void infer_vec(const NormArgs &a, int64_t off, const VecPack<S, V> &px, const C (&ca)[V],
                                 const C (&cb)[V]) {
  if constexpr (PLAIN) {
    const C alpha = C(a.alpha);
    VecPack<S, V> py;
#pragma unroll
    for (int j = 0; j < V; ++j) py.e[j] = Storage<S>::store(alpha * (ca[j] * cvt<S, C>(px.e[j]) + cb[j]));
    stv<S, V>(a.data[kNY], off, py);
  } else {
    fwd_vec<S, C, V>(a, off, px, ca, cb);
  }
}

// Cols form (NHWC: the sets are the contiguous dim): block (bx, 256 / bx);
// thread x takes channel vector tx of tile blockIdx.y, thread y rows
// ty, ty + by, ... of each step of U * by consecutive rows; the steps go
// round the grid's blocks in memory order.
// U = 4: the next step's vectors are loaded before this step's stores; U =
// 8: one step at a time, eight vectors in flight (the same registers).
template <class S, class C, int V, int U, bool PLAIN>
__global__ void __launch_bounds__(kInferThreads, cols_min_blocks(U)) cols_infer(NormArgs a) {
  constexpr bool kAhead = U < 8;
  const int bx = a.cols_bx, by = kInferThreads / bx;
  const int tx = threadIdx.x & (bx - 1), ty = threadIdx.x / bx;
  // The tile's bx * V <= 256 channels' coefficients, one per thread (each
  // thread computing its own V took a fifth of the instructions for V = 8).
  __shared__ C coef[2][kInferThreads];
  const int64_t tile0 = static_cast<int64_t>(blockIdx.y) * bx * V;
  if (threadIdx.x < bx * V && tile0 + threadIdx.x < a.groups)
    infer_coefficients<C>(a, static_cast<uint32_t>(tile0 + threadIdx.x), coef[0][threadIdx.x], coef[1][threadIdx.x]);
  __syncthreads();
  const int64_t c0 = tile0 + tx * V;
  if (c0 >= a.groups) return;  // no block barriers below
  C ca[V], cb[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    ca[j] = coef[0][tx * V + j];
    cb[j] = coef[1][tx * V + j];
  }
  const int64_t step_rows = int64_t{U} * by, stride = step_rows * gridDim.x;
  auto load = [&](int64_t r0, VecPack<S, V>(&p)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t r = r0 + ty + u * by;
      if (r < a.count) p[u] = infer_load<PLAIN, S, V>(a, r * a.outer_stride + c0);
    }
  };
  int64_t r0 = static_cast<int64_t>(blockIdx.x) * step_rows;
  VecPack<S, V> cur[U];
  if (kAhead) load(r0, cur);
  for (; r0 < a.count; r0 += stride) {
    VecPack<S, V> next[U];
    if (!kAhead) load(r0, cur);
    else if (r0 + stride < a.count) load(r0 + stride, next);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int64_t r = r0 + ty + u * by;
      if (r < a.count) infer_vec<PLAIN, S, C, V>(a, r * a.outer_stride + c0, cur[u], ca, cb);
    }
    if (kAhead)
#pragma unroll
      for (int u = 0; u < U; ++u) cur[u] = next[u];
  }
}

// Rows form (NCHW: a set is `count / inner` planes of `inner` contiguous
// elements): the tensor's vectors in the order plane n, set k, vector i of
// the plane (memory order for NCHW); every block first puts all the sets'
// coefficients in shared memory (2 * groups values).
template <class S, class C, int V, int U, bool PLAIN>
__global__ void __launch_bounds__(kInferThreads, kRowsMinBlocks) rows_infer(NormArgs a, FastDivmod groups_div,
                                                                            uint32_t total) {
  constexpr bool kAhead = U < 8;
  extern __shared__ unsigned char infer_shared[];
  C *coef = reinterpret_cast<C *>(infer_shared);  // [2][groups]
  const uint32_t groups = groups_div.divisor;
  for (uint32_t k = threadIdx.x; k < groups; k += kInferThreads) infer_coefficients<C>(a, k, coef[k], coef[groups + k]);
  __syncthreads();
  auto offset = [&](uint32_t v, uint32_t &k) {
    uint32_t i;
    const uint32_t q = a.inner_vecs.divmod(v, i);
    const uint32_t n = groups_div.divmod(q, k);
    return static_cast<int64_t>(k) * a.set_stride + static_cast<int64_t>(n) * a.outer_stride + static_cast<int64_t>(i) * V;
  };
  auto load = [&](uint32_t v0, VecPack<S, V>(&p)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint32_t v = v0 + u * kInferThreads;
      uint32_t k;
      if (v < total) p[u] = infer_load<PLAIN, S, V>(a, offset(v, k));
    }
  };
  const uint32_t step = U * kInferThreads, stride = step * gridDim.x;
  uint32_t v0 = blockIdx.x * step + threadIdx.x;
  VecPack<S, V> cur[U];
  if (kAhead) load(v0, cur);
  for (; v0 < total; v0 += stride) {
    VecPack<S, V> next[U];
    if (!kAhead) load(v0, cur);
    else if (v0 + stride < total) load(v0 + stride, next);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint32_t v = v0 + u * kInferThreads;
      if (v < total) {
        uint32_t k;
        const int64_t off = offset(v, k);
        C ca[V], cb[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          ca[j] = coef[k];
          cb[j] = coef[groups + k];
        }
        infer_vec<PLAIN, S, C, V>(a, off, cur[u], ca, cb);
      }
    }
    if (kAhead)
#pragma unroll
      for (int u = 0; u < U; ++u) cur[u] = next[u];
  }
}

template <class K>
int blocks_per_sm(K kernel, size_t smem) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kInferThreads, smem) != cudaSuccess || n < 1) return 1;
  return n;
}

template <class S, class C, int U, bool PLAIN>
bool launch_typed(const NormArgs &a, cudaStream_t s) {
  constexpr int V = 16 / sizeof(S);
  const int64_t sms = sm_count();
  if (a.fast == kFastCols) {
    const int64_t tiles = (a.groups + int64_t{a.cols_bx} * V - 1) / (int64_t{a.cols_bx} * V);
    if (tiles > 65535) return false;  // grid.y (per-activation sets past 16 M channels): the other forms
    const int64_t steps = (a.count + int64_t{U} * (kInferThreads / a.cols_bx) - 1) / (int64_t{U} * (kInferThreads / a.cols_bx));
    const int per_sm = a.infer_blocks > 0 ? a.infer_blocks : blocks_per_sm(cols_infer<S, C, V, U, PLAIN>, 0);
    const int64_t bx = std::max<int64_t>(1, std::min(steps, sms * per_sm / tiles));
    cols_infer<S, C, V, U, PLAIN><<<dim3(static_cast<unsigned>(bx), static_cast<unsigned>(tiles)), kInferThreads, 0, s>>>(a);
    check_launch("normalization inference (cols)");
    return true;
  }
  const int64_t total = a.groups * (a.count / V);
  if (a.groups > kInferMaxSmemGroups || total >= (int64_t{1} << 31)) return false;
  const size_t smem = 2 * static_cast<size_t>(a.groups) * sizeof(C);
  const int per_sm = a.infer_blocks > 0 ? a.infer_blocks : blocks_per_sm(rows_infer<S, C, V, U, PLAIN>, smem);
  const int64_t steps = (total + int64_t{U} * kInferThreads - 1) / (int64_t{U} * kInferThreads);
  const int64_t blocks = std::max<int64_t>(1, std::min(steps, sms * per_sm));
  rows_infer<S, C, V, U, PLAIN><<<static_cast<unsigned>(blocks), kInferThreads, smem, s>>>(
      a, FastDivmod(static_cast<uint32_t>(a.groups)), static_cast<uint32_t>(total));
  check_launch("normalization inference (rows)");
  return true;
}

template <class S, class C>
bool launch_unrolled(const NormArgs &a, cudaStream_t s) {
  const bool plain = !a.has_z && !a.has_mask && !a.relu && a.beta == 0;
  // By default eight vectors per step in the cols form, four (two steps in
  // flight) in the rows form: H100, N=256 C=256 28x28 f16, cols 0.70 of
  // copy with four, 0.87 with eight; rows 0.87 with four, 0.72-0.85 with
  // eight.
  const int unroll = a.infer_unroll > 0 ? a.infer_unroll : a.fast == kFastCols ? 8 : 4;
  // (Two vectors a step, measured 0.74-0.84 / 0.82-0.83 in runs 4-5, is
  // not compiled.)
  if (plain) return unroll >= 8 ? launch_typed<S, C, 8, true>(a, s) : launch_typed<S, C, 4, true>(a, s);
  return unroll >= 8 ? launch_typed<S, C, 8, false>(a, s) : launch_typed<S, C, 4, false>(a, s);
}

}  // namespace

bool launch_normalization_inference(const NormArgs &a, void *stream) {
  if (!a.infer_form || a.backward || !a.stats_given || a.dyn) return false;
  if (a.fast != kFastRows && a.fast != kFastCols) return false;
  if (a.data_type != a.out_type) return false;
  const int esize = a.data_type == CUDNN_DATA_FLOAT ? 4 : 2;  // double returns below
  if (a.vec != 16 / esize) return false;
  for (int j = 0; j < kNormData; ++j)  // 16-byte vector accesses
    if (j != kNMask && a.data[j] != nullptr && reinterpret_cast<uintptr_t>(a.data[j]) % 16 != 0) return false;
  cudaStream_t s = as_stream(stream);
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return launch_unrolled<float, float>(a, s);
    case CUDNN_DATA_HALF: return launch_unrolled<half_bits, float>(a, s);
    case CUDNN_DATA_BFLOAT16: return launch_unrolled<bf16_bits, float>(a, s);
    default: return false;  // double: the other forms (not a bandwidth case)
  }
}

}  // namespace fdnn::cuda
