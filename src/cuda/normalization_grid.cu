// The grid form of cuda.normalization (NormArgs::grid_*): training forward
// and backward of the vectorised cols form (NHWC batch norm: the channels
// are the contiguous dim) in ONE co-resident launch (cooperative, one
// 512-thread block per multiprocessor) that re-reads as little of x (and
// dy) from device memory as it can. Planned by plan_normalization_grid,
// launched from normalization_kernels.cu before the other forms;
// FREEDNN_NORM_TUNE=old turns it off.
//
// Each block owns a contiguous range of whole rows (all channels); thread
// (ty, cv) takes channel vector cv of rows ty, ty + rstep, ... of it.
// Pass 1 sums every row (shifted by each channel's row-0 value); the rows
// move through the thread's ring of SL 16-byte shared-memory slots by
// cp.async, SL rows ahead (~200 KB in flight per multiprocessor, no
// registers held); up to RR rows before the ring's last SL stay in
// registers. Two grid barriers: after the first every block's per-channel
// partials are in the workspace and channel c is finalized by block c % nb
// alone (it writes the statistics or parameter gradients and c's
// coefficients), after the second every block reads the coefficients.
// Pass 2 writes y (dx) from the ring's rows, then from the registers' rows,
// then for the rest walking backwards (the rows pass 1 read last, kept in
// L2 by plain loads while every other row was loaded evict-first, come
// first), each re-read into the slot a consumed row frees. Deterministic:
// fixed partition, sums in a fixed order.
//
// H100, N=256 C=256 28x28, single calls, ours / copy (before: the
// three-launch cols passes, FREEDNN_NORM_TUNE=old, same run): f16 NHWC
// training forward 0.54 -> 0.59, backward 0.54 -> 0.57; f32 NHWC 0.61 ->
// 0.64, 0.57 -> 0.59; host time per call 15 -> 6 us. What did not help:
// the same walk with 8 register vectors per thread in flight and the cache
// filled through registers (0.53 / 0.56: too few bytes in flight with one
// block per multiprocessor), evict-last loads of the L2 rows (no change),
// no L2 rows (backward 0.55). Without the RR register rows: 0.575 / 0.56.
// The bound: on chip, ~27 MB of shared memory and ~11 MB of registers of
// the 102.8 MB f16 x; the H100 kept only ~9 MB of a streamed x in L2 for
// the old path's reversed apply pass (ncu: stats 38.9 us, 99 MB read;
// finalize 9.4 us; apply 77.8 us, 94 MB read, 81 MB written), so pass 2
// re-reads ~60% of x and the forward stays near 0.6 of copy.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_args.hpp"
#include "cuda/normalization_device.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

using namespace normdev;
namespace cg = cooperative_groups;

constexpr int kGridThreads = 512, kGridWarps = kGridThreads / 32;
constexpr int kRedWidth = 4;  // accumulator values per thread reduced per round

template <bool BWD>
struct GridNp {
  static constexpr int value = BWD ? 4 : 2;  // sums per channel
};

