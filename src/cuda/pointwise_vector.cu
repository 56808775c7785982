// Fast element-wise kernel for the common case: x (and b) of the output's
// storage type, the output contiguous along the innermost (collapsed) dim and
// the inputs either contiguous or broadcast along it. Each thread moves 16
// bytes per operand with one vector access; the coordinates of the outer dims
// (at most 7, usually 0-2 after collapsing) come from FastDivmod once per
// vector. This is the path of cudnnAddTensor, cudnnOpTensor, cudnnScaleTensor
// and same-layout cudnnTransformTensor on f32/f16/bf16/f64.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cuda/compute_params.cuh"
#include "cuda/cuda_util.hpp"
#include "cuda/pointwise_paths.hpp"
#include "cuda/storage_types.cuh"

namespace fdnn::cuda {
namespace {

struct VectorArgs {
  uint32_t nvec = 0;          // vectors in the whole layout
  FastDivmod inner;           // vectors per innermost row
  int outer_rank = 0;         // dims 0..outer_rank-1 are the outer dims
  FastDivmod div[kMaxRank];   // extents of the outer dims
  int64_t stride[3][kMaxRank] = {};  // y, x, b strides of the outer dims
  bool x_inner = true, b_inner = true;  // contiguous (true) or broadcast along the inner dim
  void *y = nullptr;
  const void *x = nullptr, *b = nullptr;
  double alpha1 = 1, alpha2 = 1, blend_alpha = 1, blend_beta = 0;
  pw::Params<double> params;
};

// SX: storage of x and b; SY: storage of y (different only for IDENTITY,
// the type conversions of cudnnTransformTensor).
template <class OpT, class SX, class SY, class C, int VEC>
__global__ void __launch_bounds__(256) pointwise_vector_kernel(VectorArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.nvec) return;
  uint32_t inner_vec;
  uint32_t outer = a.inner.divmod(v, inner_vec);
  const int64_t inner_off = static_cast<int64_t>(inner_vec) * VEC;
  int64_t oy = inner_off, ox = a.x_inner ? inner_off : 0, ob = a.b_inner ? inner_off : 0;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d < a.outer_rank) {
      uint32_t c;
      outer = a.div[d].divmod(outer, c);
      oy += static_cast<int64_t>(c) * a.stride[0][d];
      ox += static_cast<int64_t>(c) * a.stride[1][d];
      ob += static_cast<int64_t>(c) * a.stride[2][d];
    }
  }
  using P = Pack<SX, VEC>;
  using PY = Pack<SY, VEC>;
  const SX *xs = static_cast<const SX *>(a.x);
  const SX *bs = static_cast<const SX *>(a.b);
  SY *ys = static_cast<SY *>(a.y);

  P xv, bv;
  PY yv;
  if (a.x_inner) {
    xv = *reinterpret_cast<const P *>(xs + ox);
  } else {
    const SX s = xs[ox];
#pragma unroll
    for (int i = 0; i < VEC; ++i) xv.v[i] = s;
  }
  if (OpT::arity >= 2) {
    if (a.b_inner) {
      bv = *reinterpret_cast<const P *>(bs + ob);
    } else {
      const SX s = bs[ob];
#pragma unroll
      for (int i = 0; i < VEC; ++i) bv.v[i] = s;
    }
  }
  const bool read_y = a.blend_beta != 0.0;
  if (read_y) yv = *reinterpret_cast<const PY *>(ys + oy);

  const pw::Params<C> p = to_compute<C>(a.params);
  const C alpha1 = static_cast<C>(a.alpha1), alpha2 = static_cast<C>(a.alpha2);
  const C ba = static_cast<C>(a.blend_alpha), bb = static_cast<C>(a.blend_beta);
  PY out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    const C xa = alpha1 * Storage<SX>::template load<C>(xv.v[i]);
    const C bb2 = OpT::arity >= 2 ? alpha2 * Storage<SX>::template load<C>(bv.v[i]) : C(0);
    C r = ba * OpT::template apply<C>(xa, bb2, C(0), p);
    if (read_y) r += bb * Storage<SY>::template load<C>(yv.v[i]);
    out.v[i] = Storage<SY>::store(r);
  }
  *reinterpret_cast<PY *>(ys + oy) = out;
}

