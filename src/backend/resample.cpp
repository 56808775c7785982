// CUDNN_BACKEND_RESAMPLE_DESCRIPTOR (mode, paddings, window, strides) and
// CUDNN_BACKEND_OPERATION_RESAMPLE_FWD/BWD_DESCRIPTOR (the nodes): a
// graph::ResampleOp. The resample descriptor's finalize rules are NVIDIA's
// cuDNN 9 ones, probed on the host (tests/oracle/backend_descriptors.c): every
// array that is set must have SPATIAL_DIMS (at most 6) elements; NEAREST and
// BILINEAR also need a positive window; the pooling modes accept a missing
// window or a zero one (FreeDNN's operation finalize refuses those, with
// NOT_SUPPORTED); an unknown mode is BAD_PARAM. Window, strides and paddings
// may be set as INT64 or FRACTION and are read back as either (stored as
// FRACTION); unset ones read back as 0/0 per spatial dimension.
// The operations' finalize rules, also NVIDIA's (probed on the host, cuDNN
// 9.19): y's (dy's) spatial extents must be floor((in + pre + post - window)
// / stride) + 1 in exact fractions, an upsampling stride must be positive,
// max pooling backward needs x or the index tensor, and the index tensor has
// y's (dy's) dimensions; all BAD_PARAM. The geometry FreeDNN does not run
// (fractional pooling) is NOT_SUPPORTED.
#include <algorithm>
#include <cstdint>
#include <string>

#include "backend/operation.hpp"
#include "core/error.hpp"
#include "graph/op_resample.hpp"

namespace fdnn::backend {

namespace {

constexpr cudnnBackendAttributeName_t kArrays[] = {CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_ATTR_RESAMPLE_STRIDES,
                                                   CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_ATTR_RESAMPLE_POST_PADDINGS};

// NVIDIA accepts long arrays on set (17 elements were) and refuses them at
// finalize; the bound on set here only keeps the storage small.
constexpr int64_t kMaxSetCount = 64;

class ResampleDescriptor : public Descriptor {
 public:
  ResampleDescriptor()
      : Descriptor(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR,
                   {
                       {CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE},
                       {CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_TYPE_DATA_TYPE},
                       {CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION},
                       {CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, CUDNN_TYPE_INT64},
                       {CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE},
                       {CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, 1, kMaxSetCount, true, CUDNN_TYPE_INT64},
                       {CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, 1, kMaxSetCount, true, CUDNN_TYPE_INT64},
                       {CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_FRACTION, 1, kMaxSetCount, true, CUDNN_TYPE_INT64},
                       {CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_FRACTION, 1, kMaxSetCount, true, CUDNN_TYPE_INT64},
                   }) {}
  // The op template: mode and geometry, tensors still unset.
  graph::ResampleOp op;
  // Why the op cannot be built from this descriptor (empty: it can).
  const std::string &geometry_error() const { return geometry_error_; }

