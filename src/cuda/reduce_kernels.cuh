// Reduction kernels (two-level, deterministic):
//  - rows: a group of 1-32 lanes per (output, split); the lanes walk the
//    reduced elements of the split, then a shuffle tree combines them;
//  - columns: a 32x8 block per (32 neighbouring outputs, split); the 32 lanes
//    of a row read 32 neighbouring x elements (coalesced), the 8 rows take
//    every 8th reduced position, then shared memory combines the rows;
//  - finalize: when slices are split, one warp per output combines the
//    splits' partial results (always in the same order) and stores.
// Every combination order is fixed by the launch geometry, which depends only
// on the shapes, so results are bitwise reproducible.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/element_access.cuh"
#include "cuda/kernel_args.hpp"
#include "cuda/reduce_kernel_args.hpp"
#include "cuda/reduce_modes.cuh"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {

// x elements of a run-time type (any supported dtype).
struct DynamicType {};

template <class SX>
struct XLoad {
  template <class C>
  __device__ static C get(const void *p, int, int64_t off) {
    return Storage<SX>::template load<C>(static_cast<const SX *>(p)[off]);
  }
};
template <>
struct XLoad<DynamicType> {
  template <class C>
  __device__ static C get(const void *p, int dtype, int64_t off) {
    return load_element<C>(p, dtype, off);
  }
};

// x offset of output o's slice origin, and its y and indices offsets.
__device__ inline void output_offsets(const ReduceKernelArgs &a, uint32_t o, int64_t &x, int64_t &y, int64_t &i) {
  x = 0;
  y = 0;
  i = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < a.kept_rank) {
      uint32_t c;
      o = a.kept_div[d].divmod(o, c);
      x += static_cast<int64_t>(c) * a.kept_x[d];
      y += static_cast<int64_t>(c) * a.kept_y[d];
      i += static_cast<int64_t>(c) * a.kept_idx[d];
    }
  }
}

// x offset (relative to the slice origin) and flat index of reduced position r.
__device__ inline void reduced_offsets(const ReduceKernelArgs &a, uint32_t r, int64_t &x, int64_t &flat) {
  if (a.red_rank == 1) {
    x = static_cast<int64_t>(r) * a.red_x[0];
    flat = static_cast<int64_t>(r) * a.red_flat[0];
    return;
  }
  x = 0;
  flat = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < a.red_rank) {
      uint32_t c;
      r = a.red_div[d].divmod(r, c);
      x += static_cast<int64_t>(c) * a.red_x[d];
      flat += static_cast<int64_t>(c) * a.red_flat[d];
    }
  }
}

// Folds candidate (v, vi) into (acc, best): indexed modes keep the winning
// key and its position; the others accumulate (vi unused).
template <class M, class C, bool IDX>
__device__ inline void fold(C &acc, int64_t &best, C v, int64_t vi, bool prop) {
  if constexpr (IDX) {
    if (red::replaces<M>(v, vi, acc, best, prop)) {
      acc = v;
      best = vi;
    }
  } else {
    acc = M::acc(acc, v, prop);
  }
}

// Merges two partial results.
template <class M, class C, bool IDX>
__device__ inline void merge(C &acc, int64_t &best, C v, int64_t vi, bool prop) {
  if constexpr (IDX) {
    if (red::replaces<M>(v, vi, acc, best, prop)) {
      acc = v;
      best = vi;
    }
  } else {
    acc = M::combine(acc, v, prop);
  }
}

template <class M, class C, bool IDX>
__device__ inline void element(const ReduceKernelArgs &a, C v, int64_t flat, C &acc, int64_t &best) {
  if constexpr (IDX) fold<M, C, IDX>(acc, best, M::key(v), flat, a.prop);
  else fold<M, C, IDX>(acc, best, v, flat, a.prop);
}

// Final value of output o: finish, blend with y, store y (and the index).
template <class M, class C, bool IDX>
__device__ inline void store_output(const ReduceKernelArgs &a, uint32_t o, C acc, int64_t best) {
  int64_t xo, yo, io;
  output_offsets(a, o, xo, yo, io);
  C out = static_cast<C>(a.alpha) * M::finish(acc, a.K);
  if (a.beta != 0.0) out += static_cast<C>(a.beta) * load_element<C>(a.y, a.y_dtype, yo);
  store_element<C>(a.y, a.y_dtype, yo, out);
  if constexpr (IDX) a.indices[io] = static_cast<uint32_t>(best < 0 ? 0 : best);
}

