// Layout changes (cudnnTransformTensor NCHW <-> NHWC and any other
// permutation where x and y are contiguous along different dims) through
// shared-memory tiles: a block reads a square tile coalesced along x's
// contiguous dim, and writes it coalesced along y's contiguous dim. Type
// conversion, alpha and the beta blend happen on the way. Tiles are 32 wide
// for 4- and 8-byte types and 64 wide for 1- and 2-byte ones, so that each
// thread keeps enough bytes in flight.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cuda/cuda_util.hpp"
#include "cuda/pointwise_paths.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

constexpr int kRows = 8;  // block = 32 x kRows threads

struct TransposeArgs {
  uint32_t p_extent = 0, q_extent = 0;  // p: y's contiguous dim, q: x's contiguous dim
  int64_t x_stride_p = 0;               // x's stride along p (its stride along q is 1)
  int64_t y_stride_q = 0;               // y's stride along q (its stride along p is 1)
  FastDivmod tiles_p, tiles_q;  // tiles along p and q (set by launch_typed)
  uint32_t blocks = 0;
  int64_t batch_count = 1;
  int batch_rank = 0;  // the other dims, outermost first
  FastDivmod batch_div[kMaxRank];
  int64_t batch_stride_x[kMaxRank] = {}, batch_stride_y[kMaxRank] = {};
  const void *x = nullptr;
  void *y = nullptr;
  double alpha1 = 1, blend_alpha = 1, blend_beta = 0;
};

// This block's tile (tp along p, tq along q) and the element offsets of its
// batch in x and y, decoded from blockIdx.x.
__device__ __forceinline__ void locate_tile(const TransposeArgs &a, uint32_t &tp, uint32_t &tq, int64_t &bx,
                                            int64_t &by) {
  uint32_t rest = a.tiles_p.divmod(blockIdx.x, tp);
  uint32_t batch = a.tiles_q.divmod(rest, tq);
  bx = 0;
  by = 0;
#pragma unroll
  for (int d = kMaxRank - 1; d >= 0; --d) {
    if (d < a.batch_rank) {
      uint32_t c;
      batch = a.batch_div[d].divmod(batch, c);
      bx += static_cast<int64_t>(c) * a.batch_stride_x[d];
      by += static_cast<int64_t>(c) * a.batch_stride_y[d];
    }
  }
}

template <class SX, class SY, class C, int TILE>
__global__ void __launch_bounds__(32 * kRows) transpose_kernel(TransposeArgs a) {
  constexpr int kCols = TILE / 32;  // elements per thread along a tile row
  __shared__ C tile[TILE][TILE + 1];  // [p][q]; +1 keeps column reads free of bank conflicts
  uint32_t tp, tq;
  int64_t bx, by;
  locate_tile(a, tp, tq, bx, by);
  const uint32_t p0 = tp * TILE, q0 = tq * TILE;
  const SX *x = static_cast<const SX *>(a.x) + bx;
  SY *y = static_cast<SY *>(a.y) + by;
  const C alpha1 = static_cast<C>(a.alpha1);

  // Read: consecutive threads walk q, where x is contiguous.
#pragma unroll
  for (int i = threadIdx.y; i < TILE; i += kRows) {
    const uint32_t p = p0 + i;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const uint32_t q = q0 + threadIdx.x + 32 * j;
      if (p < a.p_extent && q < a.q_extent)
        tile[i][threadIdx.x + 32 * j] = alpha1 * Storage<SX>::template load<C>(x[q + p * a.x_stride_p]);
    }
  }
  __syncthreads();

  // Write: consecutive threads walk p, where y is contiguous.
  const C ba = static_cast<C>(a.blend_alpha), bb = static_cast<C>(a.blend_beta);
  const bool read_y = a.blend_beta != 0.0;
#pragma unroll
  for (int i = threadIdx.y; i < TILE; i += kRows) {
    const uint32_t q = q0 + i;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const uint32_t p = p0 + threadIdx.x + 32 * j;
      if (p < a.p_extent && q < a.q_extent) {
        const int64_t off = p + q * a.y_stride_q;
        C r = ba * tile[threadIdx.x + 32 * j][i];
        if (read_y) r += bb * Storage<SY>::template load<C>(y[off]);
        y[off] = Storage<SY>::store(r);
      }
    }
  }
}

