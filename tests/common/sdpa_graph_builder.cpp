#include "common/sdpa_graph_builder.hpp"

#include <cstring>
#include <limits>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {

namespace {
std::vector<int64_t> ones(int rank) { return std::vector<int64_t>(static_cast<size_t>(rank), 1); }
}  // namespace

Desc *GraphOpBuilder::keep(std::unique_ptr<Desc> d) {
  g_.keep.push_back(std::move(d));
  return g_.keep.back().get();
}

Desc *GraphOpBuilder::real(int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims) {
  return keep(tensor_desc(uid, t, dims, packed(dims)));
}
Desc *GraphOpBuilder::real(int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims,
                             const std::vector<int64_t> &strides) {
  return keep(tensor_desc(uid, t, dims, strides));
}
Desc *GraphOpBuilder::virt(cudnnDataType_t t, const std::vector<int64_t> &dims) {
  return keep(tensor_desc(next_uid_++, t, dims, packed(dims), true));
}
Desc *GraphOpBuilder::virt(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  return keep(tensor_desc(next_uid_++, t, dims, strides, true));
}

void GraphOpBuilder::add(Desc *op) {
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
  g_.ops.push_back(op);
}

Desc *SdpaGraphBuilder::by_value(int64_t uid, cudnnDataType_t t) {
  return keep(tensor_desc(uid, t, ones(sh_.rank()), ones(sh_.rank()), false, true));
}
Desc *SdpaGraphBuilder::score() { return virt(CUDNN_DATA_FLOAT, sh_.score_dims); }

void GraphOpBuilder::matmul(Desc *a, Desc *b, Desc *c) {
  auto mm = keep(std::make_unique<Desc>(CUDNN_BACKEND_MATMUL_DESCRIPTOR));
  EXPECT_EQ(mm->set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(mm->finalize(), CUDNN_STATUS_SUCCESS);
  auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR));
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm->d), CUDNN_STATUS_SUCCESS);
  add(op);
}

void GraphOpBuilder::reshape(Desc *x, Desc *y) {
  auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR));
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  add(op);
}

void GraphOpBuilder::pw(cudnnPointwiseMode_t mode, Desc *x, Desc *b, Desc *y, Desc *t, int64_t axis,
                          cudnnDataType_t math) {
  auto p = keep(std::make_unique<Desc>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
  EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, math), CUDNN_STATUS_SUCCESS);
  if (axis >= 0) {
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, axis), CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(p->finalize(), CUDNN_STATUS_SUCCESS);
  auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, p->d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  if (b) {
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b->d), CUDNN_STATUS_SUCCESS);
  }
  if (t) {
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, t->d), CUDNN_STATUS_SUCCESS);
  }
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  add(op);
}

void GraphOpBuilder::reduce(cudnnReduceTensorOp_t mode, Desc *x, Desc *y) {
  auto r = keep(std::make_unique<Desc>(CUDNN_BACKEND_REDUCTION_DESCRIPTOR));
  EXPECT_EQ(r->set1(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR));
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  add(op);
}

Desc *SdpaGraphBuilder::index(Desc *of, bool column) {
  Desc *y = virt(CUDNN_DATA_INT32, sh_.score_dims);
  pw(CUDNN_POINTWISE_GEN_INDEX, of, nullptr, y, nullptr, sh_.rank() - (column ? 1 : 2), CUDNN_DATA_INT32);
  return y;
}

Desc *SdpaGraphBuilder::select(Desc *s, Desc *keep_mask, int64_t fill_uid) {
  Desc *fill = by_value(fill_uid, CUDNN_DATA_FLOAT);
  Desc *out = score();
  pw(CUDNN_POINTWISE_BINARY_SELECT, s, fill, out, keep_mask);
  return out;
}

Desc *SdpaGraphBuilder::scale() {
  return cfg_.scale_by_value ? by_value(kSdpaScale, CUDNN_DATA_FLOAT)
                             : real(kSdpaScale, CUDNN_DATA_FLOAT, ones(sh_.rank()));
}

