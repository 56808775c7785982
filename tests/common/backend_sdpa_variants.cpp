#include "common/backend_sdpa_variants.hpp"

#include "common/sdpa_graph_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "common/rng_reference.hpp"

namespace fdnn_test {

std::string SdpaVariantConfig::name() const {
  std::ostringstream os;
  os << type_name(io_type) << " b" << b << " h" << h << "/" << h_kv << " s" << s_q << "x" << s_kv << " d" << d << "/"
     << d_v << (bshd ? " bshd" : " bhsd") << (causal ? " causal" : "") << (padding ? " padding" : "")
     << (stats ? " stats" : "")
     << (dropout == SdpaDropout::rng ? " dropout=rng" : dropout == SdpaDropout::mask ? " dropout=mask" : "")
     << (paged ? " paged bs=" + std::to_string(block_size) : "");
  return os.str();
}

namespace {

std::vector<int64_t> ones4() { return {1, 1, 1, 1}; }

// Strides of a [b, heads, s, e] tensor in BHSD or BSHD memory order.
std::vector<int64_t> head_strides(bool bshd, int64_t heads, int64_t s, int64_t e) {
  if (bshd) return {s * heads * e, e, heads * e, 1};
  return {heads * s * e, s * e, e, 1};
}

int64_t pages_of(const SdpaVariantConfig &c) { return (c.s_kv + c.block_size - 1) / c.block_size; }

class VariantBuilder : public GraphOpBuilder {
 public:
  VariantBuilder(const SdpaVariantConfig &c, SdpaVariantGraph &g) : GraphOpBuilder(g), c_(c) {
    score_dims_ = {c.b, c.h, c.s_q, c.s_kv};
    row_dims_ = {c.b, c.h, c.s_q, 1};
  }

  Desc *by_value(int64_t uid, cudnnDataType_t t) { return keep(tensor_desc(uid, t, ones4(), ones4(), false, true)); }
  Desc *scalar(int64_t uid) { return real(uid, CUDNN_DATA_FLOAT, ones4(), ones4()); }
  Desc *score(cudnnDataType_t t = CUDNN_DATA_FLOAT) { return virt(t, score_dims_); }

  // y = x * s (s a scalar tensor), y of type t.
  Desc *mul(Desc *x, Desc *s, const std::vector<int64_t> &dims, cudnnDataType_t t = CUDNN_DATA_FLOAT) {
    Desc *y = virt(t, dims);
    pw(CUDNN_POINTWISE_MUL, x, s, y);
    return y;
  }

