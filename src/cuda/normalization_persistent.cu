// The persistent form of cuda.normalization (NormArgs::pers_*): training
// forward and backward of the vectorised forms in one co-resident launch
// that reads x (and dy) from device memory once. Planned by
// plan_normalization_persistent, launched from normalization_kernels.cu.
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

// ---------------------------------------------------------------------------
// Persistent form (NormArgs::pers_*): training forward and backward of the
// fast forms with x (and dy) read from device memory once. A co-resident
// grid (cooperative launch) walks the channels in groups. For each group a
// block loads its share (rows: a contiguous range of the group's vectors,
// channel after channel; cols: a range of rows, the group's channels) into
// shared memory while it sums, publishes its per-channel partial sums and
// arrives at the group's barrier (a counter in the workspace); with two
// slots it then loads the next group before it waits, so the barrier's
// latency hides behind loads. After the wait every block combines all
// blocks' partials in block order (the same sums everywhere:
// deterministic), block 0 writes the statistics or parameter gradients, and
// the block writes y (dx) from shared memory. A thread reads back exactly
// the cache entries it wrote, so the cache needs no barrier.
constexpr int kPersThreads = 512, kPersWarps = kPersThreads / 32, kPersMaxGroup = 64;

template <bool BWD>
struct PersNp {
  static constexpr int value = BWD ? 4 : 2;  // partial sums per channel
};

__device__ inline void pers_arrive(unsigned *counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
  }
}

__device__ inline uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ inline void pers_wait(const unsigned *counter, unsigned blocks) {
  if (threadIdx.x == 0) {
    // Co-residency makes every block arrive; the time limit turns a broken
    // guarantee into a launch error instead of a hang.
    const uint64_t start = global_ns();
    while (*static_cast<const volatile unsigned *>(counter) < blocks) {
      __nanosleep(32);
      if (global_ns() - start > 4000000000ull) __trap();
    }
    __threadfence();
  }
  __syncthreads();
}

// Deterministic block sum of NP values per thread; thread 0 gets the totals.
template <class C, int NP>
__device__ inline void pers_block_sum(C (&v)[NP], C (&red)[NP][kPersWarps]) {
#pragma unroll
  for (int i = 0; i < NP; ++i)
    for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_down_sync(0xffffffffu, v[i], o);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();  // red is free (its previous readers are done)
  if (lane == 0)
#pragma unroll
    for (int i = 0; i < NP; ++i) red[i][warp] = v[i];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kPersWarps; ++w)
#pragma unroll
      for (int i = 0; i < NP; ++i) v[i] += red[i][w];
}

