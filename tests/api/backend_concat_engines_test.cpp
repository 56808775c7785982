// OPERATION_CONCAT on every engine heuristics offer: the copy engines
// (cpu.concat.copies / cuda.concat.copies: one strided pointwise copy per
// input) and, on a CPU handle, the reference engine cpu.reference.concat.
// Random ranks, axes, input counts, strides (gaps, any dimension order) for
// every input and for y, data types (and a conversion from the inputs' type
// to y's), NaN-poisoned y, an input that already lives in its sub-view of y
// (INPLACE_INDEX), checked against tests/common/concat_reference.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/buffer.hpp"
#include "common/concat_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendConcatEngines : public BackendGraphTest {
 public:
  using BackendGraphTest::handle;
};

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE,
                                             CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8, CUDNN_DATA_INT32};

struct ConcatProblem {
  int axis = 0;
  std::vector<HostTensor> xs;  // values of the inputs (the in-place one: packed, its values only)
  HostTensor y;                // y's layout, poisoned
  int64_t in_place = -1;       // the input whose memory is its sub-view of y
};

size_t elem_bytes(cudnnDataType_t t) {
  switch (t) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8: return 1;
    default: return 4;
  }
}

// Runs p on every engine config heuristics (mode A) offer and checks y each
// time; returns the engines' names in the order offered.
std::vector<std::string> run_everywhere(BackendConcatEngines &t, const ConcatProblem &p) {
  const cudnnDataType_t yt = p.y.dtype;
  std::vector<const HostTensor *> inputs;
  for (const HostTensor &x : p.xs) inputs.push_back(&x);
  const std::vector<int64_t> ydims = concat_dims(inputs, p.axis);
  // y before the run: poison, and the in-place input's values in its sub-view.
  HostTensor y0 = p.y;
  poison(y0);
  int64_t start = 0, in_place_start = 0;
  for (size_t k = 0; k < p.xs.size(); ++k) {
    if (static_cast<int64_t>(k) == p.in_place) {
      in_place_start = start;
      for_each_index(p.xs[k].dims, [&](const std::vector<int64_t> &idx) {
        std::vector<int64_t> j = idx;
        j[static_cast<size_t>(p.axis)] += start;
        y0.set(j, p.xs[k].get(idx));
      });
    }
    start += p.xs[k].dims[static_cast<size_t>(p.axis)];
  }
  std::vector<std::unique_ptr<Desc>> xds;
  std::vector<Desc *> in;
  for (size_t k = 0; k < p.xs.size(); ++k) {
    const bool inside = static_cast<int64_t>(k) == p.in_place;
    xds.push_back(tensor_desc(10 + static_cast<int64_t>(k), p.xs[k].dtype, p.xs[k].dims,
                              inside ? p.y.strides : p.xs[k].strides));
    in.push_back(xds.back().get());
  }
  auto yd = tensor_desc(99, yt, ydims, p.y.strides);
  auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
  std::vector<cudnnBackendDescriptor_t> in_d;
  for (Desc *d : in) in_d.push_back(d->d);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, int64_t{p.axis}), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, in_d), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
  if (p.in_place >= 0)
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, CUDNN_TYPE_INT64, p.in_place), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();

  const std::vector<Expect> want = concat_expected(inputs, p.axis);
  std::vector<std::string> names;
  const std::vector<std::unique_ptr<Desc>> cfgs = engine_configs(t.handle, {op.get()});
  for (const auto &cfg : cfgs) {
    std::unique_ptr<Desc> plan = finalized_plan(t.handle, cfg->d);
    if (!plan) continue;
    names.push_back(plan_engine_name(*plan));
    SCOPED_TRACE("engine " + names.back());
    std::vector<Buffer> xbs;
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    Buffer yb = upload(y0);
    for (size_t k = 0; k < p.xs.size(); ++k) {
      uids.push_back(10 + static_cast<int64_t>(k));
      if (static_cast<int64_t>(k) == p.in_place) {
        const size_t bytes = static_cast<size_t>(in_place_start * p.y.strides[static_cast<size_t>(p.axis)]) * elem_bytes(yt);
        ptrs.push_back(static_cast<char *>(yb.get()) + bytes);
        continue;
      }
      xbs.push_back(upload(p.xs[k]));
      ptrs.push_back(xbs.back().get());
    }
    uids.push_back(99);
    ptrs.push_back(yb.get());
    EXPECT_EQ(t.execute(*plan, uids, ptrs), CUDNN_STATUS_SUCCESS) << last_error();
    HostTensor y = y0;
    download(yb, y);
    EXPECT_TRUE(matches(y, want));
    EXPECT_TRUE(gaps_untouched(y, y0));
  }
  return names;
}

