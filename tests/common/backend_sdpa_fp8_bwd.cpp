#include "common/backend_sdpa_fp8_bwd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/backend_ops.hpp"
#include "common/rng_reference.hpp"
#include "common/sdpa_graph_builder.hpp"

namespace fdnn_test {

std::string SdpaFp8BwdConfig::name() const {
  std::ostringstream os;
  os << "fp8 bwd " << type_name(io_type) << " b" << b << " h" << h << "/" << h_kv << " s" << s_q << "x" << s_kv
     << " d" << d << "/" << d_v << (bshd ? " bshd" : " bhsd") << (causal ? " causal" : "")
     << (dropout > 0 ? " dropout=" + std::to_string(dropout) : "") << (frontend ? " frontend" : "");
  return os.str();
}

namespace {

std::vector<int64_t> ones4() { return {1, 1, 1, 1}; }

std::vector<int64_t> swap_last2(std::vector<int64_t> v) {
  std::swap(v[v.size() - 1], v[v.size() - 2]);
  return v;
}

// Strides of a [b, heads, s, e] tensor in BHSD or BSHD memory order.
std::vector<int64_t> head_strides(bool bshd, int64_t heads, int64_t s, int64_t e) {
  if (bshd) return {s * heads * e, e, heads * e, 1};
  return {heads * s * e, s * e, e, 1};
}

// Rank 4, or for grouped heads with 1 < h_kv < h the grouped rank-5 form
// of the other attention graphs (backend_sdpa.hpp): [b, h_kv, g, s, e] for
// the query side, [b, h_kv, 1, s, e] for K and V, so that the head-group
// sums of dK and dV are reductions of dimension 2 to 1 (FreeDNN's reduction,
// like cuDNN's finalize rule for plain reductions, reduces to 1 or keeps a
// dimension; h_kv = 1 reduces dimension 1 to 1 in rank 4).
struct Form {
  bool r5 = false;
  int64_t g = 1;
  explicit Form(const SdpaFp8BwdConfig &c) : r5(c.h_kv != c.h && c.h_kv != 1), g(c.h / c.h_kv) {}
  int rank() const { return r5 ? 5 : 4; }
  // A [b, heads, s, e] tensor's dims and strides in the graph's form;
  // query side (heads = h) or K/V side (heads = h_kv).
  std::vector<int64_t> dims(const std::vector<int64_t> &d4, bool kv) const {
    if (!r5) return d4;
    return {d4[0], kv ? d4[1] : d4[1] / g, kv ? 1 : g, d4[2], d4[3]};
  }
  std::vector<int64_t> strides(const std::vector<int64_t> &s4, bool kv) const {
    if (!r5) return s4;
    return {s4[0], kv ? s4[1] : g * s4[1], s4[1], s4[2], s4[3]};
  }
};

class Fp8BwdBuilder : public GraphOpBuilder {
 public:
  Fp8BwdBuilder(const SdpaFp8BwdConfig &c, SdpaGraph &g) : GraphOpBuilder(g), c_(c), form_(c) {
    score_dims_ = form_.dims({c.b, c.h, c.s_q, c.s_kv}, false);
    row_dims_ = form_.dims({c.b, c.h, c.s_q, 1}, false);
    ones_.assign(static_cast<size_t>(form_.rank()), 1);
  }

  Desc *by_value(int64_t uid) { return keep(tensor_desc(uid, CUDNN_DATA_FLOAT, ones_, ones_, false, true)); }
  Desc *scalar(int64_t uid) { return real(uid, CUDNN_DATA_FLOAT, ones_, ones_); }
  Desc *mul(Desc *x, Desc *s, const std::vector<int64_t> &dims, cudnnDataType_t t = CUDNN_DATA_FLOAT) {
    Desc *y = virt(t, dims);
    pw(CUDNN_POINTWISE_MUL, x, s, y);
    return y;
  }
  // A caller tensor [b, heads, s, e] with 4-d strides st4, optionally
  // described transposed (the last two dims swapped).
  Desc *io(int64_t uid, const std::vector<int64_t> &d4, const std::vector<int64_t> &st4, bool kv, bool transposed) {
    std::vector<int64_t> d = form_.dims(d4, kv), st = form_.strides(st4, kv);
    if (transposed) d = swap_last2(d), st = swap_last2(st);
    return real(uid, c_.io_type, d, st);
  }