template <class S, class C, int V, bool COLS, bool BWD>
__global__ void __launch_bounds__(kPersThreads, (COLS && BWD && V == 8) ? 1 : 2) persistent_norm(NormArgs a, C *part, unsigned *counter) {
  constexpr int NP = PersNp<BWD>::value;
  constexpr int kPersUnroll = BWD ? 2 : 4;  // vectors per thread in flight (registers: two blocks per SM)
  extern __shared__ uint4 pers_cache[];
  __shared__ C shf[kPersMaxGroup];  // cols: each channel's shift (its row-0 value)
  __shared__ C red[NP][kPersWarps];
  __shared__ C csum[kPersMaxGroup][NP];
  __shared__ C coef[kPersMaxGroup][3];
  const int G = a.pers_group, ngroups = a.pers_groups, slots = a.pers_slots;
  const unsigned nb = gridDim.x, b = blockIdx.x;
  const int64_t share = a.pers_share;
  const int64_t slot_vecs = COLS ? share * (G / V) : share;  // vectors per tensor per slot
  VecPack<S, V> *cache = reinterpret_cast<VecPack<S, V> *>(pers_cache);
  const S *x = static_cast<const S *>(a.data[kNX]);
  const S *dy = static_cast<const S *>(a.data[BWD ? kNDY : kNX]);
  const uint32_t nv = static_cast<uint32_t>(a.count / V);  // rows: vectors per set
  // Cols: the thread's channel vector and first row.
  const int gv = COLS ? G / V : 1, cv = threadIdx.x % gv, ty = threadIdx.x / gv, rstep = kPersThreads / gv;
  const int64_t rb = static_cast<int64_t>(b) * share, re = min(a.count, rb + share);

  // Loads group g into slot s and publishes this block's partial sums.
  auto load = [&](int g, int s) {
    VecPack<S, V> *cx = cache + static_cast<int64_t>(s) * slot_vecs * (BWD ? 2 : 1);
    VecPack<S, V> *cg = cx + slot_vecs;
    const int k0 = g * G;
    const int gc = min(G, static_cast<int>(a.groups) - k0);  // channels in this group
    if (threadIdx.x < kPersMaxGroup * NP) csum[threadIdx.x / NP][threadIdx.x % NP] = C(0);
    if (COLS && static_cast<int>(threadIdx.x) < gc) shf[threadIdx.x] = cvt<S, C>(x[k0 + threadIdx.x]);
    __syncthreads();
    if constexpr (COLS) {
      const int64_t c0 = k0 + static_cast<int64_t>(cv) * V;
      const bool on = cv * V < gc;
      C acc[NP][V];
#pragma unroll
      for (int j = 0; j < V; ++j)
#pragma unroll
        for (int i = 0; i < NP; ++i) acc[i][j] = C(0);
      if (on) {
        for (int64_t r0 = rb + ty; r0 < re; r0 += kPersUnroll * rstep) {
          VecPack<S, V> px[kPersUnroll], pg[kPersUnroll];
#pragma unroll
          for (int u = 0; u < kPersUnroll; ++u)
            if (r0 + u * rstep < re) {
              const int64_t off = (r0 + u * rstep) * a.outer_stride + c0;
              px[u] = ldv<S, V>(x, off);
              if (BWD) pg[u] = ldv<S, V>(dy, off);
            }
#pragma unroll
          for (int u = 0; u < kPersUnroll; ++u)
            if (r0 + u * rstep < re) {
              const int64_t r = r0 + u * rstep;
              const int64_t i = (r - rb) * gv + cv;
              cx[i] = px[u];
              if (BWD) cg[i] = pg[u];
#pragma unroll
              for (int j = 0; j < V; ++j) {
                const C d = cvt<S, C>(px[u].e[j]) - shf[cv * V + j];
                acc[0][j] += d;
                acc[1][j] += d * d;
                if constexpr (BWD) {
                  C gval = cvt<S, C>(pg[u].e[j]);
                  if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[r * a.outer_stride + c0 + j] == 0)
                    gval = C(0);
                  acc[2][j] += gval;
                  acc[3][j] += gval * d;
                }
              }
            }
        }
      }
      // Lanes of one warp with the same channel vector: a fixed xor tree.
#pragma unroll
      for (int i = 0; i < NP; ++i)
#pragma unroll
        for (int j = 0; j < V; ++j)
          for (int o = 16; o >= gv; o >>= 1) acc[i][j] += __shfl_xor_sync(0xffffffffu, acc[i][j], o);
      // Warps in order through the spare shared memory after the slots.
      C *wsum = reinterpret_cast<C *>(cache + static_cast<int64_t>(slots) * slot_vecs * (BWD ? 2 : 1));
      const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
      if (lane < gv)
#pragma unroll
        for (int i = 0; i < NP; ++i)
#pragma unroll
          for (int j = 0; j < V; ++j) wsum[(warp * NP + i) * G + lane * V + j] = acc[i][j];
      __syncthreads();
      if (threadIdx.x < G * NP) {
        const int kk = threadIdx.x / NP, i = threadIdx.x % NP;
        C t = C(0);
        for (int w = 0; w < kPersWarps; ++w) t += wsum[(w * NP + i) * G + kk];
        csum[kk][i] = t;
      }
    } else {
      const int64_t ub = static_cast<int64_t>(b) * share;
      const int64_t ue = min(static_cast<int64_t>(gc) * nv, ub + share);
      for (int64_t s0 = ub; s0 < ue;) {
        const int kk = static_cast<int>(s0 / nv);
        const int64_t s1 = min(ue, static_cast<int64_t>(kk + 1) * nv);
        const int64_t base = static_cast<int64_t>(k0 + kk) * a.set_stride;
        const C shift = cvt<S, C>(x[base]);
        C acc[NP];
#pragma unroll
        for (int i = 0; i < NP; ++i) acc[i] = C(0);
        for (int64_t i0 = s0 + threadIdx.x; i0 < s1; i0 += kPersUnroll * kPersThreads) {
          VecPack<S, V> px[kPersUnroll], pg[kPersUnroll];
          int64_t off[kPersUnroll];
#pragma unroll
          for (int u = 0; u < kPersUnroll; ++u)
            if (i0 + u * kPersThreads < s1) {
              const uint32_t v = static_cast<uint32_t>(i0 + u * kPersThreads - static_cast<int64_t>(kk) * nv);
              off[u] = base + rows_offset<V>(a, v);
              px[u] = ldv<S, V>(x, off[u]);
              if (BWD) pg[u] = ldv<S, V>(dy, off[u]);
            }
#pragma unroll
          for (int u = 0; u < kPersUnroll; ++u)
            if (i0 + u * kPersThreads < s1) {
              const int64_t i = i0 + u * kPersThreads - ub;
              cx[i] = px[u];
              if (BWD) cg[i] = pg[u];
#pragma unroll
              for (int j = 0; j < V; ++j) {
                const C d = cvt<S, C>(px[u].e[j]) - shift;
                acc[0] += d;
                acc[1] += d * d;
                if constexpr (BWD) {
                  C gval = cvt<S, C>(pg[u].e[j]);
                  if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[off[u] + j] == 0) gval = C(0);
                  acc[2] += gval;
                  acc[3] += gval * d;
                }
              }
            }
        }
        pers_block_sum<C, NP>(acc, red);
        if (threadIdx.x == 0)
#pragma unroll
          for (int i = 0; i < NP; ++i) csum[kk][i] = acc[i];
        s0 = s1;
      }
    }
    __syncthreads();
    if (threadIdx.x < G * NP) {
      const int kk = threadIdx.x / NP, i = threadIdx.x % NP;
      part[((static_cast<int64_t>(g) * NP + i) * G + kk) * nb + b] = csum[kk][i];
    }
    pers_arrive(counter + g);
  };

  // Combines group g's partials and writes y (dx) from slot s.
  auto apply = [&](int g, int s) {
    pers_wait(counter + g, nb);
    const int k0 = g * G;
    const int gc = min(G, static_cast<int>(a.groups) - k0);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int kk = warp; kk < gc; kk += kPersWarps) {
      const uint32_t k = static_cast<uint32_t>(k0 + kk);
      // Everything this step reads is requested at once: its latency is paid
      // once per group, not once per load (the blocks wait on it).
      C shift = C(0), scale = C(0), bias = C(0);
      if (lane == 0) {
        shift = COLS ? cvt<S, C>(x[k]) : cvt<S, C>(x[static_cast<int64_t>(k) * a.set_stride]);
        scale = ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k));
        if (!BWD) bias = ldp<C>(a.stat[kSBias], stat_offset(a, kSBias, k));
      }
      constexpr int kQ = 8;  // partials per lane and value in flight
      C t[NP];
