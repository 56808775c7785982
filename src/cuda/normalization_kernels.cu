// Kernels of cuda.normalization. Three launches per pass, all deterministic
// (fixed partition of every reduction, combined in a fixed order):
//   partial:  each block folds one part of the reduced range of one set
//             (rows: the innermost dim is reduced, threads walk it) or of 32
//             neighbouring sets (cols: the innermost dim is kept, threads of
//             a warp take neighbouring sets): Welford (count, mean, M2) for
//             the statistics, or sum(g) and sum(g * (x - mean)) for backward;
//   finalize: one thread per set combines the parts in order, writes the
//             saved / running statistics or the parameter gradients, and
//             turns everything into per-set coefficients;
//   apply:    the same walk as partial, writing y = act(a*x + b (+ z)) and
//             the mask, or dx = A*g + B*x + C and dz = g.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/normalization_support.hpp"
#include "cuda/cuda_util.hpp"
#include "cuda/normalization_args.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kBX = 32, kBY = 8;  // block shape

template <class C>
struct Ws {
  C *part, *mean, *inv, *ca, *cb, *cc;
};

template <class C>
Ws<C> carve(const NormArgs &a, void *base) {
  C *p = static_cast<C *>(base);
  const int64_t k = a.groups, parts = a.groups * a.splits * 3;
  return {p, p + parts, p + parts + k, p + parts + 2 * k, p + parts + 3 * k, p + parts + 4 * k};
}

__device__ inline int64_t kept_offset(const NormArgs &a, int op, uint32_t k) {
  int64_t off = 0;
  for (int d = a.kept_rank - 1; d >= 0; --d) {
    uint32_t rem;
    k = a.kept_div[d].divmod(k, rem);
    off += static_cast<int64_t>(rem) * a.kept_stride[op][d];
  }
  return off;
}

__device__ inline int64_t stat_offset(const NormArgs &a, int st, uint32_t k) {
  int64_t off = 0;
  for (int d = a.kept_rank - 1; d >= 0; --d) {
    uint32_t rem;
    k = a.kept_div[d].divmod(k, rem);
    off += static_cast<int64_t>(rem) * a.stat_stride[st][d];
  }
  return off;
}

// Offsets of reduced element r for the operands in `ops` (up to 4).
template <int N>
__device__ inline void red_offsets(const NormArgs &a, const int (&ops)[N], uint32_t r, int64_t (&off)[N]) {
  for (int j = 0; j < N; ++j) off[j] = 0;
  for (int d = a.red_rank - 1; d >= 0; --d) {
    uint32_t rem;
    r = a.red_div[d].divmod(r, rem);
    for (int j = 0; j < N; ++j) off[j] += static_cast<int64_t>(rem) * a.red_stride[ops[j]][d];
  }
}

template <class S, class C>
__device__ inline C ld(const void *p, int64_t o) {
  return Storage<S>::template load<C>(static_cast<const S *>(p)[o]);
}
template <class S, class C>
__device__ inline void st(void *p, int64_t o, C v) {
  static_cast<S *>(p)[o] = Storage<S>::store(v);
}
template <class C>
__device__ inline C ldp(const void *p, int64_t o) {  // statistics: the compute type
  return static_cast<const C *>(p)[o];
}

// The (set, reduced range, thread step) a thread walks.
struct Walk {
  uint32_t k;
  bool active;
  uint32_t r, end, step;
};

__device__ inline Walk walk(const NormArgs &a) {
  Walk w;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * a.chunk;
  const int64_t end = min(a.count, begin + a.chunk);
  if (a.cols) {
    const int64_t k = static_cast<int64_t>(blockIdx.x) * kBX + tx;
    w.k = static_cast<uint32_t>(k);
    w.active = k < a.groups;
    w.r = static_cast<uint32_t>(begin + ty);
    w.step = kBY;
  } else {
    w.k = blockIdx.x;
    w.active = true;
    w.r = static_cast<uint32_t>(begin + tx + kBX * ty);
    w.step = kBX * kBY;
  }
  w.end = static_cast<uint32_t>(end);
  return w;
}

