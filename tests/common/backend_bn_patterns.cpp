#include "common/backend_bn_patterns.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/convolution_reference.hpp"
#include "common/expect_status.hpp"

namespace fdnn_test {

namespace {

constexpr double kTol = 2e-5;  // relative, on magnitude sums (float compute)

const char *pattern_text(BnPattern p) {
  switch (p) {
    case BnPattern::bn_add_relu: return "BnAddRelu";
    case BnPattern::drelu_fork_dbn: return "DReluForkDBn";
    case BnPattern::dgrad_drelu_bn_bwd_weight: return "DgradDreluBNBwdWeight";
    case BnPattern::dbn_apply: return "dBNApply";
    case BnPattern::norm_forward: return "NormForward";
    case BnPattern::norm_backward: return "NormBackward";
  }
  return "?";
}

// Channels innermost (NHWC / NDHWC), packed.
std::vector<int64_t> channels_last(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 0);
  int64_t step = 1;
  s[1] = step;
  step *= dims[1];
  for (size_t d = dims.size(); d-- > 2;) {
    s[d] = step;
    step *= dims[d];
  }
  s[0] = step;
  return s;
}

// Strides s with the batch (outermost) stride padded (padded_out).
std::vector<int64_t> padded_batch(std::vector<int64_t> s, bool pad) {
  if (pad) s[0] += 3;
  return s;
}

std::vector<int64_t> per_channel(const std::vector<int64_t> &dims) {
  std::vector<int64_t> d(dims.size(), 1);
  d[1] = dims[1];
  return d;
}

class Builder {
 public:
  Builder(PatternGraph &g, Rng &rng) : g_(g), rng_(rng) {}

  // A real tensor: an input with random values in [lo, hi), or an output (poisoned).
  PatternTensor &real(int64_t uid, const std::string &name, cudnnDataType_t t, const std::vector<int64_t> &dims,
                      const std::vector<int64_t> &strides, bool output, double lo = -2, double hi = 2) {
    PatternTensor pt;
    pt.uid = uid, pt.name = name, pt.output = output;
    pt.data = make_tensor(t, dims, strides);
    if (output)
      poison(pt.data);
    else
      fill_random(pt.data, rng_, lo, hi);
    descs_[uid] = keep(tensor_desc(uid, t, dims, strides));
    g_.tensors.push_back(std::move(pt));
    return g_.tensors.back();
  }
  PatternTensor &find(int64_t uid) {
    for (PatternTensor &t : g_.tensors)
      if (t.uid == uid) return t;
    throw std::logic_error("no such tensor");
  }
  void virt(int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    descs_[uid] = keep(tensor_desc(uid, t, dims, strides, true));
  }
  // A by-value double scalar of the given rank.
  void scalar(int64_t uid, const std::string &name, double v, int rank) {
    const std::vector<int64_t> one(static_cast<size_t>(rank), 1);
    descs_[uid] = keep(tensor_desc(uid, CUDNN_DATA_DOUBLE, one, one, false, true));
    PatternTensor pt;
    pt.uid = uid, pt.name = name, pt.by_value = true, pt.value = v;
    g_.tensors.push_back(std::move(pt));
  }
  Desc &d(int64_t uid) { return *descs_.at(uid); }

  void pointwise(cudnnPointwiseMode_t mode, int64_t x, int64_t b, int64_t y, double alpha2 = 1.0) {
    auto p = keep(std::make_unique<Desc>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->set1(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(p->finalize(), CUDNN_STATUS_SUCCESS);
    auto op = keep(std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, p->d),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(x).d),
              CUDNN_STATUS_SUCCESS);
    if (mode == CUDNN_POINTWISE_RELU_BWD) {
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(b).d),
                CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(y).d),
                CUDNN_STATUS_SUCCESS);
    } else {
      if (b != 0)
        EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(b).d),
                  CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(y).d),
                CUDNN_STATUS_SUCCESS);
      if (alpha2 != 1.0)
        EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, static_cast<float>(alpha2)),
                  CUDNN_STATUS_SUCCESS);
    }
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS);
    g_.ops.push_back(op);
  }

  Desc *op(cudnnBackendDescriptorType_t type, const std::vector<std::pair<cudnnBackendAttributeName_t, int64_t>> &ts,
           const std::function<void(Desc &)> &extra = {}) {
    auto o = keep(std::make_unique<Desc>(type));
    for (const auto &a : ts)
      if (a.second != 0)
        EXPECT_EQ(o->set1(a.first, CUDNN_TYPE_BACKEND_DESCRIPTOR, d(a.second).d), CUDNN_STATUS_SUCCESS) << a.first;
    if (extra) extra(*o);
    EXPECT_EQ(o->finalize(), CUDNN_STATUS_SUCCESS) << last_error_text();
    g_.ops.push_back(o);
    return o;
  }

  static std::string last_error_text() {
    char buf[512] = {};
    cudnnGetLastErrorString(buf, sizeof buf);
    return buf;
  }

  Desc *keep(std::unique_ptr<Desc> p) {
    g_.keep.push_back(std::move(p));
    return g_.keep.back().get();
  }

  Rng &rng() { return rng_; }

 private:
  PatternGraph &g_;
  Rng &rng_;
  std::map<int64_t, Desc *> descs_;
};

// Flat index of x's element idx in the per-channel tensor / full tensor.
int64_t flat(const std::vector<int64_t> &dims, const std::vector<int64_t> &idx) {
  int64_t o = 0;
  for (size_t d = 0; d < dims.size(); ++d) o = o * dims[d] + (dims[d] == 1 ? 0 : idx[d]);
  return o;
}

void set_want(PatternTensor &t, const std::vector<double> &v, const std::vector<double> &tol) {
  t.want.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) t.want[i] = {v[i], tol[i]};
}

