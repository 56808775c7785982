// Single-operation MATMUL graphs through the backend API, every engine that
// heuristics offer checked against an independent float64 reference
// (tests/common/matmul_reference.*): mixed operand types (half / bfloat16 /
// float operands with a float, half or bfloat16 c: the attention and
// matmul + bias + GELU graphs' form; FP8 operands), double, int8 x int8 -> int32 / float,
// row- and column-major and arbitrary strides, batch dims broadcast by 1 or by
// a divisor (grouped-query attention's form). On a GPU handle they run on
// cuda.matmul.cublaslt where cuBLASLt takes the types and layout, else on
// cuda.matmul (every mix of element types); cuBLASLt's refusals say why.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/expect_status.hpp"
#include "common/matmul_reference.hpp"
#include "common/random.hpp"
#include "common/tensor_data.hpp"

using namespace fdnn_test;

namespace {

class BackendMatmul : public BackendGraphTest {};

struct MatmulTypes {
  cudnnDataType_t a, b, c;
};

// Unit roundoff of the arithmetic the engines accumulate in for these types.
double accumulate_roundoff(const MatmulTypes &t) {
  if (t.a == CUDNN_DATA_INT8 && t.b == CUDNN_DATA_INT8) return 0.0;  // exact integer sums
  if (t.c == CUDNN_DATA_DOUBLE) return 0x1p-53;
  return 0x1p-24;  // float
}

// Strides of a matrix operand: row-major, column-major (the last two dims
// swapped) or a random order with gaps; batch dims outside either way.
std::vector<int64_t> operand_strides(Rng &rng, const std::vector<int64_t> &dims, int form) {
  if (form == 2) return random_strides(rng, dims);
  std::vector<int64_t> order(dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  if (form == 1) std::swap(order[order.size() - 1], order[order.size() - 2]);
  std::vector<int64_t> s(dims.size());
  int64_t step = 1;
  for (size_t i = order.size(); i-- > 0;) {
    s[static_cast<size_t>(order[i])] = step;
    step *= dims[static_cast<size_t>(order[i])];
  }
  return s;
}

struct Problem {
  MatmulTypes t;
  std::vector<int64_t> a_dims, b_dims, c_dims;
};

// Random shapes: c's batch extents, one of a and b full, the other a divisor
// (1 included), as cuDNN's finalize requires.
Problem random_problem(Rng &rng, const MatmulTypes &t) {
  Problem p{t, {}, {}, {}};
  const int batch_dims = static_cast<int>(rng.integer(0, 2));
  const int64_t m = rng.integer(1, 37), n = rng.integer(1, 37), k = rng.integer(1, 45);
  const std::vector<int64_t> extents = {1, 2, 3, 4, 6};
  for (int d = 0; d < batch_dims; ++d) {
    const int64_t e = rng.pick(extents);
    std::vector<int64_t> divisors;
    for (int64_t v = 1; v <= e; ++v)
      if (e % v == 0) divisors.push_back(v);
    const int64_t other = rng.pick(divisors);
    const bool a_full = rng.coin();
    p.a_dims.push_back(a_full ? e : other);
    p.b_dims.push_back(a_full ? other : e);
    p.c_dims.push_back(e);
  }
  p.a_dims.insert(p.a_dims.end(), {m, k});
  p.b_dims.insert(p.b_dims.end(), {k, n});
  p.c_dims.insert(p.c_dims.end(), {m, n});
  return p;
}

cudnnDataType_t compute_type(const MatmulTypes &t) {
  if (t.a == CUDNN_DATA_INT8) return CUDNN_DATA_INT32;
  return t.c == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

// Runs the problem on every engine config heuristics offer, with a, b and c
// in the given operand_strides forms; returns the engines' names, best first.
std::vector<std::string> check_problem_in(BackendMatmul &fx, Rng &rng, const Problem &p, int form_a, int form_b,
                                          int form_c) {
  HostTensor a = make_tensor(p.t.a, p.a_dims, operand_strides(rng, p.a_dims, form_a));
  HostTensor b = make_tensor(p.t.b, p.b_dims, operand_strides(rng, p.b_dims, form_b));
  HostTensor c0 = make_tensor(p.t.c, p.c_dims, operand_strides(rng, p.c_dims, form_c));
  const bool ints = p.t.a == CUDNN_DATA_INT8;
  fill_random(a, rng, ints ? -128 : -2, ints ? 128 : 2);
  fill_random(b, rng, ints ? -128 : -2, ints ? 128 : 2);
  poison(c0);  // beta = 0: NaN in c must not survive
  auto ad = tensor_desc(1, p.t.a, a.dims, a.strides), bd = tensor_desc(2, p.t.b, b.dims, b.strides);
  auto cd = tensor_desc(3, p.t.c, c0.dims, c0.strides);
  auto op = matmul_op(*ad, *bd, *cd, compute_type(p.t));
  const std::vector<Expect> want = matmul_expected(a, b, p.c_dims, accumulate_roundoff(p.t));
  std::vector<std::string> names;
  Buffer ab = upload(a), bb = upload(b);
  for (const auto &cfg : engine_configs(fx.handle, {op.get()})) {
    std::unique_ptr<Desc> plan = finalized_plan(fx.handle, cfg->d);
    if (!plan) continue;
    names.push_back(plan_engine_name(*plan));
    SCOPED_TRACE("engine " + names.back());
    Buffer cb = upload(c0);
    EXPECT_EQ(fx.execute(*plan, {1, 2, 3}, {ab.get(), bb.get(), cb.get()}), CUDNN_STATUS_SUCCESS) << last_error();
    HostTensor c = c0;
    download(cb, c);
    EXPECT_TRUE(matches(c, want));
    EXPECT_TRUE(gaps_untouched(c, c0));
  }
  return names;
}

// The same with random forms (row-major, column-major or random strides).
std::vector<std::string> check_problem(BackendMatmul &fx, Rng &rng, const Problem &p) {
  const int fa = static_cast<int>(rng.integer(0, 2)), fb = static_cast<int>(rng.integer(0, 2));
  const int fc = static_cast<int>(rng.integer(0, 2));
  return check_problem_in(fx, rng, p, fa, fb, fc);
}

// The types cuda.matmul.cublaslt takes (with compute_type()'s compute type):
// the rest run on cuda.matmul.
bool cublaslt_types(const MatmulTypes &t) {
  if (t.a != t.b) return false;
  if (t.a == CUDNN_DATA_HALF || t.a == CUDNN_DATA_BFLOAT16) return t.c == t.a || t.c == CUDNN_DATA_FLOAT;
  return (t.a == CUDNN_DATA_FLOAT || t.a == CUDNN_DATA_DOUBLE) && t.c == t.a;
}

std::string describe(const Problem &p) {
  auto dims = [](const std::vector<int64_t> &d) {
    std::string s;
    for (int64_t v : d) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
  };
  return std::string(type_name(p.t.a)) + "*" + type_name(p.t.b) + "->" + type_name(p.t.c) + " a " + dims(p.a_dims) +
         " b " + dims(p.b_dims) + " c " + dims(p.c_dims);
}

TEST_F(BackendMatmul, MixedTypesLayoutsAndBroadcasts) {
  Rng rng(test_seed(91));
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, f16 = CUDNN_DATA_HALF, bf16 = CUDNN_DATA_BFLOAT16;
  const std::vector<MatmulTypes> types = {
      {f16, f16, f32},   {bf16, bf16, f32}, {f16, bf16, f32}, {f32, f16, f32}, {f32, f32, f16},
      {f32, f32, bf16},  {f16, f16, f16},   {bf16, bf16, bf16}, {f32, f32, f32},
      {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
      {CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32},
      {CUDNN_DATA_INT8, CUDNN_DATA_INT8, f32},
      {CUDNN_DATA_FP8_E4M3, CUDNN_DATA_FP8_E4M3, f32},
      {CUDNN_DATA_FP8_E5M2, CUDNN_DATA_FP8_E4M3, f16},
  };
  for (int iter = 0; iter < 42; ++iter) {
    const Problem p = random_problem(rng, types[static_cast<size_t>(iter) % types.size()]);
    SCOPED_TRACE("iter " + std::to_string(iter) + " " + describe(p));
    const std::vector<std::string> names = check_problem(*this, rng, p);
    ASSERT_FALSE(names.empty()) << last_error();
    if (gpu_mode()) {
      // cuBLASLt first where it takes the types and the layout, else cuda.matmul.
      if (cublaslt_types(p.t) && names.front() == "cuda.matmul.cublaslt") continue;
      EXPECT_EQ(names.front(), "cuda.matmul");
    } else {
      EXPECT_NE(std::find(names.begin(), names.end(), "cpu.reference.matmul"), names.end());
    }
  }
}

// Both GPU engines pinned on the forms cuBLASLt takes: each of its types,
// a, b and c row- or column-major, no batch, one batch dim, two batch dims
// that collapse, and a or b broadcast by 1 (batch stride 0); c NaN-poisoned
// (beta = 0 must not read it). Every config heuristics offer runs
// (check_problem_in), so cuda.matmul.cublaslt and cuda.matmul are both
// checked against the float64 reference; on a GPU handle cuBLASLt must come
// first. On the CPU handle the CPU engines run the same problems.
TEST_F(BackendMatmul, CublasLtFormsOnBothGpuEngines) {
  Rng rng(test_seed(93));
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, f16 = CUDNN_DATA_HALF, bf16 = CUDNN_DATA_BFLOAT16;
  const std::vector<MatmulTypes> types = {{f16, f16, f16},   {f16, f16, f32}, {bf16, bf16, bf16},
                                          {bf16, bf16, f32}, {f32, f32, f32},
                                          {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE}};
  struct Batch {
    std::vector<int64_t> a, b, c;
  };
  const std::vector<Batch> batches = {{{}, {}, {}},          {{3}, {3}, {3}},       {{2, 3}, {2, 3}, {2, 3}},
                                      {{1}, {4}, {4}},       {{2, 3}, {1, 1}, {2, 3}}, {{1, 1}, {2, 2}, {2, 2}}};
  int iter = 0;
  for (const MatmulTypes &t : types) {
    for (int forms = 0; forms < 8; ++forms) {
      const Batch &bt = batches[static_cast<size_t>(iter) % batches.size()];
      // One bigger problem per type, so that cuBLASLt's tensor-core kernels run too.
      const bool big = forms == 7;
      const int64_t m = big ? 64 : rng.integer(1, 40), n = big ? 48 : rng.integer(1, 40);
      const int64_t k = big ? 80 : rng.integer(1, 48);
      Problem p{t, bt.a, bt.b, bt.c};
      p.a_dims.insert(p.a_dims.end(), {m, k});
      p.b_dims.insert(p.b_dims.end(), {k, n});
      p.c_dims.insert(p.c_dims.end(), {m, n});
      const int fa = forms & 1, fb = (forms >> 1) & 1, fc = (forms >> 2) & 1;
      SCOPED_TRACE("iter " + std::to_string(iter) + " " + describe(p) + " forms " + std::to_string(fa) +
                   std::to_string(fb) + std::to_string(fc));
      ++iter;
      const std::vector<std::string> names = check_problem_in(*this, rng, p, fa, fb, fc);
      ASSERT_FALSE(names.empty()) << last_error();
      if (!gpu_mode()) continue;
      EXPECT_EQ(names.front(), "cuda.matmul.cublaslt");
      EXPECT_NE(std::find(names.begin(), names.end(), "cuda.matmul"), names.end());
    }
  }
}

// Grouped-query attention's score product: Q [b, h, s, d] x K^T [b, h_kv, d, s]
// with h = 8 query heads over h_kv = 2 K/V heads (head i reads i / 4), half
// operands and a float c, K^T column-major (K stored [b, h_kv, s, d]).
TEST_F(BackendMatmul, GroupedQueryScores) {
  Rng rng(test_seed(92));
  Problem p{{CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT}, {2, 8, 33, 16}, {2, 2, 16, 40}, {2, 8, 33, 40}};
  HostTensor q = make_tensor(p.t.a, p.a_dims, packed(p.a_dims));
  const std::vector<int64_t> kt_strides = {2 * 40 * 16, 40 * 16, 1, 16};
  HostTensor kt = make_tensor(p.t.b, p.b_dims, kt_strides);
  HostTensor s0 = make_tensor(p.t.c, p.c_dims, packed(p.c_dims));
  fill_random(q, rng, -1, 1);
  fill_random(kt, rng, -1, 1);
  poison(s0);
  auto qd = tensor_desc(1, p.t.a, q.dims, q.strides), kd = tensor_desc(2, p.t.b, kt.dims, kt.strides);
  auto sd = tensor_desc(3, p.t.c, s0.dims, s0.strides);
  auto op = matmul_op(*qd, *kd, *sd, CUDNN_DATA_FLOAT);
  std::unique_ptr<Desc> plan = make_plan({op.get()});
  ASSERT_NE(plan, nullptr);
  if (gpu_mode()) EXPECT_EQ(plan_engine_name(*plan), "cuda.matmul");
  Buffer qb = upload(q), kb = upload(kt), sb = upload(s0);
  ASSERT_EQ(execute(*plan, {1, 2, 3}, {qb.get(), kb.get(), sb.get()}), CUDNN_STATUS_SUCCESS) << last_error();
  HostTensor s = s0;
  download(sb, s);
  EXPECT_TRUE(matches(s, matmul_expected(q, kt, p.c_dims, 0x1p-24)));
  // Spot check of the head mapping itself: head 5 of batch 1 reads K/V head 1.
  double dot = 0;
  for (int64_t d = 0; d < 16; ++d) dot += q.get({1, 5, 7, d}) * kt.get({1, 1, d, 9});
  EXPECT_NEAR(s.get({1, 5, 7, 9}), dot, 1e-4);
}

// The engine's refusal of `engine` for the graph of `op` (empty when it
// accepts or is not registered): engines chosen by global index say why.
std::string refusal(cudnnHandle_t handle, Desc &op, const std::string &engine) {
  std::unique_ptr<Desc> graph = operation_graph(handle, {&op});
  int64_t count = 0, got = 0;
  EXPECT_EQ(cudnnBackendGetAttribute(graph->d, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64, 1, &got,
                                     &count),
            CUDNN_STATUS_SUCCESS);
  for (int64_t gidx = 0; gidx < count; ++gidx) {
    Desc e(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    EXPECT_EQ(e.set1(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, graph->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(e.set1(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, gidx), CUDNN_STATUS_SUCCESS);
    if (e.finalize() == CUDNN_STATUS_SUCCESS) continue;
    const std::string msg = last_error();
    if (msg.find("(" + engine + ")") != std::string::npos && msg.find("does not support") != std::string::npos)
      return msg;
  }
  return "";
}

// Mixes of types outside the typed kernels: a double operand with other
// types, FP8 or int8 with float types, half with bfloat16 across a, b and c,
// int32 operands. The CPU's reference engine takes any types; on a GPU handle
// cuda.matmul runs them (run-time typed loads, double compute where an operand
// is DOUBLE or INT32) and must come first, checked against the float64
// reference like every other form.
TEST_F(BackendMatmul, MixedFormsOnTheFmaKernel) {
  Rng rng(test_seed(94));
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, f16 = CUDNN_DATA_HALF, bf16 = CUDNN_DATA_BFLOAT16;
  const cudnnDataType_t f64 = CUDNN_DATA_DOUBLE, s8 = CUDNN_DATA_INT8, s32 = CUDNN_DATA_INT32;
  const std::vector<MatmulTypes> forms = {
      {f64, f64, f32}, {f64, f32, f16}, {f16, f64, bf16}, {f32, f32, f64}, {bf16, f16, f64},
      {CUDNN_DATA_FP8_E4M3, f16, f32}, {f32, CUDNN_DATA_FP8_E5M2, bf16}, {s8, f32, f32}, {f16, s8, bf16},
      {f16, bf16, bf16}, {bf16, f16, f16}, {s32, f32, f64}, {s8, s8, f16},
  };
  for (size_t i = 0; i < 2 * forms.size(); ++i) {
    const Problem p = random_problem(rng, forms[i % forms.size()]);
    SCOPED_TRACE("iter " + std::to_string(i) + " " + describe(p));
    const std::vector<std::string> names = check_problem(*this, rng, p);
    ASSERT_FALSE(names.empty()) << last_error();
    if (gpu_mode()) EXPECT_EQ(names.front(), "cuda.matmul");
  }
}

// int8 x int8 -> int32 with k past what an int32 sum holds for every input
// (kMatmulMaxInt8K in cuda/matmul_args.hpp): the GPU sums in double, exact
// like the float64 reference.
TEST_F(BackendMatmul, Int8LongK) {
  Rng rng(test_seed(95));
  const int64_t k = (int64_t{1} << 31) / (128 * 128) + 5;
  const Problem p{{CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32}, {1, k}, {k, 3}, {1, 3}};
  const std::vector<std::string> names = check_problem_in(*this, rng, p, 0, static_cast<int>(rng.integer(0, 1)), 0);
  ASSERT_FALSE(names.empty()) << last_error();
  if (gpu_mode()) EXPECT_EQ(names.front(), "cuda.matmul");
}

// Bad forms stay refused at finalize, with the dims named.
TEST_F(BackendMatmul, BadShapesRefused) {
  auto a = tensor_desc(1, CUDNN_DATA_HALF, {8, 4, 6}, packed({8, 4, 6}));
  auto b3 = tensor_desc(2, CUDNN_DATA_HALF, {3, 6, 5}, packed({3, 6, 5}));  // 3 does not divide 8
  auto c = tensor_desc(3, CUDNN_DATA_FLOAT, {8, 4, 5}, packed({8, 4, 5}));
  Desc mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  ASSERT_EQ(mm.set1(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS);
  auto node = [&](Desc &bd, Desc &cd) {
    auto op = std::make_unique<Desc>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a->d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, bd.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, cd.d), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(op->set1(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, mm.d), CUDNN_STATUS_SUCCESS);
    return op;
  };
  auto op1 = node(*b3, *c);
  EXPECT_FAILS_NAMING(op1->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "batch dimension 0");
  auto b_k = tensor_desc(4, CUDNN_DATA_HALF, {8, 7, 5}, packed({8, 7, 5}));  // K 7 against a's 6
  auto op2 = node(*b_k, *c);
  EXPECT_FAILS_NAMING(op2->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "K = 7");
  auto b2 = tensor_desc(5, CUDNN_DATA_HALF, {2, 6, 5}, packed({2, 6, 5}));
  auto c_small = tensor_desc(6, CUDNN_DATA_FLOAT, {2, 4, 5}, packed({2, 4, 5}));  // c's batch must be 8
  auto op3 = node(*b2, *c_small);
  EXPECT_FAILS_NAMING(op3->finalize(), CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize", "batch dimension 0");
}

// cuBLASLt refuses what it cannot describe, naming the reason, and
// cuda.matmul runs it: a divisor broadcast, and mixed operand types.
TEST_F(BackendMatmul, CublasLtRefusalsFallBack) {
  const std::vector<MatmulTypes> mixed = {{CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
                                          {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF}};
  for (const MatmulTypes &t : mixed) {
    auto ad = tensor_desc(1, t.a, {2, 8, 12}, packed({2, 8, 12}));
    auto bd = tensor_desc(2, t.b, {2, 12, 4}, packed({2, 12, 4}));
    auto cd = tensor_desc(3, t.c, {2, 8, 4}, packed({2, 8, 4}));
    auto op = matmul_op(*ad, *bd, *cd, CUDNN_DATA_FLOAT);
    EXPECT_GT(engine_count(handle, {op.get()}), 0);
    if (!gpu_mode()) continue;
    const std::string why = refusal(handle, *op, "cuda.matmul.cublaslt");
    EXPECT_NE(why.find("types a "), std::string::npos) << why;
  }
  auto ad = tensor_desc(1, CUDNN_DATA_HALF, {4, 8, 12}, packed({4, 8, 12}));
  auto bd = tensor_desc(2, CUDNN_DATA_HALF, {2, 12, 4}, packed({2, 12, 4}));  // 2 divides 4
  auto cd = tensor_desc(3, CUDNN_DATA_FLOAT, {4, 8, 4}, packed({4, 8, 4}));
  auto op = matmul_op(*ad, *bd, *cd, CUDNN_DATA_FLOAT);
  EXPECT_GT(engine_count(handle, {op.get()}), 0);
  if (!gpu_mode()) return;
  const std::string why = refusal(handle, *op, "cuda.matmul.cublaslt");
  EXPECT_NE(why.find("proper divisor"), std::string::npos) << why;
}

}  // namespace