  void paged_load(Desc *container, Desc *table, Desc *seq, Desc *y) {
    auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR));
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, container->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, seq->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, table->d),
              CUDNN_STATUS_SUCCESS);
    add(op);
  }

  // Bernoulli mask with the keep probability, seed / offset tensors.
  Desc *rng_mask() {
    Desc *seed = real(kVarSeed, c_.seed_type, ones4(), ones4());
    Desc *offset = real(kVarOffset, c_.seed_type, ones4(), ones4());
    return bernoulli(1.0 - c_.dropout_p, seed, offset, score());
  }

  Desc *index(Desc *of, bool column) {
    Desc *y = virt(CUDNN_DATA_INT32, score_dims_);
    pw(CUDNN_POINTWISE_GEN_INDEX, of, nullptr, y, nullptr, column ? 3 : 2, CUDNN_DATA_INT32);
    return y;
  }

  Desc *select(Desc *s, Desc *keep_mask, int64_t fill_uid) {
    Desc *out = score();
    pw(CUDNN_POINTWISE_BINARY_SELECT, s, by_value(fill_uid, CUDNN_DATA_FLOAT), out, keep_mask);
    return out;
  }

  void build() {
    const cudnnDataType_t io = c_.io_type;
    const bool fp8 = c_.fp8();
    const std::vector<int64_t> q_dims{c_.b, c_.h, c_.s_q, c_.d}, o_dims{c_.b, c_.h, c_.s_q, c_.d_v};
    const std::vector<int64_t> kt_dims{c_.b, c_.h_kv, c_.d, c_.s_kv}, v_dims{c_.b, c_.h_kv, c_.s_kv, c_.d_v};
    Desc *q = real(kVarQ, io, q_dims, head_strides(c_.bshd, c_.h, c_.s_q, c_.d));
    Desc *o = real(kVarO, io, o_dims, head_strides(c_.bshd, c_.h, c_.s_q, c_.d_v));
    const bool padding = c_.padding || c_.paged;
    Desc *seq_q = nullptr, *seq_kv = nullptr;
    if (padding) {
      seq_q = real(kVarSeqQ, CUDNN_DATA_INT32, {c_.b, 1, 1, 1}, {1, 1, 1, 1});
      seq_kv = real(kVarSeqKv, CUDNN_DATA_INT32, {c_.b, 1, 1, 1}, {1, 1, 1, 1});
    }
    Desc *kt, *v;
    if (c_.paged) {
      const int64_t blocks = c_.b * pages_of(c_) + 1;
      Desc *ck = real(kVarK, io, {blocks, c_.h_kv, c_.block_size, c_.d}, packed({blocks, c_.h_kv, c_.block_size, c_.d}));
      Desc *cv =
          real(kVarV, io, {blocks, c_.h_kv, c_.block_size, c_.d_v}, packed({blocks, c_.h_kv, c_.block_size, c_.d_v}));
      const std::vector<int64_t> table_dims{c_.b, 1, pages_of(c_), 1};
      Desc *tk = real(kVarPageK, CUDNN_DATA_INT32, table_dims, packed(table_dims));
      Desc *tv = real(kVarPageV, CUDNN_DATA_INT32, table_dims, packed(table_dims));
      // K^T in the transposed form (stride 1 on dim 2), V plain.
      kt = virt(io, kt_dims, {c_.h_kv * c_.d * c_.s_kv, c_.d * c_.s_kv, 1, c_.d});
      v = virt(io, v_dims);
      paged_load(ck, tk, seq_kv, kt);
      paged_load(cv, tv, seq_kv, v);
    } else {
      std::vector<int64_t> ks = head_strides(c_.bshd, c_.h_kv, c_.s_kv, c_.d);
      std::swap(ks[2], ks[3]);
      kt = real(kVarK, io, kt_dims, ks);
      v = real(kVarV, io, v_dims, head_strides(c_.bshd, c_.h_kv, c_.s_kv, c_.d_v));
    }

    Desc *s = score();
    matmul(q, kt, s);
    s = mul(s, by_value(kVarScale, CUDNN_DATA_FLOAT), score_dims_);
    if (fp8) {
      s = mul(s, scalar(kVarDescaleQ), score_dims_);
      s = mul(s, scalar(kVarDescaleK), score_dims_);
    }
    if (padding) {
      Desc *row = index(s, false), *col = index(s, true);
      Desc *row_ok = virt(CUDNN_DATA_BOOLEAN, score_dims_), *col_ok = virt(CUDNN_DATA_BOOLEAN, score_dims_);
      pw(CUDNN_POINTWISE_CMP_LT, row, seq_q, row_ok, nullptr, -1, CUDNN_DATA_INT32);
      pw(CUDNN_POINTWISE_CMP_LT, col, seq_kv, col_ok, nullptr, -1, CUDNN_DATA_INT32);
      Desc *both = virt(CUDNN_DATA_BOOLEAN, score_dims_);
      pw(CUDNN_POINTWISE_LOGICAL_AND, row_ok, col_ok, both, nullptr, -1, CUDNN_DATA_BOOLEAN);
      s = select(s, both, kVarPadFill);
    }
    if (c_.causal) {
      Desc *row = index(s, false), *col = index(s, true);
      Desc *keep_mask = virt(CUDNN_DATA_BOOLEAN, score_dims_);
      pw(CUDNN_POINTWISE_CMP_GE, row, col, keep_mask, nullptr, -1, CUDNN_DATA_INT32);
      s = select(s, keep_mask, kVarCausalFill);
    }
    Desc *max = virt(CUDNN_DATA_FLOAT, row_dims_);
    reduce(CUDNN_REDUCE_TENSOR_MAX, s, max);
    Desc *centered = score();
    pw(CUDNN_POINTWISE_SUB, s, max, centered);
    Desc *e = score();
    pw(CUDNN_POINTWISE_EXP, centered, nullptr, e);
    Desc *sum = virt(CUDNN_DATA_FLOAT, row_dims_);
    reduce(CUDNN_REDUCE_TENSOR_ADD, e, sum);
    if (c_.stats) {
      Desc *log_sum = virt(CUDNN_DATA_FLOAT, row_dims_);
      pw(CUDNN_POINTWISE_LOG, sum, nullptr, log_sum);
      Desc *stats = real(kVarStats, CUDNN_DATA_FLOAT, row_dims_, packed(row_dims_));
      pw(CUDNN_POINTWISE_ADD, max, log_sum, stats);
    }
    Desc *p = score();
    pw(CUDNN_POINTWISE_DIV, e, sum, p);
    if (c_.dropout != SdpaDropout::none) {
      Desc *mask = c_.dropout == SdpaDropout::rng ? rng_mask()
                                                  : real(kVarDropMask, CUDNN_DATA_FLOAT, score_dims_, packed(score_dims_));
      p = mul(p, mask, score_dims_);
      p = mul(p, by_value(kVarDropScale, CUDNN_DATA_FLOAT), score_dims_);
    }
    if (!fp8) {
      matmul(p, v, o);
      return;
    }
    reduce(CUDNN_REDUCE_TENSOR_AMAX, p, scalar(kVarAmaxS));
    Desc *p8 = mul(p, scalar(kVarScaleS), score_dims_, io);
    Desc *of = virt(CUDNN_DATA_FLOAT, o_dims);
    matmul(p8, v, of);
    of = mul(of, scalar(kVarDescaleS), o_dims);
    of = mul(of, scalar(kVarDescaleV), o_dims);
    pw(CUDNN_POINTWISE_MUL, of, scalar(kVarScaleO), o);
    reduce(CUDNN_REDUCE_TENSOR_AMAX, of, scalar(kVarAmaxO));
  }

 private:
  const SdpaVariantConfig &c_;
  std::vector<int64_t> score_dims_, row_dims_;
};

}  // namespace

