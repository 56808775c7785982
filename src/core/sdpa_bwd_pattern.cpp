#include "core/sdpa_bwd_pattern.hpp"

#include "core/sdpa_matcher.hpp"

namespace fdnn {

namespace {

using sdpa_match::is_fp8_type;
using sdpa_match::is_fwd_io_type;
using sdpa_match::is_io_float_type;
using sdpa_match::no;

class BwdMatcher : public sdpa_match::Matcher {
 public:
  explicit BwdMatcher(const graph::Graph &g) : Matcher(g) {}

  void run(SdpaBwdPattern &bp) {
    SdpaPattern &p = bp.s;
    // The two matmuls of caller tensors: Q K^T (its score chain ends in an
    // EXP) and dO V^T.
    const graph::MatmulOp *mm_s = nullptr, *mm_dp = nullptr;
    size_t mm_s_index = 0, mm_dp_index = 0;
    for (size_t i = 0; i < g_.ops().size(); ++i) {
      const auto *m = std::get_if<graph::MatmulOp>(&g_.ops()[i]);
      if (m == nullptr || T(m->a).is_virtual || T(m->b).is_virtual) continue;
      if (chain_reaches_exp(m->c)) {
        if (mm_s) no("two score chains end in EXP");
        mm_s = m, mm_s_index = i;
      } else {
        if (mm_dp) no("more than two matmuls read caller tensors only");
        mm_dp = m, mm_dp_index = i;
      }
    }
    if (!mm_s || !mm_dp) no("an attention backward graph has the matmuls Q K^T and dO V^T");
    use(mm_s_index);
    use(mm_dp_index);
    check_matmul(*mm_s, "Q K^T");
    check_matmul(*mm_dp, "dO V^T");
    const graph::Tensor &q = T(mm_s->a), &kt = T(mm_s->b), &s0 = T(mm_s->c);
    const int r = s0.rank();
    if (r < 2 || q.rank() != r || kt.rank() != r) no("Q, K^T and the scores need one rank");
    if (!s0.is_virtual || s0.dtype != CUDNN_DATA_FLOAT) no("the scores Q K^T must be a virtual float tensor");
    p.rank = r;
    p.q = mm_s->a, p.kt = mm_s->b;
    p.s_q = s0.dims[r - 2], p.s_kv = s0.dims[r - 1], p.d = q.dims[r - 1];
    if (q.dims[r - 2] != p.s_q || kt.dims[r - 2] != p.d || kt.dims[r - 1] != p.s_kv) no("Q K^T shapes do not multiply");
    p.batch_dims.assign(s0.dims.begin(), s0.dims.end() - 2);
    score_dims_ = s0.dims;
    if (!is_fwd_io_type(q.dtype) || !is_fwd_io_type(kt.dtype)) no("Q and K must be float, half, bfloat16 or FP8");

    // The score chain up to EXP.
    graph::Uid cur = mm_s->c;
    chain_.insert(cur);
    const graph::PointwiseOp *exp_op = nullptr;
    for (;;) {
      const std::vector<size_t> cs = data_consumers(cur);
      const auto *pw = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
      if (pw == nullptr) no("the score chain of the backward graph is broken");
      use(cs[0]);
      if (pw->mode == CUDNN_POINTWISE_EXP) {
        if (pw->x != cur) no("EXP does not read the scores");
        check_plain(*pw);
        exp_op = pw;
        break;
      }
      p.steps.push_back(step(*pw, cur));
      cur = pw->y;
      chain_.insert(cur);
    }
    const graph::Uid e = exp_op->y;
    check_score_tensor(e);

    // dP = dO V^T and Dot = sum(dO * O) -> softmax_sum.
    const graph::Tensor &d_o = T(mm_dp->a), &vt = T(mm_dp->b), &dp = T(mm_dp->c);
    if (dp.dims != score_dims_ || !dp.is_virtual || dp.dtype != CUDNN_DATA_FLOAT)
      no("dO V^T must be a virtual float tensor of the scores' dims");
    bp.d_o = mm_dp->a, bp.vt = mm_dp->b;
    p.d_v = d_o.dims[r - 1];
    check_operand(d_o, p.s_q, p.d_v, false, "dO");
    check_operand(vt, p.d_v, p.s_kv, true, "V^T");
    // [Dropout: dP * M.]
    graph::Uid dp_cur = mm_dp->c;
    bool dp_dropped = false;
    {
      const std::vector<size_t> cs = data_consumers(dp_cur);
      const auto *mul = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
      if (mul && mul->mode == CUDNN_POINTWISE_MUL) {
        const size_t rng = rng_producer(mul->x == dp_cur ? mul->b : mul->x);
        if (rng != SdpaPattern::kNoRng) {
          p.rng_op = rng;
          use(cs[0]);
          check_plain(*mul);
          check_score_tensor(mul->y);
          dp_cur = mul->y;
          dp_dropped = true;
        }
      }
    }
    // [FP8: dP * descales.]
    for (;;) {
      const std::vector<size_t> cs = data_consumers(dp_cur);
      const auto *mul = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
      if (!mul || mul->mode != CUDNN_POINTWISE_MUL) break;
      const graph::Uid other = mul->x == dp_cur ? mul->b : mul->x;
      if (!is_caller_scalar(other)) break;
      use(cs[0]);
      check_plain(*mul);
      check_score_tensor(mul->y);
      bp.dp_scales.push_back(side(other));
      dp_cur = mul->y;
    }
    const graph::PointwiseOp &sub = only_pointwise(dp_cur, CUDNN_POINTWISE_SUB, "dP - softmax_sum");
    check_plain(sub);
    bp.softmax_sum = sub.b;
    dot_chain(bp);
    const graph::PointwiseOp &mul_e = only_pointwise(sub.y, CUDNN_POINTWISE_MUL, "(dP - softmax_sum) * P", true);
    if (!((mul_e.x == sub.y && mul_e.b == e) || (mul_e.b == sub.y && mul_e.x == e))) no("dS is not (dP - Dot) * P");
    check_plain(mul_e);
    check_score_tensor(sub.y);
    check_score_tensor(mul_e.y);

    // P's other consumer: dV^T = dO^T P.
    std::vector<size_t> ec = data_consumers(e);
    if (ec.size() != 2) no("P feeds ", ec.size(), " operations (expected dS and dV)");
    size_t pv = used_.count(ec[0]) ? ec[1] : ec[0];
    const graph::Uid pd = dropout_chain(e, pv, p);
    // Dropout masks P, and dP too in the float graphs; cudnn-frontend's FP8
    // backward masks P only (its dS is (dP - Dot) E times the dropout scale).
    if (pd == e && dp_dropped) no("dropout masks dP but not P");
    bp.dp_masked = dp_dropped;
    if (pd != e) {
      const std::vector<size_t> pc = data_consumers(pd);
      if (pc.size() != 1) no("the dropped P feeds ", pc.size(), " operations");
      pv = pc[0];
    }
    bp.dvt = transposed_product(pv, pd, bp.d_ot, p.d_v, "dV", &bp.p8_scale, &bp.p8_type, bp.dv_out, &bp.dv_plain);

    // [Dropout scale of dS0.]
    graph::Uid ds0 = mul_e.y;
    if (pd != e) {
      const std::vector<size_t> cs = data_consumers(ds0);
      const auto *mul = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
      if (!mul || mul->mode != CUDNN_POINTWISE_MUL) no("with dropout, dS is scaled by the dropout scale");
      use(cs[0]);
      check_plain(*mul);
      bp.ds_drop_scale = scalar(mul->x == ds0 ? mul->b : mul->x, "dS's dropout scale");
      ds0 = mul->y;
      check_score_tensor(ds0);
    }
    // dS0's consumers: [dBias reduction], [scale MUL].
    graph::Uid ds = ds0;
    for (size_t i : data_consumers(ds0)) {
      if (const auto *red = std::get_if<graph::ReductionOp>(&g_.ops()[i])) {
        use(i);
        if (red->mode != CUDNN_REDUCE_TENSOR_ADD) no("dBias must be an ADD reduction");
        check_plain_reduction(*red);
        const graph::Tensor &db = T(red->y);
        if (db.is_virtual || db.rank() != r || db.dims[r - 1] != p.s_kv || db.dims[r - 2] != p.s_q)
          no("dBias must be a caller tensor with the scores' last two dims");
        if (!data_consumers(red->y).empty()) no("dBias feeds further operations");
        bp.dbias = red->y;
      } else if (const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
                 pw && pw->mode == CUDNN_POINTWISE_MUL && (pw->x == ds0 || pw->b == ds0) &&
                 T(pw->y).dims == score_dims_) {
        if (ds != ds0) no("dS is scaled twice");
        use(i);
        check_plain(*pw);
        bp.ds_scale = scalar(pw->x == ds0 ? pw->b : pw->x, "dS's scale");
        ds = pw->y;
        check_score_tensor(ds);
      }
    }
    // [FP8: amax_dP = AMAX(dS), dS8 = FP8(dS * scale_dP).]
    {
      const graph::PointwiseOp *mul8 = nullptr;
      for (size_t i : data_consumers(ds)) {
        if (used_.count(i)) continue;
        if (amax_of(i, ds)) {
          bp.amax_dp = std::get<graph::ReductionOp>(g_.ops()[i]).y;
          use(i);
          continue;
        }
        const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
        if (pw && pw->mode == CUDNN_POINTWISE_MUL && is_fp8_type(T(pw->y).dtype)) mul8 = pw, use(i);
      }
      if (mul8) {
        check_plain(*mul8);
        const graph::Uid other = mul8->x == ds ? mul8->b : mul8->x;
        if (!is_caller_scalar(other)) no("dS's FP8 scale must be a caller scalar");
        const graph::Tensor &y = T(mul8->y);
        if (!y.is_virtual || y.dims != score_dims_) no("the FP8 dS must be virtual with the scores' dims");
        bp.ds8_scale = side(other);
        bp.ds8_type = y.dtype;
        ds = mul8->y;
      } else if (bp.amax_dp != graph::kNoTensor) {
        no("amax of dS without its FP8 scale");
      }
    }
    // dS's consumers: dQ = dS K and dK^T = Q^T dS.
    std::vector<size_t> dc = data_consumers(ds);
    if (ds == ds0) {
      std::vector<size_t> rest;
      for (size_t i : dc)
        if (!used_.count(i)) rest.push_back(i);
      dc = rest;
    }
    if (dc.size() != 2) no("dS feeds ", dc.size(), " operations (expected dQ and dK)");
    size_t dq_op = dc[0], dk_op = dc[1];
    const auto *m0 = std::get_if<graph::MatmulOp>(&g_.ops()[dq_op]);
    if (!(m0 && m0->a == ds)) std::swap(dq_op, dk_op);
    const auto *mq = std::get_if<graph::MatmulOp>(&g_.ops()[dq_op]);
    if (!(mq && mq->a == ds)) no("dQ = dS K is missing");
    use(dq_op);
    check_matmul(*mq, "dS K");
    bp.kn = mq->b;
    check_operand(T(mq->b), p.s_kv, p.d, true, "K");
    const graph::Tensor &dq = T(mq->c);
    if (dq.is_virtual) {
      // FP8: dS8 K * descales (amax) * scale_dQ.
      if (dq.dtype != CUDNN_DATA_FLOAT || dq.dims != T(p.q).dims) no("dS K must be float of Q's dims");
      bp.dq = scaled_tail(mq->c, bp.dq_out.scales, bp.dq_out.amax, bp.dq_out.amax_at);
      if (T(bp.dq).dims != T(p.q).dims) no("dQ must be a caller tensor of Q's dims");
    } else if (dq.dims != T(p.q).dims) {
      no("dQ must be a caller tensor of Q's dims");
    }
    const std::vector<size_t> qc = dq.is_virtual ? std::vector<size_t>{} : data_consumers(mq->c);
    if (dq.is_virtual) {
      // bp.dq: the tail's caller tensor (above).
    } else if (qc.empty()) {
      bp.dq = mq->c;
    } else {
      const graph::PointwiseOp &id = only_pointwise(mq->c, CUDNN_POINTWISE_IDENTITY, "dQ = IDENTITY(dQ_accum)");
      check_plain(id);
      if (dq.dtype != CUDNN_DATA_FLOAT) no("dQ_accum must be float");
      if (T(id.y).is_virtual || T(id.y).dims != dq.dims) no("dQ must be a caller tensor of Q's dims");
      if (!data_consumers(id.y).empty()) no("dQ feeds further operations");
      bp.dq_accum = mq->c, bp.dq = id.y;
    }
    if (!is_fwd_io_type(T(bp.dq).dtype)) no("dQ must be float, half, bfloat16 or FP8");
    int no_cast = -1;
    cudnnDataType_t no_cast_type = CUDNN_DATA_FLOAT;
    bp.dkt = transposed_product(dk_op, ds, bp.qt, p.d, "dK", &no_cast, &no_cast_type, bp.dk_out, &bp.dk_plain);
    if (no_cast >= 0) no("dK's matmul reads dS through a scale");

    classify(p);
    for (size_t i = 0; i < g_.ops().size(); ++i)
      if (!used_.count(i)) no("operation ", i, " (", graph::op_kind_name(g_.ops()[i]), ") is not part of the pattern");
  }

