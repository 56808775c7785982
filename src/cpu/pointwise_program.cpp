#include "cpu/pointwise_program.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/op_support.hpp"
#include "core/thread_pool.hpp"
#include "cpu/dtype_io.hpp"
#include "cpu/pointwise_kernels.hpp"
#include "cpu/pointwise_support.hpp"
#include "graph/op_io.hpp"

namespace fdnn::cpu {

namespace {

constexpr int64_t kChunk = 16384;  // elements of one row piece given to a worker
constexpr int kSlotsPerThread = 4;  // work pieces per thread even out unequal rows

// Accumulator state bits of MIN / MAX / AMAX (NaN-aware like the reference).
constexpr uint8_t kHasValue = 1, kSawNan = 2;

bool is_minmax(cudnnReduceTensorOp_t m) {
  return m == CUDNN_REDUCE_TENSOR_MIN || m == CUDNN_REDUCE_TENSOR_MAX || m == CUDNN_REDUCE_TENSOR_AMAX;
}
bool is_product(cudnnReduceTensorOp_t m) {
  return m == CUDNN_REDUCE_TENSOR_MUL || m == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
}

// Folds one value into an accumulator.
inline void accumulate(cudnnReduceTensorOp_t mode, double v, double &acc, uint8_t &state) {
  switch (mode) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG: acc += v; break;
    case CUDNN_REDUCE_TENSOR_NORM1: acc += std::fabs(v); break;
    case CUDNN_REDUCE_TENSOR_NORM2: acc += v * v; break;
    case CUDNN_REDUCE_TENSOR_MUL: acc *= v; break;
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
      if (v != 0.0) acc *= v;
      break;
    default: {  // MIN, MAX, AMAX
      const double e = mode == CUDNN_REDUCE_TENSOR_AMAX ? std::fabs(v) : v;
      if (e != e) {
        state |= kSawNan;
      } else if (!(state & kHasValue)) {
        acc = e;
        state |= kHasValue;
      } else if (mode == CUDNN_REDUCE_TENSOR_MIN ? e < acc : e > acc) {
        acc = e;
      }
    }
  }
}

// Combines another worker's accumulator into acc.
inline void combine(cudnnReduceTensorOp_t mode, double v, uint8_t s, double &acc, uint8_t &state) {
  if (is_minmax(mode)) {
    state |= s & kSawNan;
    if (s & kHasValue) {
      if (!(state & kHasValue) || (mode == CUDNN_REDUCE_TENSOR_MIN ? v < acc : v > acc)) acc = v;
      state |= kHasValue;
    }
  } else if (is_product(mode)) {
    acc *= v;
  } else {
    acc += v;
  }
}

double identity_of(cudnnReduceTensorOp_t mode) { return is_product(mode) ? 1.0 : 0.0; }

struct AccLayout {
  std::vector<size_t> values, states;  // byte offsets per reduction
  size_t bytes = 0;
};

AccLayout acc_layout(const std::vector<ProgramReduction> &reductions, int slots) {
  AccLayout l;
  for (const ProgramReduction &r : reductions) {
    const size_t n = static_cast<size_t>(r.outputs) * static_cast<size_t>(slots);
    l.values.push_back(l.bytes);
    l.bytes += (n * sizeof(double) + 63) / 64 * 64;
    l.states.push_back(l.bytes);
    l.bytes += (n + 63) / 64 * 64;
  }
  return l;
}

}  // namespace

// The loop nest of one slice: extent-1 dims dropped, the rest in memory
// order (order_), neighbours merged where every tensor and reduction index
// steps through them as through one dim; the innermost dim is the row.
struct ProgramNest {
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides;   // per tensor, per nest dim
  std::vector<std::vector<int64_t>> rstrides;  // per reduction, per nest dim
  int64_t row = 1, pieces = 1, outer = 1;