// Constant fill (cudnnSetTensor): the value is rounded once on the host, as
// the CPU engine's fill does, and written as raw bits, 16 bytes per thread.
struct FillArgs {
  uint32_t nvec = 0;
  FastDivmod inner;
  int outer_rank = 0;
  FastDivmod div[kMaxRank];
  int64_t stride[kMaxRank] = {};
  void *y = nullptr;
  uint64_t bits = 0;
};

template <class E, int VEC>
__global__ void __launch_bounds__(256) fill_kernel(FillArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.nvec) return;
  uint32_t inner_vec;
  uint32_t outer = a.inner.divmod(v, inner_vec);
  int64_t oy = static_cast<int64_t>(inner_vec) * VEC;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d < a.outer_rank) {
      uint32_t c;
      outer = a.div[d].divmod(outer, c);
      oy += static_cast<int64_t>(c) * a.stride[d];
    }
  }
  Pack<E, VEC> out;
  const E value = static_cast<E>(a.bits);
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = value;
  *reinterpret_cast<Pack<E, VEC> *>(static_cast<E *>(a.y) + oy) = out;
}

// The storage bits of v in a byte-addressable type (the CPU's store_lane
// rounding); false for other types.
bool encode_element(int dtype, double v, uint64_t &bits, size_t &bytes) {
  auto put = [&](auto x) {
    bits = 0;
    std::memcpy(&bits, &x, sizeof x);
    bytes = sizeof x;
    return true;
  };
  switch (dtype) {
    case CUDNN_DATA_FLOAT: return put(static_cast<float>(v));
    case CUDNN_DATA_DOUBLE: return put(v);
    case CUDNN_DATA_HALF: return put(num::double_to_half(v));
    case CUDNN_DATA_BFLOAT16: return put(num::double_to_bf16(v));
    case CUDNN_DATA_INT8: return put(num::saturate_round<int8_t>(v));
    case CUDNN_DATA_UINT8: return put(num::saturate_round<uint8_t>(v));
    case CUDNN_DATA_INT32: return put(num::saturate_round<int32_t>(v));
    case CUDNN_DATA_UINT32: return put(num::saturate_round<uint32_t>(v));
    case CUDNN_DATA_INT64: return put(num::saturate_round<int64_t>(v));
    case CUDNN_DATA_FP8_E4M3: return put(num::double_to_e4m3(v));
    case CUDNN_DATA_FP8_E5M2: return put(num::double_to_e5m2(v));
    case CUDNN_DATA_FP8_E8M0: return put(num::double_to_e8m0(v));
    default: return false;
  }
}

template <class E>
void launch_fill(const FillArgs &a, cudaStream_t stream) {
  constexpr int VEC = static_cast<int>(16 / sizeof(E));
  const unsigned blocks = static_cast<unsigned>((static_cast<int64_t>(a.nvec) + 255) / 256);
  fill_kernel<E, VEC><<<blocks, 256, 0, stream>>>(a);
  check_launch("fill_kernel");
}

// Modes worth a specialised kernel: the legacy tensor operations and the
// activations. Others run on the generic kernel.
template <class F>
bool visit_fast_mode(cudnnPointwiseMode_t mode, F &&f) {
  switch (mode) {
#define FDNN_FAST(M) \
  case M: f(pw::Op<M>{}); return true;
    FDNN_FAST(CUDNN_POINTWISE_IDENTITY)
    FDNN_FAST(CUDNN_POINTWISE_ADD)
    FDNN_FAST(CUDNN_POINTWISE_SUB)
    FDNN_FAST(CUDNN_POINTWISE_MUL)
    FDNN_FAST(CUDNN_POINTWISE_DIV)
    FDNN_FAST(CUDNN_POINTWISE_MIN)
    FDNN_FAST(CUDNN_POINTWISE_MAX)
    FDNN_FAST(CUDNN_POINTWISE_SQRT)
    FDNN_FAST(CUDNN_POINTWISE_RELU_FWD)
    FDNN_FAST(CUDNN_POINTWISE_TANH_FWD)
    FDNN_FAST(CUDNN_POINTWISE_SIGMOID_FWD)
    FDNN_FAST(CUDNN_POINTWISE_ELU_FWD)
    FDNN_FAST(CUDNN_POINTWISE_GELU_FWD)
    FDNN_FAST(CUDNN_POINTWISE_SWISH_FWD)
    FDNN_FAST(CUDNN_POINTWISE_RELU_BWD)
    FDNN_FAST(CUDNN_POINTWISE_TANH_BWD)
    FDNN_FAST(CUDNN_POINTWISE_SIGMOID_BWD)
    FDNN_FAST(CUDNN_POINTWISE_ELU_BWD)
    FDNN_FAST(CUDNN_POINTWISE_SWISH_BWD)
#undef FDNN_FAST
    default: return false;
  }
}

