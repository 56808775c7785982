// Resident cluster form of cuda.normalization: batch-norm training forward
// and backward of the rows form (NCHW-like: a set is `outer` runs of
// `inner` contiguous elements), one thread-block cluster per set at a time,
// the set's x (and dy) held in the cluster's shared memory between the sums
// and the apply step, so each is read from device memory once. Planned by
// plan_normalization_resident, launched from normalization_kernels.cu before
// the older cluster kernels; FREEDNN_NORM_TUNE=nocluster turns it off.
//
// Why another cluster kernel: rows_train_cluster / rows_backward_cluster
// (normalization_kernels.cu) also keep the set on chip, but load it through
// registers (a few 16-byte loads per thread in flight, then a wait) and hold
// one set per block, so device memory idles while a block waits for its
// loads, sits in the two cluster barriers, and stores. Here the copy engine
// moves each block's slice into shared memory (cp.async.bulk per plane
// piece, completing on an mbarrier per piece), and a block holds res_bufs
// sets: while set i is summed, reduced over the cluster and stored, the
// loads of the next sets are in flight, and each piece of set i's buffer is
// refilled with set i + res_bufs as soon as its y (dx) is stored.
//
// Per set, per block: wait for each piece, add its shifted sums (x - x[0])
// and squares (backward: also dy and dy (x - x[0])); block sums through
// shuffles; one cluster barrier; warp 0 reads every block's sums through
// distributed shared memory and adds them in a fixed tree (all blocks get
// the same coefficients; deterministic); rank 0 writes the saved and running
// statistics (dscale, dbias); then y (dx) from shared memory, piece by piece.
// On large calls the clusters start in four phases 3 us apart (launch_typed).
// The block sums go to one of three records in turn, so one split cluster
// barrier per set suffices (see `sums`). With two sets per block
// ("rnb=2") the next set's sums run between the arrival and the wait.
//
// H100, N=256 C=256 28x28, single calls, ours / copy, same run (old: the
// cluster kernels, FREEDNN_NORM_TUNE=nocluster): backward f32 NCHW 0.68 ->
// 0.76 (16 blocks of 100 KB per channel, 14 resident clusters), f16 0.57 ->
// 0.66 (8 blocks, 30 clusters). Training forward f32 0.73 -> 0.73-0.74 (7
// or 8 blocks, 32 or 30 clusters; ncu 190 us, DRAM 61 %), f16 0.58 -> 0.56:
// no gain then. Once fwd_vec's plain path (3ae4bf2) cut the store phase's
// instructions, the forward here beat rows_train_cluster (twenty-fifth
// session, runs 4-5: f32 0.74-0.76 -> 0.76-0.79, f16 0.66 -> 0.67-0.69;
// ncu f32 171 us, DRAM 68 %), so it runs here by default ("nrfwd": the
// cluster kernel). Two sets per block
// (pipelined or not) measured slower everywhere (f32 forward 0.59-0.66):
// they need twice the blocks per cluster, fewer clusters fit, and each set
// waits for the slowest of more blocks. 256 threads, 2 or 8 pieces, 75 KB
// or 224 KB blocks: slower too (docs/perf-logs-gpu-memops-2026-11-24.md).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <vector>

#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_args.hpp"
#include "cuda/normalization_device.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

using namespace normdev;

