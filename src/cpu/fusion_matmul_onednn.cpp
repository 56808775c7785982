// cpu.fusion.matmul.onednn: a matmul whose (virtual) output feeds a chain of
// pointwise ops that oneDNN's matmul expresses exactly as its bias and
// post-ops, run as ONE oneDNN matmul primitive: the epilogue is applied to
// each output block while it is still in registers / L1, and no
// intermediate is ever written. The generic cpu.fusion.runtime cuts the
// matmul into 256x256 tiles, each a single-threaded matmul call followed by
// a second pass of the epilogue over the tile. Bench, 1x1024x1024x4096 f32
// with bias + erf GELU, 2 threads, same-run ratio to oneDNN's matmul with
// those post-ops: 0.92-1.01 here, 0.47-0.63 on cpu.fusion.runtime (bf16:
// 0.96-1.00, the runtime engine about the same).
//
// The chain: matmul -> op_1 -> ... -> op_n -> y (real), each op's chain
// operand the previous op's output (virtual FLOAT tensors of c's dims, read
// by that one op only), the other operand a caller tensor that broadcasts to
// c (extent 1 or c's per dim) or a by-value scalar. Ops and their oneDNN form:
//   ADD  t (first op, alphas 1)          matmul bias (DNNL_ARG_BIAS)
//   ADD / SUB t                           binary_add / binary_sub (alpha2 of t
//                                         must be 1: binary post-ops cannot scale
//                                         their second operand; alpha1 is a
//                                         linear post-op before)
//   MUL t                                 binary_mul, alpha1 * alpha2 as linear
//   RELU (lower clip 0, slope s != 0, no upper clip, PROPAGATE_NAN)  eltwise_relu(s)
//   RELU (slope 0, NOT_PROPAGATE_NAN)     eltwise_relu(0) / eltwise_clip(lower, upper)
//                                         (NaN becomes the lower clip in both)
//   GELU_FWD / GELU_APPROX_TANH_FWD       eltwise_gelu_erf / eltwise_gelu_tanh
//   TANH / SIGMOID / ELU(alpha) / SWISH(beta)       eltwise_tanh / logistic / elu / swish
//   SOFTPLUS with beta 1                  eltwise_soft_relu (2.6 has no beta)
//   IDENTITY                              nothing (types: y's data type)
// alpha1 of a unary op scales its input, an op's output alpha its result:
// these factors are gathered into one linear post-op before the next
// ADD / SUB / activation (MUL commutes with them); beta of the final output
// is oneDNN's sum post-op.
// Everything else is refused with a reason (cpu.fusion.runtime runs it).
//
// Types: a, b, y and the operands FLOAT, BFLOAT16 or HALF with FLOAT math;
// whether this CPU runs a combination is asked of oneDNN (primitive creation
// fails, or lands on oneDNN's slow reference kernel: refused). Batch
// broadcast: extents of 1 (oneDNN's matmul rule). Layouts: the caller's
// strides as given (row- / column-major, any positive strides).
//
// Values that are not structural (alphas, clips, ELU / swish parameters,
// blending) are read from the graph at each call: the plan keeps one
// primitive per set of values (the backend API's plans have one). By-value
// operands are passed as one-element binary operands, read at each call.
//
// FREEDNN_ONEDNN_MATMUL_FUSION=0 turns the engine off (A/B measurements).
//
// Threads: as cpu.matmul.onednn (OpenMP team = the caller's pool size; one
// stream per call), and oneDNN's scratchpad is the calling thread's (user
// scratchpad mode), so one plan serves concurrent callers.
#ifdef FREEDNN_WITH_ONEDNN
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/matmul_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/onednn_support.hpp"