template <class C>
struct Welford {  // no initializers: it lives in shared memory
  C n, m, m2;
  __device__ void add(C v) {
    n += C(1);
    const C d = v - m;
    m += d / n;
    m2 += d * (v - m);
  }
  __device__ void merge(const Welford &o) {
    if (o.n == C(0)) return;
    if (n == C(0)) {
      *this = o;
      return;
    }
    const C t = n + o.n, d = o.m - m;
    m += d * (o.n / t);
    m2 += o.m2 + d * d * (n * o.n / t);
    n = t;
  }
};

template <class S, class C>
__global__ void stats_partial(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  Welford<C> acc{C(0), C(0), C(0)};
  if (w.active) {
    const int64_t kb = kept_offset(a, kNX, w.k);
    const int ops[1] = {kNX};
    for (uint32_t r = w.r; r < w.end; r += w.step) {
      int64_t off[1];
      red_offsets(a, ops, r, off);
      acc.add(ld<S, C>(a.data[kNX], kb + off[0]));
    }
  }
  __shared__ Welford<C> sh[kBY][kBX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  sh[ty][tx] = acc;
  __syncthreads();
  if (ty == 0) {
    for (int j = 1; j < kBY; ++j) acc.merge(sh[j][tx]);
    if (!a.cols) {
      // Rows: one result per block; thread 0 merges the columns in order.
      sh[0][tx] = acc;
      __syncwarp();
      if (tx == 0)
        for (int j = 1; j < kBX; ++j) acc.merge(sh[0][j]);
    }
    if ((a.cols || tx == 0) && w.active) {
      C *p = ws.part + (static_cast<int64_t>(w.k) * a.splits + blockIdx.y) * 3;
      p[0] = acc.n;
      p[1] = acc.m;
      p[2] = acc.m2;
    }
  }
}

template <class S, class C>
__global__ void grad_partial(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  C sg = 0, sgx = 0;
  if (w.active) {
    const int64_t kx = kept_offset(a, kNX, w.k), kdy = kept_offset(a, kNDY, w.k);
    const int64_t km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
    const C mean = ws.mean[w.k];
    const int ops[3] = {kNX, kNDY, kNMask};
    for (uint32_t r = w.r; r < w.end; r += w.step) {
      int64_t off[3];
      red_offsets(a, ops, r, off);
      C g = ld<S, C>(a.data[kNDY], kdy + off[1]);
      if (a.has_mask && static_cast<const uint8_t *>(a.data[kNMask])[km + off[2]] == 0) g = C(0);
      sg += g;
      sgx += g * (ld<S, C>(a.data[kNX], kx + off[0]) - mean);
    }
  }
  __shared__ C sh[2][kBY][kBX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  sh[0][ty][tx] = sg;
  sh[1][ty][tx] = sgx;
  __syncthreads();
  if (ty == 0) {
    for (int j = 1; j < kBY; ++j) {
      sg += sh[0][j][tx];
      sgx += sh[1][j][tx];
    }
    if (!a.cols) {
      sh[0][0][tx] = sg;
      sh[1][0][tx] = sgx;
      __syncwarp();
      if (tx == 0)
        for (int j = 1; j < kBX; ++j) {
          sg += sh[0][0][j];
          sgx += sh[1][0][j];
        }
    }
    if ((a.cols || tx == 0) && w.active) {
      C *p = ws.part + (static_cast<int64_t>(w.k) * a.splits + blockIdx.y) * 3;
      p[0] = sg;
      p[1] = sgx;
    }
  }
}

template <class C>
__global__ void forward_finalize(NormArgs a, Ws<C> ws) {
  const int64_t k64 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k64 >= a.groups) return;
  const uint32_t k = static_cast<uint32_t>(k64);
  C mean, inv;
  if (a.stats_given) {
    mean = ldp<C>(a.stat[kSMean], stat_offset(a, kSMean, k));
    if (a.var_given) inv = C(1) / sqrt(ldp<C>(a.stat[kSVar], stat_offset(a, kSVar, k)) + C(a.epsilon));
    else inv = ldp<C>(a.stat[kSInv], stat_offset(a, kSInv, k));
  } else {
    Welford<C> acc{C(0), C(0), C(0)};
    const C *p = ws.part + k64 * a.splits * 3;
    for (int s = 0; s < a.splits; ++s) acc.merge(Welford<C>{p[3 * s], p[3 * s + 1], p[3 * s + 2]});
    mean = acc.m;
    const C var = acc.m2 / C(a.count);
    inv = C(1) / sqrt(var + C(a.epsilon));
    if (!a.backward) {
      if (a.stat[kSMean]) static_cast<C *>(a.stat[kSMean])[stat_offset(a, kSMean, k)] = mean;
      if (a.stat[kSInv]) static_cast<C *>(a.stat[kSInv])[stat_offset(a, kSInv, k)] = inv;
      const C f = C(a.factor);
      if (a.stat[kSRmIn]) {
        const C prior = ldp<C>(a.stat[kSRmIn], stat_offset(a, kSRmIn, k));
        static_cast<C *>(a.stat[kSRmOut])[stat_offset(a, kSRmOut, k)] = (C(1) - f) * prior + f * mean;
      }
      if (a.stat[kSRvIn]) {
        const C prior = ldp<C>(a.stat[kSRvIn], stat_offset(a, kSRvIn, k));
        static_cast<C *>(a.stat[kSRvOut])[stat_offset(a, kSRvOut, k)] = (C(1) - f) * prior + f * var * C(a.unbias);
      }
    }
  }
  ws.mean[k] = mean;
  ws.inv[k] = inv;
  if (!a.backward) {
    const C scale = ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k));
    const C bias = ldp<C>(a.stat[kSBias], stat_offset(a, kSBias, k));
    ws.ca[k] = scale * inv;
    ws.cb[k] = bias - mean * scale * inv;
  }
}