// The copy engine first, and on a CPU handle the reference engine among them.
void check_engines(const std::vector<std::string> &names) {
  ASSERT_FALSE(names.empty()) << last_error();
  EXPECT_EQ(names.front(), gpu_mode() ? "cuda.concat.copies" : "cpu.concat.copies");
  if (!gpu_mode())
    EXPECT_NE(std::find(names.begin(), names.end(), "cpu.reference.concat"), names.end());
}

ConcatProblem random_problem(Rng &rng, int rank, int inputs, int64_t max_elements, cudnnDataType_t xt,
                             cudnnDataType_t yt) {
  ConcatProblem p;
  const std::vector<int64_t> base = random_dims(rng, rank, 6, max_elements);
  p.axis = static_cast<int>(rng.integer(0, rank - 1));
  std::vector<const HostTensor *> ins;
  for (int k = 0; k < inputs; ++k) {
    std::vector<int64_t> dims = base;
    dims[static_cast<size_t>(p.axis)] = rng.integer(1, 5);
    p.xs.push_back(make_tensor(xt, dims, random_strides(rng, dims)));
    fill_random(p.xs.back(), rng, -60, 60);
  }
  for (const HostTensor &x : p.xs) ins.push_back(&x);
  const std::vector<int64_t> ydims = concat_dims(ins, p.axis);
  p.y = make_tensor(yt, ydims, random_strides(rng, ydims));
  return p;
}

TEST_F(BackendConcatEngines, RandomLayoutsAndTypes) {
  Rng rng(test_seed(71));
  for (int iter = 0; iter < 16; ++iter) {
    const cudnnDataType_t xt = rng.pick(kTypes);
    // A quarter converts: f16 -> f32 (exact), f32 -> bf16 (one rounding), f64 -> f16.
    cudnnDataType_t yt = xt;
    if (iter % 4 == 3) yt = xt == CUDNN_DATA_HALF ? CUDNN_DATA_FLOAT : xt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_HALF
                                                                                                 : CUDNN_DATA_BFLOAT16;
    const int rank = static_cast<int>(rng.integer(1, 5)), inputs = static_cast<int>(rng.integer(1, 5));
    ConcatProblem p = random_problem(rng, rank, inputs, 500, xt, yt);
    SCOPED_TRACE(testing::Message() << "iter " << iter << " rank " << rank << " axis " << p.axis << " inputs "
                                    << inputs << " " << type_name(xt) << "->" << type_name(yt));
    check_engines(run_everywhere(*this, p));
  }
}

TEST_F(BackendConcatEngines, InPlaceInput) {
  Rng rng(test_seed(72));
  for (int iter = 0; iter < 6; ++iter) {
    const cudnnDataType_t type = kTypes[static_cast<size_t>(iter) % 4];
    const int rank = static_cast<int>(rng.integer(2, 4)), inputs = static_cast<int>(rng.integer(2, 4));
    ConcatProblem p = random_problem(rng, rank, inputs, 400, type, type);
    p.in_place = rng.integer(0, inputs - 1);
    SCOPED_TRACE(testing::Message() << "iter " << iter << " axis " << p.axis << " in place " << p.in_place << " of "
                                    << inputs << " " << type_name(type));
    check_engines(run_everywhere(*this, p));
  }
}