constexpr int kMaxPieces = 8, kMaxBufs = 2;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t sh_addr(const void *p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(uint64_t *b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sh_addr(b)) : "memory");
}
// The one arrival of the barrier's phase, expecting `bytes` of bulk copies.
__device__ __forceinline__ void bar_expect(uint64_t *b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(sh_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t *b, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(sh_addr(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   sh_addr(dst)),
               "l"(src), "r"(bytes), "r"(sh_addr(b))
               : "memory");
}

// Loads the set's vectors [g0, g1) (the block's slice starts at vb) of each
// of the NT tensors into their buffers, one bulk copy per plane piece, all
// completing on `bar`. One thread.
template <class S, int V, int NT>
__device__ void load_piece(const NormArgs &a, const S *const (&src)[NT], VecPack<S, V> *const (&dst)[NT], uint32_t vb,
                           uint32_t g0, uint32_t g1, uint64_t *bar) {
  bar_expect(bar, (g1 - g0) * 16u * NT);
  const uint32_t iv = a.inner_vecs.divisor;
  for (uint32_t v = g0; v < g1;) {
    uint32_t i;
    const uint32_t n = a.inner_vecs.divmod(v, i);
    const uint32_t e = min(g1, v + (iv - i));
    const int64_t off = static_cast<int64_t>(n) * a.outer_stride + static_cast<int64_t>(i) * V;
#pragma unroll
    for (int t = 0; t < NT; ++t) bulk_load(dst[t] + (v - vb), src[t] + off, (e - v) * 16u, bar);
    v = e;
  }
}
#endif

// NT = 1: training forward (x); NT = 2: backward (x, dy). Dynamic shared
// memory: res_bufs buffers of NT slices of `per` vectors.
template <class S, class C, int V, int T, int NT>
__global__ void __launch_bounds__(T, 1024 / T) rows_resident(NormArgs a, uint32_t per) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ uint4 res_cache[];
  __shared__ uint64_t bar[kMaxBufs][kMaxPieces];
  constexpr int NS = NT == 1 ? 2 : 4;  // sums per set
  __shared__ C red[NS][T / 32];
  __shared__ C part[3][NS];
  __shared__ C rec[3][3];  // per record: x[0] of the set (the shift), scale, bias
  __shared__ C coef[3];
  const unsigned cs = cluster.num_blocks(), rank = cluster.block_rank();
  const uint32_t nv = static_cast<uint32_t>(a.count / V);
  const uint32_t vb = min(nv, rank * per), ve = min(nv, vb + per), nloc = ve - vb;
  const int pieces = a.res_pieces, nbuf = a.res_bufs;
  const uint32_t plen = (per + pieces - 1) / pieces;
  const uint32_t sets = static_cast<uint32_t>(a.groups);
  auto buffer = [&](int b, int t) { return reinterpret_cast<VecPack<S, V> *>(res_cache) + (b * NT + t) * per; };
  auto piece_begin = [&](int p) { return min(nloc, p * plen); };
  // Issues the loads of piece p of set k into buffer b (one thread).
  auto load = [&](int b, int p, uint32_t k) {
    const uint32_t pb = piece_begin(p), pe = piece_begin(p + 1);
    if (pb >= pe) return;
    const int64_t base = static_cast<int64_t>(k) * a.set_stride;
    const S *src[NT];
    VecPack<S, V> *dst[NT];
    src[0] = static_cast<const S *>(a.data[kNX]) + base;
    dst[0] = buffer(b, 0);
    if constexpr (NT == 2) {
      src[1] = static_cast<const S *>(a.data[kNDY]) + base;
      dst[1] = buffer(b, 1);
    }
    load_piece<S, V, NT>(a, src, dst, vb, vb + pb, vb + pe, &bar[b][p]);
  };
  if (threadIdx.x == 0) {
    for (int b = 0; b < nbuf; ++b)
      for (int p = 0; p < pieces; ++p) bar_init(&bar[b][p]);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // Clusters in four start phases (see launch_typed).
  if (a.res_stagger_ns > 0 && threadIdx.x == 0) {
    uint64_t t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const uint64_t wait = static_cast<uint64_t>(blockIdx.y % 4) * static_cast<uint64_t>(a.res_stagger_ns);
    do {
      __nanosleep(256);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < wait);
  }
  __syncthreads();
  // The first sets of this cluster, one piece per lane of warp 0.
  if (threadIdx.x < pieces)
    for (int b = 0; b < nbuf; ++b)
      if (blockIdx.y + b * gridDim.y < sets) load(b, threadIdx.x, blockIdx.y + b * gridDim.y);

  // Set of this cluster's iteration i, its buffer and the parity of that
  // buffer's barriers for it.
  auto set_of = [&](uint32_t i) { return blockIdx.y + i * gridDim.y; };
  const uint32_t iters = blockIdx.y < sets ? (sets - blockIdx.y + gridDim.y - 1) / gridDim.y : 0;
  // Block sums of iteration i into part[i % 3] (thread 0; the other threads'
  // registers hold nothing of it afterwards). Three records: a block writes
  // record i % 3 between its arrival for i - 1 and its wait for i - 1 (with
  // two sets per block) or after its wait for i - 1, and its peers read
  // record (i - 3) % 3 before their arrival for i - 2.
  auto sums = [&](uint32_t i) {
    const int b = static_cast<int>(i % nbuf);
    const uint32_t parity = (i / nbuf) & 1u;
    const int64_t base = static_cast<int64_t>(set_of(i)) * a.set_stride;
    const C shift = cvt<S, C>(static_cast<const S *>(a.data[kNX])[base]);
    // Thread 0 fetches what the coefficients of this set need while the
    // pieces arrive: scale and bias into the record, the statistics read
    // after the cluster barrier into L1.
    const uint32_t k = set_of(i);
    C scale = 0, bias = 0;
    if (threadIdx.x == 0) {
      scale = ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k));
      if constexpr (NT == 1) bias = ldp<C>(a.stat[kSBias], stat_offset(a, kSBias, k));
      const int ahead[4] = {NT == 1 ? kSRmIn : kSMean, NT == 1 ? kSRvIn : a.var_given ? kSVar : kSInv, kSDscale, kSDbias};
      for (int j = 0; j < (NT == 1 ? 2 : 4); ++j)
        if (a.stat[ahead[j]] != nullptr && (NT == 1 || j >= 2 || a.stats_given))
          asm volatile("prefetch.global.L1 [%0];\n" ::"l"(static_cast<const C *>(a.stat[ahead[j]]) +
                                                          stat_offset(a, ahead[j], k)));
    }
    const VecPack<S, V> *cx = buffer(b, 0);
    const VecPack<S, V> *cg_ = buffer(b, NT - 1);
    C acc[NS];
#pragma unroll
    for (int j = 0; j < NS; ++j) acc[j] = 0;
    for (int p = 0; p < pieces; ++p) {
      const uint32_t pb = piece_begin(p), pe = piece_begin(p + 1);
      if (pb >= pe) break;
      bar_wait(&bar[b][p], parity);
#pragma unroll 4
      for (uint32_t v = pb + threadIdx.x; v < pe; v += T) {
        const VecPack<S, V> px = cx[v];
        C d[V];
        unpack<S, C, V>(px, d);
        if constexpr (NT == 1) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            d[j] -= shift;
            acc[0] += d[j];
            acc[1] += d[j] * d[j];
          }
        } else {
          const VecPack<S, V> pg = cg_[v];
          C g[V];
          unpack<S, C, V>(pg, g);
          if (a.has_mask) {  // one branch, not a predicated load per element
            const int64_t mo = base + rows_offset<V>(a, vb + v);
#pragma unroll
            for (int j = 0; j < V; ++j)
              if (static_cast<const uint8_t *>(a.data[kNMask])[mo + j] == 0) g[j] = C(0);
          }
#pragma unroll
          for (int j = 0; j < V; ++j) {
            d[j] -= shift;
            acc[0] += d[j];
            acc[1] += d[j] * d[j];
            acc[2] += g[j];
            acc[3] += g[j] * d[j];
          }
        }
      }
    }
