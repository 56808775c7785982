#include "common/backend_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "common/convolution_reference.hpp"
#include "common/reference.hpp"
#include "common/sdpa_graph_builder.hpp"

namespace fdnn_test {

const char *pattern_name(FusionPattern p) {
  switch (p) {
    case FusionPattern::conv_bias_act: return "ConvBiasAct";
    case FusionPattern::conv_scale_bias_act: return "ConvScaleBiasAct";
    case FusionPattern::conv_bn_fprop: return "ConvBNfprop";
    case FusionPattern::dbarcs: return "DBARCS";
    case FusionPattern::conv_bn_wgrad: return "ConvBNwgrad";
    case FusionPattern::dgrad_drelu: return "DgradDrelu";
    case FusionPattern::matmul_bias_gelu: return "MatmulBiasGelu";
    case FusionPattern::dbn_apply: return "dBNApply";
    case FusionPattern::pointwise_reduction: return "PointwiseReduction";
    case FusionPattern::two_convs: return "TwoConvs";
    case FusionPattern::reduction_then_pointwise: return "ReductionThenPointwise";
  }
  return "?";
}

namespace {

bool is_conv_pattern(FusionPattern p) {
  return p != FusionPattern::matmul_bias_gelu && p != FusionPattern::pointwise_reduction &&
         p != FusionPattern::reduction_then_pointwise && p != FusionPattern::dbn_apply;
}

const char *mode_name(cudnnPointwiseMode_t m) {
  switch (m) {
    case CUDNN_POINTWISE_RELU_FWD: return "relu";
    case CUDNN_POINTWISE_GELU_FWD: return "gelu";
    case CUDNN_POINTWISE_TANH_FWD: return "tanh";
    case CUDNN_POINTWISE_SIGMOID_FWD: return "sigmoid";
    case CUDNN_POINTWISE_SWISH_FWD: return "swish";
    default: return "?";
  }
}

}  // namespace

std::string FusionConfig::name() const {
  std::ostringstream os;
  os << pattern_name(pattern) << " " << type_name(io_type);
  if (virtual_type != CUDNN_DATA_FLOAT) os << " virtual=" << type_name(virtual_type);
  if (pattern == FusionPattern::matmul_bias_gelu) {
    os << " " << batch << "x" << m << "x" << kk << "x" << nn << (broadcast_b ? " B[1,K,N]" : "")
       << (pre_output ? " pre-out" : "") << (a_prologue ? " A*scalar" : "") << (row_sum ? " row-sum" : "");
  } else {
    os << " n" << n << " c" << c << " " << h << "x" << w;
    if (is_conv_pattern(pattern))
      os << " k" << k << " " << r << "x" << s << " pad" << pad_h << "," << pad_w << " stride" << stride_h << ","
         << stride_w << " dil" << dil_h << "," << dil_w << (nhwc ? " nhwc" : " nchw");
    if (pattern == FusionPattern::conv_bias_act || pattern == FusionPattern::conv_scale_bias_act)
      os << " " << mode_name(act);
  }
  return os.str();
}

std::vector<int64_t> FusionConfig::conv_out_dims() const {
  const int64_t p = (h + 2 * pad_h - ((r - 1) * dil_h + 1)) / stride_h + 1;
  const int64_t q = (w + 2 * pad_w - ((s - 1) * dil_w + 1)) / stride_w + 1;
  return {n, k, p, q};
}

FusionConfig random_fusion_config(FusionPattern p, Rng &rng) {
  FusionConfig c;
  c.pattern = p;
  c.nhwc = rng.coin();
  c.n = rng.integer(1, 2), c.c = rng.integer(1, 6), c.k = rng.integer(1, 6);
  c.h = rng.integer(3, 8), c.w = rng.integer(3, 8);
  for (;;) {
    c.r = rng.integer(1, 3), c.s = rng.integer(1, 3);
    c.pad_h = rng.integer(0, 1), c.pad_w = rng.integer(0, 1);
    c.stride_h = rng.integer(1, 2), c.stride_w = rng.integer(1, 2);
    c.dil_h = rng.integer(1, 2), c.dil_w = rng.integer(1, 2);
    if (p == FusionPattern::dbarcs) c.r = c.s = 1, c.pad_h = c.pad_w = 0, c.dil_h = c.dil_w = 1;
    if (c.h + 2 * c.pad_h >= (c.r - 1) * c.dil_h + 1 && c.w + 2 * c.pad_w >= (c.s - 1) * c.dil_w + 1) break;
  }
  c.batch = rng.integer(1, 3), c.m = rng.integer(1, 9), c.kk = rng.integer(1, 12), c.nn = rng.integer(1, 10);
  return c;
}

namespace {

constexpr double kU = 1.0 / (1 << 24);  // float unit roundoff

// A value of the graph in float64: elements in logical row-major order and
// a bound of the error a float computation makes on each.
struct Ref {
  std::vector<int64_t> dims;
  std::vector<double> v, e;
};

// Flat index, in t's row-major order, of the element that output index idx
// reads (dimensions of extent 1 broadcast).
int64_t broadcast_flat(const std::vector<int64_t> &dims, const std::vector<int64_t> &idx) {
  int64_t f = 0;
  for (size_t d = 0; d < dims.size(); ++d) f = f * dims[d] + (dims[d] == 1 ? 0 : idx[d]);
  return f;
}

HostTensor host_of(const std::vector<int64_t> &dims, const std::vector<double> &values) {
  HostTensor t = make_tensor(CUDNN_DATA_DOUBLE, dims, packed(dims));
  t.set_values(values);
  return t;
}

// A graph value: its descriptor, type, memory order and float64 expectation.
struct Node {
  Desc *desc = nullptr;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> strides;
  Ref ref;
  const std::vector<int64_t> &dims() const { return ref.dims; }
};

// Where an op's result goes: a virtual tensor or a real output.
struct Out {
  bool real = false;
  int64_t uid = 0;
  std::string name;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  static Out virt() { return {}; }
  static Out to(int64_t uid, const std::string &name, cudnnDataType_t t) { return {true, uid, name, t}; }
};

// The descriptors GraphOpBuilder creates, owned here until build_fusion_graph
// moves them into the FusionGraph (a base so that it is built before
// GraphOpBuilder, which refers to it).
struct DescriptorStore {
  SdpaGraph descs;
};

// Tensor, pointwise, matmul and reduction descriptors come from
// GraphOpBuilder (tests/common/sdpa_graph_builder.hpp); the float64
// expectation and the ops it has no builder for (convolutions, GEN_STATS,
// RELU_BWD's dy/dx form) are built here.
class Builder : private DescriptorStore, private GraphOpBuilder {
 public:
  Builder(const FusionConfig &c, FusionGraph &g, Rng &rng) : GraphOpBuilder(descs), c_(c), g_(g), rng_(rng) {}