Desc *SdpaGraphBuilder::scale_bias_alibi_padding(Desc *s, Desc *scale) {
  Desc *scaled = score();
  pw(CUDNN_POINTWISE_MUL, s, scale, scaled);
  s = scaled;
  if (cfg_.bias) {
    Desc *bias = real(kSdpaBias, CUDNN_DATA_FLOAT, sh_.bias_dims);
    Desc *out = score();
    pw(CUDNN_POINTWISE_ADD, s, bias, out);
    s = out;
  }
  if (cfg_.alibi) {
    Desc *row = index(s, false), *col = index(s, true);
    Desc *diff = virt(CUDNN_DATA_INT32, sh_.score_dims);
    pw(CUDNN_POINTWISE_SUB, col, row, diff, nullptr, -1, CUDNN_DATA_INT32);
    Desc *slopes = real(kSdpaSlopes, CUDNN_DATA_FLOAT, sh_.slopes_dims);
    Desc *alibi = score();
    pw(CUDNN_POINTWISE_MUL, diff, slopes, alibi);
    Desc *out = score();
    pw(CUDNN_POINTWISE_ADD, s, alibi, out);
    s = out;
  }
  if (cfg_.padding) {
    Desc *row = index(s, false), *col = index(s, true);
    Desc *seq_q = real(kSdpaSeqQ, CUDNN_DATA_INT32, sh_.seq_dims);
    Desc *seq_kv = real(kSdpaSeqKv, CUDNN_DATA_INT32, sh_.seq_dims);
    Desc *row_ok = virt(CUDNN_DATA_BOOLEAN, sh_.score_dims), *col_ok = virt(CUDNN_DATA_BOOLEAN, sh_.score_dims);
    pw(CUDNN_POINTWISE_CMP_LT, row, seq_q, row_ok, nullptr, -1, CUDNN_DATA_INT32);
    pw(CUDNN_POINTWISE_CMP_LT, col, seq_kv, col_ok, nullptr, -1, CUDNN_DATA_INT32);
    Desc *both = virt(CUDNN_DATA_BOOLEAN, sh_.score_dims);
    pw(CUDNN_POINTWISE_LOGICAL_AND, row_ok, col_ok, both, nullptr, -1, CUDNN_DATA_BOOLEAN);
    s = select(s, both, kPadFill);
  }
  return s;
}

Desc *SdpaGraphBuilder::causal_and_window(Desc *s) {
  if (cfg_.causal) {
    Desc *row = index(s, false), *col = index(s, true);
    Desc *keep_mask = virt(CUDNN_DATA_BOOLEAN, sh_.score_dims);
    pw(CUDNN_POINTWISE_CMP_GE, row, col, keep_mask, nullptr, -1, CUDNN_DATA_INT32);
    s = select(s, keep_mask, kCausalFill);
  }
  if (cfg_.window > 0) {
    Desc *row = index(s, false), *col = index(s, true);
    Desc *w = by_value(kWindow, CUDNN_DATA_INT32);
    Desc *shifted = virt(CUDNN_DATA_INT32, sh_.score_dims);
    pw(CUDNN_POINTWISE_ADD, col, w, shifted, nullptr, -1, CUDNN_DATA_INT32);
    Desc *keep_mask = virt(CUDNN_DATA_BOOLEAN, sh_.score_dims);
    pw(CUDNN_POINTWISE_CMP_GT, shifted, row, keep_mask, nullptr, -1, CUDNN_DATA_INT32);
    s = select(s, keep_mask, kWindowFill);
  }
  return s;
}

Desc *GraphOpBuilder::bernoulli(double keep_probability, Desc *seed, Desc *offset, Desc *y) {
  auto r = keep(std::make_unique<Desc>(CUDNN_BACKEND_RNG_DESCRIPTOR));
  EXPECT_EQ(r->set1(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, CUDNN_RNG_DISTRIBUTION_BERNOULLI),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->set1(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, keep_probability),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(r->finalize(), CUDNN_STATUS_SUCCESS);
  auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR));
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RNG_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_BACKEND_DESCRIPTOR, seed->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RNG_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r->d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, offset->d),
            CUDNN_STATUS_SUCCESS);
  add(op);
  return y;
}

Desc *SdpaGraphBuilder::dropout_mask() {
  Desc *seed = real(kSdpaSeed, CUDNN_DATA_INT64, ones(sh_.rank()));
  Desc *offset = real(kSdpaOffset, CUDNN_DATA_INT64, ones(sh_.rank()));
  return bernoulli(1.0 - cfg_.dropout, seed, offset, score());
}

void add_float_value(SdpaGraph &g, int64_t uid, float v) {
  SdpaGraph::Value val{uid, {}};
  std::memcpy(val.bytes, &v, sizeof v);
  g.values.push_back(val);
}

void add_mask_values(const SdpaConfig &c, SdpaGraph &g) {
  if (c.padding) add_float_value(g, SdpaGraphBuilder::kPadFill, std::numeric_limits<float>::lowest());
  if (c.causal) add_float_value(g, SdpaGraphBuilder::kCausalFill, static_cast<float>(c.causal_fill));
  if (c.window > 0) {
    add_float_value(g, SdpaGraphBuilder::kWindowFill, static_cast<float>(c.causal_fill));
    SdpaGraph::Value val{SdpaGraphBuilder::kWindow, {}};
    const int32_t w = static_cast<int32_t>(c.window);
    std::memcpy(val.bytes, &w, sizeof w);
    g.values.push_back(val);
  }
}

}  // namespace fdnn_test