// Batch statistics of x per channel: mean, biased variance.
void channel_stats(const std::vector<double> &xv, const std::vector<int64_t> &dims, std::vector<double> &mu,
                   std::vector<double> &var) {
  const int64_t C = dims[1], M = element_count(dims) / C;
  mu.assign(C, 0), var.assign(C, 0);
  int64_t i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) { mu[idx[1]] += xv[i++]; });
  for (double &m : mu) m /= static_cast<double>(M);
  i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const double dv = xv[i++] - mu[idx[1]];
    var[idx[1]] += dv * dv;
  });
  for (double &v : var) v /= static_cast<double>(M);
}

constexpr int64_t kX = 1, kY = 2, kScale = 3, kBias = 4, kMean = 5, kInv = 6, kRmIn = 7, kRvIn = 8, kRmOut = 9,
                  kRvOut = 10, kEps = 11, kFactor = 12, kZ = 13, kMask = 14, kDy = 15, kDx = 16, kDscale = 17,
                  kDbias = 18, kDz = 19, kW = 20, kA = 21, kB = 22, kC = 23, kZero = 24;
constexpr int64_t kV0 = 100;  // virtual tensors from here

void build_bn_add_relu(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;
  const auto xs = c.nhwc ? channels_last(dims) : packed(dims), pc = per_channel(dims), ps = packed(pc);
  const int rank = static_cast<int>(dims.size());
  const int64_t C = dims[1], M = element_count(dims) / C;
  const double eps = 1e-3, factor = 0.3;
  const cudnnDataType_t yt = c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type;
  const bool infer = !c.training, running = c.running && !infer;
  b.real(kX, "x", c.io_type, dims, xs, false);
  b.real(kScale, "scale", c.stat_type, pc, ps, false, 0.5, 1.5);
  b.real(kBias, "bias", c.stat_type, pc, ps, false, -1, 1);
  b.real(kMean, "mean", c.stat_type, pc, ps, !infer);
  b.real(kInv, "inv_variance", c.stat_type, pc, ps, !infer);
  if (infer) {  // x's statistics (rounded to float) as the inputs
    std::vector<double> mu, var;
    channel_stats(b.find(kX).data.values(), dims, mu, var);
    for (int64_t k = 0; k < C; ++k) var[k] = 1 / std::sqrt(var[k] + eps);
    b.find(kMean).data.set_values(mu);
    b.find(kInv).data.set_values(var);
  }
  if (running) {
    b.real(kRmIn, "running_mean_in", c.stat_type, pc, ps, false);
    b.real(kRvIn, "running_var_in", c.stat_type, pc, ps, false, 0.5, 2);
    b.real(kRmOut, "running_mean_out", c.stat_type, pc, ps, true);
    b.real(kRvOut, "running_var_out", c.stat_type, pc, ps, true);
    b.scalar(kFactor, "factor", factor, rank);
  }
  b.scalar(kEps, "epsilon", eps, rank);
  if (c.add_z) b.real(kZ, "z", c.io_type, dims, xs, false);
  // The chain: norm -> [add] -> [relu]; the last is the real y.
  const bool any_after = c.add_z || c.relu;
  int64_t cur = any_after ? kV0 : kY;
  if (any_after)
    b.virt(kV0, CUDNN_DATA_FLOAT, dims, xs);
  else
    b.real(kY, "y", yt, dims, xs, true);
  b.op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR,
       {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, kX},
        {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, cur},
        {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, kScale},
        {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, kBias},
        {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, kMean},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, kInv},
        {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, kEps},
        {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, running ? kFactor : 0},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, running ? kRmIn : 0},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, running ? kRvIn : 0},
        {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, running ? kRmOut : 0},
        {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, running ? kRvOut : 0}},
       [infer](Desc &o) {
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_BATCH_NORM),
                   CUDNN_STATUS_SUCCESS);
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE,
                          infer ? CUDNN_NORM_FWD_INFERENCE : CUDNN_NORM_FWD_TRAINING),
                   CUDNN_STATUS_SUCCESS);
       });
  if (c.add_z) {
    const int64_t next = c.relu ? kV0 + 1 : kY;
    if (c.relu)
      b.virt(next, CUDNN_DATA_FLOAT, dims, xs);
    else
      b.real(kY, "y", yt, dims, xs, true);
    b.pointwise(CUDNN_POINTWISE_ADD, cur, kZ, next);
    cur = next;
  }
  if (c.relu) {
    b.real(kY, "y", yt, dims, xs, true);
    b.pointwise(CUDNN_POINTWISE_RELU_FWD, cur, 0, kY);
  }
  if (c.mask) {
    b.scalar(kZero, "zero", 0.0, rank);
    b.real(kMask, "mask", CUDNN_DATA_UINT8, dims, xs, true);
    b.pointwise(CUDNN_POINTWISE_CMP_GT, kY, kZero, kMask);
  }
  if (!c.reference) return;

  // Expectations.
  const std::vector<double> xv = b.find(kX).data.values(), sv = b.find(kScale).data.values(),
                            bv = b.find(kBias).data.values();
  std::vector<double> zv = c.add_z ? b.find(kZ).data.values() : std::vector<double>(xv.size(), 0.0);
  std::vector<double> mu, var;
  channel_stats(xv, dims, mu, var);
  std::vector<double> istd(C), tol_c(C, 0.0);
  for (int64_t k = 0; k < C; ++k) istd[k] = 1 / std::sqrt(var[k] + eps);
  if (infer) {  // the inputs as given
    mu = b.find(kMean).data.values();
    istd = b.find(kInv).data.values();
  } else {
    set_want(b.find(kMean), mu, std::vector<double>(C, 1e-6));
    std::vector<double> itol(C);
    for (int64_t k = 0; k < C; ++k) itol[k] = 1e-4 * istd[k];
    set_want(b.find(kInv), istd, itol);
  }
  if (running) {
    const auto rm = b.find(kRmIn).data.values(), rv = b.find(kRvIn).data.values();
    std::vector<double> rmo(C), rvo(C), t1(C), t2(C);
    for (int64_t k = 0; k < C; ++k) {
      rmo[k] = (1 - factor) * rm[k] + factor * mu[k];
      rvo[k] = (1 - factor) * rv[k] + factor * var[k] * M / (M - 1);
      t1[k] = 1e-5 * (1 + std::fabs(rmo[k]));
      t2[k] = 1e-4 * (1 + std::fabs(rvo[k]));
    }
    set_want(b.find(kRmOut), rmo, t1);
    set_want(b.find(kRvOut), rvo, t2);
  }
  std::vector<double> y(xv.size()), ytol(xv.size()), mask(xv.size()), mtol(xv.size());
  int64_t i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    const double xh = (xv[i] - mu[k]) * istd[k];
    const double v = sv[k] * xh + bv[k] + zv[i];
    const double tol = 1e-4 * (std::fabs(sv[k] * xh) + std::fabs(bv[k]) + std::fabs(zv[i])) + 1e-5;
    y[i] = c.relu ? std::max(v, 0.0) : v;
    ytol[i] = tol;
    const bool unsure = std::fabs(v) <= tol;
    mask[i] = unsure ? 0.5 : (v > 0 ? 1 : 0);
    mtol[i] = unsure ? 0.5 : 0;
    ++i;
  });
  set_want(b.find(kY), y, ytol);
  if (c.mask) set_want(b.find(kMask), mask, mtol);
}