#pragma unroll
    for (int j = 0; j < NS; ++j)
      for (int o = 16; o > 0; o >>= 1) acc[j] += __shfl_down_sync(0xffffffffu, acc[j], o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0)
#pragma unroll
      for (int j = 0; j < NS; ++j) red[j][warp] = acc[j];
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < T / 32; ++w)
#pragma unroll
        for (int j = 0; j < NS; ++j) acc[j] += red[j][w];
#pragma unroll
      for (int j = 0; j < NS; ++j) part[i % 3][j] = acc[j];
      rec[i % 3][0] = shift;
      rec[i % 3][1] = scale;
      rec[i % 3][2] = bias;
    }
  };
  // Arrival of every thread once record i is written (thread 0's write is
  // released to the cluster), and the matching wait.
  auto arrive = [] { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); };
  auto wait = [] { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); };

  if (iters > 0) sums(0);
  arrive();
  for (uint32_t i = 0; i < iters; ++i) {
    // With two sets per block, the next set's sums run while the peers
    // catch up with this one.
    if (nbuf > 1 && i + 1 < iters) sums(i + 1);
    wait();  // every block's record i is written
    const uint32_t k = set_of(i);
    const int64_t base = static_cast<int64_t>(k) * a.set_stride;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp == 0) {
      // Lane r reads block r's sums; a fixed shuffle tree adds them.
      C t[NS];
#pragma unroll
      for (int j = 0; j < NS; ++j) t[j] = 0;
      if (lane < static_cast<int>(cs)) {
        const C *pr = cluster.map_shared_rank(part[i % 3], lane);
#pragma unroll
        for (int j = 0; j < NS; ++j) t[j] = pr[j];
      }
#pragma unroll
      for (int j = 0; j < NS; ++j)
        for (int o = 16; o > 0; o >>= 1) t[j] += __shfl_down_sync(0xffffffffu, t[j], o);
      if (lane == 0) {
        const C shift = rec[i % 3][0], scale = rec[i % 3][1];
        if constexpr (NT == 1) {
          forward_channel<C>(a, k, t, C(a.count), shift, scale, rec[i % 3][2], rank == 0, coef);
        } else {
          backward_channel<C>(a, k, t, C(a.count), shift, scale, rank == 0, coef);
        }
      }
    }
    __syncthreads();  // coef is set
    C ca[V], cb[V], cc[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      ca[j] = coef[0];
      cb[j] = coef[1];
      cc[j] = NT == 2 ? coef[2] : C(0);
    }
    const int b = static_cast<int>(i % nbuf);
    const VecPack<S, V> *cx = buffer(b, 0);
    const VecPack<S, V> *cg_ = buffer(b, NT - 1);
    const bool refill = i + nbuf < iters;
    for (int p = 0; p < pieces; ++p) {
      const uint32_t pb = piece_begin(p), pe = piece_begin(p + 1);
      if (pb >= pe) break;
#pragma unroll 2
      for (uint32_t v = pb + threadIdx.x; v < pe; v += T) {
        const int64_t off = base + rows_offset<V>(a, vb + v);
        if constexpr (NT == 1) fwd_vec<S, C, V>(a, off, cx[v], ca, cb);
        else bwd_vec<S, C, V>(a, off, cx[v], cg_[v], ca, cb, cc);
      }
      if (refill) {
        // Every thread's reads of the piece are done before the copy engine
        // writes it again.
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) load(b, p, set_of(i + nbuf));
      }
    }
    if (i + 1 < iters) {
      if (nbuf == 1) sums(i + 1);
      arrive();
    }
  }
  if (iters == 0) wait();
  cluster.sync();  // the peers have read this block's last record
