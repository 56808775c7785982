#include "api/fused_ops_graph.hpp"

#include <algorithm>

#include "api/convolution_common.hpp"
#include "api/normalization_common.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "graph/bn_finalize.hpp"

namespace fdnn::api {

namespace {

using fused::FusedGraph;
using L = cudnnFusedOpsConstParamLabel_t;

// A virtual tensor of t's dims, packed row-major.
graph::Tensor packed_like(const graph::Tensor &t, cudnnDataType_t dtype) {
  graph::Tensor r;
  r.dtype = dtype;
  r.dims = t.dims;
  r.strides.assign(t.dims.size(), 1);
  for (int d = r.rank() - 2; d >= 0; --d) r.strides[d] = r.strides[d + 1] * r.dims[d + 1];
  r.is_virtual = true;
  return r;
}

// A virtual tensor of t's dims, packed in the order of t's strides (NHWC
// data gets NHWC intermediates), so that the element-wise steps between
// them walk both in the same order.
graph::Tensor dense_like(const graph::Tensor &t, cudnnDataType_t dtype) {
  graph::Tensor r = packed_like(t, dtype);
  std::vector<int> order(t.dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  // Innermost (smallest stride) first; ties keep the row-major order.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return t.strides[a] < t.strides[b] || (t.strides[a] == t.strides[b] && a > b);
  });
  int64_t st = 1;
  for (int d : order) {
    r.strides[d] = st;
    st *= t.dims[d];
  }
  return r;
}

class Builder {
 public:
  explicit Builder(const cudnnFusedOpsConstParamStruct &p) : p_(p) {}

  // The placeholder of a label: 0 (NULL), 1 or 2; BAD_PARAM otherwise.
  int placeholder(L label) const {
    const int v = p_.values[label];
    check_arg(v >= CUDNN_PTR_NULL && v <= CUDNN_PTR_16B_ALIGNED, fused::const_label_name(label), " = ", v,
              ": not a cudnnFusedOpsPointerPlaceHolder_t value");
    return v;
  }
  bool on(L label) const { return placeholder(label) != CUDNN_PTR_NULL; }

  // The descriptor of a label, which must have been set (and Set itself).
  const cudnnTensorStruct &tensor(L label) const {
    const cudnnTensorStruct *t = p_.tensor(label);
    check_arg(t != nullptr, fused::const_label_name(label), " is NULL but ", fused::fused_ops_name(p_.ops),
              " needs it here");
    return checked_tensor(t, fused::const_label_name(label));
  }

  // Per-channel (or per-activation) parameter descriptor: rank of x, dims 1
  // where x's are reduced.
  void check_param(const cudnnTensorStruct &x, L label, bool per_activation) const {
    const cudnnTensorStruct &t = tensor(label);
    check_arg(t.nb_dims == x.nb_dims, fused::const_label_name(label), " has ", t.nb_dims, " dimensions, the data has ",
              x.nb_dims);
    for (int d = 0; d < t.nb_dims; ++d) {
      const int want = d == 0 ? 1 : (d == 1 || per_activation) ? x.dims[d] : 1;
      check_arg(t.dims[d] == want, fused::const_label_name(label), " dimension ", d, " is ", t.dims[d], "; expected ",
                want, per_activation ? " (1 x C x H x W for CUDNN_BATCHNORM_PER_ACTIVATION)"
                                     : " (1 x C x 1 x 1 for the spatial batch-norm modes)");
    }
  }

  // BN_MODE: returns whether it is PER_ACTIVATION. The seed's fused ops
  // take only the per-channel modes (SPATIAL, SPATIAL_PERSISTENT); the
  // pack's default, PER_ACTIVATION, is refused like any other mode.
  bool bn_per_activation() const {
    const int m = p_.values[CUDNN_PARAM_BN_MODE];
    check_arg(m >= CUDNN_BATCHNORM_PER_ACTIVATION && m <= CUDNN_BATCHNORM_SPATIAL_PERSISTENT, "CUDNN_PARAM_BN_MODE = ",
              m, ": not a cudnnBatchNormMode_t value");
    check_supported(m != CUDNN_BATCHNORM_PER_ACTIVATION,
                    "CUDNN_PARAM_BN_MODE is CUDNN_BATCHNORM_PER_ACTIVATION (the pack's default): the fused ops take "
                    "CUDNN_BATCHNORM_SPATIAL or CUDNN_BATCHNORM_SPATIAL_PERSISTENT");
    return false;
  }

  // RELU applies; IDENTITY or no descriptor: none; other modes NOT_SUPPORTED.
  bool relu() const {
    if (!p_.activation) return false;
    const cudnnActivationMode_t m = p_.activation->mode;
    check_supported(m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_IDENTITY, "CUDNN_PARAM_ACTIVATION_DESC mode ",
                    static_cast<int>(m), ": the fused ops apply CUDNN_ACTIVATION_RELU or CUDNN_ACTIVATION_IDENTITY");
    return m == CUDNN_ACTIVATION_RELU;
  }

  // Descriptor `label` (t) must have the dimensions of `like_label` (like).
  void check_same_dims(L label, const cudnnTensorStruct &t, L like_label, const cudnnTensorStruct &like) const {
    const char *name = fused::const_label_name(label), *like_name = fused::const_label_name(like_label);
    check_arg(t.nb_dims == like.nb_dims, name, " has ", t.nb_dims, " dimensions, ", like_name, " has ",
              like.nb_dims);
    for (int d = 0; d < t.nb_dims; ++d)
      check_arg(t.dims[d] == like.dims[d], name, " dimension ", d, " is ", t.dims[d], "; ", like_name, " has ",
                like.dims[d]);
  }