// Many thin inputs (offsets add up right) and a problem large enough for
// several threads per input: channel concat of NCHW and of NHWC tensors.
TEST_F(BackendConcatEngines, ManyInputsAndChannelConcat) {
  Rng rng(test_seed(73));
  {
    ConcatProblem p;
    p.axis = 0;
    for (int k = 0; k < 33; ++k) {
      const std::vector<int64_t> dims{rng.integer(1, 3), 5, 3};
      p.xs.push_back(make_tensor(CUDNN_DATA_FLOAT, dims, random_strides(rng, dims)));
      fill_random(p.xs.back(), rng, -9, 9);
    }
    std::vector<const HostTensor *> ins;
    for (const HostTensor &x : p.xs) ins.push_back(&x);
    const std::vector<int64_t> ydims = concat_dims(ins, 0);
    p.y = make_tensor(CUDNN_DATA_FLOAT, ydims, packed(ydims));
    check_engines(run_everywhere(*this, p));
  }
  for (Layout layout : {Layout::nchw, Layout::nhwc}) {
    SCOPED_TRACE(layout == Layout::nchw ? "NCHW" : "NHWC");
    ConcatProblem p;
    p.axis = 1;
    for (int64_t c : {24, 40}) {
      const std::vector<int64_t> dims{4, c, 20, 20};
      p.xs.push_back(make_tensor(CUDNN_DATA_HALF, dims, packed_strides(dims, layout)));
      fill_random(p.xs.back(), rng, -100, 100);
    }
    const std::vector<int64_t> ydims{4, 64, 20, 20};
    p.y = make_tensor(CUDNN_DATA_HALF, ydims, packed_strides(ydims, layout));
    check_engines(run_everywhere(*this, p));
  }
}

}  // namespace