  // Hands the descriptors over to the graph once build() is done.
  void move_descriptors() {
    g_.keep = std::move(descs.keep);
    g_.ops = std::move(descs.ops);
  }

  // Memory order of a tensor of these dims: the conv layout for rank 4,
  // row-major otherwise.
  std::vector<int64_t> strides_for(const std::vector<int64_t> &dims) const {
    if (dims.size() == 4) return packed_strides(dims, c_.nhwc ? Layout::nhwc : Layout::nchw);
    return packed(dims);
  }

  Node input(int64_t uid, const std::string &name, cudnnDataType_t t, const std::vector<int64_t> &dims, double lo,
             double hi) {
    FusionTensor ft;
    ft.uid = uid, ft.name = name;
    ft.data = make_tensor(t, dims, strides_for(dims));
    fill_random(ft.data, rng_, lo, hi);
    Node n;
    n.dtype = t;
    n.strides = ft.data.strides;
    n.desc = real(uid, t, dims, n.strides);
    n.ref.dims = dims;
    if (c_.reference) {
      n.ref.v = ft.data.values();
      n.ref.e.assign(n.ref.v.size(), 0.0);
    }
    g_.tensors.push_back(std::move(ft));
    return n;
  }

  // The tensor an op writes, from its float64 expectation.
  Node output(const Out &o, Ref ref) {
    Node n;
    n.dtype = o.real ? o.dtype : c_.virtual_type;
    n.strides = strides_for(ref.dims);
    n.desc = o.real ? real(o.uid, n.dtype, ref.dims, n.strides) : virt(n.dtype, ref.dims, n.strides);
    if (o.real) {
      FusionTensor ft;
      ft.uid = o.uid, ft.name = o.name, ft.output = true;
      ft.data = make_tensor(n.dtype, ref.dims, n.strides);
      poison(ft.data);
      ft.want.resize(ref.v.size());
      for (size_t i = 0; i < ref.v.size(); ++i) ft.want[i] = {ref.v[i], 2 * ref.e[i]};
      g_.tensors.push_back(std::move(ft));
    }
    // Readers of a stored value may see it rounded to the tensor's type.
    const double u = unit_roundoff(n.dtype);
    for (size_t i = 0; i < ref.v.size(); ++i) ref.e[i] += u * std::fabs(ref.v[i]);
    n.ref = std::move(ref);
    return n;
  }