  // The optional residual z (ZDESC, shaped like `like`) and its equivalent
  // scale and bias (BN_Z_EQSCALEBIAS_DESC); kNoTensor for what is off.
  struct Residual {
    graph::Uid z = graph::kNoTensor, scale = graph::kNoTensor, bias = graph::kNoTensor;
  };
  Residual bind_residual(L like_label, const cudnnTensorStruct &like, bool per_activation) {
    Residual r;
    if (on(CUDNN_PARAM_ZDATA_PLACEHOLDER) && p_.tensor(CUDNN_PARAM_ZDESC) != nullptr) {
      const cudnnTensorStruct &zd = tensor(CUDNN_PARAM_ZDESC);
      check_same_dims(CUDNN_PARAM_ZDESC, zd, like_label, like);
      r.z = bind(zd, CUDNN_PTR_ZDATA, CUDNN_PARAM_ZDATA_PLACEHOLDER);
    }
    const bool zs_on = on(CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER) && r.z != graph::kNoTensor;
    const bool zb_on = on(CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER);
    if (zs_on || zb_on) {
      check_param(like, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, per_activation);
      const cudnnTensorStruct &zsb = tensor(CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC);
      if (zs_on) r.scale = bind(zsb, CUDNN_PTR_BN_Z_EQSCALE, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER);
      if (zb_on) r.bias = bind(zsb, CUDNN_PTR_BN_Z_EQBIAS, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER);
    }
    return r;
  }

  // Adds the user tensor of a descriptor, bound to a variant-pack label.
  graph::Uid bind(const cudnnTensorStruct &d, int ptr_label, L placeholder_label) {
    graph::Uid u = fg.g.add_tensor_auto(to_graph_tensor(d));
    bind_uid(u, ptr_label, placeholder_label, d.dtype);
    return u;
  }
  void bind_uid(graph::Uid u, int ptr_label, L placeholder_label, cudnnDataType_t t) {
    fg.bindings.emplace_back(ptr_label, u);
    fg.placeholders.emplace_back(ptr_label, placeholder(placeholder_label));
    fg.element_bytes.emplace_back(ptr_label, static_cast<int>(lanes_to_bytes(t, 1)));
  }
  graph::Uid scalar(int rank, double value = 0.0) {
    graph::Tensor t;
    t.dtype = CUDNN_DATA_FLOAT;
    t.dims.assign(rank, 1);
    t.strides.assign(rank, 1);
    t.by_value = true;
    t.value = value;
    return fg.g.add_tensor_auto(t);
  }
  graph::Uid virtual_like(graph::Uid like, cudnnDataType_t t) {
    return fg.g.add_tensor_auto(dense_like(fg.g.tensor(like), t));
  }
  graph::Uid pointwise(cudnnPointwiseMode_t mode, graph::Uid x, graph::Uid b, graph::Uid y,
                       cudnnDataType_t compute = CUDNN_DATA_FLOAT, double alpha2 = 1.0) {
    graph::PointwiseOp op;
    op.mode = mode;
    op.compute_type = compute;
    op.alpha2 = alpha2;
    op.nan_propagation = CUDNN_NOT_PROPAGATE_NAN;
    op.x = x;
    op.b = b;
    op.y = y;
    fg.g.add_op(op);
    return y;
  }

  // y = act(x * scale + bias + z * z_scale + z_bias) with the given terms
  // (kNoTensor: absent), intermediates in float; writes `out` (a new
  // virtual tensor in `out_type` when out is kNoTensor). Returns the output,
  // or x itself when there is nothing to do and out is kNoTensor.
  graph::Uid affine_chain(graph::Uid x, graph::Uid scale, graph::Uid bias, graph::Uid z, graph::Uid z_scale,
                          graph::Uid z_bias, bool relu, graph::Uid out, cudnnDataType_t out_type) {
    struct Step {
      cudnnPointwiseMode_t mode;
      graph::Uid b;
    };
    std::vector<Step> steps;
    graph::Uid zt = z;
    if (z != graph::kNoTensor && z_scale != graph::kNoTensor)
      zt = pointwise(CUDNN_POINTWISE_MUL, z, z_scale, virtual_like(z, CUDNN_DATA_FLOAT));
    if (scale != graph::kNoTensor) steps.push_back({CUDNN_POINTWISE_MUL, scale});
    if (bias != graph::kNoTensor) steps.push_back({CUDNN_POINTWISE_ADD, bias});
    if (zt != graph::kNoTensor) steps.push_back({CUDNN_POINTWISE_ADD, zt});
    if (z_bias != graph::kNoTensor) steps.push_back({CUDNN_POINTWISE_ADD, z_bias});
    if (relu) steps.push_back({CUDNN_POINTWISE_RELU_FWD, graph::kNoTensor});
    if (steps.empty()) {
      if (out == graph::kNoTensor) return x;
      steps.push_back({CUDNN_POINTWISE_IDENTITY, graph::kNoTensor});
    }
    graph::Uid cur = x;
    for (size_t i = 0; i < steps.size(); ++i) {
      const bool last = i + 1 == steps.size();
      graph::Uid y = last ? (out != graph::kNoTensor ? out : virtual_like(x, out_type)) : virtual_like(x, CUDNN_DATA_FLOAT);
      cur = pointwise(steps[i].mode, cur, steps[i].b, y);
    }
    return cur;
  }