#pragma unroll
      for (int i = 0; i < NP; ++i) t[i] = C(0);
      const C *p0 = part + (static_cast<int64_t>(g) * NP * G + kk) * nb;
      const int64_t pstride = static_cast<int64_t>(G) * nb;  // from value i to i + 1
      for (unsigned q0 = 0; q0 < nb; q0 += 32 * kQ) {
        C v[NP][kQ];
#pragma unroll
        for (int j = 0; j < kQ; ++j) {
          const unsigned q = q0 + lane + 32 * j;
#pragma unroll
          for (int i = 0; i < NP; ++i) v[i][j] = q < nb ? __ldcg(p0 + i * pstride + q) : C(0);
        }
#pragma unroll
        for (int j = 0; j < kQ; ++j)
#pragma unroll
          for (int i = 0; i < NP; ++i) t[i] += v[i][j];  // block order within the lane, as before
      }
#pragma unroll
      for (int i = 0; i < NP; ++i)
        for (int o = 16; o > 0; o >>= 1) t[i] += __shfl_xor_sync(0xffffffffu, t[i], o);
      if (lane == 0) {
        const C m = C(a.count);
        if constexpr (!BWD) {
          forward_channel<C>(a, k, t, m, shift, scale, bias, b == 0, coef[kk]);
        } else {
          backward_channel<C>(a, k, t, m, shift, scale, b == 0, coef[kk]);
        }
      }
    }
    __syncthreads();
    const VecPack<S, V> *cx = cache + static_cast<int64_t>(s) * slot_vecs * (BWD ? 2 : 1);
    const VecPack<S, V> *cg = cx + slot_vecs;
    if constexpr (COLS) {
      if (cv * V >= gc) return;
      const int64_t c0 = k0 + static_cast<int64_t>(cv) * V;
      C c1[V], c2[V], c3[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        c1[j] = coef[cv * V + j][0];
        c2[j] = coef[cv * V + j][1];
        c3[j] = coef[cv * V + j][2];
      }
      for (int64_t r = rb + ty; r < re; r += rstep) {
        const int64_t i = (r - rb) * gv + cv, off = r * a.outer_stride + c0;
        if constexpr (BWD) bwd_vec<S, C, V>(a, off, cx[i], cg[i], c1, c2, c3);
        else fwd_vec<S, C, V>(a, off, cx[i], c1, c2);
      }
    } else {
      const int64_t ub = static_cast<int64_t>(b) * share;
      const int64_t ue = min(static_cast<int64_t>(gc) * nv, ub + share);
      for (int64_t s0 = ub; s0 < ue;) {
        const int kk = static_cast<int>(s0 / nv);
        const int64_t s1 = min(ue, static_cast<int64_t>(kk + 1) * nv);
        const int64_t base = static_cast<int64_t>(k0 + kk) * a.set_stride;
        C c1[V], c2[V], c3[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          c1[j] = coef[kk][0];
          c2[j] = coef[kk][1];
          c3[j] = coef[kk][2];
        }
        for (int64_t i0 = s0 + threadIdx.x; i0 < s1; i0 += kPersThreads) {
          const uint32_t v = static_cast<uint32_t>(i0 - static_cast<int64_t>(kk) * nv);
          const int64_t off = base + rows_offset<V>(a, v), i = i0 - ub;
          if constexpr (BWD) bwd_vec<S, C, V>(a, off, cx[i], cg[i], c1, c2, c3);
          else fwd_vec<S, C, V>(a, off, cx[i], c1, c2);
        }
        s0 = s1;
      }
    }
  };

  load(0, 0);
  for (int g = 0; g < ngroups; ++g) {
    if (slots == 2 && g + 1 < ngroups) load(g + 1, (g + 1) & 1);
    apply(g, slots == 2 ? (g & 1) : 0);
    if (slots == 1 && g + 1 < ngroups) load(g + 1, 0);
  }
}