  ProgramNest(const PointwiseProgram &p, const std::vector<int64_t> &slice_dims) {
    const size_t nt = p.tensors().size(), nr = p.reductions().size();
    strides.assign(nt, {});
    rstrides.assign(nr, {});
    for (int d : p.order()) {
      if (slice_dims[d] == 1) continue;
      bool merge = !dims.empty();
      for (size_t t = 0; merge && t < nt; ++t)
        merge = strides[t].back() == p.tensors()[t].strides[d] * slice_dims[d];
      for (size_t r = 0; merge && r < nr; ++r)
        merge = rstrides[r].back() == p.reductions()[r].index_strides[d] * slice_dims[d];
      if (merge) {
        dims.back() *= slice_dims[d];
        for (size_t t = 0; t < nt; ++t) strides[t].back() = p.tensors()[t].strides[d];
        for (size_t r = 0; r < nr; ++r) rstrides[r].back() = p.reductions()[r].index_strides[d];
      } else {
        dims.push_back(slice_dims[d]);
        for (size_t t = 0; t < nt; ++t) strides[t].push_back(p.tensors()[t].strides[d]);
        for (size_t r = 0; r < nr; ++r) rstrides[r].push_back(p.reductions()[r].index_strides[d]);
      }
    }
    if (dims.empty()) {  // a single element
      dims.push_back(1);
      for (auto &s : strides) s.push_back(0);
      for (auto &s : rstrides) s.push_back(0);
    }
    row = dims.back();
    pieces = (row + kChunk - 1) / kChunk;
    for (size_t d = 0; d + 1 < dims.size(); ++d) outer *= dims[d];
    // Short rows (the channels of an NHWC tensor with a per-channel bias,
    // say) are taken several at a time, so that one block of kBlock
    // elements still goes through each operation in one call.
    if (dims.size() >= 2 && row <= kBlock / 2) {
      group = std::min<int64_t>(dims[dims.size() - 2], kBlock / row);
      groups = (dims[dims.size() - 2] + group - 1) / group;
      pieces = 1;
    }
  }
  // Work items: (outer index, piece of the row), or with grouped rows
  // (index over the dims outside the last two, group of rows).
  int64_t items() const { return group > 1 ? outer / dims[dims.size() - 2] * groups : outer * pieces; }
  int64_t group = 1, groups = 1;
};

namespace {

// Per-run state of a program in compute type C: kernels, the runtime values
// of every operation (alpha, beta, mode parameters), by-value constants.
template <class C>
struct Runner {
  const PointwiseProgram &p;
  const PointwiseProgram::Slice &s;
  const ProgramNest &nest;
  std::vector<LoadFn<C>> load;
  std::vector<StoreFn<C>> store;
  std::vector<bool> in_place;
  std::vector<size_t> es;
  std::vector<ComputeFn<C>> compute;
  std::vector<C> alpha1, alpha2, alpha, beta;
  std::vector<pw::Params<C>> params;
  std::vector<std::vector<C>> constants;
  std::vector<LoadFn<C>> round_load;
  std::vector<StoreFn<C>> round_store;
  std::vector<double *> acc_values;
  std::vector<uint8_t *> acc_states;

  Runner(const PointwiseProgram &prog, const graph::Graph &g, const PointwiseProgram::Slice &slice,
         const ProgramNest &n, const PointwiseProgram::Accumulators &acc)
      : p(prog), s(slice), nest(n) {
    const cudnnDataType_t c_type = std::is_same_v<C, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    for (const ProgramTensor &t : p.tensors()) {
      es.push_back(static_cast<size_t>(type_info(t.dtype).bits / 8));
      in_place.push_back(t.dtype == c_type);
      load.push_back(t.output ? nullptr : load_fn_for<C>(t.dtype));
      // An output is blended with its prior value only when its op's beta
      // is not zero: decided per node below, so both kernels are at hand.
      store.push_back(nullptr);
    }
    for (const ProgramNode &nd : p.nodes()) {
      const auto &op = std::get<graph::PointwiseOp>(g.ops()[nd.op]);
      compute.push_back(compute_fn_for<C>(nd.mode));
      alpha1.push_back(static_cast<C>(op.alpha1));
      alpha2.push_back(static_cast<C>(op.alpha2));
      alpha.push_back(static_cast<C>(op.blend.alpha));
      beta.push_back(static_cast<C>(op.blend.beta));
      params.push_back(make_params<C>(op));
      if (nd.store >= 0) store[nd.store] = store_fn_for<C>(p.tensors()[nd.store].dtype, op.blend.beta != 0.0);
      round_load.push_back(nd.round ? load_fn_for<C>(nd.dtype) : nullptr);
      round_store.push_back(nd.round ? store_fn_for<C>(nd.dtype, false) : nullptr);
    }
    for (graph::Uid u : p.constants()) constants.emplace_back(kBlock, static_cast<C>(g.tensor(u).value));
    const AccLayout l = acc_layout(p.reductions(), acc.slots);
    for (size_t r = 0; r < p.reductions().size(); ++r) {
      acc_values.push_back(reinterpret_cast<double *>(static_cast<char *>(acc.memory) + l.values[r]));
      acc_states.push_back(reinterpret_cast<uint8_t *>(static_cast<char *>(acc.memory) + l.states[r]));
    }
  }

