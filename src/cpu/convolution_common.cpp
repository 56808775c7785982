#include "cpu/convolution_common.hpp"

#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"

namespace fdnn::cpu {

Conv3 to_conv3(const ConvGeometry &geo) {
  Conv3 p{};
  p.N = geo.N;
  p.C = geo.C;
  p.K = geo.K;
  p.G = geo.G;
  p.Cg = geo.Cg;
  p.Kg = geo.Kg;
  int64_t in[3] = {1, 1, 1}, f[3] = {1, 1, 1}, o[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, s[3] = {1, 1, 1},
          d[3] = {1, 1, 1};
  const int shift = 3 - geo.nsp;
  for (int i = 0; i < geo.nsp; ++i) {
    in[shift + i] = geo.in[i];
    f[shift + i] = geo.filt[i];
    o[shift + i] = geo.out[i];
    pad[shift + i] = geo.pad[i];
    s[shift + i] = geo.stride[i];
    d[shift + i] = geo.dil[i];
  }
  p.id = in[0], p.ih = in[1], p.iw = in[2];
  p.fd = f[0], p.fh = f[1], p.fw = f[2];
  p.od = o[0], p.oh = o[1], p.ow = o[2];
  p.pd = pad[0], p.ph = pad[1], p.pw = pad[2];
  p.sd = s[0], p.sh = s[1], p.sw = s[2];
  p.dd = d[0], p.dh = d[1], p.dw = d[2];
  return p;
}

size_t WorkspaceLayout::reserve(size_t bytes) {
  const size_t offset = (total_ + 63) / 64 * 64;
  total_ = offset + bytes;
  return offset;
}

int convolution_output_operand(graph::ConvDirection dir) {
  switch (dir) {
    case graph::ConvDirection::forward: return 2;
    case graph::ConvDirection::backward_data: return 0;
    case graph::ConvDirection::backward_filter: return 1;
  }
  return 2;
}

namespace {

// A tensor view with a base offset: the filter of CONVOLUTION mode is read
// through negated spatial strides starting at its last tap.
struct View {
  graph::Tensor t;
  int64_t base = 0;
};

View view_of(const graph::Tensor &t, bool flip_spatial) {
  View v{t, 0};
  if (flip_spatial)
    for (int d = 2; d < t.rank(); ++d) {
      v.base += (t.dims[d] - 1) * t.strides[d];
      v.t.strides[d] = -t.strides[d];
    }
  return v;
}

bool usable_in_place(const graph::Tensor &t, cudnnDataType_t want, bool flipped) {
  return !flipped && t.dtype == want && t.is_packed_row_major();
}

// Calls row(offset_of_row_start, row_index) for every row (all dims but the
// last) of v, split over the pool.
template <class F>
void for_rows(ThreadPool *pool, const View &v, F &&row) {
  const int r = v.t.rank();
  int64_t rows = 1;
  for (int d = 0; d + 1 < r; ++d) rows *= v.t.dims[d];
  const auto body = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t rem = i, off = v.base;
      for (int d = r - 2; d >= 0; --d) {
        off += (rem % v.t.dims[d]) * v.t.strides[d];
        rem /= v.t.dims[d];
      }
      row(off, i);
    }
  };
  if (pool != nullptr && rows * v.t.dims[r - 1] > (1 << 15)) pool->parallel_for(rows, body);
  else body(0, rows);
}

template <class T>
void gather(ThreadPool *pool, const View &v, const void *p, T *dst) {
  const int64_t len = v.t.dims.back(), step = v.t.strides.back();
  visit_fast_type(v.t.dtype, [&](auto st) {
    using S = decltype(st);
    using E = typename S::type;
    const E *src = static_cast<const E *>(p);
    for_rows(pool, v, [&](int64_t off, int64_t row) {
      T *out = dst + row * len;
      const E *in = src + off;
      for (int64_t i = 0; i < len; ++i) {
        if constexpr (std::is_same_v<T, double>) out[i] = S::to_double(in[i * step]);
        else out[i] = S::to_float(in[i * step]);
      }
    });
  });
}

template <class T>
void scatter_blend(ThreadPool *pool, const T *src, const View &v, void *p, T alpha, T beta) {
  const int64_t len = v.t.dims.back(), step = v.t.strides.back();
  visit_fast_type(v.t.dtype, [&](auto st) {
    using S = decltype(st);
    using E = typename S::type;
    E *dst = static_cast<E *>(p);
    for_rows(pool, v, [&](int64_t off, int64_t row) {
      const T *in = src + row * len;
      E *out = dst + off;
      for (int64_t i = 0; i < len; ++i) {
        T r = alpha * in[i];
        if constexpr (std::is_same_v<T, double>) {
          if (beta != 0) r += beta * S::to_double(out[i * step]);
          out[i * step] = S::from_double(r);
        } else {
          if (beta != 0) r += beta * S::to_float(out[i * step]);
          out[i * step] = S::from_float(r);
        }
      }
    });
  });
}

}  // namespace