  // Sum and sum of squares of y per channel into YSUM / YSQSUM (each when
  // its placeholder is set and YSTATS_DESC is given).
  void y_stats(graph::Uid y, const cudnnTensorStruct &yd, bool per_activation) {
    const bool sum_on = on(CUDNN_PARAM_YSUM_PLACEHOLDER), sq_on = on(CUDNN_PARAM_YSQSUM_PLACEHOLDER);
    if (!sum_on && !sq_on) return;
    if (p_.tensor(CUDNN_PARAM_YSTATS_DESC) == nullptr) return;  // the seed: NULL makes the statistics a NOP
    check_param(yd, CUDNN_PARAM_YSTATS_DESC, per_activation);
    const cudnnTensorStruct &sd = tensor(CUDNN_PARAM_YSTATS_DESC);
    check_supported(sd.dtype == CUDNN_DATA_FLOAT || sd.dtype == CUDNN_DATA_DOUBLE,
                    "CUDNN_PARAM_YSTATS_DESC: the statistics are FLOAT (or DOUBLE)");
    auto reduce = [&](graph::Uid in, graph::Uid out) {
      graph::ReductionOp r;
      r.mode = CUDNN_REDUCE_TENSOR_ADD;
      r.compute_type = CUDNN_DATA_FLOAT;
      r.x = in;
      r.y = out;
      fg.g.add_op(r);
    };
    if (sum_on) reduce(y, bind(sd, CUDNN_PTR_YSUM, CUDNN_PARAM_YSUM_PLACEHOLDER));
    if (sq_on) {
      const graph::Uid sq = pointwise(CUDNN_POINTWISE_MUL, y, y, virtual_like(y, CUDNN_DATA_FLOAT));
      reduce(sq, bind(sd, CUDNN_PTR_YSQSUM, CUDNN_PARAM_YSQSUM_PLACEHOLDER));
    }
  }