  // Scratch of one worker: a block per node, staging for loads and rounding.
  struct Scratch {
    std::vector<C> nodes, loaded;
    std::vector<char> bytes;
    explicit Scratch(size_t n_nodes) : nodes(n_nodes * kBlock), loaded(3 * kBlock), bytes(kBlock * 8) {}
  };

  void run_items(int64_t lo, int64_t hi, int slot) const {
    Scratch sc(p.nodes().size());
    const size_t nt = p.tensors().size(), nr = p.reductions().size();
    const int rank = static_cast<int>(nest.dims.size());
    const bool grouped = nest.group > 1;
    // Dims walked by the item index: all but the row (and, grouped, the
    // dim of the rows grouped together).
    const int walked = grouped ? rank - 2 : rank - 1;
    Block b;
    b.ptr.resize(nt);
    b.step.resize(nt);
    b.row_step.assign(nt, 0);
    b.rstep.resize(nr);
    b.row_rstep.assign(nr, 0);
    b.roff.resize(nr);
    for (size_t t = 0; t < nt; ++t) {
      b.step[t] = nest.strides[t][rank - 1];
      if (grouped) b.row_step[t] = nest.strides[t][rank - 2];
    }
    for (size_t r = 0; r < nr; ++r) {
      b.rstep[r] = nest.rstrides[r][rank - 1];
      if (grouped) b.row_rstep[r] = nest.rstrides[r][rank - 2];
    }
    std::vector<int64_t> off(nt);
    std::vector<int64_t> roff(nr);
    for (int64_t item = lo; item < hi; ++item) {
      int64_t outer = grouped ? item / nest.groups : item / nest.pieces;
      // Start of the item along the row (ungrouped) or the grouped dim.
      const int64_t begin = grouped ? (item % nest.groups) * nest.group : (item % nest.pieces) * kChunk;
      std::fill(off.begin(), off.end(), 0);
      for (size_t r = 0; r < nr; ++r) roff[r] = s.reduction_offset[r];
      for (int d = walked - 1; d >= 0; --d) {
        const int64_t i = outer % nest.dims[d];
        outer /= nest.dims[d];
        for (size_t t = 0; t < nt; ++t) off[t] += i * nest.strides[t][d];
        for (size_t r = 0; r < nr; ++r) roff[r] += i * nest.rstrides[r][d];
      }
      if (grouped) {
        b.rows = static_cast<int>(std::min(nest.group, nest.dims[rank - 2] - begin));
        b.len = static_cast<int>(nest.row);
        for (size_t t = 0; t < nt; ++t)
          b.ptr[t] = s.base[t] + (off[t] + begin * b.row_step[t]) * static_cast<int64_t>(es[t]);
        for (size_t r = 0; r < nr; ++r) b.roff[r] = roff[r] + begin * b.row_rstep[r];
        run_block(sc, b, slot);
        continue;
      }
      // One row piece, in blocks of kBlock elements.
      const int64_t len = std::min(kChunk, nest.row - begin);
      b.rows = 1;
      for (int64_t i0 = 0; i0 < len; i0 += kBlock) {
        b.len = static_cast<int>(std::min<int64_t>(kBlock, len - i0));
        for (size_t t = 0; t < nt; ++t)
          b.ptr[t] = s.base[t] + (off[t] + (begin + i0) * b.step[t]) * static_cast<int64_t>(es[t]);
        for (size_t r = 0; r < nr; ++r) b.roff[r] = roff[r] + (begin + i0) * b.rstep[r];
        run_block(sc, b, slot);
      }
    }
  }

  // `rows` rows of `len` elements (rows * len <= kBlock): row j of tensor t
  // starts at ptr[t] + j * row_step[t] elements, its elements step[t] apart.
  struct Block {
    int rows = 1, len = 0;
    std::vector<char *> ptr;
    std::vector<int64_t> step, row_step, rstep, row_rstep, roff;
  };

  // Whether tensor t's rows of this block lie end to end with unit stride.
  bool contiguous(const Block &b, int t) const {
    return b.step[t] == 1 && (b.rows == 1 || b.row_step[t] == b.len);
  }