 private:
  // Whether the consumers of u form a single-consumer pointwise chain that
  // ends in an EXP (the score chain), looked at without side effects.
  bool chain_reaches_exp(graph::Uid u) const {
    for (int guard = 0; guard < 64; ++guard) {
      const std::vector<size_t> cs = data_consumers(u);
      if (cs.size() != 1) return false;
      const auto *pw = std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]);
      if (pw == nullptr) return false;
      if (pw->mode == CUDNN_POINTWISE_EXP) return true;
      u = pw->y;
    }
    return false;
  }

  // A caller tensor of the scores' rank with matrix [rows x cols] whose batch
  // dims match the scores' (or divide them when `shared`).
  void check_operand(const graph::Tensor &t, int64_t rows, int64_t cols, bool shared, const char *what) const {
    const int r = static_cast<int>(score_dims_.size());
    if (t.is_virtual || t.by_value || t.rank() != r) no(what, " must be a caller tensor of the scores' rank");
    if (t.dims[r - 2] != rows || t.dims[r - 1] != cols) no(what, "'s matrix dims do not fit");
    for (int i = 0; i < r - 2; ++i) {
      if (!shared && t.dims[i] != score_dims_[i]) no(what, "'s batch dimension ", i, " differs from the scores'");
      if (shared && !divides(t.dims[i], score_dims_[i])) no(what, "'s batch dimension ", i, " does not divide the scores'");
    }
    if (!is_fwd_io_type(t.dtype)) no(what, " must be float, half, bfloat16 or FP8");
  }

