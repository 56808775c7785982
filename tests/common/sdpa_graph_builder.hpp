// Building blocks of the attention graphs the SDPA tests build through the
// public backend API (forward: backend_sdpa.cpp, backward:
// backend_sdpa_bwd.cpp): tensor and operation descriptors owned by the
// SdpaGraph, and the score steps both directions share, in the order
// cudnn-frontend's composite sdpa nodes emit them.
#pragma once

#include <cudnn.h>

#include <memory>
#include <vector>

#include "common/backend_sdpa.hpp"

namespace fdnn_test {

// Descriptors of one graph, owned by it: tensors (caller, virtual with
// fresh uids from 100 on) and the operations, finalized and appended to
// its operation list in the order they are built.
class GraphOpBuilder {
 public:
  explicit GraphOpBuilder(SdpaGraph &g) : g_(g) {}

  Desc *real(int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims);
  Desc *real(int64_t uid, cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);
  Desc *virt(cudnnDataType_t t, const std::vector<int64_t> &dims);
  Desc *virt(cudnnDataType_t t, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);

  void matmul(Desc *a, Desc *b, Desc *c);
  void pw(cudnnPointwiseMode_t mode, Desc *x, Desc *b, Desc *y, Desc *t = nullptr, int64_t axis = -1,
          cudnnDataType_t math = CUDNN_DATA_FLOAT);
  void reduce(cudnnReduceTensorOp_t mode, Desc *x, Desc *y);
  void reshape(Desc *x, Desc *y);
  // The y of a BERNOULLI RNG op drawing 1 with probability `keep`.
  Desc *bernoulli(double keep, Desc *seed, Desc *offset, Desc *y);

 protected:
  Desc *keep(std::unique_ptr<Desc> d);
  void add(Desc *op);  // finalizes op and appends it to the graph's operations

  SdpaGraph &g_;
  int64_t next_uid_ = 100;
};

// The attention graphs' shapes and score steps on top of GraphOpBuilder.
class SdpaGraphBuilder : public GraphOpBuilder {
 public:
  SdpaGraphBuilder(const SdpaConfig &c, SdpaGraph &g) : GraphOpBuilder(g), cfg_(c), sh_(sdpa_shapes(c)) {}

  // Uids of the by-value mask fills and window width (see
  // add_mask_values()).
  static constexpr int64_t kPadFill = 50, kCausalFill = 51, kWindowFill = 52, kWindow = 53;

  Desc *by_value(int64_t uid, cudnnDataType_t t);
  Desc *score();  // a virtual float tensor of the scores' dims

  // GEN_INDEX along the score's row (rank - 2) or column (rank - 1) axis.
  Desc *index(Desc *of, bool column);
  // BINARY_SELECT: s where keep_mask is true, else the by-value fill.
  Desc *select(Desc *s, Desc *keep_mask, int64_t fill_uid);

  // The attention scale: by value or a [1,..,1] float tensor.
  Desc *scale();
  // S * scale, then [+ bias], [+ ALiBi (col - row) * slope], [padding:
  // rows and columns past seq_len_q / seq_len_kv selected to the fill].
  Desc *scale_bias_alibi_padding(Desc *s, Desc *scale);
  // [causal: keep row >= col], [sliding window: keep col + window > row].
  Desc *causal_and_window(Desc *s);
  // The y of a BERNOULLI RNG op (keep probability 1 - dropout) with the
  // scores' dims and INT64 seed / offset caller tensors.
  Desc *dropout_mask();

 protected:
  const SdpaConfig &cfg_;
  SdpaShapes sh_;
};

// The by-value values of the masks' fills and window width that
// SdpaGraphBuilder's uids stand for.
void add_mask_values(const SdpaConfig &c, SdpaGraph &g);

// A by-value float in the graph's values.
void add_float_value(SdpaGraph &g, int64_t uid, float v);

}  // namespace fdnn_test
