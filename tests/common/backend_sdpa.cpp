#include "common/backend_sdpa.hpp"

#include "common/rng_reference.hpp"
#include "common/sdpa_graph_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace fdnn_test {

std::string SdpaConfig::name() const {
  std::ostringstream os;
  os << type_name(io_type) << " b" << b << " h" << h << "/" << h_kv << " s" << s_q << "x" << s_kv << " d" << d << "/"
     << d_v << (bshd ? " bshd" : " bhsd") << (scale_by_value ? " scale=value" : " scale=tensor")
     << (bias ? " bias" : "") << (alibi ? " alibi" : "") << (padding ? " padding" : "") << (causal ? " causal" : "")
     << (window ? " window=" + std::to_string(window) : "") << (stats ? " stats" : "")
     << (p_scale != 1.0 ? " p_scale" : "") << (dropout > 0 ? " dropout=" + std::to_string(dropout) : "")
     << (rank4_groups ? " rank4" : "");
  return os.str();
}

namespace {

bool grouped_rank5(const SdpaConfig &c) { return sdpa_rank5(c); }

// Strides of a [b, heads, s, e] tensor in BHSD or BSHD memory order, in the
// rank-4 or the grouped rank-5 ([b, h_kv, g, s, e]) form.
std::vector<int64_t> qkv_strides(const SdpaConfig &c, int64_t heads, int64_t s, int64_t e, bool rank5, int64_t g) {
  int64_t sb, sh, ss;
  if (c.bshd) {
    sb = s * heads * e, sh = e, ss = heads * e;
  } else {
    sb = heads * s * e, sh = s * e, ss = e;
  }
  if (!rank5) return {sb, sh, ss, 1};
  return {sb, g * sh, sh, ss, 1};
}

std::vector<int64_t> batch_dims(const SdpaConfig &c, bool kv) {
  if (!grouped_rank5(c)) return {c.b, kv ? c.h_kv : c.h};
  return {c.b, c.h_kv, kv ? 1 : c.h / c.h_kv};
}

std::vector<int64_t> with(std::vector<int64_t> v, std::initializer_list<int64_t> tail) {
  v.insert(v.end(), tail);
  return v;
}

std::vector<int64_t> ones(int rank) { return std::vector<int64_t>(static_cast<size_t>(rank), 1); }

}  // namespace

SdpaShapes sdpa_shapes(const SdpaConfig &c) {
  SdpaShapes s;
  const bool r5 = grouped_rank5(c);
  const int64_t g = r5 ? c.h / c.h_kv : 1;
  const std::vector<int64_t> qb = batch_dims(c, false), kb = batch_dims(c, true);
  s.q_dims = with(qb, {c.s_q, c.d});
  s.q_strides = qkv_strides(c, c.h, c.s_q, c.d, r5, g);
  s.k_dims = with(kb, {c.s_kv, c.d});
  s.k_strides = qkv_strides(c, c.h_kv, c.s_kv, c.d, r5, 1);
  s.v_dims = with(kb, {c.s_kv, c.d_v});
  s.v_strides = qkv_strides(c, c.h_kv, c.s_kv, c.d_v, r5, 1);
  s.o_dims = with(qb, {c.s_q, c.d_v});
  s.o_strides = qkv_strides(c, c.h, c.s_q, c.d_v, r5, g);
  s.kt_dims = with(kb, {c.d, c.s_kv});
  s.kt_strides = s.k_strides;
  std::swap(s.kt_strides[s.kt_strides.size() - 1], s.kt_strides[s.kt_strides.size() - 2]);
  s.score_dims = with(qb, {c.s_q, c.s_kv});
  s.row_dims = with(qb, {c.s_q, 1});
  std::vector<int64_t> hb = qb;
  hb[0] = 1;
  s.bias_dims = with(hb, {c.s_q, c.s_kv});
  s.slopes_dims = with(hb, {1, 1});
  s.seq_dims = ones(s.rank());
  s.seq_dims[0] = c.b;
  return s;
}

namespace {

class Builder : public SdpaGraphBuilder {
 public:
  using SdpaGraphBuilder::SdpaGraphBuilder;