namespace fdnn::cpu {
namespace {

using dnnl::algorithm;
using dnnl::memory;

// One pointwise op of the chain, in execution order.
struct Step {
  int op = -1;                            // index in g.ops()
  graph::Uid other = graph::kNoTensor;    // the second operand of a binary op
  bool chain_is_x = true;                 // the chain value is x (else b)
};

struct Chain {
  int matmul = -1;
  std::vector<Step> steps;
  graph::Uid out = graph::kNoTensor;
};

bool is_binary_mode(cudnnPointwiseMode_t m) {
  return m == CUDNN_POINTWISE_ADD || m == CUDNN_POINTWISE_SUB || m == CUDNN_POINTWISE_MUL;
}
bool is_unary_mode(cudnnPointwiseMode_t m) {
  switch (m) {
    case CUDNN_POINTWISE_RELU_FWD:
    case CUDNN_POINTWISE_GELU_FWD:
    case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD:
    case CUDNN_POINTWISE_TANH_FWD:
    case CUDNN_POINTWISE_SIGMOID_FWD:
    case CUDNN_POINTWISE_ELU_FWD:
    case CUDNN_POINTWISE_SWISH_FWD:
    case CUDNN_POINTWISE_SOFTPLUS_FWD:
    case CUDNN_POINTWISE_IDENTITY: return true;
    default: return false;
  }
}

bool same_dims_or_one(const graph::Tensor &t, const std::vector<int64_t> &dims) {
  if (t.rank() != static_cast<int>(dims.size())) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (t.dims[d] != 1 && t.dims[d] != dims[d]) return false;
  return true;
}

// The structural part: which ops form the chain.
Support match_chain(const graph::Graph &g, Chain *out) {
  const auto &ops = g.ops();
  if (ops.size() < 2) return Support::no("a matmul followed by at least one pointwise op");
  Chain ch;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (std::holds_alternative<graph::MatmulOp>(ops[i])) {
      if (ch.matmul >= 0) return Support::no("more than one matmul");
      ch.matmul = static_cast<int>(i);
    } else if (!std::holds_alternative<graph::PointwiseOp>(ops[i])) {
      return Support::no(cat("a ", graph::op_kind_name(ops[i]), " op (only a matmul and pointwise ops)"));
    }
  }
  if (ch.matmul < 0) return Support::no("no matmul");
  const auto &mm = std::get<graph::MatmulOp>(ops[ch.matmul]);
  const graph::Tensor &c = g.tensor(mm.c);
  if (!c.is_virtual) return Support::no("the matmul's output is a real tensor (oneDNN would not write it)");
  if (c.dtype != CUDNN_DATA_FLOAT) return Support::no("the matmul's virtual output is not FLOAT");
  if (mm.blend.beta != 0.0) return Support::no("the matmul blends into its virtual output (beta != 0)");
  graph::Uid cur = mm.c;
  std::vector<bool> used(ops.size(), false);
  used[ch.matmul] = true;
  for (;;) {
    int consumer = -1;
    bool as_x = false;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i == static_cast<size_t>(ch.matmul)) {
        if (mm.a == cur || mm.b == cur) return Support::no("the matmul reads a value of its own epilogue");
        continue;
      }
      const auto &p = std::get<graph::PointwiseOp>(ops[i]);
      const int reads = (p.x == cur) + (p.b == cur) + (p.t == cur);
      if (reads == 0) continue;
      if (consumer >= 0 || reads > 1 || p.t == cur)
        return Support::no("an intermediate value is read twice (the chain must be linear)");
      consumer = static_cast<int>(i);
      as_x = p.x == cur;
    }
    const graph::Tensor &v = g.tensor(cur);
    if (!v.is_virtual) {
      if (consumer >= 0) return Support::no("a real tensor inside the chain is read again");
      break;
    }
    if (consumer < 0) return Support::no("a virtual value nothing reads");
    if (used[consumer]) return Support::no("a cycle in the epilogue");
    if (v.dtype != CUDNN_DATA_FLOAT)
      return Support::no("a virtual intermediate that is not FLOAT (oneDNN keeps float)");
    if (v.dims != c.dims) return Support::no("an intermediate of other dims than the matmul's output");
    const auto &p = std::get<graph::PointwiseOp>(ops[consumer]);
    if (p.t != graph::kNoTensor) return Support::no("a three-operand pointwise op");
    Step s{consumer, as_x ? p.b : p.x, as_x};
    if (s.other != graph::kNoTensor && !is_binary_mode(p.mode))
      return Support::no(cat("pointwise mode ", p.mode, " with two operands has no oneDNN post-op here"));
    if (s.other == graph::kNoTensor && !is_unary_mode(p.mode))
      return Support::no(cat("pointwise mode ", p.mode, " has no exact oneDNN post-op"));
    if (p.compute_type != CUDNN_DATA_FLOAT) return Support::no("a pointwise op whose math is not FLOAT");
    if (s.other != graph::kNoTensor) {
      const graph::Tensor &o = g.tensor(s.other);
      if (o.is_virtual) return Support::no("a second operand computed inside the graph");
      if (!same_dims_or_one(o, c.dims)) return Support::no("a second operand that does not broadcast to c");
      if (!as_x && p.mode == CUDNN_POINTWISE_SUB) return Support::no("SUB with the chain as its right operand");
    }
    ch.steps.push_back(s);
    used[consumer] = true;
    cur = p.y;
  }
  if (ch.steps.empty()) return Support::no("no pointwise op after the matmul");
  if (std::find(used.begin(), used.end(), false) != used.end())
    return Support::no("pointwise ops outside the matmul's epilogue chain");
  ch.out = cur;
  const graph::Tensor &y = g.tensor(ch.out);
  if (y.dims != c.dims) return Support::no("the output has other dims than the matmul's");
  for (const Step &s : ch.steps)
    if (s.other == ch.out) return Support::no("the output is also an operand");
  if (mm.a == ch.out || mm.b == ch.out) return Support::no("the output is also a matmul operand");
  *out = std::move(ch);
  return Support::yes();
}