// Finalize after the first grid barrier: channel c by block c % nb, a warp
// per channel combining the blocks' partials (lanes in block order, then a
// fixed shuffle tree: deterministic); lane 0 writes the statistics or the
// parameter gradients and the channel's coefficients to gcoef.
template <class S, class C, bool BWD>
__device__ inline void grid_finalize(const NormArgs &a, const C *part, C *gcoef, unsigned nb, unsigned b) {
  constexpr int NP = GridNp<BWD>::value;
  const int64_t C_ = a.groups, rows = a.count;
  const S *x = static_cast<const S *>(a.data[kNX]);
  const int tid = threadIdx.x;
  {
    const int warp = tid >> 5, lane = tid & 31;
    const C m = C(rows);
    for (int64_t c = b + static_cast<int64_t>(nb) * warp; c < C_; c += static_cast<int64_t>(nb) * kGridWarps) {
      const uint32_t k = static_cast<uint32_t>(c);
      C shift_c = C(0), scale = C(0), bias = C(0), rm = C(0), rv = C(0);
      if (lane == 0) {
        shift_c = cvt<S, C>(x[c]);
        scale = ldst<C>(a, kSScale, k);
        if (!BWD) {
          bias = ldst<C>(a, kSBias, k);
          if (a.stat[kSRmIn]) rm = ldst<C>(a, kSRmIn, k);
          if (a.stat[kSRvIn]) rv = ldst<C>(a, kSRvIn, k);
        }
      }
      C t[NP];
#pragma unroll
      for (int i = 0; i < NP; ++i) t[i] = C(0);
      constexpr int kQ = 4;  // partials per lane and value in flight
      for (unsigned q0 = 0; q0 < nb; q0 += 32 * kQ) {
        C v[NP][kQ];
#pragma unroll
        for (int jq = 0; jq < kQ; ++jq) {
          const unsigned q = q0 + lane + 32 * jq;
#pragma unroll
          for (int i = 0; i < NP; ++i) v[i][jq] = q < nb ? __ldcg(part + (i * C_ + c) * nb + q) : C(0);
        }
#pragma unroll
        for (int jq = 0; jq < kQ; ++jq)
#pragma unroll
          for (int i = 0; i < NP; ++i) t[i] += v[i][jq];
      }
#pragma unroll
      for (int i = 0; i < NP; ++i)
        for (int o = 16; o > 0; o >>= 1) t[i] += __shfl_xor_sync(0xffffffffu, t[i], o);
      if (lane == 0) {
        C co[3] = {C(0), C(0), C(0)};
        if constexpr (!BWD) {
          const C dm = t[0] / m;
          const C mean = shift_c + dm;
          const C var = max(t[1] / m - dm * dm, C(0));
          const C inv = C(1) / sqrt(var + C(a.epsilon));
          affine_coefficients(scale, bias, mean, inv, co[0], co[1]);
          if (a.stat[kSMean]) stst<C>(a, kSMean, k, mean);
          if (a.stat[kSInv]) stst<C>(a, kSInv, k, inv);
          const C f = C(a.factor);
          if (a.stat[kSRmIn]) stst<C>(a, kSRmOut, k, (C(1) - f) * rm + f * mean);
          if (a.stat[kSRvIn]) stst<C>(a, kSRvOut, k, (C(1) - f) * rv + f * var * C(a.unbias));
        } else {
          backward_channel<C>(a, k, t, m, shift_c, scale, true, co);
        }
        gcoef[c * 3 + 0] = co[0];
        gcoef[c * 3 + 1] = co[1];
        gcoef[c * 3 + 2] = co[2];
      }
    }
  }
}

// cp.async of one 16-byte vector into a ring slot. A thread reads only the
// slots it filled; every loop step that consumes a ring slot commits one
// group (empty or not), so "the row issued SL such steps ago is complete"
// is cp.async.wait_group SL-1.
__device__ inline void ring_copy(void *smem, const void *gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem))),
               "l"(gmem)
               : "memory");
}
// The same with an evict-first L2 policy: the re-reads of pass 2 are x's
// (dy's) last use.
__device__ inline void ring_copy_last(void *smem, const void *gmem, uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(smem))),
               "l"(gmem), "l"(policy)
               : "memory");
}
__device__ inline void ring_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void ring_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <class S, class C, int V, bool BWD, int SL, int RR>
__global__ void __launch_bounds__(kGridThreads, 1) grid_ring_norm(NormArgs a, C *part, C *gcoef) {
  constexpr int NP = GridNp<BWD>::value;
  constexpr int T = kGridThreads;
  extern __shared__ uint4 grid_smem[];
  const int64_t C_ = a.groups, rows = a.count, rs = a.outer_stride;
  const int gv = static_cast<int>(C_ / V);
  const int tid = threadIdx.x, cv = tid % gv, ty = tid / gv, rstep = T / gv;
  const bool on = ty < rstep;
  const unsigned nb = gridDim.x, b = blockIdx.x;
  const int64_t share = a.grid_rows;
  const int64_t rb = min(rows, static_cast<int64_t>(b) * share), re = min(rows, rb + share);
  // Rows of this thread: rb + ty + k * rstep, k < nk.
  const int nk = on && re - rb > ty ? static_cast<int>((re - rb - ty + rstep - 1) / rstep) : 0;
  VecPack<S, V> *ring = reinterpret_cast<VecPack<S, V> *>(grid_smem);  // [SL (x), SL (dy)][T]
  C *red = reinterpret_cast<C *>(ring + SL * T * (BWD ? 2 : 1));
  C *scoef = red + T * kRedWidth;
  const S *x = static_cast<const S *>(a.data[kNX]);
  const S *dy = static_cast<const S *>(a.data[BWD ? kNDY : kNX]);
  const uint8_t *mask = static_cast<const uint8_t *>(a.data[kNMask]);
  const int64_t c0 = static_cast<int64_t>(cv) * V;
  const int64_t row0 = (rb + ty) * rs + c0, kstride = static_cast<int64_t>(rstep) * rs;
  VecPack<S, V> *xs = ring + tid;                   // slot s of x: xs[s * T]
  VecPack<S, V> *gs = ring + SL * T + tid;          // slot s of dy (backward)

  // ---- pass 1 ----
  C acc[NP][V], shift[V];
  {
    const VecPack<S, V> p0 = ldv<S, V>(x, c0);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      shift[j] = cvt<S, C>(p0.e[j]);
#pragma unroll
      for (int i = 0; i < NP; ++i) acc[i][j] = C(0);
    }
  }
  // Rows of a thread, by k: [0, kL) and [kL, kR) re-read from memory in
  // pass 2 (the second part, about a.grid_l2_rows, from L2 with luck),
  // [kR, kS) kept in registers (at most RR), [kS, nk) in the ring.
  const int kS = max(0, nk - SL), kR = max(0, kS - min(RR, a.grid_reg_rows)), kL = max(0, kR - a.grid_l2_rows);
  // L2 policies of pass 1: rows kL..kR-1 plain (or evict-last with
  // a.grid_l2_last), every other row evict-first (it comes back from
  // memory anyway, or pass 2 finds it on chip), so that it does not push the
  // rows pass 2 re-reads first out of L2.
  uint64_t pol_first = 0, pol_last = 0;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol_first));
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol_last));
  auto issue = [&](int k, int slot) {
    if (k < nk) {
      const int64_t off = row0 + k * kstride;
      const bool l2row = k >= kL && k < kR;
      if (l2row && !a.grid_l2_last) {
        ring_copy(xs + slot * T, x + off);
        if (BWD) ring_copy(gs + slot * T, dy + off);
      } else {
        const uint64_t pol = l2row ? pol_last : pol_first;
        ring_copy_last(xs + slot * T, x + off, pol);
        if (BWD) ring_copy_last(gs + slot * T, dy + off, pol);
      }
    }
    ring_commit();
  };