  // The scale / bias prologue of kinds 0 and 1 on x (already in the graph).
  graph::Uid scale_bias_relu_prologue(graph::Uid x, const cudnnTensorStruct &xd, bool per_activation) {
    graph::Uid scale = graph::kNoTensor, bias = graph::kNoTensor;
    const bool scale_on = on(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER), bias_on = on(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
    if ((scale_on || bias_on) && p_.tensor(CUDNN_PARAM_BN_EQSCALEBIAS_DESC) != nullptr) {
      check_param(xd, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, per_activation);
      const cudnnTensorStruct &sb = tensor(CUDNN_PARAM_BN_EQSCALEBIAS_DESC);
      if (scale_on) scale = bind(sb, CUDNN_PTR_BN_EQSCALE, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
      if (bias_on) bias = bind(sb, CUDNN_PTR_BN_EQBIAS, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
    }
    return affine_chain(x, scale, bias, graph::kNoTensor, graph::kNoTensor, graph::kNoTensor, relu(), graph::kNoTensor,
                        xd.dtype);
  }

  // ---- The activation bit mask ---------------------------------------------
  // Layout (cuDNN 9's descriptor rule, probed on an H100: the mask
  // descriptor's dimension 1 must be ((C + 63) & ~63) / 32): per pixel
  // (n, spatial... in row-major order) W = ((C + 63) & ~63) / 32 INT32
  // words; channel c is bit c % 32 (LSB first) of the pixel's word c / 32.
  // Words past C / 32 (the padding to a multiple of 64 channels) are not
  // written. FreeDNN needs C to be a multiple of 32. Packing and unpacking
  // are pointwise ops and a reduction on [N, spatial..., C/32, 32] views of
  // the caller's data (any strides) and of the mask: the ops reading such a
  // view come after the op writing it in the graph's op order, which the
  // op-by-op engine keeps for ops that are ready.

  struct MaskShape {
    std::vector<int64_t> pixel_dims;  // N, spatial...
    int64_t groups = 0;               // C / 32
    int64_t words_per_pixel = 0;      // ((C + 63) & ~63) / 32
    // dims of the [N, spatial..., C/32, 32] views and of the [.., C/32, 1] sums
    std::vector<int64_t> bit_dims() const {
      std::vector<int64_t> d = pixel_dims;
      d.push_back(groups);
      d.push_back(32);
      return d;
    }
    std::vector<int64_t> word_dims() const {
      std::vector<int64_t> d = bit_dims();
      d.back() = 1;
      return d;
    }
  };

  MaskShape mask_shape(const cudnnTensorStruct &d, const char *name) const {
    MaskShape m;
    const int64_t C = d.dims[1];
    check_supported(C % 32 == 0, name, " has ", C,
                    " channels; FreeDNN's activation bit mask needs a multiple of 32 (whole 32-bit words per pixel)");
    m.pixel_dims.push_back(d.dims[0]);
    for (int i = 2; i < d.nb_dims; ++i) m.pixel_dims.push_back(d.dims[i]);
    m.groups = C / 32;
    m.words_per_pixel = ((C + 63) & ~int64_t{63}) / 32;
    return m;
  }

  // A [N, spatial..., C/32, 32] view of a data tensor, bound to `ptr_label`.
  graph::Uid bit_view(const cudnnTensorStruct &d, const MaskShape &m, int ptr_label, L placeholder_label) {
    std::vector<int64_t> strides = {d.strides[0]};
    for (int i = 2; i < d.nb_dims; ++i) strides.push_back(d.strides[i]);
    strides.push_back(32 * static_cast<int64_t>(d.strides[1]));
    strides.push_back(d.strides[1]);
    const graph::Uid u = fg.g.add_tensor_auto(view(d.dtype, m.bit_dims(), strides));
    bind_uid(u, ptr_label, placeholder_label, d.dtype);
    return u;
  }

  // The mask as a [N, spatial..., C/32, 1] INT32 view bound to
  // CUDNN_PTR_ACTIVATION_BITMASK.
  graph::Uid mask_view(const MaskShape &m) {
    const cudnnTensorStruct &md = tensor(CUDNN_PARAM_ACTIVATION_BITMASK_DESC);
    check_supported(md.dtype == CUDNN_DATA_INT32, "CUDNN_PARAM_ACTIVATION_BITMASK_DESC is ",
                    type_info(md.dtype).enum_name, "; the bit mask is INT32");
    check_arg(md.nb_dims >= 2 && md.dims[1] == m.words_per_pixel, "CUDNN_PARAM_ACTIVATION_BITMASK_DESC dimension 1 is ",
              md.nb_dims >= 2 ? md.dims[1] : 0, "; expected ((C + 63) & ~63) / 32 = ", m.words_per_pixel,
              " INT32 words per pixel");
    int64_t count = 1, pixels = 1;
    for (int i = 0; i < md.nb_dims; ++i) count *= md.dims[i];
    for (int64_t e : m.pixel_dims) pixels *= e;
    check_arg(count >= pixels * m.words_per_pixel, "CUDNN_PARAM_ACTIVATION_BITMASK_DESC has ", count,
              " elements; the mask needs ", pixels * m.words_per_pixel, " (", pixels, " pixels x ", m.words_per_pixel,
              " words)");
    std::vector<int64_t> dims = m.word_dims(), strides(dims.size(), 1);
    int64_t st = m.words_per_pixel;
    for (int i = static_cast<int>(m.pixel_dims.size()) - 1; i >= 0; --i) {
      strides[i] = st;
      st *= m.pixel_dims[i];
    }
    const graph::Uid u = fg.g.add_tensor_auto(view(CUDNN_DATA_INT32, dims, strides));
    bind_uid(u, CUDNN_PTR_ACTIVATION_BITMASK, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_DATA_INT32);
    return u;
  }

  static graph::Tensor view(cudnnDataType_t t, std::vector<int64_t> dims, std::vector<int64_t> strides) {
    graph::Tensor r;
    r.dtype = t;
    r.dims = std::move(dims);
    r.strides = std::move(strides);
    return r;
  }
  // A packed virtual double tensor.
  graph::Uid dtemp(const std::vector<int64_t> &dims) {
    graph::Tensor t = packed_like(view(CUDNN_DATA_DOUBLE, dims, dims), CUDNN_DATA_DOUBLE);
    return fg.g.add_tensor_auto(t);
  }
  graph::Uid dconst(double v, size_t rank) {
    graph::Tensor t = view(CUDNN_DATA_DOUBLE, std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 1));
    t.by_value = true;
    t.value = v;
    return fg.g.add_tensor_auto(t);
  }

  // Per bit position k (a [1, ..., 1, 32] row): 2^k, and the signed weights
  // of an INT32 word (2^k, with -2^31 for bit 31).
  std::pair<graph::Uid, graph::Uid> bit_weights(size_t rank) {
    std::vector<int64_t> dims(rank, 1);
    dims.back() = 32;
    const graph::Uid k = dtemp(dims);
    graph::PointwiseOp gi;
    gi.mode = CUDNN_POINTWISE_GEN_INDEX;
    gi.compute_type = CUDNN_DATA_DOUBLE;
    gi.axis = static_cast<int64_t>(rank) - 1;
    gi.y = k;
    fg.g.add_op(gi);
    const auto D = CUDNN_DATA_DOUBLE;
    const graph::Uid pw = pointwise(CUDNN_POINTWISE_POW, dconst(2.0, rank), k, dtemp(dims), D);
    const graph::Uid top = pointwise(CUDNN_POINTWISE_CMP_EQ, k, dconst(31.0, rank), dtemp(dims), D);
    const graph::Uid m = pointwise(CUDNN_POINTWISE_MUL, pw, top, dtemp(dims), D);
    const graph::Uid signed_w = pointwise(CUDNN_POINTWISE_SUB, pw, m, dtemp(dims), D, 2.0);
    return {pw, signed_w};
  }

  // mask bits = (y > 0) for RELU (every bit set without activation).
  void gen_mask(const cudnnTensorStruct &yd, int ptr_label, L placeholder_label, bool relu) {
    const MaskShape ms = mask_shape(yd, "CUDNN_PARAM_YDESC");
    const auto D = CUDNN_DATA_DOUBLE;
    const size_t rank = ms.bit_dims().size();
    const auto [pw, w] = bit_weights(rank);
    (void)pw;
    const graph::Uid yv = bit_view(yd, ms, ptr_label, placeholder_label);
    const graph::Uid bits = relu ? pointwise(CUDNN_POINTWISE_CMP_GT, yv, dconst(0.0, rank), dtemp(ms.bit_dims()), D)
                                 : pointwise(CUDNN_POINTWISE_CMP_EQ, yv, yv, dtemp(ms.bit_dims()), D);
    const graph::Uid terms = pointwise(CUDNN_POINTWISE_MUL, bits, w, dtemp(ms.bit_dims()), D);
    const graph::Uid sum = dtemp(ms.word_dims());
    graph::ReductionOp r;
    r.mode = CUDNN_REDUCE_TENSOR_ADD;
    r.compute_type = D;
    r.x = terms;
    r.y = sum;
    fg.g.add_op(r);
    pointwise(CUDNN_POINTWISE_IDENTITY, sum, graph::kNoTensor, mask_view(ms), D);
  }

  // out = in * bit over [N, spatial..., C/32, 32] views of in and out.
  void apply_mask(const MaskShape &ms, graph::Uid in_view, graph::Uid out_view) {
    const auto D = CUDNN_DATA_DOUBLE;
    const size_t rank = ms.bit_dims().size();
    const auto [pw, w] = bit_weights(rank);
    (void)w;
    const graph::Uid m = mask_view(ms);
    const graph::Uid d = pointwise(CUDNN_POINTWISE_IDENTITY, m, graph::kNoTensor, dtemp(ms.word_dims()), D);
    const graph::Uid neg = pointwise(CUDNN_POINTWISE_CMP_LT, d, dconst(0.0, rank), dtemp(ms.word_dims()), D);
    const graph::Uid u = pointwise(CUDNN_POINTWISE_ADD, d, neg, dtemp(ms.word_dims()), D, 4294967296.0);
    const graph::Uid q = pointwise(CUDNN_POINTWISE_DIV, u, pw, dtemp(ms.bit_dims()), D);
    const graph::Uid f = pointwise(CUDNN_POINTWISE_FLOOR, q, graph::kNoTensor, dtemp(ms.bit_dims()), D);
    const graph::Uid bit = pointwise(CUDNN_POINTWISE_MOD, f, dconst(2.0, rank), dtemp(ms.bit_dims()), D);
    pointwise(CUDNN_POINTWISE_MUL, in_view, bit, out_view);
  }

  // Replaces the convolution problem's tensors into fg (same uids: the
  // problem's graph becomes the start of fg).
  void start_from(graph::Graph g) { fg.g = std::move(g); }

  FusedGraph fg;

 private:
  const cudnnFusedOpsConstParamStruct &p_;
};

const cudnnFilterStruct &filter_of(const std::optional<cudnnFilterStruct> &f, const char *name, cudnnFusedOps_t ops) {
  check_arg(f.has_value(), name, " is NULL but ", fused::fused_ops_name(ops), " needs it");
  return checked_filter(&*f, name);
}

const cudnnConvolutionStruct &conv_of(const cudnnFusedOpsConstParamStruct &p) {
  check_arg(p.conv.has_value(), "CUDNN_PARAM_CONV_DESC is NULL but ", fused::fused_ops_name(p.ops), " needs it");
  return *p.conv;
}

void require(Builder &b, L label) {
  check_arg(b.on(label), fused::const_label_name(label), " is CUDNN_PTR_NULL but this fused op needs the pointer");
}

FusedGraph conv_bnstats(const cudnnFusedOpsConstParamStruct &p) {
  Builder b(p);
  const bool per_act = b.bn_per_activation();
  require(b, CUDNN_PARAM_XDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_WDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_YDATA_PLACEHOLDER);
  const cudnnTensorStruct &xd = b.tensor(CUDNN_PARAM_XDESC), &yd = b.tensor(CUDNN_PARAM_YDESC);
  const cudnnFilterStruct &wd = filter_of(p.w, "CUDNN_PARAM_WDESC", p.ops);
  ConvProblem cp = convolution_problem(graph::ConvDirection::forward, &xd, &wd, &conv_of(p), &yd, -1);
  b.start_from(cp.g);
  b.bind_uid(cp.x, CUDNN_PTR_XDATA, CUDNN_PARAM_XDATA_PLACEHOLDER, xd.dtype);
  b.bind_uid(cp.w, CUDNN_PTR_WDATA, CUDNN_PARAM_WDATA_PLACEHOLDER, wd.dtype);
  b.bind_uid(cp.y, CUDNN_PTR_YDATA, CUDNN_PARAM_YDATA_PLACEHOLDER, yd.dtype);
  const graph::Uid xin = b.scale_bias_relu_prologue(cp.x, xd, per_act);
  std::get<graph::ConvolutionOp>(b.fg.g.ops().front()).x = xin;
  b.y_stats(cp.y, yd, per_act);
  return std::move(b.fg);
}

FusedGraph wgrad(const cudnnFusedOpsConstParamStruct &p) {
  Builder b(p);
  const bool per_act = b.bn_per_activation();
  require(b, CUDNN_PARAM_XDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_DWDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_DYDATA_PLACEHOLDER);
  const cudnnTensorStruct &xd = b.tensor(CUDNN_PARAM_XDESC), &dyd = b.tensor(CUDNN_PARAM_DYDESC);
  const cudnnFilterStruct &dwd = filter_of(p.dw, "CUDNN_PARAM_DWDESC", p.ops);
  ConvProblem cp = convolution_problem(graph::ConvDirection::backward_filter, &xd, &dwd, &conv_of(p), &dyd, -1);
  b.start_from(cp.g);
  b.bind_uid(cp.x, CUDNN_PTR_XDATA, CUDNN_PARAM_XDATA_PLACEHOLDER, xd.dtype);
  b.bind_uid(cp.w, CUDNN_PTR_DWDATA, CUDNN_PARAM_DWDATA_PLACEHOLDER, dwd.dtype);
  b.bind_uid(cp.y, CUDNN_PTR_DYDATA, CUDNN_PARAM_DYDATA_PLACEHOLDER, dyd.dtype);
  const graph::Uid xin = b.scale_bias_relu_prologue(cp.x, xd, per_act);
  std::get<graph::ConvolutionOp>(b.fg.g.ops().front()).x = xin;
  return std::move(b.fg);
}

// Kinds 2 and 3.
FusedGraph bn_finalize(const cudnnFusedOpsConstParamStruct &p, bool training) {
  Builder b(p);
  const bool per_act = b.bn_per_activation();
  const cudnnTensorStruct &sb = b.tensor(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC);
  check_arg(sb.nb_dims >= 4, "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC has ", sb.nb_dims,
            " dimensions; expected 4 or 5 (1 x C x 1 x 1)");
  check_arg(sb.dims[0] == 1, "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC dimension 0 is ", sb.dims[0], "; expected 1");
  if (!per_act)
    for (int d = 2; d < sb.nb_dims; ++d)
      check_arg(sb.dims[d] == 1, "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC dimension ", d, " is ", sb.dims[d],
                "; the spatial batch-norm modes have 1 x C x 1 x 1 statistics");
  check_supported(sb.dtype == CUDNN_DATA_FLOAT, "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC is ", type_info(sb.dtype).enum_name,
                  "; the batch-norm parameters and statistics are FLOAT");
  auto same_shape = [&](L label) {
    const cudnnTensorStruct &t = b.tensor(label);
    check_arg(t.nb_dims == sb.nb_dims, fused::const_label_name(label), " has ", t.nb_dims,
              " dimensions; CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC has ", sb.nb_dims);
    for (int d = 0; d < t.nb_dims; ++d)
      check_arg(t.dims[d] == sb.dims[d], fused::const_label_name(label), " dimension ", d, " is ", t.dims[d],
                "; CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC has ", sb.dims[d]);
    return &t;
  };
  graph::BnFinalizeIo io;
  io.training = training;
  const int rank = sb.nb_dims;
  FusedGraph &fg = b.fg;
  auto param = [&](L ph, int ptr) {
    return b.on(ph) ? b.bind(sb, ptr, ph) : graph::kNoTensor;
  };
  io.scale = param(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE);
  io.bias = param(CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS);
  const bool eq_scale_on = b.on(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER), eq_bias_on = b.on(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
  if (eq_scale_on || eq_bias_on) {
    const cudnnTensorStruct *eq = same_shape(CUDNN_PARAM_BN_EQSCALEBIAS_DESC);
    if (eq_scale_on) {
      check_arg(io.scale != graph::kNoTensor, "CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER is set but "
                                              "CUDNN_PARAM_BN_SCALE_PLACEHOLDER is CUDNN_PTR_NULL: the equivalent scale "
                                              "needs the scale");
      io.eq_scale = b.bind(*eq, CUDNN_PTR_BN_EQSCALE, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
    }
    if (eq_bias_on) {
      check_arg(io.scale != graph::kNoTensor && io.bias != graph::kNoTensor,
                "CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER is set: the equivalent bias needs the scale and the bias "
                "(CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PARAM_BN_BIAS_PLACEHOLDER)");
      io.eq_bias = b.bind(*eq, CUDNN_PTR_BN_EQBIAS, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
    }
  }
  fg.epsilon = io.epsilon = b.scalar(rank);
  fg.needs_epsilon = true;
  if (training) {
    require(b, CUDNN_PARAM_YSUM_PLACEHOLDER);
    require(b, CUDNN_PARAM_YSQSUM_PLACEHOLDER);
    const cudnnTensorStruct *st = same_shape(CUDNN_PARAM_YSTATS_DESC);
    check_supported(st->dtype == CUDNN_DATA_FLOAT, "CUDNN_PARAM_YSTATS_DESC is ", type_info(st->dtype).enum_name,
                    "; the sums are FLOAT");
    io.sum = b.bind(*st, CUDNN_PTR_YSUM, CUDNN_PARAM_YSUM_PLACEHOLDER);
    io.sq_sum = b.bind(*st, CUDNN_PTR_YSQSUM, CUDNN_PARAM_YSQSUM_PLACEHOLDER);
    fg.count = io.count = b.scalar(rank, 1.0);
    fg.needs_count = true;
    io.saved_mean = param(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN);
    io.saved_inv_std = param(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD);
    if (b.on(CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER)) {
      // In and out share the caller's buffer: two tensors bound to it.
      io.prev_running_mean = b.bind(sb, CUDNN_PTR_BN_RUNNING_MEAN, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
      io.next_running_mean = b.bind(sb, CUDNN_PTR_BN_RUNNING_MEAN, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
    }
    if (b.on(CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER)) {
      io.prev_running_var = b.bind(sb, CUDNN_PTR_BN_RUNNING_VAR, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
      io.next_running_var = b.bind(sb, CUDNN_PTR_BN_RUNNING_VAR, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
    }
    if (io.next_running_mean != graph::kNoTensor || io.next_running_var != graph::kNoTensor)
      fg.exp_avg_factor = io.exp_avg_factor = b.scalar(rank);
  } else {
    require(b, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
    require(b, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
    io.mean = b.bind(sb, CUDNN_PTR_BN_RUNNING_MEAN, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
    io.variance = b.bind(sb, CUDNN_PTR_BN_RUNNING_VAR, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
  }
  check_arg(io.eq_scale != graph::kNoTensor || io.eq_bias != graph::kNoTensor || io.saved_mean != graph::kNoTensor ||
                io.saved_inv_std != graph::kNoTensor || io.next_running_mean != graph::kNoTensor ||
                io.next_running_var != graph::kNoTensor,
            fused::fused_ops_name(p.ops), ": every output placeholder is CUDNN_PTR_NULL, nothing to compute");
  graph::append_bn_finalize(fg.g, io);
  return std::move(b.fg);
}

FusedGraph conv_scale_bias_add_act(const cudnnFusedOpsConstParamStruct &p) {
  Builder b(p);
  require(b, CUDNN_PARAM_XDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_WDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_YDATA_PLACEHOLDER);
  const cudnnTensorStruct &xd = b.tensor(CUDNN_PARAM_XDESC), &yd = b.tensor(CUDNN_PARAM_YDESC);
  const cudnnFilterStruct &wd = filter_of(p.w, "CUDNN_PARAM_WDESC", p.ops);
  ConvProblem cp = convolution_problem(graph::ConvDirection::forward, &xd, &wd, &conv_of(p), &yd, -1);
  b.start_from(cp.g);
  b.bind_uid(cp.x, CUDNN_PTR_XDATA, CUDNN_PARAM_XDATA_PLACEHOLDER, xd.dtype);
  b.bind_uid(cp.w, CUDNN_PTR_WDATA, CUDNN_PARAM_WDATA_PLACEHOLDER, wd.dtype);
  b.bind_uid(cp.y, CUDNN_PTR_YDATA, CUDNN_PARAM_YDATA_PLACEHOLDER, yd.dtype);
  graph::Uid scale = graph::kNoTensor;
  if (b.on(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER)) {
    b.check_param(yd, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, false);
    scale = b.bind(b.tensor(CUDNN_PARAM_BN_EQSCALEBIAS_DESC), CUDNN_PTR_BN_EQSCALE, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
  }
  const Builder::Residual res = b.bind_residual(CUDNN_PARAM_YDESC, yd, false);
  const bool relu = b.relu();
  if (scale == graph::kNoTensor && res.z == graph::kNoTensor && res.bias == graph::kNoTensor && !relu)
    return std::move(b.fg);
  // The convolution writes a virtual tensor in y's type; the chain writes y.
  const graph::Uid c = b.virtual_like(cp.y, yd.dtype);
  std::get<graph::ConvolutionOp>(b.fg.g.ops().front()).y = c;
  b.affine_chain(c, scale, graph::kNoTensor, res.z, res.scale, res.bias, relu, cp.y, yd.dtype);
  return std::move(b.fg);
}

FusedGraph scale_bias_add_act(const cudnnFusedOpsConstParamStruct &p) {
  Builder b(p);
  const bool per_act = b.bn_per_activation();
  require(b, CUDNN_PARAM_XDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_YDATA_PLACEHOLDER);
  const cudnnTensorStruct &xd = b.tensor(CUDNN_PARAM_XDESC), &yd = b.tensor(CUDNN_PARAM_YDESC);
  b.check_same_dims(CUDNN_PARAM_YDESC, yd, CUDNN_PARAM_XDESC, xd);
  const graph::Uid x = b.bind(xd, CUDNN_PTR_XDATA, CUDNN_PARAM_XDATA_PLACEHOLDER);
  const graph::Uid y = b.bind(yd, CUDNN_PTR_YDATA, CUDNN_PARAM_YDATA_PLACEHOLDER);
  graph::Uid scale = graph::kNoTensor, bias = graph::kNoTensor;
  const bool s_on = b.on(CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER), bi_on = b.on(CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
  if (s_on || bi_on) {
    b.check_param(xd, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, per_act);
    const cudnnTensorStruct &sb = b.tensor(CUDNN_PARAM_BN_EQSCALEBIAS_DESC);
    if (s_on) scale = b.bind(sb, CUDNN_PTR_BN_EQSCALE, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER);
    if (bi_on) bias = b.bind(sb, CUDNN_PTR_BN_EQBIAS, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
  }
  const Builder::Residual res = b.bind_residual(CUDNN_PARAM_XDESC, xd, per_act);
  const bool relu = b.relu();
  b.affine_chain(x, scale, bias, res.z, res.scale, res.bias, relu, y, yd.dtype);
  // After the chain in op order: the mask reads y.
  if (b.on(CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER))
    b.gen_mask(yd, CUDNN_PTR_YDATA, CUDNN_PARAM_YDATA_PLACEHOLDER, relu);
  return std::move(b.fg);
}

FusedGraph dact_fork_dbn(const cudnnFusedOpsConstParamStruct &p) {
  Builder b(p);
  const bool per_act = b.bn_per_activation();
  require(b, CUDNN_PARAM_XDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_DYDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_DXDATA_PLACEHOLDER);
  require(b, CUDNN_PARAM_BN_SCALE_PLACEHOLDER);
  require(b, CUDNN_PARAM_BN_DSCALE_PLACEHOLDER);
  require(b, CUDNN_PARAM_BN_DBIAS_PLACEHOLDER);
  const bool relu = b.relu();
  const cudnnTensorStruct &xd = b.tensor(CUDNN_PARAM_XDESC), &dyd = b.tensor(CUDNN_PARAM_DYDESC),
                          &dxd = b.tensor(CUDNN_PARAM_DXDESC), &sb = b.tensor(CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC);
  const bool saved = b.on(CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER) && b.on(CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER);
  NormSpec s;
  s.phase = NormPhase::backward;
  s.per_activation = per_act;
  s.ops = 0;
  s.epsilon = CUDNN_BN_MIN_EPSILON;  // the variant pack's value replaces it at execution
  s.saved_stats = saved;
  NormDescs d;
  d.x = &xd;
  d.dy = &dyd;
  d.dx = &dxd;
  d.scale_bias = &sb;
  d.scale_bias_name = "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC";
  NormProblem np = build_normalization(s, d);
  b.start_from(np.g);
  const graph::NormalizationOp &op = np.op;
  b.bind_uid(op.x, CUDNN_PTR_XDATA, CUDNN_PARAM_XDATA_PLACEHOLDER, xd.dtype);
  b.bind_uid(op.dy, CUDNN_PTR_DYDATA, CUDNN_PARAM_DYDATA_PLACEHOLDER, dyd.dtype);
  b.bind_uid(op.dx, CUDNN_PTR_DXDATA, CUDNN_PARAM_DXDATA_PLACEHOLDER, dxd.dtype);
  b.bind_uid(op.scale, CUDNN_PTR_BN_SCALE, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, sb.dtype);
  // The batch-norm backward always produces dscale and dbias.
  b.bind_uid(op.dscale, CUDNN_PTR_BN_DSCALE, CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, sb.dtype);
  b.bind_uid(op.dbias, CUDNN_PTR_BN_DBIAS, CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, sb.dtype);
  if (saved) {
    b.bind_uid(op.mean, CUDNN_PTR_BN_SAVED_MEAN, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, sb.dtype);
    b.bind_uid(op.inv_variance, CUDNN_PTR_BN_SAVED_INVSTD, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, sb.dtype);
  } else {
    b.fg.needs_epsilon = true;  // the statistics are recomputed from x
  }
  // The fork: dz = the activation's gradient (dy itself without activation).
  const bool dz_on = b.on(CUDNN_PARAM_DZDATA_PLACEHOLDER) && p.tensor(CUDNN_PARAM_DZDESC) != nullptr;
  graph::Uid dz = graph::kNoTensor;
  if (dz_on) {
    const cudnnTensorStruct &dzd = b.tensor(CUDNN_PARAM_DZDESC);
    b.check_same_dims(CUDNN_PARAM_DZDESC, dzd, CUDNN_PARAM_DYDESC, dyd);
    check_arg(dzd.dtype == dyd.dtype, "CUDNN_PARAM_DZDESC is ", type_info(dzd.dtype).enum_name,
              " but CUDNN_PARAM_DYDESC is ", type_info(dyd.dtype).enum_name);
    dz = b.bind(dzd, CUDNN_PTR_DZDATA, CUDNN_PARAM_DZDATA_PLACEHOLDER);
  }
  if (!relu) {
    if (dz_on) b.pointwise(CUDNN_POINTWISE_IDENTITY, op.dy, graph::kNoTensor, dz);
    return std::move(b.fg);
  }
  // RELU: g = dy * mask is written to dz (the caller's memory: the batch-norm
  // backward then reads it as its dy), so the fork output is required.
  check_supported(dz_on, "CUDNN_PARAM_ACTIVATION_DESC is RELU: FreeDNN writes the masked gradient to dz and needs "
                         "CUDNN_PARAM_DZDESC and CUDNN_PARAM_DZDATA_PLACEHOLDER");
  require(b, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER);
  const cudnnTensorStruct &dzd = b.tensor(CUDNN_PARAM_DZDESC);
  const Builder::MaskShape ms = b.mask_shape(dyd, "CUDNN_PARAM_DYDESC");
  // The normalization op goes last in op order (it reads dz after the mask).
  graph::Op norm = b.fg.g.ops().front();
  b.fg.g.ops().erase(b.fg.g.ops().begin());
  const graph::Uid dyv = b.bit_view(dyd, ms, CUDNN_PTR_DYDATA, CUDNN_PARAM_DYDATA_PLACEHOLDER);
  const graph::Uid dzv = b.bit_view(dzd, ms, CUDNN_PTR_DZDATA, CUDNN_PARAM_DZDATA_PLACEHOLDER);
  b.apply_mask(ms, dyv, dzv);
  std::get<graph::NormalizationOp>(norm).dy = dz;
  b.fg.g.add_op(norm);
  return std::move(b.fg);
}

}  // namespace

fused::FusedGraph build_fused_graph(const cudnnFusedOpsConstParamStruct &p) {
  switch (p.ops) {
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: return conv_bnstats(p);
    case CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: return wgrad(p);
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING: return bn_finalize(p, true);
    case CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: return bn_finalize(p, false);
    case CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION: return conv_scale_bias_add_act(p);
    case CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK: return scale_bias_add_act(p);
    case CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM: return dact_fork_dbn(p);
  }
  fail(CUDNN_STATUS_BAD_PARAM, "the const pack's fused-op kind ", static_cast<int>(p.ops), " is not valid");
}

}  // namespace fdnn::api