  // A scalar operand: a by-value constant or a caller tensor of one element.
  int scalar(graph::Uid u, const char *what) {
    const graph::Tensor &t = T(u);
    if (producer_.count(u)) no(what, " must be a caller scalar");
    for (int64_t d : t.dims)
      if (d != 1 && !t.by_value) no(what, " must have one element");
    return side(u);
  }

  // Dot = MUL(REDUCTION ADD(MUL(dO, O)), c) into softmax_sum.
  void dot_chain(SdpaBwdPattern &bp) {
    const graph::Tensor &sum = T(bp.softmax_sum);
    std::vector<int64_t> row = score_dims_;
    row.back() = 1;
    if (sum.dims != row || sum.dtype != CUDNN_DATA_FLOAT) no("softmax_sum must be float with the scores' row dims");
    if (producer_.find(bp.softmax_sum) == producer_.end())
      no("softmax_sum must be computed in the graph from dO and O");
    // MULs by scalars back to the reduction (one; FP8: the descales).
    graph::Uid row_u = bp.softmax_sum;
    std::vector<int> scales_back;
    for (;;) {
      auto pit = producer_.find(row_u);
      if (pit == producer_.end()) no("softmax_sum must be a MUL of sum(dO * O) and a scalar");
      if (std::holds_alternative<graph::ReductionOp>(g_.ops()[pit->second])) break;
      const auto *mul = std::get_if<graph::PointwiseOp>(&g_.ops()[pit->second]);
      if (!mul || mul->mode != CUDNN_POINTWISE_MUL) no("softmax_sum must be a MUL of sum(dO * O) and a scalar");
      use(pit->second);
      check_plain(*mul);
      if (row_u != bp.softmax_sum) {
        const graph::Tensor &t = T(row_u);
        if (!t.is_virtual || t.dims != row || t.dtype != CUDNN_DATA_FLOAT || data_consumers(row_u).size() != 1)
          no("the steps of Dot must be virtual float row tensors");
      }
      const bool x_chain = producer_.count(mul->x) > 0;
      scales_back.push_back(scalar(x_chain ? mul->b : mul->x, "Dot's scalar"));
      row_u = x_chain ? mul->x : mul->b;
    }
    if (scales_back.empty()) no("softmax_sum must be a MUL of sum(dO * O) and a scalar");
    bp.dot_scales.assign(scales_back.rbegin(), scales_back.rend());
    if (data_consumers(row_u).size() != 1) no("sum(dO * O) feeds other operations");
    const graph::Tensor &rt = T(row_u);
    if (!rt.is_virtual || rt.dims != row || rt.dtype != CUDNN_DATA_FLOAT) no("sum(dO * O) must be virtual float");
    const size_t red_i = producer_.at(row_u);
    const auto &red = std::get<graph::ReductionOp>(g_.ops()[red_i]);
    use(red_i);
    if (red.mode != CUDNN_REDUCE_TENSOR_ADD) no("Dot is an ADD reduction of dO * O");
    check_plain_reduction(red);
    auto prod_it = producer_.find(red.x);
    if (prod_it == producer_.end()) no("Dot must reduce MUL(dO, O)");
    const auto *prod = std::get_if<graph::PointwiseOp>(&g_.ops()[prod_it->second]);
    if (!prod || prod->mode != CUDNN_POINTWISE_MUL || data_consumers(red.x).size() != 1) no("Dot must reduce MUL(dO, O)");
    use(prod_it->second);
    check_plain(*prod);
    if (prod->x == bp.d_o) bp.o = prod->b;
    else if (prod->b == bp.d_o) bp.o = prod->x;
    else no("Dot must multiply the dO of dO V^T");
    if (!T(red.x).is_virtual || T(red.x).dims != T(bp.d_o).dims) no("dO * O must be virtual with dO's dims");
    if (T(bp.o).dims != T(bp.d_o).dims || T(bp.o).is_virtual) no("O must be a caller tensor of dO's dims");
    if (!is_fwd_io_type(T(bp.o).dtype)) no("O must be float, half, bfloat16 or FP8");
    const std::vector<size_t> sc = data_consumers(bp.softmax_sum);
    if (sc.size() != 1) no("softmax_sum feeds other operations");
  }