  // The frontend's matmul_fp8: C_f = A B [summed over the head group when
  // C has fewer heads] * da * db; amax = AMAX(C_f); c = C_f * sc.
  void matmul_fp8(Desc *a, Desc *b, const std::vector<int64_t> &full_dims, int64_t da, int64_t db, int64_t sc,
                  Desc *c, const std::vector<int64_t> &c_dims, int64_t amax) {
    Desc *acc = virt(CUDNN_DATA_FLOAT, full_dims);
    matmul(a, b, acc);
    if (full_dims != c_dims) {
      Desc *red = virt(CUDNN_DATA_FLOAT, c_dims);
      reduce(CUDNN_REDUCE_TENSOR_ADD, acc, red);
      acc = red;
    }
    acc = mul(acc, scalar(da), c_dims);
    acc = mul(acc, scalar(db), c_dims);
    pw(CUDNN_POINTWISE_MUL, acc, scalar(sc), c);
    reduce(CUDNN_REDUCE_TENSOR_AMAX, acc, scalar(amax));
  }

  void build() {
    const cudnnDataType_t io8 = c_.io_type;
    const std::vector<int64_t> q4{c_.b, c_.h, c_.s_q, c_.d}, o4{c_.b, c_.h, c_.s_q, c_.d_v};
    const std::vector<int64_t> k4{c_.b, c_.h_kv, c_.s_kv, c_.d}, v4{c_.b, c_.h_kv, c_.s_kv, c_.d_v};
    const std::vector<int64_t> q_st = head_strides(c_.bshd, c_.h, c_.s_q, c_.d),
                               o_st = head_strides(c_.bshd, c_.h, c_.s_q, c_.d_v),
                               k_st = head_strides(c_.bshd, c_.h_kv, c_.s_kv, c_.d),
                               v_st = head_strides(c_.bshd, c_.h_kv, c_.s_kv, c_.d_v);
    Desc *q = io(kF8Q, q4, q_st, false, false);
    Desc *kt = io(kF8Kt, k4, k_st, true, true);
    Desc *vt = io(kF8Vt, v4, v_st, true, true);
    Desc *o = io(kF8O, o4, o_st, false, false);
    Desc *d_o = io(kF8DO, o4, o_st, false, false);
    Desc *stats = real(kF8Stats, CUDNN_DATA_FLOAT, row_dims_, packed(row_dims_));
    Desc *qt = io(kF8Qt, q4, q_st, false, true);
    Desc *kn = io(kF8Kn, k4, k_st, true, false);
    Desc *dot = io(kF8DOt, o4, o_st, false, true);
    Desc *attn_scale = by_value(kF8Scale);
    const std::vector<int64_t> o_dims = form_.dims(o4, false), q_dims = form_.dims(q4, false);

    // Dot = sum(dO * O) * descale_dO * descale_O.
    Desc *prod = virt(CUDNN_DATA_FLOAT, o_dims);
    pw(CUDNN_POINTWISE_MUL, d_o, o, prod);
    Desc *row = virt(CUDNN_DATA_FLOAT, row_dims_);
    reduce(CUDNN_REDUCE_TENSOR_ADD, prod, row);
    row = mul(row, scalar(kF8DescaleDO), row_dims_);
    Desc *softmax_sum = mul(row, scalar(kF8DescaleO), row_dims_);
    if (c_.dropout > 0) softmax_sum = mul(softmax_sum, by_value(kF8DropScaleInv), row_dims_);

    // S, E = exp(S - stats), P8.
    const int r = form_.rank();
    Desc *s = virt(CUDNN_DATA_FLOAT, score_dims_);
    matmul(q, kt, s);
    s = mul(s, attn_scale, score_dims_);
    s = mul(s, scalar(kF8DescaleQ), score_dims_);
    s = mul(s, scalar(kF8DescaleK), score_dims_);
    if (c_.causal) {
      Desc *ri = virt(CUDNN_DATA_INT32, score_dims_), *ci = virt(CUDNN_DATA_INT32, score_dims_);
      pw(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, ri, nullptr, r - 2, CUDNN_DATA_INT32);
      pw(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, ci, nullptr, r - 1, CUDNN_DATA_INT32);
      Desc *keep_mask = virt(CUDNN_DATA_BOOLEAN, score_dims_);
      pw(CUDNN_POINTWISE_CMP_GE, ri, ci, keep_mask, nullptr, -1, CUDNN_DATA_INT32);
      Desc *masked = virt(CUDNN_DATA_FLOAT, score_dims_);
      pw(CUDNN_POINTWISE_BINARY_SELECT, s, by_value(kF8CausalFill), masked, keep_mask);
      s = masked;
    }
    Desc *centred = virt(CUDNN_DATA_FLOAT, score_dims_);
    pw(CUDNN_POINTWISE_SUB, s, stats, centred);
    Desc *e = virt(CUDNN_DATA_FLOAT, score_dims_);
    pw(CUDNN_POINTWISE_EXP, centred, nullptr, e);
    Desc *p_used = e;
    if (c_.dropout > 0) {
      Desc *seed = real(kF8Seed, CUDNN_DATA_INT64, ones_, ones_), *offset = real(kF8Offset, CUDNN_DATA_INT64, ones_, ones_);
      Desc *m = bernoulli(1.0 - c_.dropout, seed, offset, virt(CUDNN_DATA_FLOAT, score_dims_));
      p_used = mul(mul(e, m, score_dims_), by_value(kF8DropScale), score_dims_);
    }
    Desc *p8 = mul(p_used, scalar(kF8ScaleS), score_dims_, io8);

    // dV^T = dO^T P8 (per Q head, summed over the group).
    const std::vector<int64_t> dvt_full = swap_last2(form_.dims({c_.b, c_.h, c_.s_kv, c_.d_v}, false)),
                               dvt_dims = swap_last2(form_.dims(v4, true));
    if (c_.frontend) {
      const std::vector<int64_t> full = swap_last2(dvt_full), dims = swap_last2(dvt_dims);
      matmul_fp8(transposed(p8), d_o, c_.h != c_.h_kv ? full : dims, kF8DescaleS, kF8DescaleDO, kF8ScaleDV,
                 io(kF8DVt, v4, v_st, true, false), dims, kF8AmaxDV);
    } else {
      Desc *dvt = io(kF8DVt, v4, v_st, true, true);
      matmul_fp8(dot, p8, c_.h != c_.h_kv ? dvt_full : dvt_dims, kF8DescaleS, kF8DescaleDO, kF8ScaleDV, dvt, dvt_dims,
                 kF8AmaxDV);
    }

    // dS = (dP - Dot) E attn_scale; amax_dP; dS8.
    Desc *dp = virt(CUDNN_DATA_FLOAT, score_dims_);
    matmul(d_o, vt, dp);
    dp = mul(dp, scalar(kF8DescaleDO), score_dims_);
    dp = mul(dp, scalar(kF8DescaleV), score_dims_);
    Desc *diff = virt(CUDNN_DATA_FLOAT, score_dims_);
    pw(CUDNN_POINTWISE_SUB, dp, softmax_sum, diff);
    Desc *ds = mul(diff, e, score_dims_);
    if (c_.dropout > 0) ds = mul(ds, by_value(kF8DropScale), score_dims_);
    ds = mul(ds, attn_scale, score_dims_);
    reduce(CUDNN_REDUCE_TENSOR_AMAX, ds, scalar(kF8AmaxDP));
    Desc *ds8 = mul(ds, scalar(kF8ScaleDP), score_dims_, io8);

    // dQ = dS8 K; dK^T = Q^T dS8 (per Q head, summed over the group).
    Desc *dq = io(kF8DQ, q4, q_st, false, false);
    matmul_fp8(ds8, kn, q_dims, kF8DescaleDP, kF8DescaleK, kF8ScaleDQ, dq, q_dims, kF8AmaxDQ);
    const std::vector<int64_t> dkt_full = swap_last2(form_.dims({c_.b, c_.h, c_.s_kv, c_.d}, false)),
                               dkt_dims = swap_last2(form_.dims(k4, true));
    if (c_.frontend) {
      const std::vector<int64_t> full = swap_last2(dkt_full), dims = swap_last2(dkt_dims);
      matmul_fp8(transposed(ds8), q, c_.h != c_.h_kv ? full : dims, kF8DescaleDP, kF8DescaleQ, kF8ScaleDK,
                 io(kF8DKt, k4, k_st, true, false), dims, kF8AmaxDK);
      return;
    }
    Desc *dkt = io(kF8DKt, k4, k_st, true, true);
    matmul_fp8(qt, ds8, c_.h != c_.h_kv ? dkt_full : dkt_dims, kF8DescaleDP, kF8DescaleQ, kF8ScaleDK, dkt, dkt_dims,
               kF8AmaxDK);
  }