#else
  __trap();  // never launched: plan_normalization_resident needs sm_90
#endif
}

// The shape of the form for these args with `bufs` sets per block: blocks
// per cluster (0: more than a.res_cmax), vectors per block slice, dynamic
// shared-memory bytes.
struct ResShape {
  int cs = 0;
  uint32_t per = 0;
  size_t smem = 0;
};
ResShape res_shape(const NormArgs &a, int esize, int bufs) {
  ResShape r;
  const int nt = a.backward ? 2 : 1;
  const int64_t bytes = a.count * esize * nt * bufs;
  const int64_t target = int64_t{a.res_block_kb} * 1024;
  const int64_t cs = std::max<int64_t>(1, (bytes + target - 1) / target);
  if (cs > a.res_cmax) return r;
  const int64_t nv = a.count * esize / 16;
  r.cs = static_cast<int>(cs);
  r.per = static_cast<uint32_t>((nv + cs - 1) / cs);
  r.smem = static_cast<size_t>(r.per) * 16 * nt * bufs;
  return r;
}

template <class S, class C>
const void *res_kernel(const NormArgs &a) {
  constexpr int V = 16 / sizeof(S);
  if (a.backward)
    return a.res_threads == 256 ? reinterpret_cast<const void *>(rows_resident<S, C, V, 256, 2>)
                                : reinterpret_cast<const void *>(rows_resident<S, C, V, 512, 2>);
  return a.res_threads == 256 ? reinterpret_cast<const void *>(rows_resident<S, C, V, 256, 1>)
                              : reinterpret_cast<const void *>(rows_resident<S, C, V, 512, 1>);
}

// Whether this shape is launched for the first time in the process (the
// "rlog" switch prints each shape once).
bool first_time(int cs, int bufs, uint32_t per, bool bwd, int esize) {
  static std::mutex mu;
  static std::vector<std::array<int64_t, 5>> seen;
  const std::array<int64_t, 5> key = {cs, bufs, per, bwd, esize};
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(seen.begin(), seen.end(), key) != seen.end()) return false;
  seen.push_back(key);
  return true;
}