 protected:
  void do_finalize() override {
    op = graph::ResampleOp{};
    op.mode = scalar<cudnnResampleMode_t>(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_RESAMPLE_NEAREST);
    switch (op.mode) {
      case CUDNN_RESAMPLE_NEAREST:
      case CUDNN_RESAMPLE_BILINEAR:
      case CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING:
      case CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING:
      case CUDNN_RESAMPLE_MAXPOOL: break;
      default: fail(CUDNN_STATUS_BAD_PARAM, "resample mode ", static_cast<int>(op.mode), " is not a cudnnResampleMode_t");
    }
    op.compute_type = scalar<cudnnDataType_t>(CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_DATA_FLOAT);
    op.nan_propagation = scalar<cudnnNanPropagation_t>(CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, CUDNN_NOT_PROPAGATE_NAN);
    op.padding_mode = scalar<cudnnPaddingMode_t>(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_ZERO_PAD);
    const int64_t n = scalar<int64_t>(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, 0);
    // Unset scalars read back as their defaults (NVIDIA's answer a count of 1).
    put(CUDNN_ATTR_RESAMPLE_MODE, AttrValue::of(CUDNN_TYPE_RESAMPLE_MODE, std::vector<int32_t>{op.mode}));
    put(CUDNN_ATTR_RESAMPLE_COMP_TYPE, AttrValue::of(CUDNN_TYPE_DATA_TYPE, std::vector<int32_t>{op.compute_type}));
    put(CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION,
        AttrValue::of(CUDNN_TYPE_NAN_PROPOGATION, std::vector<int32_t>{op.nan_propagation}));
    put(CUDNN_ATTR_RESAMPLE_PADDING_MODE, AttrValue::of(CUDNN_TYPE_PADDING_MODE, std::vector<int32_t>{op.padding_mode}));
    put(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, AttrValue::of(CUDNN_TYPE_INT64, std::vector<int64_t>{n}));
    // NVIDIA's rules: an array that is set has SPATIAL_DIMS elements, at most
    // CUDNN_DIM_MAX - 2; the upsampling modes need a positive window whenever
    // there are spatial dimensions. Pooling modes leave the rest to the
    // operation (checked there and by the engines).
    const bool upsampling = op.mode == CUDNN_RESAMPLE_NEAREST || op.mode == CUDNN_RESAMPLE_BILINEAR;
    const bool window_set = has(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS);
    std::vector<std::vector<cudnnFraction_t>> arrays;
    for (cudnnBackendAttributeName_t name : kArrays) {
      std::vector<cudnnFraction_t> f;
      if (!has(name)) {
        check_supported(!(name == CUDNN_ATTR_RESAMPLE_WINDOW_DIMS && upsampling && n > 0),
                        "resample mode ", static_cast<int>(op.mode), " needs WINDOW_DIMS");
        // Unset arrays read back as 0/0, one per spatial dimension.
        f.assign(static_cast<size_t>(std::max<int64_t>(n, 0)), cudnnFraction_t{0, 0});
        put(name, AttrValue::of(CUDNN_TYPE_FRACTION, f));
        arrays.push_back(std::move(f));
        continue;
      }
      if (value(name).type == CUDNN_TYPE_INT64) {
        for (int64_t v : array<int64_t>(name)) f.push_back(cudnnFraction_t{v, 1});
      } else {
        f = array<cudnnFraction_t>(name);
      }
      put(name, AttrValue::of(CUDNN_TYPE_FRACTION, f));  // read back as FRACTION (or INT64)
      check_supported(static_cast<int64_t>(f.size()) == n, "attribute ", static_cast<int>(name), " has ", f.size(),
                      " elements but SPATIAL_DIMS is ", n);
      check_supported(n <= CUDNN_DIM_MAX - 2, "SPATIAL_DIMS = ", n, ": at most ", CUDNN_DIM_MAX - 2, " are supported");
      if (upsampling && name == CUDNN_ATTR_RESAMPLE_WINDOW_DIMS)
        for (size_t i = 0; i < f.size(); ++i)
          check_supported(f[i].numerator > 0 && f[i].denominator > 0, "window dimension ", i, " = ", f[i].numerator,
                          "/", f[i].denominator, ": must be positive");
      arrays.push_back(std::move(f));
    }
    // The op's geometry: exact fractions (what the upsampling modes use) and
    // integers (what the pooling modes use); problems are reported by the
    // operation's finalize (NVIDIA accepts such descriptors for the pooling
    // modes).
    geometry_error_.clear();
    bad_geometry_.clear();
    if (n < 1) geometry_error_ = "the resample descriptor has no spatial dimensions (SPATIAL_DIMS < 1)";
    else if (!window_set) geometry_error_ = "the resample descriptor has no WINDOW_DIMS";
    bool fractional = false;
    // Unset entries (0/0) take `unset`; signs move to the numerator.
    const auto ratio = [&](const cudnnFraction_t &f, int64_t unset) {
      if (f.denominator == 0 && f.numerator == 0) return graph::ResampleOp::Ratio{unset, 1};
      if (f.denominator == 0) {
        geometry_error_ = "the resample descriptor has a fraction with denominator 0";
        return graph::ResampleOp::Ratio{0, 1};
      }
      return f.denominator < 0 ? graph::ResampleOp::Ratio{-f.numerator, -f.denominator}
                               : graph::ResampleOp::Ratio{f.numerator, f.denominator};
    };
    const auto integer = [&](const graph::ResampleOp::Ratio &r) {
      if (r.num % r.den != 0) {
        fractional = true;
        return int64_t{0};
      }
      return r.num / r.den;
    };
    if (geometry_error_.empty())
      for (int64_t i = 0; i < n; ++i) {
        op.window_ratio.push_back(ratio(arrays[0][i], 0));
        op.strides_ratio.push_back(ratio(arrays[1][i], 1));
        op.pre_padding_ratio.push_back(ratio(arrays[2][i], 0));
        op.post_padding_ratio.push_back(ratio(arrays[3][i], 0));
        op.window.push_back(integer(op.window_ratio.back()));
        op.strides.push_back(integer(op.strides_ratio.back()));
        op.pre_padding.push_back(integer(op.pre_padding_ratio.back()));
        op.post_padding.push_back(integer(op.post_padding_ratio.back()));
        // Bounds that keep the exact sample arithmetic of the upsampling
        // modes inside 64 bits.
        for (const auto *r : {&op.window_ratio.back(), &op.strides_ratio.back(), &op.pre_padding_ratio.back(),
                              &op.post_padding_ratio.back()})
          if (r->den > (int64_t{1} << 10) || r->num > (int64_t{1} << 30) || r->num < -(int64_t{1} << 30))
            geometry_error_ = "the resample descriptor has a fraction beyond FreeDNN's bounds (numerators up to "
                              "2^30 in magnitude, denominators up to 2^10)";
        if (upsampling && op.strides_ratio.back().num <= 0)
          bad_geometry_ = cat("stride ", i, " of an upsampling resample must be positive");
      }
    if (geometry_error_.empty() && fractional && !upsampling)
      geometry_error_ = "the resample descriptor has non-integral window, strides or paddings: FreeDNN supports "
                        "integer geometry only for the pooling modes";
  }
  void copy_state_from(const Descriptor &other) override {
    const auto &o = static_cast<const ResampleDescriptor &>(other);
    op = o.op;
    geometry_error_ = o.geometry_error_;
    bad_geometry_ = o.bad_geometry_;
  }