#pragma unroll 1
  for (int k = 0; k < SL; ++k) issue(k, k);
  int slot = 0;
  // One row: wait for it (issued SL steps ago), add it, refill its slot.
  auto step1 = [&](int k, VecPack<S, V> &px, VecPack<S, V> &pg) {
    ring_wait<SL - 1>();
    px = xs[slot * T];
    if (BWD) pg = gs[slot * T];
    const int64_t off = row0 + k * kstride;
    // (The mask test branches once per row: per element, predicated, it
    // cost 8 issued loads a vector without a mask.)
    C d[V];
    unpack<S, C, V>(px, d);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      d[j] -= shift[j];
      acc[0][j] += d[j];
      acc[1][j] += d[j] * d[j];
    }
    if constexpr (BWD) {
      C g[V];
      unpack<S, C, V>(pg, g);
      if (a.has_mask) {
#pragma unroll
        for (int j = 0; j < V; ++j)
          if (mask[off + j] == 0) g[j] = C(0);
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        acc[2][j] += g[j];
        acc[3][j] += g[j] * d[j];
      }
    }
    issue(k + SL, slot);
    slot = slot + 1 == SL ? 0 : slot + 1;
  };
#pragma unroll 1
  for (int k = 0; k < kR; ++k) {
    VecPack<S, V> px, pg;
    step1(k, px, pg);
  }
  VecPack<S, V> rx[RR], rg[BWD ? RR : 1];
#pragma unroll
  for (int i = 0; i < RR; ++i)
    if (kR + i < kS) step1(kR + i, rx[i], rg[BWD ? i : 0]);
#pragma unroll 1
  for (int k = kS; k < nk; ++k) {
    VecPack<S, V> px, pg;
    step1(k, px, pg);
  }
  ring_wait<0>();

  // ---- block partials: per channel, the row threads' sums in ty order ----
