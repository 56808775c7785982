// Grouped reductions through the backend API: a y extent that divides x's
// (neither x's nor 1), as cuDNN 9 accepts and cudnn-frontend's grouped-query
// attention backward uses ([b, h_q, s, d] summed into [b, h_kv, s, d], each
// K/V head from its consecutive group of query heads). Every mode, float,
// half, bfloat16 and double, random dims and strides, on every engine
// heuristics offer (CPU: cpu.reduction and cpu.reference.reduction), against
// tests/common's float64 reference;
// non-divisor extents are refused at finalize as cuDNN does (BAD_PARAM).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/grouped_reduction_reference.hpp"

namespace fdnn_test {
namespace {

std::unique_ptr<Desc> reduction_desc(cudnnReduceTensorOp_t mode) {
  auto red = std::make_unique<Desc>(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  EXPECT_EQ(red->set1(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(red->set1(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(red->finalize(), CUDNN_STATUS_SUCCESS);
  return red;
}

// The reduction operation of x into y (not finalized).
std::unique_ptr<Desc> reduction_op(Desc &x, Desc &y, Desc &red) {
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y.d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, red.d), CUDNN_STATUS_SUCCESS);
  return op;
}

struct Case {
  cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  cudnnDataType_t xt = CUDNN_DATA_FLOAT, yt = CUDNN_DATA_FLOAT;
  std::vector<int64_t> x_dims, x_strides, y_dims, y_strides;
  std::string name() const {
    std::string s = std::string("mode ") + std::to_string(mode) + " " + type_name(xt) + "->" + type_name(yt) + " x";
    for (int64_t e : x_dims) s += " " + std::to_string(e);
    s += " y";
    for (int64_t e : y_dims) s += " " + std::to_string(e);
    return s;
  }
};

class BackendReductionGrouped : public BackendGraphTest {
 public:
  // Runs c on every engine config heuristics offer (on the CPU the fast
  // engine, then the reference engine) and compares y with the float64
  // reference each time; `engines` gets the engines' names.
  void check(const Case &c, Rng &rng, std::vector<std::string> *engines = nullptr) {
    SCOPED_TRACE(c.name());
    HostTensor x = make_tensor(c.xt, c.x_dims, c.x_strides), y = make_tensor(c.yt, c.y_dims, c.y_strides);
    const bool product = c.mode == CUDNN_REDUCE_TENSOR_MUL || c.mode == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    if (product) fill_random(x, rng, 0.75, 1.3);
    else fill_random(x, rng, -3, 3);
    if (c.mode == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
      for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        if (rng.coin(0.2)) x.set(i, 0.0);
      });
    const std::vector<double> want = grouped_reduction_reference(c.mode, x, c.y_dims);

    auto xd = tensor_desc(1, c.xt, c.x_dims, c.x_strides), yd = tensor_desc(2, c.yt, c.y_dims, c.y_strides);
    auto red = reduction_desc(c.mode);
    auto op = reduction_op(*xd, *yd, *red);
    ASSERT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    const auto cfgs = engine_configs(handle, {op.get()});
    ASSERT_FALSE(cfgs.empty());
    for (const auto &cfg : cfgs) {
      std::unique_ptr<Desc> plan = finalized_plan(handle, cfg->d);
      ASSERT_TRUE(plan);
      const std::string name = plan_engine_name(*plan);
      if (engines) engines->push_back(name);
      SCOPED_TRACE("engine " + name);
      poison(y);
      run_plan(*plan, c, x, y, want);
    }
  }

  void run_plan(Desc &plan, const Case &c, const HostTensor &x, HostTensor &y, const std::vector<double> &want) {
    Buffer dx(x.bytes.size()), dy(y.bytes.size());
    dx.upload(x.bytes.data(), x.bytes.size());
    dy.upload(y.bytes.data(), y.bytes.size());
    const cudnnStatus_t st = execute(plan, {1, 2}, {dx.get(), dy.get()});
    ASSERT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
    dy.download(y.bytes.data(), y.bytes.size());

    const bool product = c.mode == CUDNN_REDUCE_TENSOR_MUL || c.mode == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    int64_t slice = 1;
    for (size_t d = 0; d < c.x_dims.size(); ++d) slice *= c.x_dims[d] / c.y_dims[d];
    const std::vector<double> got = y.values();
    ASSERT_EQ(got.size(), want.size());
    int bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const double w = round_to_type(c.yt, want[i]);
      const double tol = 4 * unit_roundoff(c.yt) * std::fabs(want[i]) +
                         (product ? 4e-7 * slice * std::fabs(want[i]) : 2e-6 * static_cast<double>(slice) * (3 + std::fabs(w)));
      if (!(std::fabs(got[i] - w) <= tol) && ++bad <= 5)
        ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", want " << w << " (tolerance " << tol << ")";
    }
    EXPECT_EQ(bad, 0);
  }
};

// The shape of cudnn-frontend's GQA backward: dK / dV per query head summed
// over each group of consecutive heads; BHSD and BSHD memory orders.
TEST_F(BackendReductionGrouped, GroupedQueryHeads) {
  Rng rng(1);
  {
    for (bool bshd : {false, true}) {
      const int64_t b = 2, hq = 6, hk = 2, s = 7, d = 16;
      auto strides = [&](int64_t heads) {
        return bshd ? std::vector<int64_t>{s * heads * d, d, heads * d, 1}
                    : std::vector<int64_t>{heads * s * d, s * d, d, 1};
      };
      Case c;
      c.x_dims = {b, hq, s, d}, c.x_strides = {hq * s * d, s * d, d, 1};
      c.y_dims = {b, hk, s, d}, c.y_strides = strides(hk);
      for (cudnnDataType_t t : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
        c.xt = t, c.yt = t;
        std::vector<std::string> engines;
        check(c, rng, &engines);
        ASSERT_FALSE(engines.empty());
        EXPECT_EQ(engines[0], gpu_mode() ? "cuda.reduction" : "cpu.reduction");
        if (!gpu_mode())
          EXPECT_NE(std::find(engines.begin(), engines.end(), "cpu.reference.reduction"), engines.end());
      }
    }
  }
}

// Random ranks, extents (each y extent x's, 1 or a divisor), strides with
// gaps in random dimension orders, every mode and data type.
TEST_F(BackendReductionGrouped, RandomShapesEveryMode) {
  Rng rng(2);
  const std::vector<cudnnReduceTensorOp_t> modes = {
      CUDNN_REDUCE_TENSOR_ADD,  CUDNN_REDUCE_TENSOR_MUL,   CUDNN_REDUCE_TENSOR_MIN,
      CUDNN_REDUCE_TENSOR_MAX,  CUDNN_REDUCE_TENSOR_AMAX,  CUDNN_REDUCE_TENSOR_AVG,
      CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
  const std::vector<cudnnDataType_t> types = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                              CUDNN_DATA_DOUBLE};
  {
    for (int n = 0; n < 27; ++n) {
      Case c;
      c.mode = modes[static_cast<size_t>(n) % modes.size()];
      c.xt = types[static_cast<size_t>(n) % types.size()];
      c.yt = rng.coin(0.3) && c.xt != CUDNN_DATA_DOUBLE ? CUDNN_DATA_FLOAT : c.xt;
      const int rank = static_cast<int>(rng.integer(3, 5));
      bool grouped = false;
      int groups = 0;  // at most 3: split in two, rank 5 stays within 8 dims (CUDA's limit)
      for (int d = 0; d < rank; ++d) {
        const int64_t y = rng.integer(1, 4), g = rng.integer(1, 4);
        c.x_dims.push_back(y * g);
        const int kind = static_cast<int>(rng.integer(0, groups < 3 ? 2 : 1));  // 0 kept, 1 reduced, 2 grouped
        groups += kind == 2;
        c.y_dims.push_back(kind == 0 ? y * g : kind == 1 ? 1 : y);
        grouped = grouped || (c.y_dims.back() != 1 && c.y_dims.back() != c.x_dims.back());
      }
      if (!grouped) c.x_dims[0] = 6, c.y_dims[0] = 3;  // at least one grouped dim
      c.x_strides = random_strides(rng, c.x_dims);
      c.y_strides = random_strides(rng, c.y_dims);
      check(c, rng);
    }
  }
}

// Extents that do not divide x's are refused when the operation is
// finalized, BAD_PARAM as cuDNN 9 ("xDim % yDim != 0"); so are y extents
// larger than x's.
TEST_F(BackendReductionGrouped, NonDivisorRefused) {
  auto red = reduction_desc(CUDNN_REDUCE_TENSOR_ADD);
  auto x = tensor_desc(1, CUDNN_DATA_FLOAT, {2, 6, 8, 16}, {768, 128, 16, 1});
  for (const std::vector<int64_t> &yd : {std::vector<int64_t>{2, 4, 8, 16}, std::vector<int64_t>{2, 12, 8, 16},
                                         std::vector<int64_t>{2, 6, 8, 5}}) {
    auto y = tensor_desc(2, CUDNN_DATA_FLOAT, yd, packed(yd));
    auto op = reduction_op(*x, *y, *red);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("must divide x's"), std::string::npos) << last_error();
  }
}

}  // namespace
}  // namespace fdnn_test