// A tensor as it lies in the caller's memory; false when oneDNN cannot
// describe it (type, non-positive strides of real extents).
bool user_desc(const graph::Tensor &t, memory::desc *out) {
  memory::data_type dt{};
  if (!dnnl_float_type(t.dtype, &dt)) return false;
  memory::dims strides(t.strides.begin(), t.strides.end());
  for (size_t d = 0; d < strides.size(); ++d) {
    if (t.dims[d] == 1 && strides[d] <= 0) strides[d] = 1;  // a broadcast dim's stride is never used
    if (strides[d] <= 0) return false;
  }
  *out = memory::desc(memory::dims(t.dims.begin(), t.dims.end()), dt, strides);
  return true;
}

// One binary post-op's second operand: a caller tensor, or a by-value
// scalar (its value arrives with each call's graph; passed as one f32).
struct BinaryArg {
  int post_op = 0;                       // index in the post-op list
  graph::Uid uid = graph::kNoTensor;
  bool by_value = false;
  memory::desc desc;
};

// The primitive for one set of runtime values.
struct Built {
  std::vector<double> key;
  dnnl::matmul prim;
  memory::desc a, b, y, bias, scratchpad;
  graph::Uid bias_uid = graph::kNoTensor;
  std::vector<BinaryArg> binaries;
  std::string summary;                    // "bias+gelu_erf" for verbose lines
  std::string impl;
};

// Every runtime value the post-op list depends on, in one vector (the cache
// key). By-value operands are not among them: they are data of the call.
std::vector<double> value_key(const graph::Graph &g, const Chain &ch) {
  const auto &mm = std::get<graph::MatmulOp>(g.ops()[ch.matmul]);
  std::vector<double> k{mm.blend.alpha, mm.blend.beta};
  for (const Step &s : ch.steps) {
    const auto &p = std::get<graph::PointwiseOp>(g.ops()[s.op]);
    k.insert(k.end(), {p.alpha1, p.alpha2, p.relu_lower_clip, p.relu_upper_clip, p.relu_lower_clip_slope, p.elu_alpha,
                       p.softplus_beta, p.swish_beta, p.blend.alpha, p.blend.beta});
  }
  return k;
}