// Either the final store (one split) or the partial result of split s.
template <class M, class C, bool IDX>
__device__ inline void emit(const ReduceKernelArgs &a, uint32_t o, uint32_t s, C acc, int64_t best) {
  if (a.S == 1) {
    store_output<M, C, IDX>(a, o, acc, best);
    return;
  }
  const size_t slot = static_cast<size_t>(s) * a.M + o;
  static_cast<C *>(a.part_value)[slot] = acc;
  if constexpr (IDX) a.part_index[slot] = best;
}

// Reduced positions [r0, r1) of split s; multiples of a.vec.
__device__ inline void split_range(const ReduceKernelArgs &a, uint32_t s, uint32_t &r0, uint32_t &r1) {
  const uint64_t units = a.K / a.vec;
  r0 = static_cast<uint32_t>(units * s / a.S) * a.vec;
  r1 = static_cast<uint32_t>(units * (s + 1) / a.S) * a.vec;
}

// Merges the partial results of the `group` lanes (a power of two) that
// share an output; lane 0 of the group ends up with the result.
template <class M, class C, bool IDX>
__device__ inline void group_merge(C &acc, int64_t &best, bool prop, uint32_t group) {
  for (uint32_t off = group >> 1; off > 0; off >>= 1) {
    const C v = __shfl_down_sync(0xffffffffu, acc, off, group);
    const int64_t vi = IDX ? __shfl_down_sync(0xffffffffu, best, off, group) : 0;
    merge<M, C, IDX>(acc, best, v, vi, prop);
  }
}

// Rows: `group` lanes (1..32) per (output, split); a warp serves 32 / group
// of them. Small slices use small groups so that no lane idles.
template <class M, class C, class SX, bool IDX>
__global__ void __launch_bounds__(256) reduce_rows_kernel(ReduceKernelArgs a) {
  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t unit = thread >> a.group_shift;
  const uint32_t lane = thread & (a.group - 1);
  const bool active = static_cast<uint64_t>(unit) < static_cast<uint64_t>(a.M) * a.S;
  uint32_t s = 0, o = 0;
  if (active) o = a.split_div.divmod(unit, s);
  C acc = M::init(a.prop);
  int64_t best = -1;
  if (active) {
    uint32_t r0, r1;
    split_range(a, s, r0, r1);
    int64_t xb, yo, io;
    output_offsets(a, o, xb, yo, io);
    const char *xbase = static_cast<const char *>(a.x);
    const uint32_t step = a.group;
    bool done = false;
    if constexpr (!std::is_same_v<SX, DynamicType>) {
      // Contiguous slices: 16-byte loads, two in flight per lane.
      constexpr int V = static_cast<int>(16 / sizeof(SX));
      if (a.vec == V) {
        using P = Pack<SX, V>;
        const SX *xs = reinterpret_cast<const SX *>(xbase) + xb;
        const int64_t fstep = a.red_flat[0];
        uint32_t v = r0 / V + lane;
        const uint32_t v1 = r1 / V;
        for (; v + step < v1; v += 2 * step) {
          const P p0 = *reinterpret_cast<const P *>(xs + static_cast<int64_t>(v) * V);
          const P p1 = *reinterpret_cast<const P *>(xs + static_cast<int64_t>(v + step) * V);
#pragma unroll
          for (int i = 0; i < V; ++i)
            element<M, C, IDX>(a, Storage<SX>::template load<C>(p0.v[i]), (static_cast<int64_t>(v) * V + i) * fstep,
                               acc, best);
#pragma unroll
          for (int i = 0; i < V; ++i)
            element<M, C, IDX>(a, Storage<SX>::template load<C>(p1.v[i]),
                               (static_cast<int64_t>(v + step) * V + i) * fstep, acc, best);
        }
        for (; v < v1; v += step) {
          const P p0 = *reinterpret_cast<const P *>(xs + static_cast<int64_t>(v) * V);
#pragma unroll
          for (int i = 0; i < V; ++i)
            element<M, C, IDX>(a, Storage<SX>::template load<C>(p0.v[i]), (static_cast<int64_t>(v) * V + i) * fstep,
                               acc, best);
        }
        done = true;
      }
    }
    if (!done) {
      uint32_t r = r0 + lane;
      // Four loads in flight per lane; folded in order, so the result is the
      // same as a plain loop's.
      for (; r + 3 * step < r1; r += 4 * step) {
        int64_t xo[4], fl[4];
        C v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) reduced_offsets(a, r + step * k, xo[k], fl[k]);
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = XLoad<SX>::template get<C>(xbase, a.x_dtype, xb + xo[k]);
#pragma unroll
        for (int k = 0; k < 4; ++k) element<M, C, IDX>(a, v[k], fl[k], acc, best);
      }
      for (; r < r1; r += step) {
        int64_t xo, fl;
        reduced_offsets(a, r, xo, fl);
        element<M, C, IDX>(a, XLoad<SX>::template get<C>(xbase, a.x_dtype, xb + xo), fl, acc, best);
      }
    }
  }
  group_merge<M, C, IDX>(acc, best, a.prop, a.group);
  if (active && lane == 0) emit<M, C, IDX>(a, o, s, acc, best);
}