// dx and the parameter gradients of batch norm from g (the gradient reaching
// the norm), x, scale and the saved statistics.
void bn_backward_want(const std::vector<int64_t> &dims, const std::vector<double> &g, const std::vector<double> &xv,
                      const std::vector<double> &sv, const std::vector<double> &mu, const std::vector<double> &istd,
                      std::vector<double> *dx, std::vector<double> *dx_tol, std::vector<double> &dscale,
                      std::vector<double> &dscale_tol, std::vector<double> &dbias, std::vector<double> &dbias_tol) {
  const int64_t C = dims[1];
  const double M = static_cast<double>(element_count(dims) / C);
  dscale.assign(C, 0), dbias.assign(C, 0), dscale_tol.assign(C, 0), dbias_tol.assign(C, 0);
  int64_t i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    const double xh = (xv[i] - mu[k]) * istd[k];
    dbias[k] += g[i];
    dscale[k] += g[i] * xh;
    dbias_tol[k] += kTol * std::fabs(g[i]);
    dscale_tol[k] += kTol * std::fabs(g[i] * xh) + kTol * std::fabs(g[i]) * (1 + std::fabs(xh));
    ++i;
  });
  for (int64_t k = 0; k < C; ++k) dbias_tol[k] += 1e-6, dscale_tol[k] += 1e-6;
  if (!dx) return;
  dx->resize(xv.size()), dx_tol->resize(xv.size());
  i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    const double xh = (xv[i] - mu[k]) * istd[k];
    const double f = sv[k] * istd[k] / M;
    (*dx)[i] = f * (M * g[i] - dbias[k] - xh * dscale[k]);
    (*dx_tol)[i] = std::fabs(f) * (kTol * M * std::fabs(g[i]) + dbias_tol[k] + std::fabs(xh) * dscale_tol[k] +
                                   kTol * (std::fabs(dbias[k]) + std::fabs(xh * dscale[k]))) +
                   1e-6;
    ++i;
  });
}

void build_drelu_fork_dbn(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;
  const auto xs = c.nhwc ? channels_last(dims) : packed(dims), pc = per_channel(dims), ps = packed(pc);
  const int64_t C = dims[1];
  const cudnnDataType_t dx_type = c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type;
  b.real(kX, "x", c.io_type, dims, xs, false);
  b.real(kDy, "dy", c.grad_type == BnPatternConfig::kIoType ? c.io_type : c.grad_type, dims, xs, false);
  b.real(kScale, "scale", c.stat_type, pc, ps, false, 0.5, 1.5);
  // Saved statistics: those of x, rounded to float.
  PatternTensor &mt = b.real(kMean, "mean", c.stat_type, pc, ps, false);
  PatternTensor &it = b.real(kInv, "inv_variance", c.stat_type, pc, ps, false);
  std::vector<double> mu, var;
  channel_stats(b.find(kX).data.values(), dims, mu, var);
  for (int64_t k = 0; k < C; ++k) var[k] = 1 / std::sqrt(var[k] + 1e-3);
  mt.data.set_values(mu);
  it.data.set_values(var);
  if (c.drelu) {
    PatternTensor &m = b.real(kMask, "mask", CUDNN_DATA_UINT8, dims, xs, false, 0, 2);
    (void)m;
    if (c.dz_real)
      b.real(kDz, "dz", c.io_type, dims, xs, true);
    else
      b.virt(kDz, CUDNN_DATA_FLOAT, dims, xs);
    b.pointwise(CUDNN_POINTWISE_RELU_BWD, kMask, kDy, kDz);
  }
  b.real(kDx, "dx", dx_type, dims, xs, true);
  b.real(kDscale, "dscale", c.stat_type, pc, ps, true);
  b.real(kDbias, "dbias", c.stat_type, pc, ps, true);
  b.op(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR,
       {{CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, kX},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, c.drelu ? kDz : kDy},
        {CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, kScale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, kMean},
        {CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, kInv},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, kDscale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, kDbias},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, kDx}},
       [](Desc &o) {
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_BATCH_NORM),
                   CUDNN_STATUS_SUCCESS);
       });
  if (!c.reference) return;
  const auto xv = b.find(kX).data.values(), dyv = b.find(kDy).data.values(), sv = b.find(kScale).data.values();
  const auto mv = b.find(kMean).data.values(), iv = b.find(kInv).data.values();
  std::vector<double> g = dyv;
  if (c.drelu) {
    const auto mask = b.find(kMask).data.values();
    for (size_t i = 0; i < g.size(); ++i) g[i] = mask[i] > 0 ? dyv[i] : 0.0;
  }
  if (c.drelu && c.dz_real) set_want(b.find(kDz), g, std::vector<double>(g.size(), 0.0));
  std::vector<double> dx, dxt, ds, dst, db, dbt;
  bn_backward_want(dims, g, xv, sv, mv, iv, &dx, &dxt, ds, dst, db, dbt);
  set_want(b.find(kDx), dx, dxt);
  set_want(b.find(kDscale), ds, dst);
  set_want(b.find(kDbias), db, dbt);
}