  Node pointwise(cudnnPointwiseMode_t mode, const Node &a, const Node *b, const Out &o) {
    std::vector<int64_t> dims = a.dims();
    if (b)
      for (size_t d = 0; d < dims.size(); ++d) dims[d] = std::max(dims[d], b->dims()[d]);
    Ref r;
    r.dims = dims;
    if (c_.reference) r.v.resize(static_cast<size_t>(element_count(dims)));
    r.e.resize(r.v.size());
    const PointwiseParams params;
    size_t i = 0;
    if (c_.reference) for_each_index(dims, [&](const std::vector<int64_t> &idx) {
      const size_t ia = static_cast<size_t>(broadcast_flat(a.dims(), idx));
      const double va = a.ref.v[ia], ea = a.ref.e[ia];
      double vb = 0, eb = 0;
      if (b) {
        const size_t ib = static_cast<size_t>(broadcast_flat(b->dims(), idx));
        vb = b->ref.v[ib], eb = b->ref.e[ib];
      }
      const double v = pointwise_value(mode, va, vb, 0, params), av = std::fabs(v);
      double e = 0;
      switch (mode) {
        case CUDNN_POINTWISE_ADD:
        case CUDNN_POINTWISE_SUB: e = ea + eb + kU * av; break;
        case CUDNN_POINTWISE_MUL: e = std::fabs(va) * eb + std::fabs(vb) * ea + ea * eb + kU * av; break;
        case CUDNN_POINTWISE_RELU_FWD: e = ea; break;
        case CUDNN_POINTWISE_TANH_FWD: e = ea + 8 * kU * (av + std::fabs(va)); break;
        case CUDNN_POINTWISE_SIGMOID_FWD: e = 0.25 * ea + 8 * kU * av; break;
        case CUDNN_POINTWISE_GELU_FWD: e = 1.13 * ea + 8 * kU * (av + std::fabs(va)); break;
        case CUDNN_POINTWISE_SWISH_FWD: e = 1.1 * ea + 8 * kU * (av + std::fabs(va)); break;
        case CUDNN_POINTWISE_EXP: e = av * std::expm1(ea) + 8 * kU * av; break;
        case CUDNN_POINTWISE_RELU_BWD:
          // dx = x > 0 ? dy : 0; when x's own error could flip the branch, either.
          e = std::fabs(va) <= ea ? std::fabs(vb) + eb : va > 0 ? eb : 0;
          break;
        default: throw std::logic_error("backend_fusion: no error model for this pointwise mode");
      }
      r.v[i] = v, r.e[i] = e;
      ++i;
    });
    Node y = output(o, std::move(r));
    if (mode == CUDNN_POINTWISE_RELU_BWD)
      relu_bwd_op(a, *b, y);
    else
      pw(mode, a.desc, b ? b->desc : nullptr, y.desc);
    return y;
  }