template <class SX, class SY>
constexpr int vec_of() {
  return static_cast<int>(16 / (sizeof(SX) > sizeof(SY) ? sizeof(SX) : sizeof(SY)));
}

template <class SX, class SY, class C>
bool launch_typed(const PointwiseArgs &pa, const VectorArgs &a, cudaStream_t stream) {
  constexpr int VEC = vec_of<SX, SY>();
  const unsigned blocks = static_cast<unsigned>((static_cast<int64_t>(a.nvec) + 255) / 256);
  if constexpr (!std::is_same_v<SX, SY>) {
    // Conversions: identity only.
    if (pa.mode != CUDNN_POINTWISE_IDENTITY) return false;
    pointwise_vector_kernel<pw::Op<CUDNN_POINTWISE_IDENTITY>, SX, SY, C, VEC><<<blocks, 256, 0, stream>>>(a);
    check_launch("pointwise_vector_kernel");
    return true;
  } else {
    return visit_fast_mode(pa.mode, [&](auto op) {
      using OpT = decltype(op);
      if constexpr (OpT::arity >= 1 && OpT::arity <= 2) {
        pointwise_vector_kernel<OpT, SX, SY, C, VEC><<<blocks, 256, 0, stream>>>(a);
        check_launch("pointwise_vector_kernel");
      }
    });
  }
}

size_t storage_size(int dtype) {
  switch (dtype) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    default: return 0;
  }
}

// The instantiation for (x type, y type), or false.
bool dispatch(const PointwiseArgs &pa, const VectorArgs &a, cudaStream_t stream) {
  const int xt = pa.in[0].dtype, yt = pa.y_dtype;
  if (xt == yt) {
    switch (yt) {
      case CUDNN_DATA_FLOAT: return launch_typed<float, float, float>(pa, a, stream);
      case CUDNN_DATA_HALF: return launch_typed<half_bits, half_bits, float>(pa, a, stream);
      case CUDNN_DATA_BFLOAT16: return launch_typed<bf16_bits, bf16_bits, float>(pa, a, stream);
      case CUDNN_DATA_DOUBLE: return launch_typed<double, double, double>(pa, a, stream);
      default: return false;
    }
  }
  if (xt == CUDNN_DATA_FLOAT && yt == CUDNN_DATA_HALF) return launch_typed<float, half_bits, float>(pa, a, stream);
  if (xt == CUDNN_DATA_HALF && yt == CUDNN_DATA_FLOAT) return launch_typed<half_bits, float, float>(pa, a, stream);
  if (xt == CUDNN_DATA_FLOAT && yt == CUDNN_DATA_BFLOAT16) return launch_typed<float, bf16_bits, float>(pa, a, stream);
  if (xt == CUDNN_DATA_BFLOAT16 && yt == CUDNN_DATA_FLOAT) return launch_typed<bf16_bits, float, float>(pa, a, stream);
  return false;
}

}  // namespace