constexpr int kColRows = 8;

// V > 1: each thread takes V neighbouring outputs and reads them with one
// 16-byte load per reduced position (f32/f16/bf16 with aligned rows).
template <class M, class C, class SX, bool IDX, int V>
__global__ void __launch_bounds__(32 * kColRows) reduce_cols_kernel(ReduceKernelArgs a) {
  __shared__ C sval[kColRows][32 * V + 1];
  __shared__ int64_t sidx[IDX ? kColRows : 1][IDX ? 32 * V + 1 : 1];
  uint32_t tile;
  const uint32_t ko = a.inner_tiles.divmod(blockIdx.x, tile);
  const uint32_t s = blockIdx.y;
  const uint32_t oi = (tile * 32 + threadIdx.x) * V;  // the first of this thread's outputs
  const bool valid = oi < a.inner_extent;             // inner_extent % V == 0
  const uint32_t o = ko * a.inner_extent + (valid ? oi : 0);
  uint32_t r0, r1;
  split_range(a, s, r0, r1);
  int64_t xb, yo, io;
  output_offsets(a, o, xb, yo, io);
  const char *xbase = static_cast<const char *>(a.x);
  C acc[V];
  int64_t best[V];
#pragma unroll
  for (int i = 0; i < V; ++i) {
    acc[i] = M::init(a.prop);
    best[i] = -1;
  }
  if (valid) {
    uint32_t r = r0 + threadIdx.y;
    if constexpr (V == 1) {
      for (; r + 3 * kColRows < r1; r += 4 * kColRows) {
        int64_t xo[4], fl[4];
        C v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) reduced_offsets(a, r + kColRows * k, xo[k], fl[k]);
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = XLoad<SX>::template get<C>(xbase, a.x_dtype, xb + xo[k]);
#pragma unroll
        for (int k = 0; k < 4; ++k) element<M, C, IDX>(a, v[k], fl[k], acc[0], best[0]);
      }
      for (; r < r1; r += kColRows) {
        int64_t xo, fl;
        reduced_offsets(a, r, xo, fl);
        element<M, C, IDX>(a, XLoad<SX>::template get<C>(xbase, a.x_dtype, xb + xo), fl, acc[0], best[0]);
      }
    } else {
      using P = Pack<SX, V>;
      const SX *xs = reinterpret_cast<const SX *>(xbase) + xb;
      for (; r + kColRows < r1; r += 2 * kColRows) {
        int64_t xo0, fl0, xo1, fl1;
        reduced_offsets(a, r, xo0, fl0);
        reduced_offsets(a, r + kColRows, xo1, fl1);
        const P p0 = *reinterpret_cast<const P *>(xs + xo0);
        const P p1 = *reinterpret_cast<const P *>(xs + xo1);
#pragma unroll
        for (int i = 0; i < V; ++i) element<M, C, IDX>(a, Storage<SX>::template load<C>(p0.v[i]), fl0, acc[i], best[i]);
#pragma unroll
        for (int i = 0; i < V; ++i) element<M, C, IDX>(a, Storage<SX>::template load<C>(p1.v[i]), fl1, acc[i], best[i]);
      }
      for (; r < r1; r += kColRows) {
        int64_t xo, fl;
        reduced_offsets(a, r, xo, fl);
        const P p0 = *reinterpret_cast<const P *>(xs + xo);
#pragma unroll
        for (int i = 0; i < V; ++i) element<M, C, IDX>(a, Storage<SX>::template load<C>(p0.v[i]), fl, acc[i], best[i]);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < V; ++i) {
    sval[threadIdx.y][threadIdx.x * V + i] = acc[i];
    if constexpr (IDX) sidx[threadIdx.y][threadIdx.x * V + i] = best[i];
  }
  __syncthreads();
  if (threadIdx.y == 0 && valid) {
#pragma unroll
    for (int i = 0; i < V; ++i) {
#pragma unroll
      for (int k = 1; k < kColRows; ++k) {
        int64_t vi = 0;
        if constexpr (IDX) vi = sidx[k][threadIdx.x * V + i];
        merge<M, C, IDX>(acc[i], best[i], sval[k][threadIdx.x * V + i], vi, a.prop);
      }
      emit<M, C, IDX>(a, o + i, s, acc[i], best[i]);
    }
  }
}

// One warp per output, or (final_block) one 256-thread block per output when
// there are many splits; partial results are merged in a fixed order.
template <class M, class C, bool IDX>
__global__ void __launch_bounds__(256) reduce_finalize_kernel(ReduceKernelArgs a) {
  __shared__ C sval[8];
  __shared__ int64_t sidx[8];
  const uint32_t threads = a.final_block ? 256 : 32;
  const uint32_t o = a.final_block ? blockIdx.x : (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const uint32_t t = a.final_block ? threadIdx.x : (threadIdx.x & 31);
  if (o >= a.M) return;  // whole warps (or blocks) leave: o is uniform in them
  const C *pv = static_cast<const C *>(a.part_value);
  C acc = M::init(a.prop);
  int64_t best = -1;
  uint32_t s = t;
  for (; s + 3 * threads < a.S; s += 4 * threads) {
    C v[4];
    int64_t vi[4] = {0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const size_t slot = static_cast<size_t>(s + k * threads) * a.M + o;
      v[k] = pv[slot];
      if constexpr (IDX) vi[k] = a.part_index[slot];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) merge<M, C, IDX>(acc, best, v[k], vi[k], a.prop);
  }
  for (; s < a.S; s += threads) {
    const size_t slot = static_cast<size_t>(s) * a.M + o;
    merge<M, C, IDX>(acc, best, pv[slot], IDX ? a.part_index[slot] : 0, a.prop);
  }
  group_merge<M, C, IDX>(acc, best, a.prop, 32);
  if (a.final_block) {
    const uint32_t warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
      sval[warp] = acc;
      sidx[warp] = best;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int w = 1; w < 8; ++w) merge<M, C, IDX>(acc, best, sval[w], sidx[w], a.prop);
  } else if (t != 0) {
    return;
  }
  store_output<M, C, IDX>(a, o, acc, best);
}

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(Mode{}, TypeTag<C>{}, TypeTag<SX>{}, std::bool_constant<IDX>{}) for
// the kernel instantiation that serves the run-time choices: compute in
// double (then x is read through the run-time type), or in float with x read
// as f32, f16 or bf16 directly, or any other type through the run-time type.
template <class F>
bool visit_reduction(cudnnReduceTensorOp_t mode, bool compute_double, int x_dtype, bool with_index, F &&f) {
  auto with_types = [&](auto c_tag, auto sx_tag) {
    using C = typename decltype(c_tag)::type;
    return red::visit_mode<C>(mode, [&](auto m) {
      using M = decltype(m);
      if constexpr (M::indexable) {
        if (with_index) {
          f(m, c_tag, sx_tag, std::true_type{});
          return;
        }
      }
      f(m, c_tag, sx_tag, std::false_type{});
    });
  };
  if (compute_double) return with_types(TypeTag<double>{}, TypeTag<DynamicType>{});
  switch (x_dtype) {
    case CUDNN_DATA_FLOAT: return with_types(TypeTag<float>{}, TypeTag<float>{});
    case CUDNN_DATA_HALF: return with_types(TypeTag<float>{}, TypeTag<half_bits>{});
    case CUDNN_DATA_BFLOAT16: return with_types(TypeTag<float>{}, TypeTag<bf16_bits>{});
    default: return with_types(TypeTag<float>{}, TypeTag<DynamicType>{});
  }
}

}  // namespace fdnn::cuda