template <class C>
__global__ void grad_finalize(NormArgs a, Ws<C> ws) {
  const int64_t k64 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k64 >= a.groups) return;
  const uint32_t k = static_cast<uint32_t>(k64);
  C sg = 0, sgx = 0;
  const C *p = ws.part + k64 * a.splits * 3;
  for (int s = 0; s < a.splits; ++s) {
    sg += p[3 * s];
    sgx += p[3 * s + 1];
  }
  const C mean = ws.mean[k], inv = ws.inv[k], m = C(a.count);
  const C dscale = sgx * inv, dbias = sg;
  C *ds = static_cast<C *>(a.stat[kSDscale]) + stat_offset(a, kSDscale, k);
  C *db = static_cast<C *>(a.stat[kSDbias]) + stat_offset(a, kSDbias, k);
  const C ap = C(a.alpha_p), bp = C(a.beta_p);
  *ds = bp != C(0) ? ap * dscale + bp * *ds : ap * dscale;
  *db = bp != C(0) ? ap * dbias + bp * *db : ap * dbias;
  const C A = ldp<C>(a.stat[kSScale], stat_offset(a, kSScale, k)) * inv;
  const C B = -A * inv * dscale / m;
  ws.ca[k] = A;
  ws.cb[k] = B;
  ws.cc[k] = -A * dbias / m - B * mean;
}

template <class S, class C>
__global__ void forward_apply(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  if (!w.active) return;
  const int64_t kx = kept_offset(a, kNX, w.k), ky = kept_offset(a, kNY, w.k);
  const int64_t kz = a.has_z ? kept_offset(a, kNZ, w.k) : 0, km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
  const C ca = ws.ca[w.k], cb = ws.cb[w.k], alpha = C(a.alpha), beta = C(a.beta), clip = C(a.clip);
  const int ops[4] = {kNX, kNY, kNZ, kNMask};
  for (uint32_t r = w.r; r < w.end; r += w.step) {
    int64_t off[4];
    red_offsets(a, ops, r, off);
    C v = ca * ld<S, C>(a.data[kNX], kx + off[0]) + cb;
    if (a.has_z) v += ld<S, C>(a.data[kNZ], kz + off[2]);
    C out = alpha * norm::activate(v, a.relu, clip);
    if (beta != C(0)) out += beta * ld<S, C>(a.data[kNY], ky + off[1]);
    st<S, C>(a.data[kNY], ky + off[1], out);
    if (a.has_mask) static_cast<uint8_t *>(a.data[kNMask])[km + off[3]] = norm::passes(v, a.relu, clip) ? 1 : 0;
  }
}