void build_dgrad_drelu_bn(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;  // x_bn / dgrad output [N, C, H, W]
  if (dims.size() != 4) throw std::logic_error("dgrad pattern: 4D only");
  const auto xs = channels_last(dims), pc = per_channel(dims), ps = packed(pc);
  const int64_t C = dims[1];
  const std::vector<int64_t> dyd{dims[0], c.k, dims[2], dims[3]}, wd{c.k, C, 3, 3};
  b.real(kDy, "dy", c.io_type, dyd, channels_last(dyd), false);
  b.real(kW, "w", c.io_type, wd, channels_last(wd), false, -1, 1);
  b.real(kScale, "scale", CUDNN_DATA_FLOAT, pc, ps, false, 0.5, 1.5);
  b.real(kBias, "bias", CUDNN_DATA_FLOAT, pc, ps, false, -1, 1);
  PatternTensor &mt = b.real(kMean, "mean", CUDNN_DATA_FLOAT, pc, ps, false, -0.5, 0.5);
  PatternTensor &it = b.real(kInv, "inv_std", CUDNN_DATA_FLOAT, pc, ps, false, 0.5, 1.5);
  PatternTensor &xt = b.real(kX, "x_bn", c.io_type, dims, xs, false);
  // Keep y_bn away from 0, where the dReLU's branch would depend on rounding.
  {
    const auto mv = mt.data.values(), iv = it.data.values(), sv = b.find(kScale).data.values(),
               bv = b.find(kBias).data.values();
    for_each_index(dims, [&](const std::vector<int64_t> &idx) {
      const int64_t k = idx[1];
      for (int tries = 0; tries < 100; ++tries) {
        const double x = xt.data.get(idx);
        if (std::fabs((x - mv[k]) * iv[k] * sv[k] + bv[k]) > 0.05) break;
        xt.data.set(idx, round_to_type(c.io_type, b.rng().uniform(-2, 2)));
      }
    });
  }
  b.virt(kV0, CUDNN_DATA_FLOAT, dims, xs);  // dgrad output
  ConvParams p;
  p.pad = {1, 1}, p.stride = {1, 1}, p.dilation = {1, 1};
  {
    const std::vector<int64_t> one{1, 1};
    Desc *cd = b.keep(convolution_desc(one, one, one));
    b.op(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
         {{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, kV0},
          {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, kW},
          {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, kDy}},
         [&](Desc &o) {
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd->d),
                     CUDNN_STATUS_SUCCESS);
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1.0f),
                     CUDNN_STATUS_SUCCESS);
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 0.0f),
                     CUDNN_STATUS_SUCCESS);
         });
  }
  // y_bn = ((x_bn + (-1) mean) * inv_std) * scale + bias.
  for (int64_t v = kV0 + 1; v <= kV0 + 5; ++v) b.virt(v, CUDNN_DATA_FLOAT, dims, xs);
  b.pointwise(CUDNN_POINTWISE_ADD, kX, kMean, kV0 + 1, -1.0);
  b.pointwise(CUDNN_POINTWISE_MUL, kV0 + 1, kInv, kV0 + 2);
  b.pointwise(CUDNN_POINTWISE_MUL, kV0 + 2, kScale, kV0 + 3);
  b.pointwise(CUDNN_POINTWISE_ADD, kV0 + 3, kBias, kV0 + 4);
  b.pointwise(CUDNN_POINTWISE_RELU_BWD, kV0 + 4, kV0, kV0 + 5);
  b.real(kDscale, "dscale", CUDNN_DATA_FLOAT, pc, ps, true);
  b.real(kDbias, "dbias", CUDNN_DATA_FLOAT, pc, ps, true);
  b.real(kA, "A", CUDNN_DATA_FLOAT, pc, ps, true);
  b.real(kB, "B", CUDNN_DATA_FLOAT, pc, ps, true);
  b.real(kC, "C", CUDNN_DATA_FLOAT, pc, ps, true);
  b.op(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR,
       {{CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, kMean},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC, kInv},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC, kScale},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, kX},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, kV0 + 5},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, kDscale},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC, kDbias},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, kA},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, kB},
        {CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS, kC}},
       [](Desc &o) {
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT),
                   CUDNN_STATUS_SUCCESS);
       });
  if (!c.reference) return;

  // Expectations: the dgrad output with its bound, then the dReLU and sums.
  HostTensor prior = make_tensor(CUDNN_DATA_FLOAT, dims, packed(dims));
  const std::vector<Expect> dg =
      reference_conv_backward_data(p, b.find(kW).data, b.find(kDy).data, 1, 0, prior, CUDNN_DATA_FLOAT, 64);
  const auto xv = xt.data.values(), sv = b.find(kScale).data.values(), bv = b.find(kBias).data.values(),
             mv = mt.data.values(), iv = it.data.values();
  std::vector<double> g(xv.size()), gtol(xv.size());
  int64_t i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    const double ybn = (xv[i] - mv[k]) * iv[k] * sv[k] + bv[k];
    g[i] = ybn > 0 ? dg[i].value : 0.0;
    gtol[i] = ybn > 0 ? dg[i].tolerance : 0.0;
    ++i;
  });
  std::vector<double> ds, dst, db, dbt;
  bn_backward_want(dims, g, xv, sv, mv, iv, nullptr, nullptr, ds, dst, db, dbt);
  i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    dbt[k] += gtol[i];
    dst[k] += gtol[i] * std::fabs((xv[i] - mv[k]) * iv[k]);
    ++i;
  });
  const double M = static_cast<double>(element_count(dims) / C);
  std::vector<double> A(C), B(C), Cc(C), At(C), Bt(C), Ct(C);
  for (int64_t k = 0; k < C; ++k) {
    A[k] = sv[k] * iv[k];
    B[k] = -A[k] * iv[k] * ds[k] / M;
    Cc[k] = A[k] * (mv[k] * iv[k] * ds[k] - db[k]) / M;
    At[k] = 1e-6 * std::fabs(A[k]) + 1e-7;
    Bt[k] = std::fabs(A[k] * iv[k] / M) * (dst[k] + kTol * std::fabs(ds[k])) + 1e-7;
    Ct[k] = std::fabs(A[k] / M) * (std::fabs(mv[k] * iv[k]) * dst[k] + dbt[k] +
                                   kTol * (std::fabs(mv[k] * iv[k] * ds[k]) + std::fabs(db[k]))) +
            1e-7;
  }
  set_want(b.find(kDscale), ds, dst);
  set_want(b.find(kDbias), db, dbt);
  set_want(b.find(kA), A, At);
  set_want(b.find(kB), B, Bt);
  set_want(b.find(kC), Cc, Ct);
}