  const C *operand(Scratch &sc, const ProgramOperand &o, int j, const Block &b) const {
    switch (o.kind) {
      case ProgramOperand::Kind::node: return sc.nodes.data() + static_cast<size_t>(o.index) * kBlock;
      case ProgramOperand::Kind::constant: return constants[o.index].data();
      case ProgramOperand::Kind::tensor: {
        const int t = o.index;
        if (in_place[t] && contiguous(b, t)) return reinterpret_cast<const C *>(b.ptr[t]);
        C *dst = sc.loaded.data() + static_cast<size_t>(j) * kBlock;
        if (contiguous(b, t)) {
          load[t](b.ptr[t], 1, b.rows * b.len, dst);
        } else {
          for (int r = 0; r < b.rows; ++r)
            load[t](b.ptr[t] + r * b.row_step[t] * static_cast<int64_t>(es[t]), b.step[t], b.len, dst + r * b.len);
        }
        return dst;
      }
      case ProgramOperand::Kind::none: break;
    }
    return nullptr;
  }

  void run_block(Scratch &sc, const Block &b, int slot) const {
    const std::vector<ProgramNode> &nodes = p.nodes();
    const int m = b.rows * b.len;
    for (size_t k = 0; k < nodes.size(); ++k) {
      const ProgramNode &nd = nodes[k];
      const C *src[3] = {nullptr, nullptr, nullptr};
      for (int j = 0; j < nd.arity; ++j) src[j] = operand(sc, nd.in[j], j, b);
      C *out = sc.nodes.data() + k * kBlock;
      compute[k](m, src[0], src[1], src[2], out, alpha1[k], alpha2[k], params[k]);
      if (nd.store >= 0) {
        const int t = nd.store;
        if (contiguous(b, t)) {
          store[t](b.ptr[t], 1, m, out, alpha[k], beta[k]);
        } else {
          for (int r = 0; r < b.rows; ++r)
            store[t](b.ptr[t] + r * b.row_step[t] * static_cast<int64_t>(es[t]), b.step[t], b.len, out + r * b.len,
                     alpha[k], beta[k]);
        }
      }
      // Readers see what the op's output holds: alpha times the result,
      // rounded to the tensor's type (beta is zero for read outputs).
      if (alpha[k] != C(1))
        for (int i = 0; i < m; ++i) out[i] *= alpha[k];
      if (nd.round) {
        round_store[k](sc.bytes.data(), 1, m, out, C(1), C(0));
        round_load[k](sc.bytes.data(), 1, m, out);
      }
    }
    for (size_t r = 0; r < p.reductions().size(); ++r) {
      const ProgramReduction &red = p.reductions()[r];
      const C *v = operand(sc, red.in, 0, b);
      double *acc = acc_values[r] + static_cast<int64_t>(slot) * red.outputs;
      uint8_t *st = acc_states[r] + static_cast<int64_t>(slot) * red.outputs;
      const bool sums = red.mode == CUDNN_REDUCE_TENSOR_ADD || red.mode == CUDNN_REDUCE_TENSOR_AVG;
      for (int row = 0; row < b.rows; ++row) {
        const C *vr = v + row * b.len;
        const int64_t o = b.roff[r] + row * b.row_rstep[r];
        const int64_t step = b.rstep[r];
        if (step == 0 && sums) {
          double sum = 0;  // the common case (sums over the row): a vectorisable fold
          for (int i = 0; i < b.len; ++i) sum += static_cast<double>(vr[i]);
          acc[o] += sum;
        } else if (step == 1 && sums) {
          for (int i = 0; i < b.len; ++i) acc[o + i] += static_cast<double>(vr[i]);
        } else {
          for (int i = 0; i < b.len; ++i) accumulate(red.mode, static_cast<double>(vr[i]), acc[o + i * step], st[o + i * step]);
        }
      }
    }
  }
};

}  // namespace