namespace {

// Sub-byte outputs (BOOLEAN: 1 bit, INT4 / UINT4: 4 bits, packed from the
// lowest bits of each byte): slices of y that start inside a byte, inputs of
// other types converted (INT4 and UINT4 saturate and round to nearest even,
// BOOLEAN is value != 0). y's bytes are poisoned (0xff) first; every element
// must be written and the bits past the last element left alone. On a GPU
// handle cuda.concat.elements runs them and must come first.
uint32_t sub_byte_code(cudnnDataType_t t, double v) {
  if (t == CUDNN_DATA_BOOLEAN) return v != 0.0 ? 1u : 0u;
  const double lo = t == CUDNN_DATA_INT4 ? -8 : 0, hi = t == CUDNN_DATA_INT4 ? 7 : 15;
  const double r = std::nearbyint(std::min(std::max(v, lo), hi));
  return static_cast<uint32_t>(static_cast<int>(r)) & 0xfu;
}

TEST_F(BackendConcatEngines, SubByteOutputs) {
  Rng rng(test_seed(74));
  const cudnnDataType_t outs[] = {CUDNN_DATA_INT4, CUDNN_DATA_BOOLEAN, CUDNN_DATA_UINT4};
  const cudnnDataType_t ins[] = {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF};
  for (int iter = 0; iter < 9; ++iter) {
    const cudnnDataType_t yt = outs[iter % 3], xt = ins[(iter / 3) % 3];
    const int bits = yt == CUDNN_DATA_BOOLEAN ? 1 : 4;
    const int rank = static_cast<int>(rng.integer(1, 4)), inputs = static_cast<int>(rng.integer(1, 4));
    ConcatProblem p = random_problem(rng, rank, inputs, 300, xt, xt);
    for (HostTensor &x : p.xs) {  // values around the output's range, some halves (ties)
      for_each_index(x.dims, [&](const std::vector<int64_t> &idx) {
        const double v = bits == 1 ? static_cast<double>(rng.integer(-1, 1)) : rng.integer(-24, 40) / 2.0;
        x.set(idx, v);
      });
    }
    std::vector<const HostTensor *> inputs_p;
    for (const HostTensor &x : p.xs) inputs_p.push_back(&x);
    const std::vector<int64_t> ydims = concat_dims(inputs_p, p.axis);
    const std::vector<int64_t> ystrides = packed(ydims);
    int64_t count = 1;
    for (int64_t d : ydims) count *= d;
    SCOPED_TRACE(testing::Message() << "iter " << iter << " rank " << rank << " axis " << p.axis << " inputs "
                                    << inputs << " " << type_name(xt) << " -> " << (bits == 1 ? "bool" : "4-bit"));
    // Expected codes, element by element in y's packed order.
    std::vector<uint32_t> want(static_cast<size_t>(count));
    int64_t start = 0;
    for (const HostTensor &x : p.xs) {
      for_each_index(x.dims, [&](const std::vector<int64_t> &idx) {
        int64_t off = 0;
        for (size_t d = 0; d < idx.size(); ++d)
          off += (idx[d] + (static_cast<int>(d) == p.axis ? start : 0)) * ystrides[d];
        want[static_cast<size_t>(off)] = sub_byte_code(yt, x.get(idx));
      });
      start += x.dims[static_cast<size_t>(p.axis)];
    }
    std::vector<std::unique_ptr<Desc>> xds;
    std::vector<cudnnBackendDescriptor_t> in_d;
    for (size_t k = 0; k < p.xs.size(); ++k) {
      xds.push_back(tensor_desc(10 + static_cast<int64_t>(k), xt, p.xs[k].dims, p.xs[k].strides));
      in_d.push_back(xds.back()->d);
    }
    auto yd = tensor_desc(99, yt, ydims, ystrides);
    Desc op(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_CONCAT_AXIS, CUDNN_TYPE_INT64, int64_t{p.axis}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, in_d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op.set1(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, yd->d), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    const size_t ybytes = static_cast<size_t>((count * bits + 7) / 8);
    std::vector<std::string> names;
    for (const auto &cfg : engine_configs(handle, {&op})) {
      std::unique_ptr<Desc> plan = finalized_plan(handle, cfg->d);
      if (!plan) continue;
      names.push_back(plan_engine_name(*plan));
      SCOPED_TRACE("engine " + names.back());
      std::vector<Buffer> xbs;
      std::vector<int64_t> uids;
      std::vector<void *> ptrs;
      for (size_t k = 0; k < p.xs.size(); ++k) {
        xbs.push_back(upload(p.xs[k]));
        uids.push_back(10 + static_cast<int64_t>(k));
        ptrs.push_back(xbs.back().get());
      }
      // Whole 4-byte words (the GPU writes sub-byte elements with 32-bit atomics).
      Buffer yb(std::vector<uint8_t>((ybytes + 3) / 4 * 4, 0xff));
      uids.push_back(99);
      ptrs.push_back(yb.get());
      EXPECT_EQ(execute(*plan, uids, ptrs), CUDNN_STATUS_SUCCESS) << last_error();
      const std::vector<uint8_t> got = yb.download();
      int bad = 0;
      for (int64_t i = 0; i < count && bad < 5; ++i) {
        const int64_t bit = i * bits;
        const uint32_t code = (got[static_cast<size_t>(bit >> 3)] >> (bit & 7)) & ((1u << bits) - 1u);
        if (code != want[static_cast<size_t>(i)]) {
          ++bad;
          ADD_FAILURE() << "element " << i << ": " << code << ", want " << want[static_cast<size_t>(i)];
        }
      }
      for (int64_t bit = count * bits; bit < static_cast<int64_t>(got.size()) * 8; ++bit)
        if (((got[static_cast<size_t>(bit >> 3)] >> (bit & 7)) & 1u) == 0) {
          ADD_FAILURE() << "bit " << bit << " past y was written";
          break;
        }
    }
    ASSERT_FALSE(names.empty()) << last_error();
    if (gpu_mode()) EXPECT_EQ(names.front(), "cuda.concat.elements");
    else EXPECT_NE(std::find(names.begin(), names.end(), "cpu.reference.concat"), names.end());
  }
}

}  // namespace