template <class S, class C, int V, bool COLS, bool BWD>
const void *persistent_kernel() {
  return reinterpret_cast<const void *>(persistent_norm<S, C, V, COLS, BWD>);
}

// Dynamic shared memory of the persistent kernel for these args.
template <class S, class C>
size_t persistent_smem(const NormArgs &a, int group, int slots, int64_t share) {
  constexpr int V = 16 / sizeof(S);
  const bool cols = a.fast == kFastCols;
  const int np = a.backward ? 4 : 2;
  const int64_t vecs = cols ? share * (group / V) : share;
  size_t bytes = static_cast<size_t>(vecs) * 16 * (a.backward ? 2 : 1) * static_cast<size_t>(slots);
  if (cols) bytes += static_cast<size_t>(kPersWarps) * np * group * sizeof(C);
  return bytes;
}

template <class S, class C>
const void *persistent_kernel_for(const NormArgs &a) {
  constexpr int V = 16 / sizeof(S);
  const bool cols = a.fast == kFastCols;
  if (cols) return a.backward ? persistent_kernel<S, C, V, true, true>() : persistent_kernel<S, C, V, true, false>();
  return a.backward ? persistent_kernel<S, C, V, false, true>() : persistent_kernel<S, C, V, false, false>();
}

// Chooses groups and slots: per block about kPersBudget bytes of cache;
// cols groups span at least 64 bytes of a row (whole DRAM bursts).
template <class S, class C>
void plan_persistent_typed(NormArgs &a) {
  constexpr int V = 16 / sizeof(S);
  const bool cols = a.fast == kFastCols;
  const int tensors = a.backward ? 2 : 1;
  const void *kernel = persistent_kernel_for<S, C>(a);
  DeviceFacts dev;
  if (!current_device_facts(dev)) return;
  const int optin = dev.smem_optin;
  if (optin < 200 * 1024 ||
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 8 * 1024) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kPersThreads, 96 * 1024) != cudaSuccess ||
      per_sm < 1) {
    cudaGetLastError();
    return;
  }
  per_sm = std::min(per_sm, 2);
  // Cache bytes per block: about half the multiprocessor's shared memory
  // per block at two blocks, most of it at one.
  const size_t kPersBudget = per_sm == 2 ? 100 * 1024 : 196 * 1024;
  const int64_t nb = static_cast<int64_t>(sm_count()) * per_sm;
  const int64_t esize = sizeof(S);
  for (int slots = 2; slots >= 1; --slots) {
    const int64_t cap = static_cast<int64_t>(kPersBudget) / slots / tensors;  // bytes per tensor per slot
    int g = 0;
    int64_t share = 0;
    if (cols) {
      const int64_t rows = (a.count + nb - 1) / nb;
      const int64_t unit = std::max<int64_t>(V, 64 / esize);
      int64_t gmax = cap / (rows * esize) / unit * unit;
      const int64_t all = (a.groups + V - 1) / V * V;
      // At least four groups where the channels allow: the writes of one
      // group overlap the loads of the next.
      gmax = std::min(gmax, std::max(unit, (all / 4 + V - 1) / V * V));
      if (gmax >= all) gmax = all;
      gmax = std::min<int64_t>(gmax, kPersMaxGroup);
      if (gmax < unit && gmax < all) continue;
      // A power of two of vectors per row segment (the sums' xor tree
      // pairs the lanes of one channel vector), the largest that fits; the
      // channels past C of the last group are idle threads.
      int64_t p2 = V;
      while (p2 * 2 <= gmax) p2 *= 2;
      if (gmax == all) {
        p2 = V;
        while (p2 < all) p2 *= 2;
        if (p2 > kPersMaxGroup || rows * p2 * esize > cap) continue;
      }
      g = static_cast<int>(p2);
      share = rows;
    } else {
      const int64_t nv = a.count / V;
      const int64_t per_block = cap / 16;  // vectors
      int64_t gmax = std::min<int64_t>(per_block * nb / nv, kPersMaxGroup);
      gmax = std::min<int64_t>(gmax, std::max<int64_t>(1, a.groups / 4));
      while (gmax >= 1 && (gmax * nv + nb - 1) / nb > per_block) --gmax;
      if (gmax < 1) continue;
      const int64_t ng = (a.groups + gmax - 1) / gmax;
      g = static_cast<int>((a.groups + ng - 1) / ng);
      share = (g * nv + nb - 1) / nb;
    }
    const size_t smem = persistent_smem<S, C>(a, g, slots, share);
    if (smem > kPersBudget + 8 * 1024) continue;
    if ((a.groups + g - 1) / g > 64) return;  // many barriers: the other forms
    int fit = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, kPersThreads, smem) != cudaSuccess || fit < per_sm) {
      cudaGetLastError();
      continue;
    }
    a.pers_blocks = static_cast<int>(nb);
    a.pers_group = g;
    a.pers_groups = static_cast<int>((a.groups + g - 1) / g);
    a.pers_slots = slots;
    a.pers_share = share;
    return;
  }
}