// 2-byte types, 64x64 tiles, each thread moving pairs of neighbouring
// elements with 4-byte accesses (half the memory instructions of the scalar
// tile). Needs even extents along p and q, even strides and 4-byte aligned
// bases, so that no pair straddles a row end or a 4-byte boundary.
template <class S, class C>
__global__ void __launch_bounds__(32 * kRows) transpose_pairs_kernel(TransposeArgs a) {
  constexpr int TILE = 64;
  __shared__ C tile[TILE][TILE + 1];
  uint32_t tp, tq;
  int64_t bx, by;
  locate_tile(a, tp, tq, bx, by);
  const uint32_t p0 = tp * TILE, q0 = tq * TILE;
  const S *x = static_cast<const S *>(a.x) + bx;
  S *y = static_cast<S *>(a.y) + by;
  const C alpha1 = static_cast<C>(a.alpha1);
  const uint32_t c2 = 2 * threadIdx.x;

  const uint32_t q = q0 + c2;
#pragma unroll
  for (int i = threadIdx.y; i < TILE; i += kRows) {
    const uint32_t p = p0 + i;
    if (p < a.p_extent && q < a.q_extent) {
      const uint32_t w = *reinterpret_cast<const uint32_t *>(x + q + p * a.x_stride_p);
      tile[i][c2] = alpha1 * Storage<S>::template load<C>(S{static_cast<uint16_t>(w & 0xffffu)});
      tile[i][c2 + 1] = alpha1 * Storage<S>::template load<C>(S{static_cast<uint16_t>(w >> 16)});
    }
  }
  __syncthreads();

  const C ba = static_cast<C>(a.blend_alpha), bb = static_cast<C>(a.blend_beta);
  const bool read_y = a.blend_beta != 0.0;
  const uint32_t p = p0 + c2;
#pragma unroll
  for (int i = threadIdx.y; i < TILE; i += kRows) {
    const uint32_t qq = q0 + i;
    if (p < a.p_extent && qq < a.q_extent) {
      uint32_t *dst = reinterpret_cast<uint32_t *>(y + p + qq * a.y_stride_q);
      C r0 = ba * tile[c2][i], r1 = ba * tile[c2 + 1][i];
      if (read_y) {
        const uint32_t w = *dst;
        r0 += bb * Storage<S>::template load<C>(S{static_cast<uint16_t>(w & 0xffffu)});
        r1 += bb * Storage<S>::template load<C>(S{static_cast<uint16_t>(w >> 16)});
      }
      *dst = static_cast<uint32_t>(Storage<S>::store(r0).bits) | (static_cast<uint32_t>(Storage<S>::store(r1).bits) << 16);
    }
  }
}

// Which tile kernel: FREEDNN_CUDA_TRANSPOSE=pairs|64|32 forces one (for
// measurements); by default pairs where they fit, else the type's tile.
int transpose_variant() {
  static const int v = [] {
    const char *e = std::getenv("FREEDNN_CUDA_TRANSPOSE");
    if (e == nullptr) return 0;
    if (std::strcmp(e, "pairs") == 0) return 1;
    if (std::strcmp(e, "64") == 0) return 64;
    if (std::strcmp(e, "32") == 0) return 32;
    return 0;
  }();
  return v;
}

template <class SX, class SY>
constexpr int tile_of() {
  return sizeof(SX) <= 2 && sizeof(SY) <= 2 ? 64 : 32;
}

template <class SX, class SY, class C, int TILE>
void launch_tiles(TransposeArgs a, cudaStream_t stream) {
  const int64_t tp = (a.p_extent + TILE - 1) / TILE, tq = (a.q_extent + TILE - 1) / TILE;
  a.tiles_p = FastDivmod(static_cast<uint32_t>(tp));
  a.tiles_q = FastDivmod(static_cast<uint32_t>(tq));
  a.blocks = static_cast<uint32_t>(tp * tq * a.batch_count);
  transpose_kernel<SX, SY, C, TILE><<<a.blocks, dim3(32, kRows), 0, stream>>>(a);
  check_launch("transpose_kernel");
}

bool pairs_fit(const TransposeArgs &a) {
  bool ok = a.p_extent % 2 == 0 && a.q_extent % 2 == 0 && a.x_stride_p % 2 == 0 && a.y_stride_q % 2 == 0 &&
            aligned_to(a.x, 4) && aligned_to(a.y, 4);
  for (int d = 0; d < a.batch_rank && ok; ++d) ok = a.batch_stride_x[d] % 2 == 0 && a.batch_stride_y[d] % 2 == 0;
  return ok;
}

template <class SX, class SY, class C>
void launch_typed(TransposeArgs a, cudaStream_t stream) {
  const int variant = transpose_variant();
  if constexpr (std::is_same_v<SX, SY> && sizeof(SX) == 2) {
    if ((variant == 0 || variant == 1) && pairs_fit(a)) {
      const int64_t tp = (a.p_extent + 63) / 64, tq = (a.q_extent + 63) / 64;
      a.tiles_p = FastDivmod(static_cast<uint32_t>(tp));
      a.tiles_q = FastDivmod(static_cast<uint32_t>(tq));
      a.blocks = static_cast<uint32_t>(tp * tq * a.batch_count);
      transpose_pairs_kernel<SX, C><<<a.blocks, dim3(32, kRows), 0, stream>>>(a);
      check_launch("transpose_pairs_kernel");
      return;
    }
  }
  if (variant == 32) return launch_tiles<SX, SY, C, 32>(a, stream);
  if (variant == 64) return launch_tiles<SX, SY, C, 64>(a, stream);
  launch_tiles<SX, SY, C, tile_of<SX, SY>()>(a, stream);
}

