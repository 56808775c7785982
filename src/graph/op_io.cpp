#include "graph/op_io.hpp"

#include "core/error.hpp"

namespace fdnn::graph {

namespace {

void add(std::vector<Uid> &v, Uid u) {
  if (u != kNoTensor) v.push_back(u);
}

}  // namespace

OpIo op_io(const Op &op) {
  OpIo io;
  if (const auto *p = std::get_if<PointwiseOp>(&op)) {
    add(io.inputs, p->x);
    add(io.inputs, p->b);
    add(io.inputs, p->t);
    add(io.outputs, p->y);
  } else if (const auto *r = std::get_if<ReductionOp>(&op)) {
    add(io.inputs, r->x);
    add(io.outputs, r->y);
    add(io.outputs, r->indices);
  } else if (const auto *c = std::get_if<ConvolutionOp>(&op)) {
    switch (c->direction) {
      case ConvDirection::forward:
        add(io.inputs, c->x), add(io.inputs, c->w), add(io.outputs, c->y);
        break;
      case ConvDirection::backward_data:
        add(io.inputs, c->y), add(io.inputs, c->w), add(io.outputs, c->x);
        break;
      case ConvDirection::backward_filter:
        add(io.inputs, c->x), add(io.inputs, c->y), add(io.outputs, c->w);
        break;
    }
  } else if (const auto *m = std::get_if<MatmulOp>(&op)) {
    add(io.inputs, m->a);
    add(io.inputs, m->b);
    add(io.outputs, m->c);
  } else if (const auto *n = std::get_if<NormalizationOp>(&op)) {
    if (n->backward) {
      for (Uid u : {n->x, n->dy, n->scale, n->mean, n->inv_variance, n->mask}) add(io.inputs, u);
      for (Uid u : {n->dx, n->dscale, n->dbias, n->dz}) add(io.outputs, u);
    } else if (n->phase == CUDNN_NORM_FWD_INFERENCE) {
      for (Uid u : {n->x, n->z, n->scale, n->bias, n->mean, n->inv_variance, n->variance}) add(io.inputs, u);
      add(io.outputs, n->y);
    } else {
      for (Uid u : {n->x, n->z, n->scale, n->bias}) add(io.inputs, u);
      // The running statistics are read and written; the legacy calls use one
      // uid for both, which counts as an input only.
      for (Uid u : {n->running_mean_in, n->running_var_in}) add(io.inputs, u);
      for (Uid u : {n->y, n->mean, n->inv_variance, n->mask}) add(io.outputs, u);
      if (n->running_mean_out != n->running_mean_in) add(io.outputs, n->running_mean_out);
      if (n->running_var_out != n->running_var_in) add(io.outputs, n->running_var_out);
    }
  } else if (const auto *rs = std::get_if<ResampleOp>(&op)) {
    if (rs->backward) {
      // The index tensor (argmax positions) is read by the backward pass.
      for (Uid u : {rs->dy, rs->x, rs->y, rs->index}) add(io.inputs, u);
      add(io.outputs, rs->dx);
    } else {
      add(io.inputs, rs->x);
      add(io.outputs, rs->y);
      add(io.outputs, rs->index);
    }
  } else if (const auto *rg = std::get_if<RngOp>(&op)) {
    add(io.inputs, rg->seed);
    add(io.inputs, rg->offset);
    add(io.outputs, rg->y);
  } else if (const auto *cc = std::get_if<ConcatOp>(&op)) {
    for (Uid u : cc->inputs) add(io.inputs, u);
    add(io.outputs, cc->y);
  } else if (const auto *sg = std::get_if<SignalOp>(&op)) {
    // The flag is read and written in memory the caller owns; it counts as an
    // input so that the dataflow needs no producer for it.
    add(io.inputs, sg->flag);
    add(io.inputs, sg->x);
    if (sg->y != sg->x) add(io.outputs, sg->y);
  } else if (const auto *pc = std::get_if<PagedCacheLoadOp>(&op)) {
    for (Uid u : {pc->container, pc->page_table, pc->seq_len}) add(io.inputs, u);
    add(io.outputs, pc->y);
  } else {
    fail(CUDNN_STATUS_NOT_SUPPORTED, "the inputs and outputs of a ", op_kind_name(op),
         " operation are not known to the graph layer yet");
  }
  return io;
}

}  // namespace fdnn::graph