void build_dbn_apply(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;
  const auto xs = channels_last(dims), pc = per_channel(dims), ps = packed(pc);
  b.real(kDy, "dy", c.io_type, dims, xs, false);
  b.real(kX, "x", c.io_type, dims, xs, false);
  b.real(kA, "A", CUDNN_DATA_FLOAT, pc, ps, false);
  b.real(kB, "B", CUDNN_DATA_FLOAT, pc, ps, false);
  b.real(kC, "C", CUDNN_DATA_FLOAT, pc, ps, false);
  b.real(kDx, "dx", c.io_type, dims, xs, true);
  for (int64_t v = kV0; v < kV0 + 3; ++v) b.virt(v, CUDNN_DATA_FLOAT, dims, xs);
  b.pointwise(CUDNN_POINTWISE_MUL, kDy, kA, kV0);
  b.pointwise(CUDNN_POINTWISE_MUL, kX, kB, kV0 + 1);
  b.pointwise(CUDNN_POINTWISE_ADD, kV0, kV0 + 1, kV0 + 2);
  b.pointwise(CUDNN_POINTWISE_ADD, kV0 + 2, kC, kDx);
  const auto dyv = b.find(kDy).data.values(), xv = b.find(kX).data.values(), av = b.find(kA).data.values(),
             bv = b.find(kB).data.values(), cv = b.find(kC).data.values();
  std::vector<double> dx(xv.size()), t(xv.size());
  int64_t i = 0;
  for_each_index(dims, [&](const std::vector<int64_t> &idx) {
    const int64_t k = idx[1];
    dx[i] = av[k] * dyv[i] + bv[k] * xv[i] + cv[k];
    t[i] = 4 * 6e-8 * (std::fabs(av[k] * dyv[i]) + std::fabs(bv[k] * xv[i]) + std::fabs(cv[k])) + 1e-7;
    ++i;
  });
  set_want(b.find(kDx), dx, t);
}