size_t persistent_workspace_bytes(const NormArgs &a) {
  if (a.pers_blocks == 0) return 0;
  const size_t c = a.compute_double ? sizeof(double) : sizeof(float);
  const int np = a.backward ? 4 : 2;
  return 256 + static_cast<size_t>(a.pers_groups) * sizeof(unsigned) + 256 +
         c * static_cast<size_t>(a.pers_groups) * np * a.pers_group * a.pers_blocks;
}

// Runs the persistent kernel (true) or nothing (false: the caller runs the
// other forms).
template <class S, class C>
bool try_persistent(const NormArgs &a, void *pers_ws, cudaStream_t stream) {
  if (a.pers_blocks == 0 || pers_ws == nullptr) return false;
  const void *kernel = persistent_kernel_for<S, C>(a);
  const size_t smem = persistent_smem<S, C>(a, a.pers_group, a.pers_slots, a.pers_share);
  unsigned *counter = static_cast<unsigned *>(pers_ws);
  C *part = reinterpret_cast<C *>(static_cast<char *>(pers_ws) +
                                  (static_cast<size_t>(a.pers_groups) * sizeof(unsigned) + 255) / 256 * 256);
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  check_cuda(cudaMemsetAsync(counter, 0, static_cast<size_t>(a.pers_groups) * sizeof(unsigned), stream),
             "normalization barrier counters");
  NormArgs args = a;
  void *params[] = {&args, &part, &counter};
  const cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(static_cast<unsigned>(a.pers_blocks)),
                                                    dim3(kPersThreads), params, smem, stream);
  if (e != cudaSuccess) {
    cudaGetLastError();  // e.g. the GPU is shared and the grid does not fit now
    return false;
  }
  check_launch("normalization persistent kernel");
  return true;
}

}  // namespace