// Builds the primitive descriptor's attributes from the graph's values.
// bias_as_arg: an opening ADD may become the matmul's bias. Throws
// fdnn::Error (NOT_SUPPORTED) for values oneDNN cannot express exactly and
// dnnl::error when oneDNN refuses the primitive.
// make: create the primitive too (plans), not only its descriptor (supports()).
std::unique_ptr<Built> build(const graph::Graph &g, const Chain &ch, bool bias_as_arg, bool make) {
  auto r = std::make_unique<Built>();
  r->key = value_key(g, ch);
  const auto &mm = std::get<graph::MatmulOp>(g.ops()[ch.matmul]);
  const graph::Tensor &ta = g.tensor(mm.a), &tb = g.tensor(mm.b), &ty = g.tensor(ch.out);
  check_supported(user_desc(ta, &r->a) && user_desc(tb, &r->b) && user_desc(ty, &r->y),
                  "oneDNN fused matmul: FLOAT, BFLOAT16 or HALF operands with positive strides");
  dnnl::post_ops po;
  std::ostringstream sum;
  auto note = [&](const std::string &s) { sum << (sum.tellp() > 0 ? "+" : "") << s; };
  // oneDNN 2.6's JIT matmul gives every eltwise post-op of one algorithm the
  // parameters of the first (linear 0.5 then linear 1.5 scales both by 0.5:
  // measured on brg:avx512_core), so such chains are refused; scale factors
  // are gathered into as few linear post-ops as the formula allows.
  std::vector<std::pair<algorithm, std::pair<float, float>>> seen;
  auto eltwise = [&](algorithm alg, double alpha, double beta, const char *name) {
    const std::pair<float, float> params{static_cast<float>(alpha), static_cast<float>(beta)};
    for (const auto &e : seen)
      check_supported(e.first != alg || e.second == params, "oneDNN fused matmul: two ", name,
                      " post-ops with different parameters (oneDNN 2.6 would apply the first's to both)");
    seen.emplace_back(alg, params);
    po.append_eltwise(1.0f, alg, params.first, params.second);
    note(name);
  };
  double pending = 1.0;  // a scale of the chain value not yet applied
  auto linear = [&](double alpha) { pending *= alpha; };
  auto flush = [&] {
    if (pending != 1.0) eltwise(algorithm::eltwise_linear, pending, 0.0, "linear");
    pending = 1.0;
  };
  size_t first = 0;
  if (bias_as_arg && mm.blend.alpha == 1.0) {
    const Step &s = ch.steps.front();
    const auto &p = std::get<graph::PointwiseOp>(g.ops()[s.op]);
    const graph::Tensor &o = g.tensor(s.other == graph::kNoTensor ? mm.a : s.other);
    if (p.mode == CUDNN_POINTWISE_ADD && s.other != graph::kNoTensor && !o.by_value && p.alpha1 == 1.0 &&
        p.alpha2 == 1.0 && p.blend.alpha == 1.0 && p.blend.beta == 0.0 && user_desc(o, &r->bias)) {
      r->bias_uid = o.uid;
      note("bias");
      first = 1;
    }
  }
  if (first == 0) linear(mm.blend.alpha);
  for (size_t i = first; i < ch.steps.size(); ++i) {
    const Step &s = ch.steps[i];
    const auto &p = std::get<graph::PointwiseOp>(g.ops()[s.op]);
    // a1: the scale of the chain value, a2: of the other operand.
    const double a1 = s.chain_is_x ? p.alpha1 : p.alpha2, a2 = s.chain_is_x ? p.alpha2 : p.alpha1;
    if (s.other != graph::kNoTensor) {
      const graph::Tensor &o = g.tensor(s.other);
      BinaryArg arg;
      arg.uid = o.uid;
      if (o.by_value) {
        arg.by_value = true;
        arg.desc = memory::desc(memory::dims(o.dims.size(), 1), memory::data_type::f32, memory::dims(o.dims.size(), 1));
      } else {
        check_supported(user_desc(o, &arg.desc), "oneDNN fused matmul: an operand of another type or layout");
      }
      algorithm alg = algorithm::binary_add;
      if (p.mode == CUDNN_POINTWISE_MUL) {
        alg = algorithm::binary_mul;
      } else {
        check_supported(a2 == 1.0, "oneDNN fused matmul: ADD / SUB whose second operand is scaled (alpha != 1)");
        linear(a1);
        flush();
        if (p.mode == CUDNN_POINTWISE_SUB) alg = algorithm::binary_sub;
      }
      arg.post_op = po.len();
      po.append_binary(alg, arg.desc);
      note(p.mode == CUDNN_POINTWISE_MUL ? "mul" : p.mode == CUDNN_POINTWISE_SUB ? "sub" : "add");
      if (p.mode == CUDNN_POINTWISE_MUL) linear(a1 * a2);
      r->binaries.push_back(arg);
    } else {
      linear(a1);
      if (p.mode != CUDNN_POINTWISE_IDENTITY) flush();
      switch (p.mode) {
        case CUDNN_POINTWISE_RELU_FWD: {
          // NaN: oneDNN's JIT relu with slope 0 and its clip give the lower
          // bound (cuDNN's NOT_PROPAGATE_NAN), relu with a slope gives NaN
          // (PROPAGATE_NAN); measured on brg:avx512_core.
          const double lo = p.relu_lower_clip, hi = p.relu_upper_clip, slope = p.relu_lower_clip_slope;
          const bool no_upper = hi >= static_cast<double>(FLT_MAX);
          const bool propagate = p.nan_propagation == CUDNN_PROPAGATE_NAN;
          if (lo == 0.0 && no_upper && slope != 0.0 && propagate) {
            eltwise(algorithm::eltwise_relu, slope, 0.0, "relu");
          } else if (slope == 0.0 && !propagate) {
            if (lo == 0.0 && no_upper) eltwise(algorithm::eltwise_relu, 0.0, 0.0, "relu");
            else eltwise(algorithm::eltwise_clip, lo, no_upper ? FLT_MAX : hi, "clip");
          } else {
            fail(CUDNN_STATUS_NOT_SUPPORTED, "oneDNN fused matmul: RELU ",
                 slope != 0.0 ? "with a slope and a clip, or with a slope and NOT_PROPAGATE_NAN"
                              : "clipping with PROPAGATE_NAN",
                 " (oneDNN's NaN results differ)");
          }
          break;
        }
        case CUDNN_POINTWISE_GELU_FWD: eltwise(algorithm::eltwise_gelu_erf, 0, 0, "gelu_erf"); break;
        case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD: eltwise(algorithm::eltwise_gelu_tanh, 0, 0, "gelu_tanh"); break;
        case CUDNN_POINTWISE_TANH_FWD: eltwise(algorithm::eltwise_tanh, 0, 0, "tanh"); break;
        case CUDNN_POINTWISE_SIGMOID_FWD: eltwise(algorithm::eltwise_logistic, 0, 0, "logistic"); break;
        case CUDNN_POINTWISE_ELU_FWD: eltwise(algorithm::eltwise_elu, p.elu_alpha, 0, "elu"); break;
        case CUDNN_POINTWISE_SWISH_FWD: eltwise(algorithm::eltwise_swish, p.swish_beta, 0, "swish"); break;
        case CUDNN_POINTWISE_SOFTPLUS_FWD:
          check_supported(p.softplus_beta == 1.0, "oneDNN fused matmul: SOFTPLUS with beta != 1");
          eltwise(algorithm::eltwise_soft_relu, 0, 0, "soft_relu");
          break;
        case CUDNN_POINTWISE_IDENTITY: break;
        default: fail(CUDNN_STATUS_NOT_SUPPORTED, "oneDNN fused matmul: pointwise mode ", p.mode);
      }
    }
    const bool last = i + 1 == ch.steps.size();
    if (!last) check_supported(p.blend.beta == 0.0, "oneDNN fused matmul: a virtual output blended (beta != 0)");
    linear(p.blend.alpha);
    if (last) flush();
    if (last && p.blend.beta != 0.0) {
      po.append_sum(static_cast<float>(p.blend.beta));
      note("sum");
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::desc d = r->bias_uid != graph::kNoTensor ? dnnl::matmul::desc(r->a, r->b, r->bias, r->y)
                                                                : dnnl::matmul::desc(r->a, r->b, r->y);
  dnnl::matmul::primitive_desc pd(d, attr, dnnl_cpu());
  r->impl = pd.impl_info_str();
  r->scratchpad = pd.scratchpad_desc();
  r->summary = sum.str();
  if (make && !is_reference_impl(r->impl)) r->prim = dnnl::matmul(pd);
  return r;
}

// The first form oneDNN runs on a real kernel: the opening ADD as the
// matmul's bias, else every op as a post-op. Null with *why set otherwise.
std::unique_ptr<Built> build_best(const graph::Graph &g, const Chain &ch, std::string *why, bool make) {
  std::string reason;
  for (bool bias_as_arg : {true, false}) {
    try {
      std::unique_ptr<Built> b = build(g, ch, bias_as_arg, make);
      if (!is_reference_impl(b->impl)) return b;
      reason = cat("oneDNN has only its reference kernel (", b->impl, ") for this matmul with post-ops");
    } catch (const dnnl::error &e) {
      reason = cat("oneDNN has no matmul with these post-ops: ", e.what());
    } catch (const Error &e) {
      reason = e.what();
      break;  // the values themselves do not fit: the other form would not either
    }
  }
  *why = reason;
  return nullptr;
}

Support check_graph(const graph::Graph &g, Chain *ch) {
  Support s = match_chain(g, ch);
  if (!s) return s;
  const auto &mm = std::get<graph::MatmulOp>(g.ops()[ch->matmul]);
  if (mm.compute_type != CUDNN_DATA_FLOAT) return Support::no("matmul math other than FLOAT");
  const graph::Tensor &a = g.tensor(mm.a), &b = g.tensor(mm.b), &c = g.tensor(mm.c);
  if (a.rank() != c.rank() || b.rank() != c.rank() || c.rank() < 2) return Support::no("operands of other ranks");
  if (a.dims[a.rank() - 1] != b.dims[b.rank() - 2] || a.dims[a.rank() - 2] != c.dims[c.rank() - 2] ||
      b.dims[b.rank() - 1] != c.dims[c.rank() - 1])
    return Support::no("inconsistent matmul shapes");
  if (!matmul_batches_plain(g, mm)) return Support::no("oneDNN broadcasts batch extents of 1 only, not divisors");
  if (c.rank() > DNNL_MAX_NDIMS) return Support::no("rank beyond oneDNN's limit");
  if (a.element_count() == 0 || b.element_count() == 0 || c.element_count() == 0) return Support::no("empty operands");
  return Support::yes();
}

// oneDNN's own ("library") scratchpad belongs to the thread that created
// the primitive, so two calls on other threads would share it: each calling
// thread passes its own buffer instead (grown, never shrunk; 64-byte aligned).
void *scratchpad(size_t bytes) {
  thread_local std::unique_ptr<char[]> buffer;
  thread_local size_t size = 0;
  if (bytes + 64 > size) {
    size = bytes + 64;
    buffer.reset(new char[size]);
  }
  const auto at = reinterpret_cast<uintptr_t>(buffer.get());
  return buffer.get() + ((64 - at % 64) % 64);
}

class Plan final : public ExecutionPlan {
 public:
  Plan(const Engine &e, const graph::Graph &g, Chain ch) : ExecutionPlan(e), ch_(std::move(ch)) {
    std::string why;
    std::unique_ptr<Built> b = build_best(g, ch_, &why, true);
    if (!b) fail(CUDNN_STATUS_NOT_SUPPORTED, engine().name(), ": ", why);
    detail_ = b->summary;
    cache_.push_back(std::move(b));
  }
  std::string detail() const override { return detail_; }

  void execute(const ExecContext &ctx, const graph::Graph &g, const VariantPack &pack) const override {
    const Built &b = built_for(g);
    const auto &mm = std::get<graph::MatmulOp>(g.ops()[ch_.matmul]);
    auto ptr = [&](graph::Uid u) {
      void *p = pack.get(u);
      if (p == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", u);
      return p;
    };
    try {
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(b.a, dnnl_cpu(), ptr(mm.a))},
                                           {DNNL_ARG_WEIGHTS, memory(b.b, dnnl_cpu(), ptr(mm.b))},
                                           {DNNL_ARG_DST, memory(b.y, dnnl_cpu(), ptr(ch_.out))}};
      if (b.bias_uid != graph::kNoTensor) args.emplace(DNNL_ARG_BIAS, memory(b.bias, dnnl_cpu(), ptr(b.bias_uid)));
      std::vector<float> scalars(b.binaries.size());
      for (size_t i = 0; i < b.binaries.size(); ++i) {
        const BinaryArg &arg = b.binaries[i];
        scalars[i] = static_cast<float>(g.tensor(arg.uid).value);
        void *p = arg.by_value ? &scalars[i] : ptr(arg.uid);
        args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(arg.post_op) | DNNL_ARG_SRC_1, memory(arg.desc, dnnl_cpu(), p));
      }
      const size_t scratch_bytes = b.scratchpad.get_size();
      if (scratch_bytes > 0)
        args.emplace(DNNL_ARG_SCRATCHPAD, memory(b.scratchpad, dnnl_cpu(), scratchpad(scratch_bytes)));
      OmpThreads threads(ctx.pool != nullptr ? ctx.pool->size() : 1);
      dnnl::stream strm(dnnl_cpu());
      b.prim.execute(strm, args);
      strm.wait();
    } catch (const dnnl::error &e) {
      fail(CUDNN_STATUS_EXECUTION_FAILED, engine().name(), ": oneDNN: ", e.what());
    }
  }

 private:
  // The primitive for the graph's current values (made on first use).
  const Built &built_for(const graph::Graph &g) const {
    const std::vector<double> key = value_key(g, ch_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &b : cache_)
      if (b->key == key) return *b;
    std::string why;
    std::unique_ptr<Built> b = build_best(g, ch_, &why, true);
    if (!b) fail(CUDNN_STATUS_NOT_SUPPORTED, engine().name(), ": ", why);
    if (cache_.size() >= kMaxCached) cache_.erase(cache_.begin() + 1);  // keep the plan's own values
    cache_.push_back(std::move(b));
    return *cache_.back();
  }

  static constexpr size_t kMaxCached = 8;
  Chain ch_;
  std::string detail_;
  mutable std::mutex mutex_;
  // unique_ptr: references handed out stay valid while others are added.
  mutable std::vector<std::unique_ptr<Built>> cache_;
};