// Layer / RMS norm over every dim but the first.
void build_norm(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;
  const int rank = static_cast<int>(dims.size());
  const bool rms = c.norm_mode == CUDNN_RMS_NORM, fwd = c.pattern == BnPattern::norm_forward;
  const auto xs = c.nhwc ? channels_last(dims) : packed(dims), os = padded_batch(xs, c.padded_out);
  std::vector<int64_t> pd = dims, sd(dims.size(), 1);
  pd[0] = 1;
  sd[0] = dims[0];
  // Scale / bias in x's memory order (their dims drop N).
  const auto ps = c.nhwc ? channels_last(pd) : packed(pd), ss = packed(sd);
  const double eps = 1e-4;
  const int64_t N = dims[0], D = element_count(dims) / N;
  b.real(kX, "x", c.io_type, dims, xs, false);
  b.real(kScale, "scale", c.stat_type, pd, ps, false, 0.5, 1.5);
  const bool has_bias = fwd && !rms;
  if (has_bias) b.real(kBias, "bias", c.stat_type, pd, ps, false, -1, 1);
  b.scalar(kEps, "epsilon", eps, rank);
  const auto xv = b.find(kX).data.values();
  std::vector<double> mu(N, 0), istd(N, 0);
  for (int64_t n = 0; n < N; ++n) {
    double s = 0, q = 0;
    for (int64_t j = 0; j < D; ++j) s += xv[n * D + j];
    mu[n] = rms ? 0 : s / D;
    for (int64_t j = 0; j < D; ++j) q += (xv[n * D + j] - mu[n]) * (xv[n * D + j] - mu[n]);
    istd[n] = 1 / std::sqrt(q / D + eps);
  }
  const bool stats_in = !fwd || !c.training;
  if (stats_in) {
    // Inference and backward read the statistics (those of x, rounded to float).
    if (!rms) b.real(kMean, "mean", c.stat_type, sd, ss, false).data.set_values(mu);
    b.real(kInv, "inv_variance", c.stat_type, sd, ss, false).data.set_values(istd);
    if (!rms) mu = b.find(kMean).data.values();
    istd = b.find(kInv).data.values();
  } else if (c.stats_out) {
    if (!rms) b.real(kMean, "mean", c.stat_type, sd, ss, true);
    b.real(kInv, "inv_variance", c.stat_type, sd, ss, true);
  }
  const bool has_stats = stats_in || c.stats_out;
  const auto sv = b.find(kScale).data.values();
  if (fwd) {
    b.real(kY, "y", c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type, dims, os, true);
    // norm_epilogue: the norm writes a virtual FLOAT tensor, then y = relu(that + z).
    if (c.norm_epilogue) {
      b.virt(kV0, CUDNN_DATA_FLOAT, dims, xs);
      b.virt(kV0 + 1, CUDNN_DATA_FLOAT, dims, xs);
      b.real(kZ, "z", c.io_type, dims, xs, false);
    }
    b.op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR,
         {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, kX},
          {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, c.norm_epilogue ? kV0 : kY},
          {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, kScale},
          {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, has_bias ? kBias : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, rms || !has_stats ? 0 : kMean},
          {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, has_stats ? kInv : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, kEps}},
         [&](Desc &o) {
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, c.norm_mode),
                     CUDNN_STATUS_SUCCESS);
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE,
                            c.training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE),
                     CUDNN_STATUS_SUCCESS);
         });
    const std::vector<double> bv = has_bias ? b.find(kBias).data.values() : std::vector<double>(D, 0.0);
    std::vector<double> y(xv.size()), yt(xv.size());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t j = 0; j < D; ++j) {
        const double xh = (xv[n * D + j] - mu[n]) * istd[n];
        y[n * D + j] = sv[j] * xh + bv[j];
        yt[n * D + j] = 1e-4 * (std::fabs(sv[j] * xh) + std::fabs(bv[j])) + 1e-5;
      }
    if (c.norm_epilogue) {
      b.pointwise(CUDNN_POINTWISE_ADD, kV0, kZ, kV0 + 1);
      b.pointwise(CUDNN_POINTWISE_RELU_FWD, kV0 + 1, 0, kY);
      const auto zv = b.find(kZ).data.values();
      for (size_t i = 0; i < y.size(); ++i) {
        yt[i] += 1e-6 * std::fabs(zv[i]);
        y[i] = std::max(y[i] + zv[i], 0.0);
      }
    }
    set_want(b.find(kY), y, yt);
    if (c.training && c.stats_out) {
      std::vector<double> it(N);
      for (int64_t n = 0; n < N; ++n) it[n] = 1e-4 * istd[n];
      set_want(b.find(kInv), istd, it);
      if (!rms) set_want(b.find(kMean), mu, std::vector<double>(N, 1e-5));
    }
    return;
  }
  b.real(kDy, "dy", c.grad_type == BnPatternConfig::kIoType ? c.io_type : c.grad_type, dims, os, false);
  b.real(kDx, "dx", c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type, dims, os, true);
  b.real(kDscale, "dscale", c.stat_type, pd, ps, true);
  if (!rms) b.real(kDbias, "dbias", c.stat_type, pd, ps, true);
  b.op(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR,
       {{CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, kX},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, kDy},
        {CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, kScale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, rms ? 0 : kMean},
        {CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, kInv},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, kDscale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, rms ? 0 : kDbias},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, kDx}},
       [&](Desc &o) {
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, c.norm_mode), CUDNN_STATUS_SUCCESS);
       });
  const auto dyv = b.find(kDy).data.values();
  std::vector<double> dx(xv.size()), dxt(xv.size()), ds(D, 0), dst(D, 1e-6), db(D, 0), dbt(D, 1e-6);
  for (int64_t n = 0; n < N; ++n) {
    double sh = 0, shx = 0, ah = 0, ahx = 0;
    for (int64_t j = 0; j < D; ++j) {
      const double xh = (xv[n * D + j] - mu[n]) * istd[n], h = sv[j] * dyv[n * D + j];
      sh += h, shx += h * xh, ah += std::fabs(h), ahx += std::fabs(h * xh);
      ds[j] += dyv[n * D + j] * xh, dst[j] += kTol * (std::fabs(dyv[n * D + j]) * (1 + std::fabs(xh)));
      db[j] += dyv[n * D + j], dbt[j] += kTol * std::fabs(dyv[n * D + j]);
    }
    for (int64_t j = 0; j < D; ++j) {
      const double xh = (xv[n * D + j] - mu[n]) * istd[n], h = sv[j] * dyv[n * D + j];
      dx[n * D + j] = istd[n] * (h - (rms ? 0 : sh / D) - xh * shx / D);
      dxt[n * D + j] = istd[n] * kTol * 4 * (std::fabs(h) + ah / D + std::fabs(xh) * (1 + ahx / D)) + 1e-6;
    }
  }
  set_want(b.find(kDx), dx, dxt);
  set_want(b.find(kDscale), ds, dst);
  if (!rms) set_want(b.find(kDbias), db, dbt);
}