SdpaVariantGraph build_sdpa_variant_graph(const SdpaVariantConfig &c) {
  SdpaVariantGraph g;
  VariantBuilder(c, g).build();
  auto add_float = [&](int64_t uid, double v) { add_float_value(g, uid, static_cast<float>(v)); };

  add_float(kVarScale, c.scale);
  if (c.padding || c.paged) add_float(kVarPadFill, std::numeric_limits<float>::lowest());
  if (c.causal) add_float(kVarCausalFill, std::numeric_limits<float>::lowest());
  if (c.dropout != SdpaDropout::none) add_float(kVarDropScale, 1.0 / (1.0 - c.dropout_p));
  return g;
}

SdpaVariantData make_sdpa_variant_data(const SdpaVariantConfig &c, Rng &rng) {
  SdpaVariantData d;
  const cudnnDataType_t io = c.io_type;
  d.q = make_tensor(io, {c.b, c.h, c.s_q, c.d}, head_strides(c.bshd, c.h, c.s_q, c.d));
  d.o = make_tensor(io, {c.b, c.h, c.s_q, c.d_v}, head_strides(c.bshd, c.h, c.s_q, c.d_v));
  fill_random(d.q, rng, -1, 1);
  poison(d.o);
  if (c.paged) {
    d.blocks = c.b * pages_of(c) + 1;
    const std::vector<int64_t> kd{d.blocks, c.h_kv, c.block_size, c.d}, vd{d.blocks, c.h_kv, c.block_size, c.d_v};
    d.k = make_tensor(io, kd, packed(kd));
    d.v = make_tensor(io, vd, packed(vd));
    const std::vector<int64_t> td{c.b, 1, pages_of(c), 1};
    d.page_k = make_tensor(CUDNN_DATA_INT32, td, packed(td));
    d.page_v = make_tensor(CUDNN_DATA_INT32, td, packed(td));
    // Each sequence's blocks scattered over the pages (K and V tables differ).
    std::vector<int64_t> perm_k(static_cast<size_t>(d.blocks)), perm_v(static_cast<size_t>(d.blocks));
    for (int64_t i = 0; i < d.blocks; ++i) perm_k[static_cast<size_t>(i)] = perm_v[static_cast<size_t>(i)] = i;
    rng.shuffle(perm_k);
    rng.shuffle(perm_v);
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t p = 0; p < pages_of(c); ++p) {
        const size_t i = static_cast<size_t>(b * pages_of(c) + p);
        d.page_k.set({b, 0, p, 0}, static_cast<double>(perm_k[i]));
        d.page_v.set({b, 0, p, 0}, static_cast<double>(perm_v[i]));
      }
  } else {
    d.k = make_tensor(io, {c.b, c.h_kv, c.s_kv, c.d}, head_strides(c.bshd, c.h_kv, c.s_kv, c.d));
    d.v = make_tensor(io, {c.b, c.h_kv, c.s_kv, c.d_v}, head_strides(c.bshd, c.h_kv, c.s_kv, c.d_v));
  }
  fill_random(d.k, rng, -1, 1);
  fill_random(d.v, rng, -1, 1);
  d.stats = make_tensor(CUDNN_DATA_FLOAT, {c.b, c.h, c.s_q, 1}, packed({c.b, c.h, c.s_q, 1}));
  poison(d.stats);
  d.seq_q = make_tensor(CUDNN_DATA_INT32, {c.b, 1, 1, 1}, {1, 1, 1, 1});
  d.seq_kv = make_tensor(CUDNN_DATA_INT32, {c.b, 1, 1, 1}, {1, 1, 1, 1});
  for (int64_t b = 0; b < c.b; ++b) {
    // The first sequence is full length, the others random.
    d.seq_q.set({b, 0, 0, 0}, static_cast<double>(b == 0 ? c.s_q : rng.integer(1, c.s_q)));
    d.seq_kv.set({b, 0, 0, 0}, static_cast<double>(b == 0 ? c.s_kv : rng.integer(1, c.s_kv)));
  }
  const std::vector<int64_t> sd{c.b, c.h, c.s_q, c.s_kv};
  d.drop_mask = make_tensor(CUDNN_DATA_FLOAT, sd, packed(sd));
  for_each_index(sd, [&](const std::vector<int64_t> &i) { d.drop_mask.set(i, rng.coin(1.0 - c.dropout_p) ? 1 : 0); });
  d.amax_s = make_tensor(CUDNN_DATA_FLOAT, ones4(), ones4());
  d.amax_o = make_tensor(CUDNN_DATA_FLOAT, ones4(), ones4());
  poison(d.amax_s);
  poison(d.amax_o);
  auto scalar = [&](int64_t uid, cudnnDataType_t t, double v) {
    HostTensor x = make_tensor(t, ones4(), ones4());
    x.set({0, 0, 0, 0}, v);
    d.scalars.emplace_back(uid, std::move(x));
  };
  if (c.dropout == SdpaDropout::rng) {
    scalar(kVarSeed, c.seed_type, static_cast<double>(c.seed));
    scalar(kVarOffset, c.seed_type, static_cast<double>(c.offset));
  }
  if (c.fp8()) {
    scalar(kVarDescaleQ, CUDNN_DATA_FLOAT, c.descale_q);
    scalar(kVarDescaleK, CUDNN_DATA_FLOAT, c.descale_k);
    scalar(kVarDescaleV, CUDNN_DATA_FLOAT, c.descale_v);
    scalar(kVarDescaleS, CUDNN_DATA_FLOAT, c.descale_s);
    scalar(kVarScaleS, CUDNN_DATA_FLOAT, c.scale_s);
    scalar(kVarScaleO, CUDNN_DATA_FLOAT, c.scale_o);
  }
  return d;
}