#pragma unroll
  for (int q0 = 0; q0 < NP * V; q0 += kRedWidth) {
#pragma unroll
    for (int qq = 0; qq < kRedWidth; ++qq) {
      const int q = q0 + qq;
      if (q < NP * V) red[qq * T + tid] = acc[q / V][q % V];
    }
    __syncthreads();
    for (int t2 = tid; t2 < gv * kRedWidth; t2 += T) {
      const int qq = t2 / gv, v = t2 % gv, q = q0 + qq;
      if (q < NP * V) {
        C sum = C(0);
        for (int r = 0; r < rstep; ++r) sum += red[qq * T + r * gv + v];
        const int i = q / V, j = q % V;
        part[(static_cast<int64_t>(i) * C_ + static_cast<int64_t>(v) * V + j) * nb + b] = sum;
      }
    }
    __syncthreads();
  }

  cg::grid_group grid = cg::this_grid();
  grid.sync();
  grid_finalize<S, C, BWD>(a, part, gcoef, nb, b);
  grid.sync();

  for (int64_t i = tid; i < 3 * C_; i += T) scoef[i] = __ldcg(gcoef + i);
  __syncthreads();
  if (nk == 0) return;
  C c1[V], c2[V], c3[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    c1[j] = scoef[(c0 + j) * 3 + 0];
    c2[j] = scoef[(c0 + j) * 3 + 1];
    c3[j] = scoef[(c0 + j) * 3 + 2];
  }
  // ---- pass 2: rows nk-1 down to 0: the ring's, the registers', then the
  // rest, each from the slot the ring's rows free, issued in the order
  // consumed (so a slot pointer walking down serves both) ----
  const uint64_t policy = pol_first;
  slot = (nk - 1) % SL;
  int next = kR - 1;  // the next row to fetch
  auto refill = [&](int sl) {
    if (next >= 0) {
      const int64_t o2 = row0 + next * kstride;
      if (a.stream_hints) {
        ring_copy_last(xs + sl * T, x + o2, policy);
        if (BWD) ring_copy_last(gs + sl * T, dy + o2, policy);
      } else {
        ring_copy(xs + sl * T, x + o2);
        if (BWD) ring_copy(gs + sl * T, dy + o2);
      }
    }
    ring_commit();
    --next;
  };
  auto apply = [&](int k, const VecPack<S, V> &px, const VecPack<S, V> &pg) {
    const int64_t off = row0 + k * kstride;
    if constexpr (BWD) bwd_vec<S, C, V>(a, off, px, pg, c1, c2, c3);
    else fwd_vec<S, C, V>(a, off, px, c1, c2);
  };
#pragma unroll 1
  for (int k = nk - 1; k >= kS; --k) {
    const VecPack<S, V> px = xs[slot * T];
    VecPack<S, V> pg;
    if (BWD) pg = gs[slot * T];
    apply(k, px, pg);
    refill(slot);
    slot = slot == 0 ? SL - 1 : slot - 1;
  }
#pragma unroll
  for (int i = RR - 1; i >= 0; --i)
    if (kR + i < kS) apply(kR + i, rx[i], rg[BWD ? i : 0]);
  // A row here was issued at least SL - 1 groups before the newest.
#pragma unroll 1
  for (int k = kR - 1; k >= 0; --k) {
    ring_wait<SL - 1>();
    const VecPack<S, V> px = xs[slot * T];
    VecPack<S, V> pg;
    if (BWD) pg = gs[slot * T];
    apply(k, px, pg);
    refill(slot);
    slot = slot == 0 ? SL - 1 : slot - 1;
  }
}

// Ring slots per thread: about 200 KB of the multiprocessor's shared memory;
// rows per thread kept in registers (what the register file holds beside
// the kernel's own: 128 registers a thread at 512 threads).
template <bool BWD>
struct RingSlots {
  static constexpr int value = BWD ? 13 : 26;
  static constexpr int regs = BWD ? 4 : 8;
};

template <class C>
size_t grid_ring_smem_bytes(const NormArgs &a) {
  const int tensors = a.backward ? 2 : 1;
  const int sl = a.backward ? RingSlots<true>::value : RingSlots<false>::value;
  return static_cast<size_t>(sl) * tensors * kGridThreads * 16 + sizeof(C) * kGridThreads * kRedWidth +
         sizeof(C) * 3 * static_cast<size_t>(a.groups);
}

template <class S, class C>
const void *grid_kernel_for(const NormArgs &a) {
  constexpr int V = 16 / sizeof(S);
  return a.backward ? reinterpret_cast<const void *>(grid_ring_norm<S, C, V, true, RingSlots<true>::value, RingSlots<true>::regs>)
                    : reinterpret_cast<const void *>(grid_ring_norm<S, C, V, false, RingSlots<false>::value, RingSlots<false>::regs>);
}