 private:
  // The frontend's RESHAPE transposing a virtual score-shaped FP8 tensor
  // (packed strides): y has the last two dims and strides swapped.
  Desc *transposed(Desc *x) {
    std::vector<int64_t> st = packed(score_dims_);
    Desc *y = virt(c_.io_type, swap_last2(score_dims_), swap_last2(st));
    reshape(x, y);
    return y;
  }

  const SdpaFp8BwdConfig &c_;
  Form form_;
  std::vector<int64_t> score_dims_, row_dims_, ones_;
};

}  // namespace

SdpaGraph build_sdpa_fp8_bwd_graph(const SdpaFp8BwdConfig &c) {
  SdpaGraph g;
  Fp8BwdBuilder(c, g).build();
  add_float_value(g, kF8Scale, static_cast<float>(c.scale));
  if (c.causal) add_float_value(g, kF8CausalFill, std::numeric_limits<float>::lowest());
  if (c.dropout > 0) {
    add_float_value(g, kF8DropScale, static_cast<float>(1.0 / (1.0 - c.dropout)));
    add_float_value(g, kF8DropScaleInv, static_cast<float>(1.0 - c.dropout));
  }
  return g;
}

HostTensor swap_last2_view(const HostTensor &t) {
  HostTensor v = t;
  v.dims = swap_last2(v.dims);
  v.strides = swap_last2(v.strides);
  return v;
}

SdpaFp8BwdData make_sdpa_fp8_bwd_data(const SdpaFp8BwdConfig &c, Rng &rng) {
  SdpaFp8BwdData d;
  const cudnnDataType_t io = c.io_type;
  auto make = [&](int64_t heads, int64_t s, int64_t e) {
    return make_tensor(io, {c.b, heads, s, e}, head_strides(c.bshd, heads, s, e));
  };
  d.q = make(c.h, c.s_q, c.d), d.o = make(c.h, c.s_q, c.d_v), d.d_o = make(c.h, c.s_q, c.d_v);
  d.k = make(c.h_kv, c.s_kv, c.d), d.v = make(c.h_kv, c.s_kv, c.d_v);
  d.dq = make(c.h, c.s_q, c.d), d.dk = make(c.h_kv, c.s_kv, c.d), d.dv = make(c.h_kv, c.s_kv, c.d_v);
  for (HostTensor *t : {&d.q, &d.k, &d.v, &d.o, &d.d_o}) fill_random(*t, rng, -2, 2);
  // The forward's stats (max + log sum of the dequantised, masked scores).
  d.stats = make_tensor(CUDNN_DATA_FLOAT, {c.b, c.h, c.s_q, 1}, packed({c.b, c.h, c.s_q, 1}));
  const int64_t group = c.h / c.h_kv;
  const double sc = static_cast<float>(c.scale) * c.descale_q * c.descale_k;
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h)
      for (int64_t i = 0; i < c.s_q; ++i) {
        std::vector<double> s;
        for (int64_t j = 0; j < c.s_kv; ++j) {
          if (c.causal && j > i) continue;
          double dot = 0;
          for (int64_t e = 0; e < c.d; ++e) dot += d.q.get({b, h, i, e}) * d.k.get({b, h / group, j, e});
          s.push_back(dot * sc);
        }
        const double m = *std::max_element(s.begin(), s.end());
        double l = 0;
        for (double v : s) l += std::exp(v - m);
        d.stats.set({b, h, i, 0}, m + std::log(l));
      }
  for (HostTensor *t : {&d.amax_dq, &d.amax_dk, &d.amax_dv, &d.amax_dp}) *t = make_tensor(CUDNN_DATA_FLOAT, ones4(), ones4());
  for (HostTensor *t : {&d.dq, &d.dk, &d.dv, &d.amax_dq, &d.amax_dk, &d.amax_dv, &d.amax_dp}) poison(*t);
  auto scalar = [&](int64_t uid, double v) {
    HostTensor x = make_tensor(CUDNN_DATA_FLOAT, ones4(), ones4());
    x.set({0, 0, 0, 0}, v);
    d.scalars.emplace_back(uid, std::move(x));
  };
  scalar(kF8DescaleQ, c.descale_q), scalar(kF8DescaleK, c.descale_k), scalar(kF8DescaleV, c.descale_v);
  scalar(kF8DescaleO, c.descale_o), scalar(kF8DescaleDO, c.descale_do), scalar(kF8DescaleS, c.descale_s);
  scalar(kF8DescaleDP, c.descale_dp), scalar(kF8ScaleS, c.scale_s), scalar(kF8ScaleDP, c.scale_dp);
  scalar(kF8ScaleDQ, c.scale_dq), scalar(kF8ScaleDK, c.scale_dk), scalar(kF8ScaleDV, c.scale_dv);
  if (c.dropout > 0) {
    for (auto [uid, v] : {std::pair<int64_t, int64_t>{kF8Seed, c.seed}, {kF8Offset, c.offset}}) {
      HostTensor x = make_tensor(CUDNN_DATA_INT64, ones4(), ones4());
      x.set({0, 0, 0, 0}, static_cast<double>(v));
      d.scalars.emplace_back(uid, std::move(x));
    }
  }
  return d;
}