PointwiseProgram::PointwiseProgram(const graph::Graph &g, std::vector<int> ops, std::vector<int> reductions,
                                   std::vector<int64_t> space, const StridesOf &strides_of,
                                   const std::vector<graph::Uid> &stored)
    : space_(std::move(space)) {
  const int rank = static_cast<int>(space_.size());
  for (int i : ops) use_double_ |= pointwise_computes_in_double(g, std::get<graph::PointwiseOp>(g.ops()[i]));
  for (int i : reductions) {
    const auto &r = std::get<graph::ReductionOp>(g.ops()[i]);
    use_double_ |= r.compute_type == CUDNN_DATA_DOUBLE || g.tensor(r.x).dtype == CUDNN_DATA_DOUBLE;
  }
  const cudnnDataType_t c_type = use_double_ ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;

  std::map<graph::Uid, int> node_of;
  auto add_tensor = [&](graph::Uid uid, bool output) {
    const graph::Tensor &t = g.tensor(uid);
    check_supported(is_fast_type(t.dtype), "data type ", type_info(t.dtype).enum_name, " has no fast CPU kernels");
    ProgramTensor pt{uid, t.dtype, strides_of(uid), output};
    for (int d = 0; d < rank; ++d)
      if (t.dims[d] == 1 && space_[d] != 1) pt.strides[d] = 0;
    tensors_.push_back(std::move(pt));
    return static_cast<int>(tensors_.size() - 1);
  };
  auto operand_for = [&](graph::Uid uid) {
    ProgramOperand o;
    if (auto it = node_of.find(uid); it != node_of.end()) {
      o = {ProgramOperand::Kind::node, it->second};
    } else if (g.tensor(uid).by_value) {
      constants_.push_back(uid);
      o = {ProgramOperand::Kind::constant, static_cast<int>(constants_.size() - 1)};
    } else {
      const int existing = tensor_index(uid);
      o = {ProgramOperand::Kind::tensor, existing >= 0 ? existing : add_tensor(uid, false)};
    }
    return o;
  };

  // Which op outputs other program ops or reductions read (their beta must
  // be zero: a read value is the op's result, not a blend with memory).
  std::map<graph::Uid, int> readers;
  for (int i : ops)
    for (graph::Uid u : graph::op_io(g.ops()[i]).inputs) ++readers[u];
  for (int i : reductions) ++readers[std::get<graph::ReductionOp>(g.ops()[i]).x];

  for (int i : ops) {
    const auto &op = std::get<graph::PointwiseOp>(g.ops()[i]);
    ProgramNode nd;
    nd.op = i;
    nd.mode = op.mode;
    nd.arity = pw::arity(op.mode);
    for (int j = 0; j < nd.arity; ++j) nd.in[j] = operand_for(pointwise_input(op, j));
    const graph::Tensor &y = g.tensor(op.y);
    nd.dtype = y.dtype;
    check_supported(is_fast_type(y.dtype), "data type ", type_info(y.dtype).enum_name, " has no fast CPU kernels");
    const bool store = !y.is_virtual || std::find(stored.begin(), stored.end(), op.y) != stored.end();
    if (store) nd.store = add_tensor(op.y, true);
    nd.round = y.dtype != c_type && readers.count(op.y) > 0;
    check_supported(op.blend.beta == 0.0 || readers.count(op.y) == 0,
                    "op ", i, " blends its output with beta and another op reads it");
    nodes_.push_back(nd);
    node_of[op.y] = static_cast<int>(nodes_.size() - 1);
  }
  for (int i : reductions) {
    const auto &op = std::get<graph::ReductionOp>(g.ops()[i]);
    check_supported(reduction_mode_known(op.mode), "reduction mode ", static_cast<int>(op.mode));
    ProgramReduction r;
    r.op = i;
    r.mode = op.mode;
    r.propagate_nan = op.nan_propagation == CUDNN_PROPAGATE_NAN;
    r.in = operand_for(op.x);
    const graph::Tensor &y = g.tensor(op.y);
    r.index_strides.assign(rank, 0);
    int64_t step = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (y.dims[d] != 1) r.index_strides[d] = step;
      step *= y.dims[d];
      if (y.dims[d] == 1) r.reduced *= space_[d];
    }
    r.outputs = step;
    reductions_.push_back(std::move(r));
  }

  // Memory order: by the strides of the first full-size tensor written (or
  // read), largest outermost; that tensor's rows become the program's rows.
  int lead = -1;
  for (size_t t = 0; t < tensors_.size() && lead < 0; ++t)
    if (tensors_[t].output && g.tensor(tensors_[t].uid).dims == space_) lead = static_cast<int>(t);
  for (size_t t = 0; t < tensors_.size() && lead < 0; ++t)
    if (g.tensor(tensors_[t].uid).dims == space_) lead = static_cast<int>(t);
  order_.resize(rank);
  std::iota(order_.begin(), order_.end(), 0);
  if (lead >= 0) {
    const std::vector<int64_t> &s = tensors_[lead].strides;
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return std::abs(s[a]) > std::abs(s[b]); });
  }
}

int PointwiseProgram::tensor_index(graph::Uid uid) const {
  for (size_t t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].uid == uid) return static_cast<int>(t);
  return -1;
}

size_t PointwiseProgram::accumulator_bytes(int slots) const { return acc_layout(reductions_, slots).bytes; }