// Instance norm: statistics per (n, c) over the spatial dims, scale / bias
// per channel; training with optional running statistics.
void build_instance_norm(const BnPatternConfig &c, Builder &b) {
  const auto &dims = c.dims;
  const int rank = static_cast<int>(dims.size());
  const bool fwd = c.pattern == BnPattern::norm_forward;
  const auto xs = c.nhwc ? channels_last(dims) : packed(dims), os = padded_batch(xs, c.padded_out);
  const std::vector<int64_t> pd = per_channel(dims), ps = packed(pd);
  std::vector<int64_t> sd(dims.size(), 1);
  sd[0] = dims[0], sd[1] = dims[1];
  const auto ss = packed(sd);
  const double eps = 1e-4, factor = 0.25;
  // Statistics and parameters: DOUBLE for DOUBLE data (double compute), else FLOAT.
  const cudnnDataType_t pt = c.stat_type != CUDNN_DATA_FLOAT    ? c.stat_type
                             : c.io_type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE
                                                              : CUDNN_DATA_FLOAT;
  const int64_t N = dims[0], C = dims[1], S = element_count(dims) / (N * C), K = N * C;
  b.real(kX, "x", c.io_type, dims, xs, false);
  b.real(kScale, "scale", pt, pd, ps, false, 0.5, 1.5);
  if (fwd) b.real(kBias, "bias", pt, pd, ps, false, -1, 1);
  b.scalar(kEps, "epsilon", eps, rank);
  const auto xv = b.find(kX).data.values();
  // Element e (logical order) belongs to set e / S (n-major, then c).
  std::vector<double> mu(K, 0), var(K, 0), istd(K, 0);
  for (int64_t e = 0; e < N * C * S; ++e) mu[e / S] += xv[e];
  for (double &m : mu) m /= static_cast<double>(S);
  for (int64_t e = 0; e < N * C * S; ++e) var[e / S] += (xv[e] - mu[e / S]) * (xv[e] - mu[e / S]);
  for (int64_t k = 0; k < K; ++k) {
    var[k] /= static_cast<double>(S);
    istd[k] = 1 / std::sqrt(var[k] + eps);
  }
  const bool stats_in = !fwd || !c.training;
  const bool running = fwd && c.training && c.running;
  if (stats_in) {
    b.real(kMean, "mean", pt, sd, ss, false).data.set_values(mu);
    b.real(kInv, "inv_variance", pt, sd, ss, false).data.set_values(istd);
    mu = b.find(kMean).data.values();
    istd = b.find(kInv).data.values();
  } else if (c.stats_out) {
    b.real(kMean, "mean", pt, sd, ss, true);
    b.real(kInv, "inv_variance", pt, sd, ss, true);
  }
  if (running) {
    b.real(kRmIn, "running_mean_in", pt, sd, ss, false);
    b.real(kRvIn, "running_var_in", pt, sd, ss, false, 0.5, 2);
    b.real(kRmOut, "running_mean_out", pt, sd, ss, true);
    b.real(kRvOut, "running_var_out", pt, sd, ss, true);
    b.scalar(kFactor, "factor", factor, rank);
  }
  const bool has_stats = stats_in || c.stats_out;
  const auto sv = b.find(kScale).data.values();
  if (fwd) {
    b.real(kY, "y", c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type, dims, os, true);
    // norm_epilogue: the norm writes a virtual FLOAT tensor, then y = relu(that + z).
    if (c.norm_epilogue) {
      b.virt(kV0, CUDNN_DATA_FLOAT, dims, xs);
      b.virt(kV0 + 1, CUDNN_DATA_FLOAT, dims, xs);
      b.real(kZ, "z", c.io_type, dims, xs, false);
    }
    b.op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR,
         {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, kX},
          {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, c.norm_epilogue ? kV0 : kY},
          {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, kScale},
          {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, kBias},
          {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, has_stats ? kMean : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, has_stats ? kInv : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, kEps},
          {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, running ? kFactor : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, running ? kRmIn : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, running ? kRvIn : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, running ? kRmOut : 0},
          {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, running ? kRvOut : 0}},
         [&](Desc &o) {
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_INSTANCE_NORM),
                     CUDNN_STATUS_SUCCESS);
           EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE,
                            c.training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE),
                     CUDNN_STATUS_SUCCESS);
         });
    const auto bv = b.find(kBias).data.values();
    std::vector<double> y(xv.size()), yt(xv.size());
    for (int64_t e = 0; e < N * C * S; ++e) {
      const int64_t k = e / S, ch = k % C;
      const double xh = (xv[e] - mu[k]) * istd[k];
      y[e] = sv[ch] * xh + bv[ch];
      yt[e] = 1e-4 * (std::fabs(sv[ch] * xh) + std::fabs(bv[ch])) + 1e-5;
    }
    set_want(b.find(kY), y, yt);
    if (c.training && c.stats_out) {
      std::vector<double> it(K), mt(K);
      for (int64_t k = 0; k < K; ++k) it[k] = 1e-4 * istd[k], mt[k] = 1e-5 * (1 + std::fabs(mu[k]));
      set_want(b.find(kInv), istd, it);
      set_want(b.find(kMean), mu, mt);
    }
    if (running) {
      const auto rm = b.find(kRmIn).data.values(), rv = b.find(kRvIn).data.values();
      std::vector<double> rmo(K), rvo(K), t1(K), t2(K);
      for (int64_t k = 0; k < K; ++k) {
        rmo[k] = (1 - factor) * rm[k] + factor * mu[k];
        // M == 1: the unbiased variance is 0 * inf (NaN), as cuDNN's.
        rvo[k] = (1 - factor) * rv[k] + factor * var[k] * (S == 1 ? NAN : static_cast<double>(S) / (S - 1));
        t1[k] = 1e-5 * (1 + std::fabs(rmo[k]));
        t2[k] = 1e-4 * (1 + std::fabs(rvo[k]));
      }
      set_want(b.find(kRmOut), rmo, t1);
      set_want(b.find(kRvOut), rvo, t2);
    }
    return;
  }
  b.real(kDy, "dy", c.grad_type == BnPatternConfig::kIoType ? c.io_type : c.grad_type, dims, os, false);
  b.real(kDx, "dx", c.out_type == BnPatternConfig::kIoType ? c.io_type : c.out_type, dims, os, true);
  b.real(kDscale, "dscale", pt, pd, ps, true);
  b.real(kDbias, "dbias", pt, pd, ps, true);
  b.op(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR,
       {{CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, kX},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, kDy},
        {CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, kScale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, kMean},
        {CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, kInv},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, kDscale},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, kDbias},
        {CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, kDx}},
       [&](Desc &o) {
         EXPECT_EQ(o.set1(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, CUDNN_INSTANCE_NORM),
                   CUDNN_STATUS_SUCCESS);
       });
  const auto dyv = b.find(kDy).data.values();
  std::vector<double> dx(xv.size()), dxt(xv.size()), ds(C, 0), dst(C, 1e-6), db(C, 0), dbt(C, 1e-6);
  for (int64_t k = 0; k < K; ++k) {
    const int64_t ch = k % C;
    double sh = 0, shx = 0, ah = 0, ahx = 0;
    for (int64_t e = k * S; e < (k + 1) * S; ++e) {
      const double xh = (xv[e] - mu[k]) * istd[k], h = sv[ch] * dyv[e];
      sh += h, shx += h * xh, ah += std::fabs(h), ahx += std::fabs(h * xh);
      ds[ch] += dyv[e] * xh, dst[ch] += kTol * (std::fabs(dyv[e]) * (1 + std::fabs(xh)));
      db[ch] += dyv[e], dbt[ch] += kTol * std::fabs(dyv[e]);
    }
    for (int64_t e = k * S; e < (k + 1) * S; ++e) {
      const double xh = (xv[e] - mu[k]) * istd[k], h = sv[ch] * dyv[e];
      dx[e] = istd[k] * (h - sh / S - xh * shx / S);
      dxt[e] = istd[k] * kTol * 4 * (std::fabs(h) + ah / S + std::fabs(xh) * (1 + ahx / S)) + 1e-6;
    }
  }
  set_want(b.find(kDx), dx, dxt);
  set_want(b.find(kDscale), ds, dst);
  set_want(b.find(kDbias), db, dbt);
}

}  // namespace