template <class S, class C>
bool launch_typed(const NormArgs &a, cudaStream_t stream) {
  const void *kernel = res_kernel<S, C>(a);
  NormArgs b = a;
  ResShape r = res_shape(a, sizeof(S), a.res_bufs);
  int slots = normalization_cluster_slots(kernel, r.cs, a.res_threads, r.smem);
  if (slots < 1 && a.res_bufs > 1) {  // two sets per block do not fit: one
    b.res_bufs = 1;
    r = res_shape(a, sizeof(S), 1);
    if (r.cs > 0) slots = normalization_cluster_slots(kernel, r.cs, a.res_threads, r.smem);
  }
  if (a.res_log && first_time(r.cs, b.res_bufs, r.per, a.backward, static_cast<int>(sizeof(S))))
    std::fprintf(stderr, "# resident %s %s: %d blocks x %d threads per cluster, %d set(s) per block, %u vectors per slice, %zu B, %d resident clusters, %lld sets\n",
                 a.backward ? "bwd" : "fwd", sizeof(S) == 4 ? "f32" : "16-bit", r.cs, a.res_threads, b.res_bufs, r.per, r.smem, slots,
                 static_cast<long long>(a.groups));
  if (r.cs < 1 || slots < 1) return false;
  const int64_t clusters = std::min<int64_t>(a.groups, slots);
  // Every cluster reaches its barrier phase (its loads landed, its stores
  // not begun: device memory idle for it) at about the same time when all
  // start together. Started in four phases 3 us apart, they keep memory
  // busy through each other's barriers. H100, N=256 C=256 28x28, twenty-fifth
  // session run 6, two alternations, ours / copy: backward f32 NCHW 0.75-0.77
  // -> 0.80-0.81, f16 0.70-0.72 -> 0.74-0.75; training forward f32 0.75-0.77
  // -> 0.77, f16 unchanged (0.67); 2 us gained less, 6 and 10 us lost. Only
  // where the delay is small against the call: large sets, several per
  // cluster.
  const int64_t set_bytes = a.count * static_cast<int64_t>(sizeof(S)) * (a.backward ? 2 : 1);
  if (b.res_stagger_ns < 0)
    b.res_stagger_ns = set_bytes >= (int64_t{256} << 10) && a.groups >= 4 * clusters ? 3000 : 0;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(r.cs), static_cast<unsigned>(clusters));
  cfg.blockDim = dim3(static_cast<unsigned>(a.res_threads));
  cfg.dynamicSmemBytes = r.smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(r.cs);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  void *params[] = {&b, &r.per};
  check_cuda(cudaLaunchKernelExC(&cfg, kernel, params), "normalization resident cluster kernel");
  check_launch("normalization resident cluster kernel");
  return true;
}

int esize_of(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT ? 4 : 2; }

}  // namespace

void plan_normalization_resident(NormArgs &a) {
  a.res_cs = 0;
  a.res_bufs = 0;
  if (!a.res_form) return;  // FREEDNN_NORM_TUNE=nocluster
  // The rows form (x, dy and the outputs share x's strides, 16-byte vectors
  // along contiguous runs) of training forward or backward; inference
  // reads x once already.
  if (a.fast != kFastRows || a.dyn) return;
  if (!a.backward && (a.stats_given || !a.training)) return;
  // Training forward too, unless "nrfwd" (see the header).
  if (!a.backward && !a.res_forward) return;
  if (a.data_type != a.out_type || a.data_type != a.grad_type) return;
  // Float and the 16-bit types (double: no kernels; not a bandwidth case).
  if (a.data_type != CUDNN_DATA_FLOAT && a.data_type != CUDNN_DATA_HALF && a.data_type != CUDNN_DATA_BFLOAT16) return;
  if (a.vec != 16 / esize_of(a.data_type)) return;
  if (a.groups > 65535 || a.count / a.vec >= (int64_t{1} << 31)) return;  // grid.y; 32-bit vector indices
  const int pieces = std::max(1, std::min(a.res_pieces, kMaxPieces));
  a.res_pieces = pieces;
  // Two sets per block where a cluster of at most res_cmax blocks holds
  // them, else one; a set too large for res_cmax blocks runs elsewhere.
  for (int bufs = std::min(a.res_bufs_max, kMaxBufs); bufs >= 1; --bufs) {
    const ResShape r = res_shape(a, esize_of(a.data_type), bufs);
    if (r.cs > 0) {
      a.res_cs = r.cs;
      a.res_bufs = bufs;
      return;
    }
  }
}

bool launch_normalization_resident(const NormArgs &a, void *stream) {
  if (a.res_cs < 1) return false;
  for (int j = 0; j < kNormData; ++j)  // the bulk copies and vector accesses need 16-byte alignment
    if (j != kNMask && a.data[j] != nullptr && reinterpret_cast<uintptr_t>(a.data[j]) % 16 != 0) return false;
  DeviceFacts f;
  if (!current_device_facts(f) || f.cc_major < 9) return false;  // clusters and bulk copies: sm_90
  cudaStream_t s = as_stream(stream);
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: return launch_typed<float, float>(a, s);
    case CUDNN_DATA_HALF: return launch_typed<half_bits, float>(a, s);
    case CUDNN_DATA_BFLOAT16: return launch_typed<bf16_bits, float>(a, s);
    default: return false;
  }
}

}  // namespace fdnn::cuda