bool try_pointwise_vector(const PointwiseArgs &pa, cudaStream_t stream) {
  const int arity = pw::arity(pa.mode);
  if (arity < 1 || arity > 2) return false;
  const int xt = pa.in[0].dtype;
  const size_t ys = storage_size(pa.y_dtype), xs = storage_size(xt);
  if (ys == 0 || xs == 0) return false;
  if (xt != pa.y_dtype && pa.mode != CUDNN_POINTWISE_IDENTITY) return false;
  // Compute in double exactly for double tensors (as the CPU engine does).
  if (pa.compute_double != (pa.y_dtype == CUDNN_DATA_DOUBLE || xt == CUDNN_DATA_DOUBLE)) return false;
  for (int k = 0; k < arity; ++k) {
    const OperandArgs &in = pa.in[k];
    if (in.by_value || in.ptr == nullptr || in.dtype != xt) return false;
  }
  const int vec = static_cast<int>(16 / std::max(xs, ys));
  const StridedLayout &l = pa.layout;
  const int r = l.rank - 1;
  if (l.stride[0][r] != 1 || l.extent[r] % vec != 0) return false;
  // Operands: y, x and (binary modes) b.
  const int nops = 1 + arity;
  const void *ptr[3] = {pa.y, pa.in[0].ptr, pa.in[1].ptr};
  const int64_t base[3] = {pa.y_base, pa.in[0].base, pa.in[1].base};
  const size_t es[3] = {ys, xs, xs};
  for (int k = 0; k < nops; ++k) {
    if (l.stride[k][r] != 0 && l.stride[k][r] != 1) return false;
    // Operands read one element per vector (broadcast along the inner dim)
    // need no alignment; vector accesses need every vector start aligned.
    if (k > 0 && l.stride[k][r] == 0) continue;
    for (int d = 0; d < r; ++d)
      if (l.stride[k][d] % vec != 0) return false;
    if (base[k] % vec != 0 || !aligned_to(ptr[k], es[k] * vec)) return false;
  }
  const int64_t nvec = l.element_count() / vec;
  if (nvec == 0 || nvec > kMaxLaunchElements) return false;

  VectorArgs a;
  a.nvec = static_cast<uint32_t>(nvec);
  a.inner = FastDivmod(static_cast<uint32_t>(l.extent[r] / vec));
  a.outer_rank = r;
  for (int d = 0; d < r; ++d) {
    a.div[d] = FastDivmod(static_cast<uint32_t>(l.extent[d]));
    for (int k = 0; k < nops; ++k) a.stride[k][d] = l.stride[k][d];
  }
  a.x_inner = l.stride[1][r] == 1;
  a.b_inner = nops > 2 && l.stride[2][r] == 1;
  a.y = static_cast<char *>(pa.y) + pa.y_base * static_cast<int64_t>(ys);
  a.x = static_cast<const char *>(pa.in[0].ptr) + pa.in[0].base * static_cast<int64_t>(xs);
  if (arity >= 2) a.b = static_cast<const char *>(pa.in[1].ptr) + pa.in[1].base * static_cast<int64_t>(xs);
  a.alpha1 = pa.alpha1;
  a.alpha2 = pa.alpha2;
  a.blend_alpha = pa.blend_alpha;
  a.blend_beta = pa.blend_beta;
  a.params = pa.params;
  return dispatch(pa, a, stream);
}

bool try_pointwise_fill(const PointwiseArgs &pa, cudaStream_t stream) {
  if (pa.mode != CUDNN_POINTWISE_IDENTITY || !pa.in[0].by_value || pa.blend_beta != 0.0) return false;
  uint64_t bits = 0;
  size_t es = 0;
  if (!encode_element(pa.y_dtype, pa.blend_alpha * pa.alpha1 * pa.in[0].value, bits, es)) return false;
  const int vec = static_cast<int>(16 / es);
  const StridedLayout &l = pa.layout;
  const int r = l.rank - 1;
  if (l.stride[0][r] != 1 || l.extent[r] % vec != 0) return false;
  for (int d = 0; d < r; ++d)
    if (l.stride[0][d] % vec != 0) return false;
  if (pa.y_base % vec != 0 || !aligned_to(pa.y, 16)) return false;
  const int64_t nvec = l.element_count() / vec;
  if (nvec == 0 || nvec > kMaxLaunchElements) return false;
  FillArgs a;
  a.nvec = static_cast<uint32_t>(nvec);
  a.inner = FastDivmod(static_cast<uint32_t>(l.extent[r] / vec));
  a.outer_rank = r;
  for (int d = 0; d < r; ++d) {
    a.div[d] = FastDivmod(static_cast<uint32_t>(l.extent[d]));
    a.stride[d] = l.stride[0][d];
  }
  a.y = static_cast<char *>(pa.y) + pa.y_base * static_cast<int64_t>(es);
  a.bits = bits;
  switch (es) {
    case 1: launch_fill<uint8_t>(a, stream); return true;
    case 2: launch_fill<uint16_t>(a, stream); return true;
    case 4: launch_fill<uint32_t>(a, stream); return true;
    case 8: launch_fill<uint64_t>(a, stream); return true;
    default: return false;
  }
}

}  // namespace fdnn::cuda