 public:
  // Why an operation refuses this descriptor with BAD_PARAM, as NVIDIA's
  // operation finalize does (empty: it does not).
  const std::string &bad_geometry() const { return bad_geometry_; }

 private:
  std::string geometry_error_, bad_geometry_;
};

int64_t gcd64(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// The output extent NVIDIA's operation finalize requires of spatial
// dimension d (probed on the host with cuDNN 9.19: pooling and upsampling
// alike): floor((in + pre + post - window) / stride) + 1, exactly in
// fractions. Returns -1 when the stride is not positive (left to the engines).
int64_t expected_output_extent(const graph::ResampleOp &op, int d, int64_t in) {
  const auto &w = op.window_ratio[d], &st = op.strides_ratio[d], &pre = op.pre_padding_ratio[d],
             &post = op.post_padding_ratio[d];
  if (st.num <= 0) return -1;
  int64_t l = w.den;
  for (int64_t den : {pre.den, post.den}) l = l / gcd64(l, den) * den;
  // (in + pre + post - window) = a / l, divided by num/den of the stride.
  const __int128 a = static_cast<__int128>(in) * l + static_cast<__int128>(pre.num) * (l / pre.den) +
                     static_cast<__int128>(post.num) * (l / post.den) - static_cast<__int128>(w.num) * (l / w.den);
  const __int128 num = a * st.den, den = static_cast<__int128>(l) * st.num;
  __int128 q = num / den;
  if (num % den != 0 && num < 0) --q;  // floor
  const __int128 r = q + 1;
  return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : static_cast<int64_t>(r);
}

struct ResampleAttrs {
  cudnnBackendDescriptorType_t type;
  bool backward;
  cudnnBackendAttributeName_t desc, alpha, beta, index;
  // Forward: x, y. Backward: dx, dy, and the optional x, y.
  cudnnBackendAttributeName_t in, out, x, y;
};

class ResampleOperation : public OperationDescriptor {
 public:
  explicit ResampleOperation(const ResampleAttrs &a)
      : OperationDescriptor(a.type, specs(a)), a_(a) {}

 protected:
  static std::vector<AttrSpec> specs(const ResampleAttrs &a) {
    std::vector<AttrSpec> s = {
        {a.desc, CUDNN_TYPE_BACKEND_DESCRIPTOR},
        {a.alpha, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
        {a.beta, CUDNN_TYPE_DOUBLE, 1, 1, true, CUDNN_TYPE_FLOAT},
        {a.index, CUDNN_TYPE_BACKEND_DESCRIPTOR},
        {a.in, CUDNN_TYPE_BACKEND_DESCRIPTOR},
        {a.out, CUDNN_TYPE_BACKEND_DESCRIPTOR},
    };
    if (a.backward) {
      s.push_back({a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR});
      s.push_back({a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR});
    }
    return s;
  }

  void do_finalize() override {
    tensors_.clear();
    require(a_.desc, "the resample descriptor (RESAMPLE_*_DESC)");
    const auto rd = finalized_descriptors(a_.desc, CUDNN_BACKEND_RESAMPLE_DESCRIPTOR, "the resample descriptor");
    const auto *r = static_cast<const ResampleDescriptor *>(rd.front());
    check_supported(r->geometry_error().empty(), r->geometry_error());
    check_arg(r->bad_geometry().empty(), r->bad_geometry());
    graph::ResampleOp op = r->op;
    op.backward = a_.backward;
    const char *in_name = a_.backward ? "DXDESC" : "XDESC";
    const char *out_name = a_.backward ? "DYDESC" : "YDESC";
    const graph::Uid in = use_tensor(a_.in, in_name, true);
    const graph::Uid out = use_tensor(a_.out, out_name, true);
    const graph::Tensor tin = tensors_[0], tout = tensors_[1];
    if (a_.backward) {
      op.dx = in, op.dy = out;
      op.x = use_tensor(a_.x, "XDESC", false);
      op.y = use_tensor(a_.y, "YDESC", false);
    } else {
      op.x = in, op.y = out;
    }
    op.index = use_tensor(a_.index, "IDXDESC", false);
    // The deprecated alpha/beta: cuDNN 9 ignores neither; they blend as in
    // the legacy API.
    op.blend.alpha = has(a_.alpha) ? as_double(value(a_.alpha)) : 1.0;
    op.blend.beta = has(a_.beta) ? as_double(value(a_.beta)) : 0.0;
    const int s = op.spatial_dims();
    check_arg(tin.rank() == tout.rank(), in_name, " has rank ", tin.rank(), " but ", out_name, " has rank ",
              tout.rank());
    check_arg(tin.rank() >= s + 2, "tensors of rank ", tin.rank(), " have no ", s, " spatial dimensions");
    for (int d = 0; d < tin.rank(); ++d)
      if (d < 2 || d >= 2 + s)
        check_arg(tin.dims[d] == tout.dims[d], "dimension ", d, " differs between ", in_name, " (", tin.dims[d],
                  ") and ", out_name, " (", tout.dims[d], ")");
    for (int d = 0; d < s; ++d) {
      const int64_t want = expected_output_extent(op, d, tin.dims[2 + d]);
      check_arg(want < 0 || tout.dims[2 + d] == want, "spatial dimension ", d, " of ", out_name, " is ",
                tout.dims[2 + d], " but the resample geometry makes it ", want,
                " (floor((in + pre + post - window) / stride) + 1)");
    }
    // Max pooling backward finds its maxima from x or reads them from the
    // index tensor: one of them is required (as NVIDIA's finalize).
    if (a_.backward && op.is_max())
      check_arg(op.x != graph::kNoTensor || op.index != graph::kNoTensor,
                "max pooling backward needs XDESC or IDXDESC");
    for (size_t k = 2; k < tensors_.size(); ++k) {
      const graph::Tensor &t = tensors_[k];
      const graph::Tensor &like = t.uid == op.x ? tin : tout;  // x matches dx; y and the index match dy / y
      check_arg(t.dims == like.dims, "tensor ", t.uid, " does not have the dimensions of ", t.uid == op.x ? in_name : out_name);
    }
    op_ = op;
  }

 private:
  ResampleAttrs a_;
};

struct ResampleForward : ResampleOperation {
  ResampleForward()
      : ResampleOperation({CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR, false,
                           CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_ALPHA,
                           CUDNN_ATTR_OPERATION_RESAMPLE_FWD_BETA, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC,
                           CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC,
                           CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC}) {}
};
struct ResampleBackward : ResampleOperation {
  ResampleBackward()
      : ResampleOperation({CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR, true,
                           CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_ALPHA,
                           CUDNN_ATTR_OPERATION_RESAMPLE_BWD_BETA, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC,
                           CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC,
                           CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC}) {}
};

}  // namespace

FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR, ResampleDescriptor)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR, ResampleForward)
FDNN_BACKEND_DESCRIPTOR(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR, ResampleBackward)

}  // namespace fdnn::backend
