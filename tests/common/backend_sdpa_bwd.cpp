#include "common/backend_sdpa_bwd.hpp"

#include "common/sdpa_graph_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace fdnn_test {

std::string SdpaBwdConfig::name() const {
  return "bwd " + f.name() + (dbias ? " dbias" : "") + (reshapes ? " reshapes" : "") + (frontend ? " frontend" : "");
}

namespace {

std::vector<int64_t> swap_last2(std::vector<int64_t> v) {
  std::swap(v[v.size() - 1], v[v.size() - 2]);
  return v;
}

bool grouped(const SdpaConfig &c) { return c.h_kv != c.h; }

// Shapes of the backward graph's tensors beyond the forward's.
struct BwdShapes {
  SdpaShapes f;
  std::vector<int64_t> qt_dims, qt_strides, dot_dims, dot_strides, vt_dims, vt_strides;
  std::vector<int64_t> dkt_full_dims, dvt_full_dims;  // per Q head (GQA/MQA)
};

BwdShapes bwd_shapes(const SdpaConfig &c) {
  BwdShapes s;
  s.f = sdpa_shapes(c);
  s.qt_dims = swap_last2(s.f.q_dims), s.qt_strides = swap_last2(s.f.q_strides);
  s.dot_dims = swap_last2(s.f.o_dims), s.dot_strides = swap_last2(s.f.o_strides);
  s.vt_dims = swap_last2(s.f.v_dims), s.vt_strides = swap_last2(s.f.v_strides);
  s.dkt_full_dims = s.f.q_dims, s.dkt_full_dims.back() = c.s_kv;
  s.dkt_full_dims[s.dkt_full_dims.size() - 2] = c.d;
  s.dvt_full_dims = s.f.q_dims, s.dvt_full_dims.back() = c.s_kv;
  s.dvt_full_dims[s.dvt_full_dims.size() - 2] = c.d_v;
  return s;
}

// Gapped strides: every dim's stride grows so that rows and matrices have
// a few unused elements after them.
std::vector<int64_t> gapped_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1] + (i >= static_cast<int>(dims.size()) - 3 ? 3 : 0);
  return s;
}

}  // namespace

SdpaGradShapes sdpa_grad_shape(const SdpaBwdConfig &c, char which) {
  const SdpaShapes sh = sdpa_shapes(c.f);
  SdpaGradShapes g;
  g.dims = which == 'q' ? sh.q_dims : which == 'k' ? sh.k_dims : sh.v_dims;
  g.strides = which == 'q' ? sh.q_strides : which == 'k' ? sh.k_strides : sh.v_strides;
  if (c.gapped) g.strides = gapped_strides(g.dims);
  return g;
}

namespace {

class BwdBuilder : public SdpaGraphBuilder {
 public:
  BwdBuilder(const SdpaBwdConfig &c, SdpaGraph &g) : SdpaGraphBuilder(c.f, g), c_(c), f_(c.f), bsh_(bwd_shapes(c.f)) {}