size_t storage_size(int dtype) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8: return 1;
    default: return 0;
  }
}

// Calls the kernel for a supported (x type, y type) pair; false otherwise.
bool dispatch(int xt, int yt, bool compute_double, const TransposeArgs &a, cudaStream_t stream) {
  if (compute_double) {
    if (xt == CUDNN_DATA_DOUBLE && yt == CUDNN_DATA_DOUBLE) return launch_typed<double, double, double>(a, stream), true;
    return false;
  }
#define FDNN_PAIR(XT, YT, SX, SY)                   \
  if (xt == XT && yt == YT) {                      \
    launch_typed<SX, SY, float>(a, stream);        \
    return true;                                   \
  }
  FDNN_PAIR(CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, float, float)
  FDNN_PAIR(CUDNN_DATA_HALF, CUDNN_DATA_HALF, half_bits, half_bits)
  FDNN_PAIR(CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, bf16_bits, bf16_bits)
  FDNN_PAIR(CUDNN_DATA_INT8, CUDNN_DATA_INT8, int8_t, int8_t)
  FDNN_PAIR(CUDNN_DATA_UINT8, CUDNN_DATA_UINT8, uint8_t, uint8_t)
  FDNN_PAIR(CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, float, half_bits)
  FDNN_PAIR(CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, half_bits, float)
  FDNN_PAIR(CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, float, bf16_bits)
  FDNN_PAIR(CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, bf16_bits, float)
  FDNN_PAIR(CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, float, int8_t)
  FDNN_PAIR(CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, int8_t, float)
#undef FDNN_PAIR
  return false;
}

}  // namespace

bool try_pointwise_transpose(const PointwiseArgs &pa, cudaStream_t stream) {
  if (pa.mode != CUDNN_POINTWISE_IDENTITY) return false;
  const OperandArgs &x = pa.in[0];
  if (x.by_value || x.ptr == nullptr) return false;
  if (storage_size(x.dtype) == 0 || storage_size(pa.y_dtype) == 0) return false;
  const StridedLayout &l = pa.layout;
  const int pd = l.rank - 1;  // the layout is sorted by y's strides: y is contiguous here
  if (pd < 1 || l.stride[0][pd] != 1 || l.stride[1][pd] == 1) return false;
  int qd = -1;
  for (int d = 0; d < pd; ++d)
    if (l.stride[1][d] == 1) qd = d;
  if (qd < 0) return false;
  // Narrow planes waste most of each tile; the generic kernel does better.
  if (l.extent[pd] < 16 || l.extent[qd] < 16) return false;
  if (l.extent[pd] > kMaxLaunchElements || l.extent[qd] > kMaxLaunchElements) return false;

  TransposeArgs a;
  a.p_extent = static_cast<uint32_t>(l.extent[pd]);
  a.q_extent = static_cast<uint32_t>(l.extent[qd]);
  a.x_stride_p = l.stride[1][pd];
  a.y_stride_q = l.stride[0][qd];
  // Blocks with the smallest tile (32): the grid must fit 32-bit indices.
  int64_t blocks = ((l.extent[pd] + 31) / 32) * ((l.extent[qd] + 31) / 32);
  for (int d = 0; d < l.rank; ++d) {
    if (d == pd || d == qd) continue;
    const int b = a.batch_rank++;
    a.batch_div[b] = FastDivmod(static_cast<uint32_t>(l.extent[d]));
    a.batch_stride_x[b] = l.stride[1][d];
    a.batch_stride_y[b] = l.stride[0][d];
    a.batch_count *= l.extent[d];
    blocks *= l.extent[d];
    if (blocks > kMaxLaunchElements) return false;
  }
  a.x = static_cast<const char *>(x.ptr) + x.base * static_cast<int64_t>(storage_size(x.dtype));
  a.y = static_cast<char *>(pa.y) + pa.y_base * static_cast<int64_t>(storage_size(pa.y_dtype));
  a.alpha1 = pa.alpha1;
  a.blend_alpha = pa.blend_alpha;
  a.blend_beta = pa.blend_beta;
  return dispatch(x.dtype, pa.y_dtype, pa.compute_double, a, stream);
}

}  // namespace fdnn::cuda