std::string BnPatternConfig::name() const {
  std::ostringstream os;
  os << pattern_text(pattern) << ' ' << type_name(io_type) << ' ';
  if (grad_type != kIoType) os << "dy " << type_name(grad_type) << ' ';
  if (out_type != kIoType) os << "out " << type_name(out_type) << ' ';
  if (stat_type != CUDNN_DATA_FLOAT) os << "stats " << type_name(stat_type) << ' ';
  if (padded_out) os << "padded ";
  if (pattern == BnPattern::bn_add_relu && !training) os << "infer ";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "x" : "") << dims[i];
  switch (pattern) {
    case BnPattern::bn_add_relu:
      os << (add_z ? " +z" : "") << (relu ? " relu" : "") << (mask ? " mask" : "") << (running ? " running" : "");
      break;
    case BnPattern::drelu_fork_dbn: os << (drelu ? " drelu" : "") << (dz_real ? " dz-real" : ""); break;
    default: break;
  }
  switch (pattern) {
    case BnPattern::bn_add_relu:
    case BnPattern::drelu_fork_dbn: os << (nhwc ? "" : " nchw"); break;
    case BnPattern::dgrad_drelu_bn_bwd_weight: os << " k=" << k; break;
    case BnPattern::norm_forward:
    case BnPattern::norm_backward:
      os << (norm_mode == CUDNN_RMS_NORM ? " rms" : norm_mode == CUDNN_INSTANCE_NORM ? " instance" : " layer")
         << (training ? " train" : " infer")
         << (nhwc ? " nhwc" : " nchw") << (stats_out ? "" : " no-stats") << (norm_epilogue ? " +z relu" : "");
      break;
    default: break;
  }
  return os.str();
}

PatternGraph build_bn_pattern(const BnPatternConfig &c, Rng &rng) {
  PatternGraph g;
  g.tensors.reserve(64);  // builders keep references to tensors while adding more
  Builder b(g, rng);
  switch (c.pattern) {
    case BnPattern::bn_add_relu: build_bn_add_relu(c, b); break;
    case BnPattern::drelu_fork_dbn: build_drelu_fork_dbn(c, b); break;
    case BnPattern::dgrad_drelu_bn_bwd_weight: build_dgrad_drelu_bn(c, b); break;
    case BnPattern::dbn_apply: build_dbn_apply(c, b); break;
    case BnPattern::norm_forward:
    case BnPattern::norm_backward:
      if (c.norm_mode == CUDNN_INSTANCE_NORM)
        build_instance_norm(c, b);
      else
        build_norm(c, b);
      break;
  }
  return g;
}

std::vector<std::string> run_on_every_engine(PatternGraph &pg) {
  cudnnHandle_t handle = nullptr;
  EXPECT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  std::vector<std::string> names;
  {
    const std::vector<std::unique_ptr<Desc>> cfgs = engine_configs(handle, pg.ops);
    for (auto &cfg : cfgs) {
      std::unique_ptr<Desc> owned = finalized_plan(handle, cfg->d);
      if (!owned) {
        names.push_back("?");
        continue;
      }
      Desc &plan = *owned;
      names.push_back(plan_engine_name(plan));
      SCOPED_TRACE("engine " + names.back());
      int64_t ws_size = 0, got = 0;
      EXPECT_EQ(cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                         &ws_size),
                CUDNN_STATUS_SUCCESS);
      Buffer ws(static_cast<size_t>(std::max<int64_t>(ws_size, 1)));
      std::vector<Buffer> buffers;
      std::vector<int64_t> uids;
      std::vector<void *> ptrs;
      buffers.reserve(pg.tensors.size());
      for (PatternTensor &t : pg.tensors) {
        uids.push_back(t.uid);
        if (t.by_value) {
          ptrs.push_back(&t.value);
          buffers.emplace_back(1);
          continue;
        }
        if (t.output) poison(t.data);
        buffers.push_back(upload(t.data));
        ptrs.push_back(buffers.back().get());
      }
      Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
      EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(pack.set1(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, ws.get()), CUDNN_STATUS_SUCCESS);
      EXPECT_EQ(pack.finalize(), CUDNN_STATUS_SUCCESS);
      const cudnnStatus_t st = cudnnBackendExecute(handle, plan.d, pack.d);
      EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
      if (st != CUDNN_STATUS_SUCCESS) continue;
      for (size_t i = 0; i < pg.tensors.size(); ++i) {
        PatternTensor &t = pg.tensors[i];
        if (!t.output) continue;
        download(buffers[i], t.data);
        EXPECT_TRUE(matches(t.data, t.want)) << "output " << t.name;
      }
    }
  }
  cudnnDestroy(handle);
  return names;
}


}  // namespace fdnn_test