size_t normalization_persistent_workspace_bytes(const NormArgs &a) { return persistent_workspace_bytes(a); }

bool launch_normalization_persistent(const NormArgs &a, void *pers_ws, void *stream) {
  cudaStream_t s = as_stream(stream);
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return try_persistent<float, float>(a, pers_ws, s);
    case CUDNN_DATA_DOUBLE: return try_persistent<double, double>(a, pers_ws, s);
    case CUDNN_DATA_HALF: return try_persistent<half_bits, float>(a, pers_ws, s);
    case CUDNN_DATA_BFLOAT16: return try_persistent<bf16_bits, float>(a, pers_ws, s);
    default: return false;
  }
}

void plan_normalization_persistent(NormArgs &a) {
  a.pers_blocks = 0;
  // Opt-in (FREEDNN_NORM_PERSISTENT=1) until an H100 run confirms it beats
  // the three-launch and cluster forms: its first version, whose per-group
  // combine read the partials one dependent load at a time, ran at 0.26-0.47
  // of copy; the combine now has all its loads in flight at once.
  static const bool enabled = [] {
    const char *e = std::getenv("FREEDNN_NORM_PERSISTENT");
    return e != nullptr && *e != '\0' && *e != '0';
  }();
  if (!enabled) return;
  if (a.fast == kFastNone || a.groups < 1) return;
  if (!a.backward && (a.stats_given || !a.training)) return;
  const int64_t esize = a.data_type == CUDNN_DATA_DOUBLE ? 8 : a.data_type == CUDNN_DATA_FLOAT ? 4 : 2;
  // Not for small tensors (the three-launch form re-reads x from L2 there).
  if (a.count * a.groups * esize < (int64_t{1} << 20)) return;
  if (a.count >= (int64_t{1} << 31)) return;
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: plan_persistent_typed<float, float>(a); break;
    case CUDNN_DATA_DOUBLE: plan_persistent_typed<double, double>(a); break;
    case CUDNN_DATA_HALF: plan_persistent_typed<half_bits, float>(a); break;
    case CUDNN_DATA_BFLOAT16: plan_persistent_typed<bf16_bits, float>(a); break;
    default: break;
  }
}

}  // namespace fdnn::cuda