// FREEDNN_ONEDNN_MATMUL_FUSION=0 leaves these graphs to cpu.fusion.runtime
// (to compare the two in one build).
bool turned_off() {
  static const bool off = [] {
    const char *v = std::getenv("FREEDNN_ONEDNN_MATMUL_FUSION");
    return v != nullptr && std::string(v) == "0";
  }();
  return off;
}

class OnednnMatmulFusionEngine final : public Engine {
 public:
  const char *name() const override { return "cpu.fusion.matmul.onednn"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  // Before the generic runtime fusion (60), which keeps what this refuses.
  int priority() const override { return 58; }
  Support supports(const graph::Graph &g) const override {
    if (turned_off()) return Support::no("turned off by FREEDNN_ONEDNN_MATMUL_FUSION=0");
    Chain ch;
    Support s = check_graph(g, &ch);
    if (!s) return s;
    std::string why;
    if (!build_best(g, ch, &why, false)) return Support::no(why);
    return Support::yes();
  }
  std::unique_ptr<ExecutionPlan> make_plan(const graph::Graph &g, const std::vector<KnobChoice> &) const override {
    Chain ch;
    Support s = check_graph(g, &ch);
    if (!s) fail(CUDNN_STATUS_NOT_SUPPORTED, s.reason);
    return std::make_unique<Plan>(*this, g, std::move(ch));
  }
};

}  // namespace
}  // namespace fdnn::cpu

using fdnn::cpu::OnednnMatmulFusionEngine;
FDNN_REGISTER_ENGINE(OnednnMatmulFusionEngine)

#endif  // FREEDNN_WITH_ONEDNN