  // RELU_BWD names its tensors x, dy and dx (GraphOpBuilder::pw sets b and y).
  void relu_bwd_op(const Node &x, const Node &dy, const Node &dx) {
    auto p = keep(std::make_unique<Desc>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, CUDNN_POINTWISE_RELU_BWD),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->finalize(), CUDNN_STATUS_SUCCESS);
    add(op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, {{CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, p},
                                                          {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x.desc},
                                                          {CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, dy.desc},
                                                          {CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, dx.desc}}));
  }

  // An operation of `type` with the given descriptor attributes set (the
  // caller sets the rest, then add() finalizes it into the graph).
  Desc *op(cudnnBackendDescriptorType_t type,
           std::initializer_list<std::pair<cudnnBackendAttributeName_t, const Desc *>> attrs) {
    Desc *o = keep(std::make_unique<Desc>(type));
    for (const auto &a : attrs)
      EXPECT_EQ(o->set1(a.first, CUDNN_TYPE_BACKEND_DESCRIPTOR, a.second->d), CUDNN_STATUS_SUCCESS);
    return o;
  }

  // REDUCTION ADD or MAX of x over the dimensions where out_dims has extent 1.
  Node reduction(cudnnReduceTensorOp_t mode, const Node &x, const std::vector<int64_t> &out_dims, const Out &o) {
    Ref r;
    r.dims = out_dims;
    const size_t nout = static_cast<size_t>(element_count(out_dims));
    const bool max = mode == CUDNN_REDUCE_TENSOR_MAX;
    r.v.assign(nout, max ? -INFINITY : 0.0);
    r.e.assign(nout, 0.0);
    std::vector<double> mag(nout, 0.0);
    const int64_t n = element_count(x.dims()) / static_cast<int64_t>(nout);
    size_t i = 0;
    if (!c_.reference) r.v.clear(), r.e.clear(), mag.assign(0, 0.0);
    if (c_.reference) for_each_index(x.dims(), [&](const std::vector<int64_t> &idx) {
      const size_t at = static_cast<size_t>(broadcast_flat(out_dims, idx));
      const double v = x.ref.v[i], e = x.ref.e[i];
      if (max) {
        r.v[at] = std::max(r.v[at], v);
        r.e[at] = std::max(r.e[at], e);
      } else {
        r.v[at] += v;
        r.e[at] += e;
        mag[at] += std::fabs(v);
      }
      ++i;
    });
    if (!max)
      for (size_t j = 0; j < r.v.size(); ++j) r.e[j] += static_cast<double>(n + 2) * kU * mag[j];
    Node y = output(o, std::move(r));
    reduce(mode, x.desc, y.desc);
    return y;
  }