std::vector<std::pair<int64_t, HostTensor *>> sdpa_variant_tensors(const SdpaVariantConfig &c, SdpaVariantData &d) {
  std::vector<std::pair<int64_t, HostTensor *>> t = {{kVarQ, &d.q}, {kVarK, &d.k}, {kVarV, &d.v}, {kVarO, &d.o}};
  if (c.stats) t.push_back({kVarStats, &d.stats});
  if (c.padding || c.paged) {
    t.push_back({kVarSeqQ, &d.seq_q});
    t.push_back({kVarSeqKv, &d.seq_kv});
  }
  if (c.paged) {
    t.push_back({kVarPageK, &d.page_k});
    t.push_back({kVarPageV, &d.page_v});
  }
  if (c.dropout == SdpaDropout::mask) t.push_back({kVarDropMask, &d.drop_mask});
  for (auto &[uid, tensor] : d.scalars) t.push_back({uid, &tensor});
  if (c.fp8()) {
    t.push_back({kVarAmaxS, &d.amax_s});
    t.push_back({kVarAmaxO, &d.amax_o});
  }
  return t;
}

// softmax(scale * Q K^T [* descales], masked) [dropout] V per (batch, head,
// row) in float64, FP8 roundings where the graph rounds.
SdpaVariantExpect sdpa_variant_reference(const SdpaVariantConfig &c, const SdpaVariantData &d) {
  const double eps = 1.0 / (1 << 23);
  const bool fp8 = c.fp8();
  const int64_t group = c.h / c.h_kv;
  const double lowest = std::numeric_limits<float>::lowest();
  const bool padding = c.padding || c.paged;
  auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  const double score_scale = f(c.scale) * (fp8 ? f(c.descale_q) * f(c.descale_k) : 1.0);
  const double drop_scale = f(1.0 / (1.0 - c.dropout_p));
  // K or V element (b, head, j, e) as the graph sees it: paged caches gather
  // through the page table and give zeros past the sequence's end.
  auto kv = [&](const HostTensor &t, const HostTensor &table, int64_t b, int64_t hk, int64_t j, int64_t e) {
    if (!c.paged) return t.get({b, hk, j, e});
    if (j >= static_cast<int64_t>(d.seq_kv.get({b, 0, 0, 0}))) return 0.0;
    const int64_t page = static_cast<int64_t>(table.get({b, 0, j / c.block_size, 0}));
    if (page < 0 || page >= d.blocks) return 0.0;
    return t.get({page, hk, j % c.block_size, e});
  };
  SdpaVariantExpect out;
  out.o.resize(static_cast<size_t>(c.b * c.h * c.s_q * c.d_v));
  out.stats.resize(static_cast<size_t>(c.b * c.h * c.s_q));
  double amax_s = 0, amax_s_tol = 0, amax_o = 0, amax_o_tol = 0;
  std::vector<double> s(static_cast<size_t>(c.s_kv)), p(static_cast<size_t>(c.s_kv));
  for (int64_t b = 0; b < c.b; ++b) {
    const int64_t seq_q = static_cast<int64_t>(d.seq_q.get({b, 0, 0, 0}));
    const int64_t seq_kv = static_cast<int64_t>(d.seq_kv.get({b, 0, 0, 0}));
    for (int64_t h = 0; h < c.h; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < c.s_q; ++i) {
        double max_err = 0;
        for (int64_t j = 0; j < c.s_kv; ++j) {
          double dot = 0, mag = 0;
          for (int64_t e = 0; e < c.d; ++e) {
            const double prod = d.q.get({b, h, i, e}) * kv(d.k, d.page_k, b, hk, j, e);
            dot += prod;
            mag += std::fabs(prod);
          }
          double v = dot * score_scale;
          mag *= score_scale;
          bool masked = false;
          if (padding && !(i < seq_q && j < seq_kv)) masked = true;
          if (c.causal && !(i >= j)) masked = true;
          if (masked) v = lowest, mag = 0;
          s[static_cast<size_t>(j)] = v;
          max_err = std::max(max_err, (c.d + 8) * eps * (mag + (masked ? 0 : std::fabs(v))));
        }
        double m = -std::numeric_limits<double>::infinity();
        for (double v : s) m = std::max(m, v);
        double l = 0;
        for (double v : s) l += std::exp(v - m);
        for (int64_t j = 0; j < c.s_kv; ++j) {
          double pj = std::exp(s[static_cast<size_t>(j)] - m) / l;
          if (c.dropout != SdpaDropout::none) {
            const uint64_t index = static_cast<uint64_t>(((b * c.h + h) * c.s_q + i) * c.s_kv + j);
            const double keep = c.dropout == SdpaDropout::rng
                                    ? bernoulli_draw(static_cast<uint64_t>(c.seed), static_cast<uint64_t>(c.offset),
                                                     index, 1.0 - c.dropout_p)
                                    : d.drop_mask.get({b, h, i, j});
            pj *= keep * drop_scale;
          }
          if (fp8) {  // the graph's AMAX reads P after the dropout
            amax_s = std::max(amax_s, pj);
            amax_s_tol = std::max(amax_s_tol, pj * (4 * max_err + 16 * eps));
          }
          p[static_cast<size_t>(j)] = pj;
        }
        // Relative error of each weight: about 2 max_err from the scores,
        // plus a few float roundings in the softmax.
        const double p_rel = 4 * max_err + 16 * eps;
        for (int64_t e = 0; e < c.d_v; ++e) {
          double o = 0, mag = 0, flips = 0;
          for (int64_t j = 0; j < c.s_kv; ++j) {
            const double vj = kv(d.v, d.page_v, b, hk, j, e), pj = p[static_cast<size_t>(j)];
            if (!fp8) {
              o += pj * vj;
              mag += pj * std::fabs(vj);
              continue;
            }
            // P * scale_s rounds to FP8; an input within the weight's error
            // of a rounding boundary may land on either neighbour.
            const double x = pj * f(c.scale_s), x8 = round_to_type(c.io_type, x);
            const double lo = round_to_type(c.io_type, x * (1 - p_rel - 1e-6)),
                         hi = round_to_type(c.io_type, x * (1 + p_rel + 1e-6));
            o += x8 * vj;
            mag += x8 * std::fabs(vj);
            flips += (hi - lo) * std::fabs(vj);
          }
          double tol;
          if (!fp8) {
            tol = (p_rel + (c.s_kv + 16) * eps) * mag + 1e-7;
          } else {
            const double ds = f(c.descale_s) * f(c.descale_v);
            o *= ds;
            tol = (flips + (c.s_kv + 16) * eps * mag) * ds + 1e-7;
            amax_o = std::max(amax_o, std::fabs(o));
            amax_o_tol = std::max(amax_o_tol, tol);
            o *= f(c.scale_o);
            tol *= f(c.scale_o);
          }
          out.o[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d_v + e)] = Expect{o, tol};
        }
        out.stats[static_cast<size_t>((b * c.h + h) * c.s_q + i)] =
            Expect{m + std::log(l), 2 * max_err + 16 * eps * (std::fabs(m) + std::fabs(std::log(l)))};
      }
    }
  }
  out.amax_s = {Expect{amax_s, amax_s_tol}};
  out.amax_o = {Expect{amax_o, amax_o_tol}};
  return out;
}

}  // namespace fdnn_test