  void build() {
    const cudnnDataType_t io = f_.io_type;
    const SdpaShapes &fs = sh_;
    Desc *q = real(kSdpaQ, io, fs.q_dims, fs.q_strides);
    Desc *kt = real(kSdpaK, io, fs.kt_dims, fs.kt_strides);
    Desc *o = real(kSdpaO, io, fs.o_dims, fs.o_strides);
    Desc *d_o = real(kBwdDO, io, fs.o_dims, fs.o_strides);
    Desc *stats = real(kSdpaStats, CUDNN_DATA_FLOAT, fs.row_dims);
    Desc *vt, *qt, *kn, *dot;
    if (c_.reshapes) {
      vt = virt(io, bsh_.vt_dims, bsh_.vt_strides);
      reshape(real(kSdpaV, io, fs.v_dims, fs.v_strides), vt);
      kn = virt(io, fs.k_dims, fs.k_strides);
      reshape(kt, kn);
      qt = dot = nullptr;  // the frontend form reads Q and dO themselves
      if (!c_.frontend) {
        qt = virt(io, bsh_.qt_dims, bsh_.qt_strides);
        reshape(q, qt);
        dot = virt(io, bsh_.dot_dims, bsh_.dot_strides);
        reshape(d_o, dot);
      }
    } else {
      vt = real(kSdpaV, io, bsh_.vt_dims, bsh_.vt_strides);
      qt = real(kBwdQT, io, bsh_.qt_dims, bsh_.qt_strides);
      kn = real(kBwdKn, io, fs.k_dims, fs.k_strides);
      dot = real(kBwdDOT, io, bsh_.dot_dims, bsh_.dot_strides);
    }

    // Dot = sum over d_v of dO * O, times 1 (with dropout: the keep
    // probability, by value).
    Desc *prod = virt(CUDNN_DATA_FLOAT, fs.o_dims);
    pw(CUDNN_POINTWISE_MUL, d_o, o, prod);
    Desc *row = virt(CUDNN_DATA_FLOAT, fs.row_dims);
    reduce(CUDNN_REDUCE_TENSOR_ADD, prod, row);
    Desc *softmax_sum = real(kBwdSoftmaxSum, CUDNN_DATA_FLOAT, fs.row_dims);
    pw(CUDNN_POINTWISE_MUL, row, by_value(kBwdOne, CUDNN_DATA_FLOAT), softmax_sum);

    // S and P = exp(S - stats).
    Desc *s = score();
    matmul(q, kt, s);
    Desc *scale = SdpaGraphBuilder::scale();
    s = scale_bias_alibi_padding(s, scale);
    Desc *centred = score();
    pw(CUDNN_POINTWISE_SUB, s, stats, centred);
    s = causal_and_window(centred);
    Desc *e = score();
    pw(CUDNN_POINTWISE_EXP, s, nullptr, e);

    // [Dropout: P * M * 1 / (1 - p), the RNG op's mask M.]
    Desc *mask = f_.dropout > 0 ? dropout_mask() : nullptr;
    Desc *drop_scale = f_.dropout > 0 ? by_value(kSdpaDropScale, CUDNN_DATA_FLOAT) : nullptr;
    Desc *p_used = e;
    if (mask) {
      Desc *dropped = score();
      pw(CUDNN_POINTWISE_MUL, e, mask, dropped);
      p_used = score();
      pw(CUDNN_POINTWISE_MUL, dropped, drop_scale, p_used);
    }

    // dV^T = dO^T P (P cast to the I/O type), per Q head then summed.
    const SdpaGradShapes gv = sdpa_grad_shape(c_, 'v');
    if (c_.frontend) {
      product_of_transpose(p_used, d_o, real(kBwdDV, io, gv.dims, gv.strides), c_.f.d_v);
    } else {
    Desc *p_io = virt(io, fs.score_dims);
    pw(CUDNN_POINTWISE_IDENTITY, p_used, nullptr, p_io);
    Desc *dvt = real(kBwdDV, io, swap_last2(gv.dims), swap_last2(gv.strides));
    if (grouped(f_)) {
      Desc *full = virt(io, bsh_.dvt_full_dims);  // per Q head, in the I/O type as the frontend's
      matmul(dot, p_io, full);
      reduce(CUDNN_REDUCE_TENSOR_ADD, full, dvt);
    } else {
      matmul(dot, p_io, dvt);
    }
    }

    // dS = P (dO V^T - Dot) scale.
    Desc *dp = score();
    matmul(d_o, vt, dp);
    if (mask) {
      Desc *dropped = score();
      pw(CUDNN_POINTWISE_MUL, dp, mask, dropped);
      dp = dropped;
    }
    Desc *dp_centred = score();
    pw(CUDNN_POINTWISE_SUB, dp, softmax_sum, dp_centred);
    Desc *ds0 = score();
    pw(CUDNN_POINTWISE_MUL, dp_centred, e, ds0);
    if (mask) {
      Desc *scaled_ds = score();
      pw(CUDNN_POINTWISE_MUL, ds0, drop_scale, scaled_ds);
      ds0 = scaled_ds;
    }
    if (c_.dbias) reduce(CUDNN_REDUCE_TENSOR_ADD, ds0, real(kBwdDBias, CUDNN_DATA_FLOAT, fs.bias_dims));
    Desc *ds = score();
    pw(CUDNN_POINTWISE_MUL, ds0, scale, ds);

    // dK^T = Q^T dS (dS cast to the I/O type).
    const SdpaGradShapes gk = sdpa_grad_shape(c_, 'k');
    if (c_.frontend) {
      product_of_transpose(ds, q, real(kBwdDK, io, gk.dims, gk.strides), c_.f.d);
    } else {
    Desc *ds_io = virt(io, fs.score_dims);
    pw(CUDNN_POINTWISE_IDENTITY, ds, nullptr, ds_io);
    Desc *dkt = real(kBwdDK, io, swap_last2(gk.dims), swap_last2(gk.strides));
    if (grouped(f_)) {
      Desc *full = virt(io, bsh_.dkt_full_dims);
      matmul(qt, ds_io, full);
      reduce(CUDNN_REDUCE_TENSOR_ADD, full, dkt);
    } else {
      matmul(qt, ds_io, dkt);
    }
    }

    // dQ = dS K, through the float dQ_accum unless dBias is computed.
    const SdpaGradShapes gq = sdpa_grad_shape(c_, 'q');
    Desc *dq = real(kBwdDQ, io, gq.dims, gq.strides);
    if (c_.dbias) {
      matmul(ds, kn, dq);
    } else {
      Desc *acc = real(kBwdDqAccum, CUDNN_DATA_FLOAT, fs.q_dims);
      matmul(ds, kn, acc);
      pw(CUDNN_POINTWISE_IDENTITY, acc, nullptr, dq);
    }
  }