void PointwiseProgram::reset(const Accumulators &acc) const {
  const AccLayout l = acc_layout(reductions_, acc.slots);
  for (size_t r = 0; r < reductions_.size(); ++r) {
    const size_t n = static_cast<size_t>(reductions_[r].outputs) * static_cast<size_t>(acc.slots);
    double *v = reinterpret_cast<double *>(static_cast<char *>(acc.memory) + l.values[r]);
    std::fill(v, v + n, identity_of(reductions_[r].mode));
    std::memset(static_cast<char *>(acc.memory) + l.states[r], 0, n);
  }
}

int64_t PointwiseProgram::reduction_offset(size_t r, const std::vector<int64_t> &start) const {
  int64_t o = 0;
  for (size_t d = 0; d < start.size(); ++d) o += start[d] * reductions_[r].index_strides[d];
  return o;
}

void PointwiseProgram::dispatch(const ExecContext *ctx, const graph::Graph &g, const Slice &s,
                                const Accumulators &acc, int slot) const {
  const ProgramNest nest(*this, s.dims);
  auto go = [&](auto zero) {
    using C = decltype(zero);
    const Runner<C> runner(*this, g, s, nest, acc);
    const int64_t items = nest.items();
    const bool parallel = ctx != nullptr && ctx->pool != nullptr && ctx->pool->size() > 1 &&
                          items > 1 && nest.outer * nest.row >= kChunk;
    if (!parallel) {
      runner.run_items(0, items, slot);
      return;
    }
    // Each worker piece owns one accumulator slot: pieces never share one.
    const int64_t pieces = std::min<int64_t>(items, has_reductions() ? acc.slots : ctx->pool->size() * kSlotsPerThread);
    ctx->pool->parallel_for(pieces, [&](int64_t lo, int64_t hi) {
      for (int64_t piece = lo; piece < hi; ++piece)
        runner.run_items(items * piece / pieces, items * (piece + 1) / pieces, static_cast<int>(piece));
    }, pieces);
  };
  if (use_double_) go(0.0);
  else go(0.0f);
}

void PointwiseProgram::run(const ExecContext &ctx, const graph::Graph &g, const Slice &s,
                           const Accumulators &acc) const {
  dispatch(&ctx, g, s, acc, 0);
}

void PointwiseProgram::run_serial(const graph::Graph &g, const Slice &s, const Accumulators &acc, int slot) const {
  dispatch(nullptr, g, s, acc, slot);
}

void PointwiseProgram::finish(const graph::Graph &g, const Accumulators &acc, const VariantPack &pack) const {
  const AccLayout l = acc_layout(reductions_, acc.slots);
  for (size_t r = 0; r < reductions_.size(); ++r) {
    const ProgramReduction &red = reductions_[r];
    const auto &op = std::get<graph::ReductionOp>(g.ops()[red.op]);
    const graph::Tensor &y = g.tensor(op.y);
    void *out = pack.get(op.y);
    if (out == nullptr) fail(CUDNN_STATUS_BAD_PARAM, "no data pointer for tensor uid ", op.y);
    const double *v = reinterpret_cast<const double *>(static_cast<const char *>(acc.memory) + l.values[r]);
    const uint8_t *st = reinterpret_cast<const uint8_t *>(static_cast<const char *>(acc.memory) + l.states[r]);
    const int rank = y.rank();
    for (int64_t i = 0; i < red.outputs; ++i) {
      double a = v[i];
      uint8_t s = st[i];
      for (int k = 1; k < acc.slots; ++k) combine(red.mode, v[k * red.outputs + i], st[k * red.outputs + i], a, s);
      if (red.mode == CUDNN_REDUCE_TENSOR_AVG) a /= static_cast<double>(red.reduced);
      if (red.mode == CUDNN_REDUCE_TENSOR_NORM2) a = std::sqrt(a);
      if (is_minmax(red.mode) && (s & kSawNan) && (red.propagate_nan || !(s & kHasValue)))
        a = std::numeric_limits<double>::quiet_NaN();
      // The output element of packed index i, at y's strides.
      int64_t rest = i, offset = 0;
      for (int d = rank - 1; d >= 0; --d) {
        offset += (rest % y.dims[d]) * y.strides[d];
        rest /= y.dims[d];
      }
      double result = op.blend.alpha * a;
      if (op.blend.beta != 0.0) result += op.blend.beta * load_lane(y.dtype, out, offset);
      store_lane(y.dtype, out, offset, result);
    }
  }
}

}  // namespace fdnn::cpu