  void build() {
    const cudnnDataType_t io = cfg_.io_type;
    Desc *q = real(kSdpaQ, io, sh_.q_dims, sh_.q_strides);
    Desc *kt = real(kSdpaK, io, sh_.kt_dims, sh_.kt_strides);
    Desc *v = real(kSdpaV, io, sh_.v_dims, sh_.v_strides);
    Desc *o = real(kSdpaO, io, sh_.o_dims, sh_.o_strides);

    Desc *s = score();
    matmul(q, kt, s);
    s = scale_bias_alibi_padding(s, scale());
    s = causal_and_window(s);
    // Softmax over the last dim, as separate operations.
    Desc *max = virt(CUDNN_DATA_FLOAT, sh_.row_dims);
    reduce(CUDNN_REDUCE_TENSOR_MAX, s, max);
    Desc *centered = score();
    pw(CUDNN_POINTWISE_SUB, s, max, centered);
    Desc *e = score();
    pw(CUDNN_POINTWISE_EXP, centered, nullptr, e);
    Desc *sum = virt(CUDNN_DATA_FLOAT, sh_.row_dims);
    reduce(CUDNN_REDUCE_TENSOR_ADD, e, sum);
    if (cfg_.stats) {
      Desc *log_sum = virt(CUDNN_DATA_FLOAT, sh_.row_dims);
      pw(CUDNN_POINTWISE_LOG, sum, nullptr, log_sum);
      Desc *stats = real(kSdpaStats, CUDNN_DATA_FLOAT, sh_.row_dims);
      pw(CUDNN_POINTWISE_ADD, max, log_sum, stats);
    }
    Desc *p = score();
    pw(CUDNN_POINTWISE_DIV, e, sum, p);
    if (cfg_.dropout > 0) p = dropout(p);
    if (cfg_.p_scale != 1.0) {
      Desc *scaled_p = score();
      pw(CUDNN_POINTWISE_MUL, p, by_value(kSdpaPScale, CUDNN_DATA_FLOAT), scaled_p);
      p = scaled_p;
    }
    matmul(p, v, o);
  }

  // P * RNG(BERNOULLI keep) * 1 / (1 - dropout), as cudnn-frontend forms it.
  Desc *dropout(Desc *p) {
    Desc *mask = dropout_mask();
    Desc *dropped = score();
    pw(CUDNN_POINTWISE_MUL, p, mask, dropped);
    Desc *scaled = score();
    pw(CUDNN_POINTWISE_MUL, dropped, by_value(kSdpaDropScale, CUDNN_DATA_FLOAT), scaled);
    return scaled;
  }
};

}  // namespace

SdpaGraph build_sdpa_graph(const SdpaConfig &c) {
  SdpaGraph g;
  Builder(c, g).build();
  // By-value constants: the attention scale (when by value), the fills of
  // masked scores and the window width.
  if (c.scale_by_value) add_float_value(g, kSdpaScale, static_cast<float>(c.scale));
  if (c.p_scale != 1.0) add_float_value(g, kSdpaPScale, static_cast<float>(c.p_scale));
  if (c.dropout > 0) add_float_value(g, kSdpaDropScale, static_cast<float>(1.0 / (1.0 - c.dropout)));
  add_mask_values(c, g);
  return g;
}

SdpaData make_sdpa_data(const SdpaConfig &c, Rng &rng) {
  const SdpaShapes sh = sdpa_shapes(c);
  SdpaData d;
  d.q = make_tensor(c.io_type, sh.q_dims, sh.q_strides);
  d.k = make_tensor(c.io_type, sh.k_dims, sh.k_strides);
  d.v = make_tensor(c.io_type, sh.v_dims, sh.v_strides);
  d.o = make_tensor(c.io_type, sh.o_dims, sh.o_strides);
  fill_random(d.q, rng, -1, 1);
  fill_random(d.k, rng, -1, 1);
  fill_random(d.v, rng, -1, 1);
  poison(d.o);
  d.stats = make_tensor(CUDNN_DATA_FLOAT, sh.row_dims, packed(sh.row_dims));
  poison(d.stats);
  d.scale = make_tensor(CUDNN_DATA_FLOAT, ones(sh.rank()), ones(sh.rank()));
  d.scale.set(std::vector<int64_t>(static_cast<size_t>(sh.rank()), 0), c.scale);
  d.bias = make_tensor(CUDNN_DATA_FLOAT, sh.bias_dims, packed(sh.bias_dims));
  fill_random(d.bias, rng, -1, 1);
  d.seq_q = make_tensor(CUDNN_DATA_INT32, sh.seq_dims, packed(sh.seq_dims));
  d.seq_kv = make_tensor(CUDNN_DATA_INT32, sh.seq_dims, packed(sh.seq_dims));
  fill_random(d.seq_q, rng, 1, static_cast<double>(c.s_q));
  fill_random(d.seq_kv, rng, 1, static_cast<double>(c.s_kv));
  for (int64_t b = 0; b < c.b; ++b) {
    std::vector<int64_t> i = sh.seq_dims;
    std::fill(i.begin(), i.end(), 0);
    i[0] = b;
    if (c.seq_q > 0) d.seq_q.set(i, static_cast<double>(c.seq_q));
    if (c.seq_kv > 0) d.seq_kv.set(i, static_cast<double>(c.seq_kv));
  }
  d.slopes = make_tensor(CUDNN_DATA_FLOAT, sh.slopes_dims, packed(sh.slopes_dims));
  fill_random(d.slopes, rng, 0.05, 0.5);
  d.seed = make_tensor(CUDNN_DATA_INT64, ones(sh.rank()), ones(sh.rank()));
  d.offset = make_tensor(CUDNN_DATA_INT64, ones(sh.rank()), ones(sh.rank()));
  d.seed.set(std::vector<int64_t>(static_cast<size_t>(sh.rank()), 0), static_cast<double>(c.seed));
  d.offset.set(std::vector<int64_t>(static_cast<size_t>(sh.rank()), 0), static_cast<double>(c.offset));
  return d;
}