template <class S, class C>
void plan_grid_typed(NormArgs &a) {
  constexpr int V = 16 / sizeof(S);
  if (a.vec != V) return;
  const int64_t gv = a.groups / V;
  if (gv < 1 || gv > kGridThreads || a.groups % V != 0) return;
  const void *kernel = grid_kernel_for<S, C>(a);
  DeviceFacts dev;
  if (!current_device_facts(dev) || !dev.cooperative) return;
  const int optin = dev.smem_optin, sms = dev.sm_count;
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  const int64_t avail = static_cast<int64_t>(optin) - static_cast<int64_t>(fa.sharedSizeBytes) - 1024;
  const int64_t nb = sms;
  const int64_t share = (a.count + nb - 1) / nb;
  const size_t smem = grid_ring_smem_bytes<C>(a);
  if (static_cast<int64_t>(smem) > avail) return;
  // Rows per thread pass 2 should find in L2: a.grid_l2_pct of its size.
  const int l2 = dev.l2_bytes;
  const int64_t row_bytes = int64_t{16} * (a.backward ? 2 : 1) * (kGridThreads / gv) * gv * nb;  // one k step of the grid
  a.grid_l2_rows = static_cast<int>(static_cast<int64_t>(l2) * a.grid_l2_pct / 100 / row_bytes);
  // The largest limit, whatever this plan needs: a later plan of the same
  // kernel must not lower it under an earlier plan's launches.
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           optin - static_cast<int>(fa.sharedSizeBytes)) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  int fit = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, kGridThreads, smem) != cudaSuccess || fit < 1) {
    cudaGetLastError();
    return;
  }
  a.grid_blocks = static_cast<int>(nb);
  a.grid_rows = share;
}

size_t grid_workspace_bytes(const NormArgs &a) {
  if (a.grid_blocks == 0) return 0;
  const size_t c = a.compute_double ? sizeof(double) : sizeof(float);
  const int np = a.backward ? 4 : 2;
  return 256 + c * (static_cast<size_t>(np) * a.groups * a.grid_blocks + 3 * static_cast<size_t>(a.groups));
}

template <class S, class C>
bool try_grid(const NormArgs &a, void *ws, cudaStream_t stream) {
  if (a.grid_blocks == 0 || ws == nullptr) return false;
  const void *kernel = grid_kernel_for<S, C>(a);
  const size_t smem = grid_ring_smem_bytes<C>(a);
  C *part = reinterpret_cast<C *>((reinterpret_cast<uintptr_t>(ws) + 255) & ~uintptr_t{255});
  C *coef = part + static_cast<size_t>(a.backward ? 4 : 2) * a.groups * a.grid_blocks;
  NormArgs args = a;
  void *params[] = {&args, &part, &coef};
  const cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(static_cast<unsigned>(a.grid_blocks)),
                                                    dim3(kGridThreads), params, smem, stream);
  if (e != cudaSuccess) {
    cudaGetLastError();  // e.g. the GPU is shared and the grid does not fit now
    return false;
  }
  check_launch("normalization grid kernel");
  return true;
}

}  // namespace

size_t normalization_grid_workspace_bytes(const NormArgs &a) { return grid_workspace_bytes(a); }

bool launch_normalization_grid(const NormArgs &a, void *ws, void *stream) {
  cudaStream_t s = as_stream(stream);
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return try_grid<float, float>(a, ws, s);
    case CUDNN_DATA_HALF: return try_grid<half_bits, float>(a, ws, s);
    case CUDNN_DATA_BFLOAT16: return try_grid<bf16_bits, float>(a, ws, s);
    default: return false;
  }
}

void plan_normalization_grid(NormArgs &a) {
  a.grid_blocks = 0;
  if (!a.grid_form || a.fast != kFastCols || a.dyn || a.groups < 1) return;
  if (!a.backward && (a.stats_given || !a.training)) return;
  if (a.data_type != a.out_type || a.data_type != a.grad_type) return;
  const int64_t esize = a.data_type == CUDNN_DATA_FLOAT ? 4 : 2;
  if (a.count * a.groups * esize < a.grid_min_bytes) return;
  if (a.count >= (int64_t{1} << 31)) return;
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: plan_grid_typed<float, float>(a); break;
    case CUDNN_DATA_HALF: plan_grid_typed<half_bits, float>(a); break;
    case CUDNN_DATA_BFLOAT16: plan_grid_typed<bf16_bits, float>(a); break;
    default: break;
  }
}

}  // namespace fdnn::cuda