  // The op at index i computes out^T = A^T X for the score-shaped X (P or
  // dS, possibly through an IDENTITY cast): a matmul with a caller `a`
  // ([.., inner, s_q]) written into a caller tensor [.., inner, s_kv] whose
  // batch dims divide the scores' (through an ADD reduction for GQA).
  // FP8: the cast may be MUL(x, scalar) into a virtual FP8 tensor (*cast_scale,
  // *cast_type), and the product may run through float MULs by scalars and
  // an AMAX tap to the caller tensor (tail).
  // cudnn-frontend's form (*plain set): the op at i is the IDENTITY of a
  // RESHAPE that reads X through a transposed view and casts it (virtual,
  // the I/O type, [.., s_kv, s_q]); its matmul computes out = X^T B with the
  // caller B [.., s_q, inner] (a_out) into [.., s_kv, inner].
  graph::Uid transposed_product(size_t i, graph::Uid x, graph::Uid &a_out, int64_t inner, const char *what,
                                int *cast_scale, cudnnDataType_t *cast_type, SdpaScaledOut &tail, bool *plain) {
    use(i);
    graph::Uid b = x;
    *plain = false;
    const graph::MatmulOp *m = std::get_if<graph::MatmulOp>(&g_.ops()[i]);
    const auto *mul8 = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
    if (m == nullptr && mul8 && mul8->mode == CUDNN_POINTWISE_IDENTITY && mul8->x != x &&
        transposed_view_of(mul8->x, x)) {
      check_plain(*mul8);
      const graph::Tensor &c = T(mul8->y);
      std::vector<int64_t> tdims = score_dims_;
      std::swap(tdims[tdims.size() - 1], tdims[tdims.size() - 2]);
      if (!c.is_virtual || c.dims != tdims || !(is_io_float_type(c.dtype) || c.dtype == T(x).dtype))
        no(what, "'s transposed scores must be virtual float, half or bfloat16 (or keep their FP8 type)");
      const std::vector<size_t> cs = data_consumers(mul8->y);
      m = cs.size() == 1 ? std::get_if<graph::MatmulOp>(&g_.ops()[cs[0]]) : nullptr;
      if (!m || m->a != mul8->y) no(what, "'s transposed scores must feed one matmul as its a");
      use(cs[0]);
      *plain = true;
    } else if (m == nullptr && mul8 && mul8->mode == CUDNN_POINTWISE_MUL && is_fp8_type(T(mul8->y).dtype)) {
      check_plain(*mul8);
      const graph::Uid other = mul8->x == x ? mul8->b : mul8->x;
      if ((mul8->x != x && mul8->b != x) || !is_caller_scalar(other)) no(what, "'s FP8 cast must scale by a caller scalar");
      const graph::Tensor &c = T(mul8->y);
      if (!c.is_virtual || c.dims != score_dims_) no(what, "'s FP8 cast must be virtual");
      const std::vector<size_t> cs = data_consumers(mul8->y);
      m = cs.size() == 1 ? std::get_if<graph::MatmulOp>(&g_.ops()[cs[0]]) : nullptr;
      const auto *id = cs.size() == 1 ? std::get_if<graph::PointwiseOp>(&g_.ops()[cs[0]]) : nullptr;
      if (!m && id && id->mode == CUDNN_POINTWISE_IDENTITY && transposed_view_of(id->x, mul8->y)) {
        // cudnn-frontend's FP8 form: the FP8 scores transposed by a RESHAPE
        // (same type) as the matmul's a.
        check_plain(*id);
        const graph::Tensor &ct = T(id->y);
        std::vector<int64_t> tdims = score_dims_;
        std::swap(tdims[tdims.size() - 1], tdims[tdims.size() - 2]);
        if (!ct.is_virtual || ct.dims != tdims || ct.dtype != c.dtype) no(what, "'s transposed FP8 scores must be virtual");
        use(cs[0]);
        const std::vector<size_t> cs2 = data_consumers(id->y);
        m = cs2.size() == 1 ? std::get_if<graph::MatmulOp>(&g_.ops()[cs2[0]]) : nullptr;
        if (!m || m->a != id->y) no(what, "'s transposed FP8 scores must feed one matmul as its a");
        use(cs2[0]);
        *plain = true;
      } else {
        if (!m) no(what, "'s FP8 cast must feed one matmul");
        use(cs[0]);
      }
      *cast_scale = side(other);
      *cast_type = c.dtype;
      b = mul8->y;
    } else if (m == nullptr) {
      const auto *id = std::get_if<graph::PointwiseOp>(&g_.ops()[i]);
      if (!id || id->mode != CUDNN_POINTWISE_IDENTITY || id->x != x) no(what, " must be a matmul (after a cast)");
      check_plain(*id);
      const graph::Tensor &c = T(id->y);
      if (!c.is_virtual || c.dims != score_dims_ || !is_io_float_type(c.dtype)) no(what, "'s cast must be virtual");
      const std::vector<size_t> cs = data_consumers(id->y);
      m = cs.size() == 1 ? std::get_if<graph::MatmulOp>(&g_.ops()[cs[0]]) : nullptr;
      if (!m) no(what, "'s cast must feed one matmul");
      use(cs[0]);
      b = id->y;
    }
    if (!*plain && m->b != b) no(what, "'s matmul must read the scores as b");
    check_matmul(*m, what);
    const int r = static_cast<int>(score_dims_.size());
    const int64_t s_q = score_dims_[r - 2], s_kv = score_dims_[r - 1];
    // The product's matrix: [inner, s_kv] (X^T's form), [s_kv, inner] (plain).
    const int64_t rows = *plain ? s_kv : inner, cols = *plain ? inner : s_kv;
    a_out = *plain ? m->b : m->a;
    if (*plain) check_operand(T(m->b), s_q, inner, false, what);
    else check_operand(T(m->a), inner, s_q, false, what);
    const graph::Tensor &c = T(m->c);
    graph::Uid out = m->c;
    if (c.rank() != r || c.dims[r - 2] != rows || c.dims[r - 1] != cols) no(what, "'s product dims do not fit");
    if (c.is_virtual) {
      const std::vector<size_t> cs = data_consumers(m->c);
      const auto *red = cs.size() == 1 ? std::get_if<graph::ReductionOp>(&g_.ops()[cs[0]]) : nullptr;
      if (red || c.dtype != CUDNN_DATA_FLOAT) {
        for (int k = 0; k < r - 2; ++k)
          if (c.dims[k] != score_dims_[k]) no(what, " per query head must have the scores' batch dims");
        if (c.dtype != CUDNN_DATA_FLOAT && !is_io_float_type(c.dtype)) no(what, " per head must be float");
        if (!red || red->mode != CUDNN_REDUCE_TENSOR_ADD) no(what, " per query head must be summed by an ADD reduction");
        use(cs[0]);
        check_plain_reduction(*red);
        out = red->y;
      }
      // FP8: float MULs by descales and the output scale (an AMAX tap).
      if (T(out).is_virtual) {
        if (T(out).dtype != CUDNN_DATA_FLOAT) no(what, "'s scaled product must be float");
        out = scaled_tail(out, tail.scales, tail.amax, tail.amax_at);
      }
    }
    const graph::Tensor &o = T(out);
    if (o.is_virtual || o.rank() != r || o.dims[r - 2] != rows || o.dims[r - 1] != cols)
      no(what, *plain ? " must be a caller tensor [.., s_kv, " : " must be a caller tensor [.., ", inner,
         *plain ? "]" : ", s_kv]");
    for (int k = 0; k < r - 2; ++k)
      if (!divides(o.dims[k], score_dims_[k])) no(what, "'s batch dimension ", k, " does not divide the scores'");
    if (!is_fwd_io_type(o.dtype)) no(what, " must be float, half, bfloat16 or FP8");
    if (!data_consumers(out).empty()) no(what, " feeds further operations");
    return out;
  }
};

}  // namespace

Support match_sdpa_bwd(const graph::Graph &g, SdpaBwdPattern *out) {
  if (g.ops().size() < 12) return Support::no("an attention backward graph has at least 12 operations");
  try {
    BwdMatcher m(g);
    SdpaBwdPattern p;
    m.run(p);
    *out = std::move(p);
    return Support::yes();
  } catch (const sdpa_match::NoMatch &e) {
    return Support::no("not scaled dot-product attention backward: " + e.why);
  } catch (const Error &e) {
    return Support::no(e.what());
  }
}

}  // namespace fdnn