  // GEN_STATS: per-channel sum and sum of squares of y into [1, C, 1, 1] floats.
  void gen_stats(const Node &y, int64_t sum_uid, int64_t sqsum_uid) {
    const std::vector<int64_t> sd{1, y.dims()[1], 1, 1};
    Ref sum, sq;
    sum.dims = sq.dims = sd;
    const size_t nc = static_cast<size_t>(sd[1]);
    sum.v.assign(nc, 0), sum.e.assign(nc, 0), sq.v.assign(nc, 0), sq.e.assign(nc, 0);
    std::vector<double> mag(nc, 0), mag2(nc, 0);
    size_t i = 0;
    if (!c_.reference) sum.v.clear(), sum.e.clear(), sq.v.clear(), sq.e.clear();
    if (c_.reference) for_each_index(y.dims(), [&](const std::vector<int64_t> &idx) {
      const size_t ch = static_cast<size_t>(idx[1]);
      const double v = y.ref.v[i], e = y.ref.e[i];
      sum.v[ch] += v, sum.e[ch] += e, mag[ch] += std::fabs(v);
      sq.v[ch] += v * v, sq.e[ch] += 2 * std::fabs(v) * e + e * e + kU * v * v, mag2[ch] += v * v;
      ++i;
    });
    const double n = static_cast<double>(element_count(y.dims()) / sd[1]);
    for (size_t ch = 0; ch < sum.v.size(); ++ch) sum.e[ch] += (n + 2) * kU * mag[ch], sq.e[ch] += (n + 2) * kU * mag2[ch];
    Node s = output(Out::to(sum_uid, "sum", CUDNN_DATA_FLOAT), std::move(sum));
    Node q = output(Out::to(sqsum_uid, "sqsum", CUDNN_DATA_FLOAT), std::move(sq));
    Desc *o = op(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, {{CUDNN_ATTR_OPERATION_GENSTATS_XDESC, y.desc},
                                                                 {CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, s.desc},
                                                                 {CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, q.desc}});
    EXPECT_EQ(o->set1(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, CUDNN_GENSTATS_SUM_SQSUM),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(o->set1(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    add(o);
  }

  enum class Conv { fwd, bwd_data, bwd_filter };

  // One convolution (cross-correlation, float compute) with the config's
  // padding, stride and dilation (or those given). For fwd: a = x, b = w;
  // bwd_data: a = dy, b = w; bwd_filter: a = x, b = dy.
  Node conv(Conv dir, const Node &a, const Node &b, const std::vector<int64_t> &out_dims, const Out &o,
            const ConvParams &p) {
    if (!c_.reference) {
      Ref r;
      r.dims = out_dims;
      return conv_op(dir, a, b, output(o, std::move(r)), p);
    }
    const HostTensor ha = host_of(a.dims(), a.ref.v), hb = host_of(b.dims(), b.ref.v);
    const HostTensor prior =
        host_of(out_dims, std::vector<double>(static_cast<size_t>(element_count(out_dims)), 0.0));
    const double slack = 64;
    std::vector<Expect> want;
    switch (dir) {
      case Conv::fwd: want = reference_conv_forward(p, ha, hb, 1, 0, prior, CUDNN_DATA_FLOAT, slack); break;
      case Conv::bwd_data: want = reference_conv_backward_data(p, hb, ha, 1, 0, prior, CUDNN_DATA_FLOAT, slack); break;
      case Conv::bwd_filter:
        want = reference_conv_backward_filter(p, ha, hb, 1, 0, prior, CUDNN_DATA_FLOAT, slack);
        break;
    }
    Ref r;
    r.dims = out_dims;
    for (const Expect &x : want) r.v.push_back(x.value), r.e.push_back(x.tolerance);
    // Errors of the operands carried through: sum |other| * e.
    auto carry = [&](const Node &erred, const Node &other, bool erred_first) {
      const bool any = std::any_of(erred.ref.e.begin(), erred.ref.e.end(), [](double e) { return e > 0; });
      if (!any) return;
      std::vector<double> abs_other(other.ref.v.size());
      for (size_t i = 0; i < abs_other.size(); ++i) abs_other[i] = std::fabs(other.ref.v[i]);
      const HostTensor he = host_of(erred.dims(), erred.ref.e), ho = host_of(other.dims(), abs_other);
      const HostTensor &first = erred_first ? he : ho, &second = erred_first ? ho : he;
      std::vector<Expect> extra;
      switch (dir) {
        case Conv::fwd: extra = reference_conv_forward(p, first, second, 1, 0, prior, CUDNN_DATA_FLOAT, 0); break;
        case Conv::bwd_data:
          extra = reference_conv_backward_data(p, second, first, 1, 0, prior, CUDNN_DATA_FLOAT, 0);
          break;
        case Conv::bwd_filter:
          extra = reference_conv_backward_filter(p, first, second, 1, 0, prior, CUDNN_DATA_FLOAT, 0);
          break;
      }
      for (size_t i = 0; i < extra.size(); ++i) r.e[i] += std::fabs(extra[i].value) * (1 + 64 * kU);
    };
    carry(a, b, true);
    carry(b, a, false);
    return conv_op(dir, a, b, output(o, std::move(r)), p);
  }

  // The descriptors of that convolution, y being its output tensor.
  Node conv_op(Conv dir, const Node &a, const Node &b, Node y, const ConvParams &p) {
    Desc *cd = keep(convolution_desc({p.pad[0], p.pad[1]}, {p.stride[0], p.stride[1]},
                                     {p.dilation[0], p.dilation[1]}));

    cudnnBackendDescriptorType_t type;
    cudnnBackendAttributeName_t alpha, beta, desc, tx, tw, ty;
    const Desc *x, *w, *dy;
    switch (dir) {
      case Conv::fwd:
        type = CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
        alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, beta = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA;
        desc = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC;
        tx = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, tw = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W;
        ty = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y;
        x = a.desc, w = b.desc, dy = y.desc;
        break;
      case Conv::bwd_data:
        type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
        alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA;
        desc = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC;
        tx = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, tw = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
        ty = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
        x = y.desc, w = b.desc, dy = a.desc;
        break;
      default:
        type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
        alpha = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA;
        beta = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA;
        desc = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC;
        tx = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, tw = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
        ty = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
        x = a.desc, w = y.desc, dy = b.desc;
        break;
    }
    Desc *o = op(type, {{tx, x}, {tw, w}, {ty, dy}, {desc, cd}});
    EXPECT_EQ(o->set1(alpha, CUDNN_TYPE_FLOAT, 1.0f), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(o->set1(beta, CUDNN_TYPE_FLOAT, 0.0f), CUDNN_STATUS_SUCCESS);
    add(o);
    return y;
  }

  ConvParams params() const {
    ConvParams p;
    p.pad = {static_cast<int>(c_.pad_h), static_cast<int>(c_.pad_w)};
    p.stride = {static_cast<int>(c_.stride_h), static_cast<int>(c_.stride_w)};
    p.dilation = {static_cast<int>(c_.dil_h), static_cast<int>(c_.dil_w)};
    return p;
  }

  // C = A B over the last two dims, batch dims of extent 1 broadcast.
  Node matmul(const Node &a, const Node &b, const Out &o) {
    const int64_t batch = std::max(a.dims()[0], b.dims()[0]), m = a.dims()[1], k = a.dims()[2], n = b.dims()[2];
    Ref r;
    r.dims = {batch, m, n};
    for (int64_t bi = 0; c_.reference && bi < batch; ++bi) {
      const int64_t ab = a.dims()[0] == 1 ? 0 : bi, bb = b.dims()[0] == 1 ? 0 : bi;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0, mag = 0, carried = 0;
          for (int64_t t = 0; t < k; ++t) {
            const size_t ia = static_cast<size_t>((ab * m + i) * k + t), ib = static_cast<size_t>((bb * k + t) * n + j);
            const double x = a.ref.v[ia], y = b.ref.v[ib];
            s += x * y;
            mag += std::fabs(x * y);
            carried += std::fabs(x) * b.ref.e[ib] + std::fabs(y) * a.ref.e[ia] + a.ref.e[ia] * b.ref.e[ib];
          }
          r.v.push_back(s);
          r.e.push_back(static_cast<double>(k + 4) * kU * mag + carried);
        }
    }
    Node c = output(o, std::move(r));
    GraphOpBuilder::matmul(a.desc, b.desc, c.desc);
    return c;
  }

  // x * s + b with s, b [1, C, 1, 1] float (the BN-apply prologue).
  Node scale_bias(const Node &x, int64_t s_uid, int64_t b_uid, const std::string &prefix) {
    const std::vector<int64_t> cd{1, x.dims()[1], 1, 1};
    Node s = input(s_uid, prefix + "scale", CUDNN_DATA_FLOAT, cd, 0.5, 1.5);
    Node b = input(b_uid, prefix + "bias", CUDNN_DATA_FLOAT, cd, -1, 1);
    Node t = pointwise(CUDNN_POINTWISE_MUL, x, &s, Out::virt());
    return pointwise(CUDNN_POINTWISE_ADD, t, &b, Out::virt());
  }

  void build() {
    const cudnnDataType_t io = c_.io_type, f32 = CUDNN_DATA_FLOAT;
    const std::vector<int64_t> xd{c_.n, c_.c, c_.h, c_.w}, wd{c_.k, c_.c, c_.r, c_.s}, yd = c_.conv_out_dims(),
                               kd{1, c_.k, 1, 1}, cd{1, c_.c, 1, 1};
    switch (c_.pattern) {
      case FusionPattern::conv_bias_act:
      case FusionPattern::conv_scale_bias_act: {
        Node x = input(1, "x", io, xd, -1, 1), w = input(2, "w", io, wd, -1, 1);
        Node y = conv(Conv::fwd, x, w, yd, Out::virt(), params());
        if (c_.pattern == FusionPattern::conv_scale_bias_act) {
          Node scale = input(3, "scale", f32, kd, 0.5, 1.5);
          y = pointwise(CUDNN_POINTWISE_MUL, y, &scale, Out::virt());
        }
        Node bias = input(4, "bias", c_.pattern == FusionPattern::conv_bias_act ? io : f32, kd, -1, 1);
        y = pointwise(CUDNN_POINTWISE_ADD, y, &bias, Out::virt());
        pointwise(c_.act, y, nullptr, Out::to(5, "y", io));
        break;
      }
      case FusionPattern::conv_bn_fprop: {
        Node x = input(1, "x", io, xd, -1, 1);
        Node t = pointwise(CUDNN_POINTWISE_RELU_FWD, scale_bias(x, 2, 3, ""), nullptr, Out::virt());
        Node w = input(4, "w", io, wd, -1, 1);
        Node y = conv(Conv::fwd, t, w, yd, Out::to(5, "y", io), params());
        gen_stats(y, 6, 7);
        break;
      }
      case FusionPattern::dbarcs: {
        Node x = input(1, "x", io, xd, -1, 1), dual = input(4, "dual_x", io, xd, -1, 1);
        Node a = scale_bias(x, 2, 3, ""), b = scale_bias(dual, 5, 6, "dual_");
        Node sum = pointwise(CUDNN_POINTWISE_ADD, a, &b, Out::virt());
        Node relu_y = pointwise(CUDNN_POINTWISE_RELU_FWD, sum, nullptr, Out::to(7, "relu_y", io));
        Node w = input(8, "w", io, wd, -1, 1);
        Node y = conv(Conv::fwd, relu_y, w, yd, Out::to(9, "y", io), params());
        gen_stats(y, 10, 11);
        break;
      }
      case FusionPattern::conv_bn_wgrad: {
        Node x = input(1, "x", io, xd, -1, 1);
        Node t = pointwise(CUDNN_POINTWISE_RELU_FWD, scale_bias(x, 2, 3, ""), nullptr, Out::virt());
        Node dy = input(4, "dy", io, yd, -1, 1);
        conv(Conv::bwd_filter, t, dy, wd, Out::to(5, "dw", io), params());
        break;
      }
      case FusionPattern::dgrad_drelu: {
        Node dy = input(1, "dy", io, yd, -1, 1), w = input(2, "w", io, wd, -1, 1);
        Node g = conv(Conv::bwd_data, dy, w, xd, Out::virt(), params());
        Node xf = input(3, "x_fwd", io, xd, -1, 1);
        pointwise(CUDNN_POINTWISE_RELU_BWD, xf, &g, Out::to(4, "dx", io));
        break;
      }
      case FusionPattern::matmul_bias_gelu: {
        Node a = input(1, "A", io, {c_.batch, c_.m, c_.kk}, -1, 1);
        Node b = input(2, "B", io, {c_.broadcast_b ? 1 : c_.batch, c_.kk, c_.nn}, -1, 1);
        if (c_.a_prologue) {
          Node sc = input(3, "a_scale", f32, {1, 1, 1}, 0.5, 1.5);
          a = pointwise(CUDNN_POINTWISE_MUL, a, &sc, Out::virt());
        }
        Node cm = matmul(a, b, Out::virt());
        Node bias = input(4, "bias", io, {1, 1, c_.nn}, -1, 1);
        Node pre = pointwise(CUDNN_POINTWISE_ADD, cm, &bias, c_.pre_output ? Out::to(5, "pre", io) : Out::virt());
        Node out = pointwise(CUDNN_POINTWISE_GELU_FWD, pre, nullptr, Out::to(6, "out", io));
        if (c_.row_sum) reduction(CUDNN_REDUCE_TENSOR_ADD, out, {c_.batch, c_.m, 1}, Out::to(7, "row_sum", f32));
        break;
      }
      case FusionPattern::dbn_apply: {
        Node dy = input(1, "dy", io, xd, -1, 1), x = input(2, "x", io, xd, -1, 1);
        Node ca = input(3, "A", f32, cd, -1, 1), cb = input(4, "B", f32, cd, -1, 1), cc = input(5, "C", f32, cd, -1, 1);
        Node t1 = pointwise(CUDNN_POINTWISE_MUL, dy, &ca, Out::virt());
        Node t2 = pointwise(CUDNN_POINTWISE_MUL, x, &cb, Out::virt());
        Node t3 = pointwise(CUDNN_POINTWISE_ADD, t1, &t2, Out::virt());
        pointwise(CUDNN_POINTWISE_ADD, t3, &cc, Out::to(6, "dx", io));
        break;
      }
      case FusionPattern::pointwise_reduction: {
        const std::vector<int64_t> md{c_.n, c_.c, c_.h, 1};
        Node x = input(1, "x", io, xd, -2, 2), m = input(2, "m", f32, md, -1, 1);
        Node t = pointwise(CUDNN_POINTWISE_SUB, x, &m, Out::virt());
        Node e = pointwise(CUDNN_POINTWISE_EXP, t, nullptr, Out::to(3, "e", io));
        reduction(CUDNN_REDUCE_TENSOR_ADD, e, md, Out::to(4, "l", f32));
        g_.fusable = true;
        break;
      }
      case FusionPattern::two_convs: {
        Node x = input(1, "x", io, xd, -1, 1), w = input(2, "w", io, wd, -1, 1);
        Node y = conv(Conv::fwd, x, w, yd, Out::virt(), params());
        // A second 3x3 convolution, padding 1, back to c channels.
        ConvParams p2;
        p2.pad = {1, 1}, p2.stride = {1, 1}, p2.dilation = {1, 1};
        Node w2 = input(3, "w2", io, {c_.c, c_.k, 3, 3}, -1, 1);
        conv(Conv::fwd, y, w2, {c_.n, c_.c, yd[2], yd[3]}, Out::to(4, "y2", io), p2);
        g_.fusable = false;
        break;
      }
      case FusionPattern::reduction_then_pointwise: {
        Node x = input(1, "x", io, xd, -1, 1);
        Node m = reduction(CUDNN_REDUCE_TENSOR_MAX, x, {c_.n, c_.c, 1, 1}, Out::virt());
        pointwise(CUDNN_POINTWISE_SUB, x, &m, Out::to(2, "y", io));
        g_.fusable = false;
        break;
      }
    }
  }

 private:
  const FusionConfig &c_;
  FusionGraph &g_;
  Rng &rng_;
};

}  // namespace

FusionGraph build_fusion_graph(const FusionConfig &c, Rng &rng) {
  FusionGraph g;
  Builder b(c, g, rng);
  b.build();
  b.move_descriptors();
  return g;
}

}  // namespace fdnn_test