int sdpa_keep(const SdpaConfig &c, int64_t b, int64_t h, int64_t i, int64_t j) {
  const uint64_t index = static_cast<uint64_t>(((b * c.h + h) * c.s_q + i) * c.s_kv + j);
  return bernoulli_draw(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(c.offset), index, 1.0 - c.dropout);
}

// softmax(scale * Q K^T + bias + alibi, masked) V, per (batch, head, row), in
// float64 with the masked scores set to the graph's fill values.
SdpaExpect sdpa_reference(const SdpaConfig &c, const SdpaData &d, int64_t row_step) {
  const double eps = 1.0 / (1 << 23);
  const int64_t g = c.h / c.h_kv;
  const bool r5 = sdpa_rank5(c);
  SdpaExpect out;
  out.o.resize(static_cast<size_t>(c.b * c.h * c.s_q * c.d_v));
  out.stats.resize(static_cast<size_t>(c.b * c.h * c.s_q));
  // Index vectors of the rank-4 or grouped rank-5 forms.
  auto qi = [&](int64_t b, int64_t h, int64_t s, int64_t e) -> std::vector<int64_t> {
    if (r5) return {b, h / g, h % g, s, e};
    return {b, h, s, e};
  };
  auto ki = [&](int64_t b, int64_t h, int64_t s, int64_t e) -> std::vector<int64_t> {
    const int64_t hk = c.h_kv == 1 ? 0 : h / g;
    if (r5) return {b, hk, 0, s, e};
    return {b, hk, s, e};
  };
  const int rank = r5 ? 5 : 4;
  std::vector<int64_t> zero(static_cast<size_t>(rank), 0);
  const double pad_fill = std::numeric_limits<float>::lowest();
  const double fill = static_cast<double>(static_cast<float>(c.causal_fill));
  const double scale = static_cast<float>(c.scale);
  std::vector<double> s(static_cast<size_t>(c.s_kv)), err(static_cast<size_t>(c.s_kv));
  for (int64_t b = 0; b < c.b; ++b) {
    std::vector<int64_t> bi = zero;
    bi[0] = b;
    const int64_t seq_q = static_cast<int64_t>(d.seq_q.get(bi)), seq_kv = static_cast<int64_t>(d.seq_kv.get(bi));
    for (int64_t h = 0; h < c.h; ++h) {
      std::vector<int64_t> hi = qi(0, h, 0, 0);
      const double slope = c.alibi ? d.slopes.get(hi) : 0.0;
      for (int64_t i = 0; i < c.s_q; ++i) {
        if (i % row_step != row_step - 1 && i != 0) continue;
        for (int64_t j = 0; j < c.s_kv; ++j) {
          double dot = 0, mag = 0;
          for (int64_t e = 0; e < c.d; ++e) {
            const double p = d.q.get(qi(b, h, i, e)) * d.k.get(ki(b, h, j, e));
            dot += p;
            mag += std::fabs(p);
          }
          double v = dot * scale;
          mag *= scale;
          if (c.bias) {
            std::vector<int64_t> bx = qi(0, h, i, j);
            v += d.bias.get(bx);
            mag += std::fabs(d.bias.get(bx));
          }
          if (c.alibi) {
            v += static_cast<double>(j - i) * slope;
            mag += std::fabs(static_cast<double>(j - i) * slope);
          }
          if (c.padding && !(i < seq_q && j < seq_kv)) v = pad_fill, mag = 0;
          if (c.causal && !(i >= j)) v = fill, mag = 0;
          if (c.window > 0 && !(j + c.window > i)) v = fill, mag = 0;
          s[static_cast<size_t>(j)] = v;
          err[static_cast<size_t>(j)] = (c.d + 8) * eps * (mag + std::fabs(v == fill || v == pad_fill ? 0 : v));
        }
        double m = -std::numeric_limits<double>::infinity();
        for (double v : s) m = std::max(m, v);
        double l = 0, max_err = 0;
        for (size_t j = 0; j < s.size(); ++j) {
          l += std::exp(s[j] - m);
          max_err = std::max(max_err, err[j]);
        }
        for (int64_t e = 0; e < c.d_v; ++e) {
          double o = 0, mag = 0;
          for (int64_t j = 0; j < c.s_kv; ++j) {
            double p = std::exp(s[static_cast<size_t>(j)] - m) / l;
            const double v = d.v.get(ki(b, h, j, e));
            if (c.dropout > 0) p *= sdpa_keep(c, b, h, i, j) * static_cast<double>(static_cast<float>(1.0 / (1.0 - c.dropout)));
            o += p * v * static_cast<float>(c.p_scale);
            mag += p * std::fabs(v);
          }
          // A score error of max_err changes each weight by about 2 max_err
          // relative; plus float rounding of the weighted sum.
          out.o[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d_v + e)] =
              Expect{o, (4 * max_err + (c.s_kv + 16) * eps) * mag + 1e-7};
        }
        out.stats[static_cast<size_t>((b * c.h + h) * c.s_q + i)] =
            Expect{m + std::log(l), 2 * max_err + 16 * eps * (std::fabs(m) + std::fabs(std::log(l)))};
      }
    }
  }
  return out;
}

}  // namespace fdnn_test