void sdpa_fp8_bwd_tensors(const SdpaFp8BwdConfig &, SdpaFp8BwdData &d, SdpaFp8BwdTensors &t) {
  t.kt = swap_last2_view(d.k), t.vt = swap_last2_view(d.v), t.qt = swap_last2_view(d.q), t.kn = d.k;
  t.dot = swap_last2_view(d.d_o), t.dkt = swap_last2_view(d.dk), t.dvt = swap_last2_view(d.dv);
  t.list = {{kF8Q, &d.q},     {kF8Kt, &t.kt},   {kF8Vt, &t.vt},      {kF8O, &d.o},          {kF8DO, &d.d_o},
            {kF8Stats, &d.stats}, {kF8Qt, &t.qt}, {kF8Kn, &t.kn},     {kF8DOt, &t.dot},      {kF8DQ, &d.dq},
            {kF8DKt, &t.dkt}, {kF8DVt, &t.dvt}, {kF8AmaxDQ, &d.amax_dq}, {kF8AmaxDK, &d.amax_dk},
            {kF8AmaxDV, &d.amax_dv}, {kF8AmaxDP, &d.amax_dp}};
  for (auto &[uid, x] : d.scalars) t.list.push_back({uid, &x});
}

SdpaFp8BwdExpect sdpa_fp8_bwd_reference(const SdpaFp8BwdConfig &c, const SdpaFp8BwdData &d) {
  const double eps = 1.0 / (1 << 23);
  const cudnnDataType_t io = c.io_type;
  const int64_t group = c.h / c.h_kv;
  auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  const double scale = f(c.scale), score_scale = scale * f(c.descale_q) * f(c.descale_k);
  const size_t n = static_cast<size_t>(c.s_q * c.s_kv);
  const double drop_scale = c.dropout > 0 ? f(1.0 / (1.0 - c.dropout)) : 1.0, ds_drop = drop_scale;
  // An FP8 rounding of x known to within ex: the rounded value and the
  // width of the interval it may land in.
  struct Rounded {
    double v = 0, flip = 0;
  };
  auto fp8 = [&](double x, double ex) {
    ex += 2 * eps * std::fabs(x);  // the float product before the conversion
    return Rounded{round_to_type(io, x), round_to_type(io, x + ex) - round_to_type(io, x - ex)};
  };
  SdpaFp8BwdExpect out;
  out.dq.assign(static_cast<size_t>(c.b * c.h * c.s_q * c.d), Expect{});
  out.dk.assign(static_cast<size_t>(c.b * c.h_kv * c.s_kv * c.d), Expect{});
  out.dv.assign(static_cast<size_t>(c.b * c.h_kv * c.s_kv * c.d_v), Expect{});
  double amax_dp = 0, amax_dp_tol = 0;
  std::vector<Rounded> p8(n), ds8(n);
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h) {
      const int64_t hk = h / group;
      auto Q = [&](int64_t i, int64_t e) { return d.q.get({b, h, i, e}); };
      auto K = [&](int64_t j, int64_t e) { return d.k.get({b, hk, j, e}); };
      auto V = [&](int64_t j, int64_t e) { return d.v.get({b, hk, j, e}); };
      auto DO = [&](int64_t i, int64_t e) { return d.d_o.get({b, h, i, e}); };
      for (int64_t i = 0; i < c.s_q; ++i) {
        double dot = 0, dot_mag = 0;
        for (int64_t e = 0; e < c.d_v; ++e) {
          const double t = DO(i, e) * d.o.get({b, h, i, e});
          dot += t, dot_mag += std::fabs(t);
        }
        const double dsc = f(c.descale_do) * f(c.descale_o) * (c.dropout > 0 ? f(1.0 - c.dropout) : 1.0);
        dot *= dsc, dot_mag *= dsc;
        const double dot_err = (c.d_v + 6) * eps * dot_mag;
        const double stats = d.stats.get({b, h, i, 0});
        for (int64_t j = 0; j < c.s_kv; ++j) {
          const size_t k = static_cast<size_t>(i * c.s_kv + j);
          double s = 0, mag = 0;
          for (int64_t e = 0; e < c.d; ++e) {
            const double t = Q(i, e) * K(j, e);
            s += t, mag += std::fabs(t);
          }
          s *= score_scale, mag *= score_scale;
          const bool masked = c.causal && j > i;
          const double e_val = masked ? 0.0 : std::exp(s - stats);
          const double t_err = masked ? 0.0 : (c.d + 8) * eps * mag + 4 * eps * (std::fabs(s) + std::fabs(stats));
          const double e_err = e_val * (t_err + 4 * eps);
          // Dropout: the RNG op's mask of score element (b, h, i, j), the keep scale.
          const double keep = c.dropout > 0 ? bernoulli_draw(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(c.offset),
                                                               static_cast<uint64_t>(((b * c.h + h) * c.s_q + i) * c.s_kv + j),
                                                               1.0 - c.dropout) * drop_scale
                                            : 1.0;
          p8[k] = fp8(e_val * keep * f(c.scale_s), e_err * keep * f(c.scale_s));
          double dp = 0, dp_mag = 0;
          for (int64_t e = 0; e < c.d_v; ++e) {
            const double t = DO(i, e) * V(j, e);
            dp += t, dp_mag += std::fabs(t);
          }
          const double dpsc = f(c.descale_do) * f(c.descale_v);
          dp *= dpsc, dp_mag *= dpsc;
          const double diff = dp - dot;
          const double ds = diff * e_val * ds_drop * scale;
          const double ds_err =
              (e_val * ((c.d_v + 6) * eps * dp_mag + dot_err + 4 * eps * std::fabs(diff)) + e_err * std::fabs(diff)) *
                  ds_drop * scale + 4 * eps * std::fabs(ds);
          amax_dp = std::max(amax_dp, std::fabs(ds));
          amax_dp_tol = std::max(amax_dp_tol, ds_err);
          ds8[k] = fp8(ds * f(c.scale_dp), ds_err * f(c.scale_dp));
        }
      }
      // This head's terms of dV^T, dK^T (summed over the group) and dQ.
      const double dv_sc = f(c.descale_s) * f(c.descale_do), dk_sc = f(c.descale_dp) * f(c.descale_q),
                   dq_sc = f(c.descale_dp) * f(c.descale_k);
      const double acc_eps = (c.s_q * group + 8) * eps;
      for (int64_t j = 0; j < c.s_kv; ++j) {
        for (int64_t e = 0; e < c.d_v; ++e) {
          double v = 0, mag = 0, flips = 0;
          for (int64_t i = 0; i < c.s_q; ++i) {
            const Rounded &p = p8[static_cast<size_t>(i * c.s_kv + j)];
            const double o = DO(i, e);
            v += p.v * o, mag += std::fabs(p.v * o), flips += p.flip * std::fabs(o);
          }
          Expect &x = out.dv[static_cast<size_t>(((b * c.h_kv + hk) * c.s_kv + j) * c.d_v + e)];
          x.value += v * dv_sc, x.tolerance += (flips + acc_eps * mag) * dv_sc;
        }
        for (int64_t e = 0; e < c.d; ++e) {
          double v = 0, mag = 0, flips = 0;
          for (int64_t i = 0; i < c.s_q; ++i) {
            const Rounded &p = ds8[static_cast<size_t>(i * c.s_kv + j)];
            const double q = Q(i, e);
            v += p.v * q, mag += std::fabs(p.v * q), flips += p.flip * std::fabs(q);
          }
          Expect &x = out.dk[static_cast<size_t>(((b * c.h_kv + hk) * c.s_kv + j) * c.d + e)];
          x.value += v * dk_sc, x.tolerance += (flips + acc_eps * mag) * dk_sc;
        }
      }
      for (int64_t i = 0; i < c.s_q; ++i)
        for (int64_t e = 0; e < c.d; ++e) {
          double v = 0, mag = 0, flips = 0;
          for (int64_t j = 0; j < c.s_kv; ++j) {
            const Rounded &p = ds8[static_cast<size_t>(i * c.s_kv + j)];
            const double kk = K(j, e);
            v += p.v * kk, mag += std::fabs(p.v * kk), flips += p.flip * std::fabs(kk);
          }
          out.dq[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d + e)] =
              Expect{v * dq_sc, (flips + (c.s_kv + 8) * eps * mag) * dq_sc};
        }
    }
  // amax of the values before the output scale; the outputs scaled (one
  // more float rounding before the FP8 store, which matches() applies).
  auto finish = [eps](std::vector<Expect> &xs, double out_scale, std::vector<Expect> &amax) {
    double a = 0, tol = 0;
    for (Expect &x : xs) {
      x.tolerance += 4 * eps * std::fabs(x.value) + 1e-30;
      a = std::max(a, std::fabs(x.value));
      tol = std::max(tol, x.tolerance);
      x.value *= out_scale, x.tolerance *= out_scale;
    }
    amax = {Expect{a, tol}};
  };
  finish(out.dq, f(c.scale_dq), out.amax_dq);
  finish(out.dk, f(c.scale_dk), out.amax_dk);
  finish(out.dv, f(c.scale_dv), out.amax_dv);
  out.amax_dp = {Expect{amax_dp, amax_dp_tol + 1e-30}};
  return out;
}

}  // namespace fdnn_test