template <class T>
ConvPlanBase<T>::ConvPlanBase(const Engine &engine, const graph::Graph &g)
    : ExecutionPlan(engine), geo_(convolution_geometry(g)), p_(to_conv3(geo_)) {
  const cudnnDataType_t want = std::is_same_v<T, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const graph::Tensor *t[3] = {&geo_.x, &geo_.w, &geo_.y};
  const int64_t count[3] = {p_.N * p_.C * p_.in_pixels(), p_.K * p_.Cg * p_.taps(), p_.N * p_.K * p_.out_pixels()};
  for (int i = 0; i < 3; ++i) {
    staged_[i] = !usable_in_place(*t[i], want, i == 1 && geo_.flip);
    if (staged_[i]) stage_offset_[i] = staging_.reserve(static_cast<size_t>(count[i]) * sizeof(T));
  }
}

template <class T>
void ConvPlanBase<T>::execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const {
  const auto &op = std::get<graph::ConvolutionOp>(g.ops().front());
  const graph::Uid uid[3] = {op.x, op.w, op.y};
  const graph::Tensor *t[3] = {&geo_.x, &geo_.w, &geo_.y};
  void *user[3];
  for (int i = 0; i < 3; ++i) {
    user[i] = pack.get(uid[i]);
    if (user[i] == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for convolution operand uid ", uid[i]);
  }
  if (workspace_size() > 0 && (pack.workspace == nullptr || pack.workspace_size < workspace_size()))
    fail(CUDNN_STATUS_BAD_PARAM, "the workspace holds ", pack.workspace_size, " bytes; ", engine().name(), " needs ",
         workspace_size());
  if (scratch_size() > 0 && (pack.scratch == nullptr || pack.scratch_size < scratch_size()))
    fail(CUDNN_STATUS_INTERNAL_ERROR, engine().name(), " was given no scratch memory for its staged operands");
  char *ws = static_cast<char *>(pack.workspace);
  char *stage = static_cast<char *>(pack.scratch);
  const int out = convolution_output_operand(geo_.direction);
  T *arr[3];
  for (int i = 0; i < 3; ++i) {
    if (!staged_[i]) {
      arr[i] = static_cast<T *>(user[i]);
      continue;
    }
    arr[i] = reinterpret_cast<T *>(stage + stage_offset_[i]);
    if (i != out) gather(ctx.pool, view_of(*t[i], i == 1 && geo_.flip), user[i], arr[i]);
  }
  const T alpha = static_cast<T>(op.blend.alpha), beta = static_cast<T>(op.blend.beta);
  ConvArrays<T> a{arr[0], arr[1], arr[2]};
  if (!staged_[out]) {
    run(ctx, a, alpha, beta, ws + algo_offset_);
    return;
  }
  run(ctx, a, T(1), T(0), ws + algo_offset_);
  scatter_blend(ctx.pool, arr[out], view_of(*t[out], out == 1 && geo_.flip), user[out], alpha, beta);
}

template class ConvPlanBase<float>;
template class ConvPlanBase<double>;

}  // namespace fdnn::cpu