 private:
  // cudnn-frontend's out = MATMUL(RESHAPE(x) as x^T in the I/O type, b) for
  // the score-shaped virtual x ([.., s_q, s_kv] packed): the reshape's y has
  // the transposed dims and strides (a view of x); with grouped heads the
  // product per query head [.., h, s_kv, cols] is summed into out by a
  // REDUCTION ADD (rank 4: a grouped one).
  void product_of_transpose(Desc *x, Desc *b, Desc *out, int64_t cols) {
    const SdpaShapes &fs = sh_;
    std::vector<int64_t> st(fs.score_dims.size(), 1);
    for (int i = static_cast<int>(st.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * fs.score_dims[i + 1];
    Desc *xt = virt(f_.io_type, swap_last2(fs.score_dims), swap_last2(st));
    reshape(x, xt);
    if (!grouped(f_)) {
      matmul(xt, b, out);
      return;
    }
    std::vector<int64_t> full = fs.q_dims;
    full[full.size() - 2] = f_.s_kv;
    full.back() = cols;
    Desc *per_head = virt(f_.io_type, full);
    matmul(xt, b, per_head);
    reduce(CUDNN_REDUCE_TENSOR_ADD, per_head, out);
  }

  const SdpaBwdConfig &c_;
  const SdpaConfig &f_;
  BwdShapes bsh_;
};

}  // namespace

SdpaGraph build_sdpa_bwd_graph(const SdpaBwdConfig &c) {
  SdpaGraph g;
  BwdBuilder(c, g).build();
  add_float_value(g, kBwdOne, c.f.dropout > 0 ? static_cast<float>(1.0 - c.f.dropout) : 1.0f);
  if (c.f.dropout > 0) add_float_value(g, kSdpaDropScale, static_cast<float>(1.0 / (1.0 - c.f.dropout)));
  if (c.f.scale_by_value) add_float_value(g, kSdpaScale, static_cast<float>(c.f.scale));
  add_mask_values(c.f, g);
  return g;
}

SdpaBwdData make_sdpa_bwd_data(const SdpaBwdConfig &c, Rng &rng) {
  SdpaConfig fc = c.f;
  fc.stats = true, fc.p_scale = 1.0;
  const SdpaShapes sh = sdpa_shapes(fc);
  SdpaBwdData d;
  d.f = make_sdpa_data(fc, rng);
  const SdpaExpect fwd = sdpa_reference(fc, d.f);
  std::vector<double> o, st;
  for (const Expect &e : fwd.o) o.push_back(e.value);
  for (const Expect &e : fwd.stats) st.push_back(e.value);
  d.f.o.set_values(o);
  d.f.stats.set_values(st);
  d.d_o = make_tensor(c.f.io_type, sh.o_dims, sh.o_strides);
  fill_random(d.d_o, rng, -1, 1);
  for (auto [t, w] : {std::make_pair(&d.dq, 'q'), std::make_pair(&d.dk, 'k'), std::make_pair(&d.dv, 'v')}) {
    const SdpaGradShapes g = sdpa_grad_shape(c, w);
    *t = make_tensor(c.f.io_type, g.dims, g.strides);
  }
  d.dbias = make_tensor(CUDNN_DATA_FLOAT, sh.bias_dims, packed(sh.bias_dims));
  d.softmax_sum = make_tensor(CUDNN_DATA_FLOAT, sh.row_dims, packed(sh.row_dims));
  d.dq_accum = make_tensor(CUDNN_DATA_FLOAT, sh.q_dims, packed(sh.q_dims));
  for (HostTensor *t : {&d.dq, &d.dk, &d.dv, &d.dbias, &d.softmax_sum, &d.dq_accum}) poison(*t);
  return d;
}

namespace {

// Index helpers of the rank-4 or grouped rank-5 forms (as sdpa_reference).
struct Indexer {
  const SdpaConfig &c;
  int64_t g;
  bool r5;
  explicit Indexer(const SdpaConfig &cfg) : c(cfg), g(cfg.h / cfg.h_kv), r5(sdpa_rank5(cfg)) {}
  std::vector<int64_t> q(int64_t b, int64_t h, int64_t s, int64_t e) const {
    if (r5) return {b, h / g, h % g, s, e};
    return {b, h, s, e};
  }
  std::vector<int64_t> kv(int64_t b, int64_t h, int64_t s, int64_t e) const {
    const int64_t hk = c.h_kv == 1 ? 0 : h / g;
    if (r5) return {b, hk, 0, s, e};
    return {b, hk, s, e};
  }
  int64_t kv_head(int64_t h) const { return c.h_kv == 1 ? 0 : h / g; }
};

}  // namespace

SdpaBwdExpect sdpa_bwd_reference(const SdpaBwdConfig &cfg, const SdpaBwdData &d) {
  const SdpaConfig &c = cfg.f;
  const Indexer ix(c);
  const double eps = 1.0 / (1 << 23);
  const double u_io = unit_roundoff(c.io_type);
  // dK and dV terms: the cast of P / dS to the I/O type, and for grouped
  // heads the per-head product in the I/O type as well.
  const double u_kv = (c.h_kv != c.h ? 2 : 1) * u_io;
  const double scale = static_cast<float>(c.scale);
  const double pad_fill = std::numeric_limits<float>::lowest();
  const double fill = static_cast<double>(static_cast<float>(c.causal_fill));
  const bool drop = c.dropout > 0;
  const double keep_p = drop ? static_cast<float>(1.0 - c.dropout) : 1.0;   // the graph's by-value scalars
  const double drop_sc = drop ? static_cast<float>(1.0 / (1.0 - c.dropout)) : 1.0;
  SdpaBwdExpect out;
  out.dq.assign(static_cast<size_t>(c.b * c.h * c.s_q * c.d), Expect{});
  out.dk.assign(static_cast<size_t>(c.b * c.h_kv * c.s_kv * c.d), Expect{});
  out.dv.assign(static_cast<size_t>(c.b * c.h_kv * c.s_kv * c.d_v), Expect{});
  out.dbias.assign(static_cast<size_t>(c.h * c.s_q * c.s_kv), Expect{});
  out.softmax_sum.assign(static_cast<size_t>(c.b * c.h * c.s_q), Expect{});
  // Dense copies in logical order: [b, h, s, e] for Q, dO, O and
  // [b, h_kv, s, e] for K and V (the grouped rank-5 forms walk the same way).
  const std::vector<double> qv = d.f.q.values(), kv = d.f.k.values(), vv = d.f.v.values(), dov = d.d_o.values(),
                            ov = d.f.o.values(), bias = c.bias ? d.f.bias.values() : std::vector<double>();
  auto Q = [&](int64_t b, int64_t h, int64_t i, int64_t e) { return qv[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d + e)]; };
  auto DO = [&](int64_t b, int64_t h, int64_t i, int64_t e) { return dov[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d_v + e)]; };
  auto O = [&](int64_t b, int64_t h, int64_t i, int64_t e) { return ov[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d_v + e)]; };
  auto K = [&](int64_t b, int64_t h, int64_t j, int64_t e) {
    return kv[static_cast<size_t>(((b * c.h_kv + ix.kv_head(h)) * c.s_kv + j) * c.d + e)];
  };
  auto V = [&](int64_t b, int64_t h, int64_t j, int64_t e) {
    return vv[static_cast<size_t>(((b * c.h_kv + ix.kv_head(h)) * c.s_kv + j) * c.d_v + e)];
  };
  const size_t n = static_cast<size_t>(c.s_q * c.s_kv);
  // Per (b, h): P, dS0 (before the scale) and their absolute error bounds.
  std::vector<double> p(n), p_err(n), ds0(n), ds0_err(n), mask(n, 1.0);
  const int rank = ix.r5 ? 5 : 4;
  std::vector<int64_t> zero(static_cast<size_t>(rank), 0);
  for (int64_t b = 0; b < c.b; ++b) {
    std::vector<int64_t> bi = zero;
    bi[0] = b;
    const int64_t seq_q = static_cast<int64_t>(d.f.seq_q.get(bi)), seq_kv = static_cast<int64_t>(d.f.seq_kv.get(bi));
    for (int64_t h = 0; h < c.h; ++h) {
      const double slope = c.alibi ? d.f.slopes.get(ix.q(0, h, 0, 0)) : 0.0;
      const int64_t hk = ix.kv_head(h);
      for (int64_t i = 0; i < c.s_q; ++i) {
        std::vector<int64_t> ri = ix.q(b, h, i, 0);
        const double stats = d.f.stats.get(ri);
        double dot = 0, dot_mag = 0;
        for (int64_t e = 0; e < c.d_v; ++e) {
          const double t = DO(b, h, i, e) * O(b, h, i, e);
          dot += t, dot_mag += std::fabs(t);
        }
        dot *= keep_p, dot_mag *= keep_p;
        const double dot_err = (c.d_v + 4) * eps * dot_mag;
        out.softmax_sum[static_cast<size_t>((b * c.h + h) * c.s_q + i)] = Expect{dot, dot_err};
        for (int64_t j = 0; j < c.s_kv; ++j) {
          double s = 0, mag = 0;
          for (int64_t e = 0; e < c.d; ++e) {
            const double t = Q(b, h, i, e) * K(b, h, j, e);
            s += t, mag += std::fabs(t);
          }
          s *= scale, mag *= scale;
          if (c.bias) {
            const double bv = bias[static_cast<size_t>((h * c.s_q + i) * c.s_kv + j)];
            s += bv, mag += std::fabs(bv);
          }
          if (c.alibi) {
            const double a = static_cast<double>(j - i) * slope;
            s += a, mag += std::fabs(a);
          }
          bool masked = false;
          if (c.padding && !(i < seq_q && j < seq_kv)) s = pad_fill, mag = 0;
          double t = s - stats;
          if (s == pad_fill) t = static_cast<float>(t);  // the graph's float SUB absorbs the stats
          if (c.causal && !(i >= j)) t = fill, masked = true;
          if (c.window > 0 && !(j + c.window > i)) t = fill, masked = true;
          const size_t k = static_cast<size_t>(i * c.s_kv + j);
          p[k] = std::exp(t);
          // Score rounding (float dot product, scale, bias, the SUB).
          const double t_err = masked ? 0 : (c.d + 8) * eps * mag + 4 * eps * (std::fabs(s) + std::fabs(stats));
          p_err[k] = p[k] * (t_err + 4 * eps);
          double dp = 0, dp_mag = 0;
          for (int64_t e = 0; e < c.d_v; ++e) {
            const double v = DO(b, h, i, e) * V(b, h, j, e);
            dp += v, dp_mag += std::fabs(v);
          }
          const double m = drop ? sdpa_keep(c, b, h, i, j) : 1.0;
          mask[k] = m;
          dp *= m, dp_mag *= m;
          const double diff = dp - dot;
          ds0[k] = p[k] * diff * drop_sc;
          ds0_err[k] = (p[k] * ((c.d_v + 4) * eps * dp_mag + dot_err + 4 * eps * std::fabs(diff)) +
                        p_err[k] * std::fabs(diff)) * drop_sc;
          if (cfg.dbias) {
            Expect &x = out.dbias[static_cast<size_t>((h * c.s_q + i) * c.s_kv + j)];
            x.value += ds0[k];
            x.tolerance += ds0_err[k] + (c.b + 2) * eps * std::fabs(ds0[k]);
          }
        }
      }
      // dV, dK, dQ of this head.
      for (int64_t j = 0; j < c.s_kv; ++j) {
        for (int64_t e = 0; e < c.d_v; ++e) {
          double v = 0, err = 0;
          for (int64_t i = 0; i < c.s_q; ++i) {
            const size_t k = static_cast<size_t>(i * c.s_kv + j);
            const double o = DO(b, h, i, e), pd = p[k] * mask[k] * drop_sc;
            v += pd * o;
            err += (p_err[k] * mask[k] * drop_sc + (u_kv + (c.s_q + 8) * eps) * pd) * std::fabs(o);
          }
          Expect &x = out.dv[static_cast<size_t>(((b * c.h_kv + hk) * c.s_kv + j) * c.d_v + e)];
          x.value += v, x.tolerance += err + 1e-30;
        }
        for (int64_t e = 0; e < c.d; ++e) {
          double v = 0, err = 0;
          for (int64_t i = 0; i < c.s_q; ++i) {
            const size_t k = static_cast<size_t>(i * c.s_kv + j);
            const double q = Q(b, h, i, e);
            v += ds0[k] * scale * q;
            err += (ds0_err[k] + (u_kv + (c.s_q + 8) * eps) * std::fabs(ds0[k])) * scale * std::fabs(q);
          }
          Expect &x = out.dk[static_cast<size_t>(((b * c.h_kv + hk) * c.s_kv + j) * c.d + e)];
          x.value += v, x.tolerance += err + 1e-30;
        }
      }
      for (int64_t i = 0; i < c.s_q; ++i)
        for (int64_t e = 0; e < c.d; ++e) {
          double v = 0, err = 0;
          for (int64_t j = 0; j < c.s_kv; ++j) {
            const size_t k = static_cast<size_t>(i * c.s_kv + j);
            const double kk = K(b, h, j, e);
            v += ds0[k] * scale * kk;
            err += (ds0_err[k] + (c.s_kv + 8) * eps * std::fabs(ds0[k])) * scale * std::fabs(kk);
          }
          out.dq[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d + e)] = Expect{v, err + 1e-30};
        }
    }
  }
  return out;
}

double sdpa_loss(const SdpaConfig &c, const SdpaData &d, const HostTensor &d_o) {
  SdpaConfig fc = c;
  fc.stats = true, fc.p_scale = 1.0;
  const SdpaExpect fwd = sdpa_reference(fc, d);
  const std::vector<double> g = d_o.values();
  double loss = 0;
  for (size_t k = 0; k < g.size(); ++k) loss += g[k] * fwd.o[k].value;
  return loss;
}

}  // namespace fdnn_test