template <class S, class C>
__global__ void backward_apply(NormArgs a, Ws<C> ws) {
  const Walk w = walk(a);
  if (!w.active) return;
  const int64_t kx = kept_offset(a, kNX, w.k), kdy = kept_offset(a, kNDY, w.k), kdx = kept_offset(a, kNDX, w.k);
  const int64_t kdz = a.has_dz ? kept_offset(a, kNDZ, w.k) : 0, km = a.has_mask ? kept_offset(a, kNMask, w.k) : 0;
  const C A = ws.ca[w.k], B = ws.cb[w.k], Cc = ws.cc[w.k], alpha = C(a.alpha), beta = C(a.beta);
  const int ops1[3] = {kNX, kNDY, kNDX};
  const int ops2[2] = {kNDZ, kNMask};
  for (uint32_t r = w.r; r < w.end; r += w.step) {
    int64_t off[3], off2[2];
    red_offsets(a, ops1, r, off);
    C g = ld<S, C>(a.data[kNDY], kdy + off[1]);
    if (a.has_mask) {
      red_offsets(a, ops2, r, off2);
      if (static_cast<const uint8_t *>(a.data[kNMask])[km + off2[1]] == 0) g = C(0);
    }
    C out = alpha * (A * g + B * ld<S, C>(a.data[kNX], kx + off[0]) + Cc);
    if (beta != C(0)) out += beta * ld<S, C>(a.data[kNDX], kdx + off[2]);
    st<S, C>(a.data[kNDX], kdx + off[2], out);
    if (a.has_dz) {
      if (!a.has_mask) red_offsets(a, ops2, r, off2);
      st<S, C>(a.data[kNDZ], kdz + off2[0], g);
    }
  }
}

template <class S, class C>
void run(const NormArgs &a, void *workspace, cudaStream_t s) {
  const Ws<C> ws = carve<C>(a, workspace);
  const dim3 block(kBX, kBY);
  const dim3 grid(static_cast<unsigned>(a.cols ? (a.groups + kBX - 1) / kBX : a.groups), static_cast<unsigned>(a.splits));
  const unsigned fin_blocks = static_cast<unsigned>((a.groups + 127) / 128);
  const bool need_stats = !a.stats_given;
  if (need_stats) {
    stats_partial<S, C><<<grid, block, 0, s>>>(a, ws);
    check_launch("normalization stats_partial");
  }
  forward_finalize<C><<<fin_blocks, 128, 0, s>>>(a, ws);
  check_launch("normalization forward_finalize");
  if (!a.backward) {
    forward_apply<S, C><<<grid, block, 0, s>>>(a, ws);
    check_launch("normalization forward_apply");
    return;
  }
  grad_partial<S, C><<<grid, block, 0, s>>>(a, ws);
  check_launch("normalization grad_partial");
  grad_finalize<C><<<fin_blocks, 128, 0, s>>>(a, ws);
  check_launch("normalization grad_finalize");
  backward_apply<S, C><<<grid, block, 0, s>>>(a, ws);
  check_launch("normalization backward_apply");
}

}  // namespace

size_t normalization_workspace_bytes(const NormArgs &a) {
  const size_t c = a.compute_double ? sizeof(double) : sizeof(float);
  return c * static_cast<size_t>(a.groups * a.splits * 3 + 5 * a.groups) + 256;
}

void launch_normalization(const NormArgs &a, void *workspace, void *stream) {
  cudaStream_t s = as_stream(stream);
  workspace = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(workspace) + 255) & ~uintptr_t{255});
  switch (a.data_type) {
    case CUDNN_DATA_FLOAT: run<float, float>(a, workspace, s); break;
    case CUDNN_DATA_DOUBLE: run<double, double>(a, workspace, s); break;
    case CUDNN_DATA_HALF: run<half_bits, float>(a, workspace, s); break;
    case CUDNN_DATA_BFLOAT16: run<bf16_bits, float>(a, workspace, s); break;
    default: fail(CUDNN_STATUS_NOT_SUPPORTED, "cuda.normalization: data type ", static_cast<int>(a.data_type));
  }
}

}  // namespace fdnn::cuda
