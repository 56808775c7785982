// Builders for scaled dot-product attention (SDPA) forward graphs through the
// public backend API, in the form cudnn-frontend's composite sdpa node lowers
// to: MATMUL(Q, K^T) -> MUL scale -> [ADD bias] -> [ALiBi: ADD (col - row) *
// slope] -> [padding: SELECT by (row < seq_q[b]) && (col < seq_kv[b])] ->
// [causal: SELECT by row >= col] -> [sliding window: SELECT by col + w > row]
// -> softmax as REDUCTION MAX, SUB, EXP, REDUCTION ADD, DIV (stats = max +
// LOG(sum)) -> MATMUL(P, V) = O. Masks come from GEN_INDEX / CMP_* /
// LOGICAL_AND / BINARY_SELECT pointwise ops on INT32 and BOOLEAN tensors.
//
// Grouped-query heads: K/V with 1 head (multi-query) broadcast as matmul
// batches of extent 1; with h_kv heads dividing h the graph is rank 5
// ([b, h_kv, h / h_kv, s, d], K/V of extent 1 in the group dim), which is
// GQA as plain matmul broadcasting.
#pragma once

#include <cudnn.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

struct SdpaConfig {
  int64_t b = 1, h = 2, h_kv = 2, s_q = 8, s_kv = 8, d = 8, d_v = 8;
  cudnnDataType_t io_type = CUDNN_DATA_FLOAT;  // Q, K, V, O
  bool bshd = false;                           // [b, s, h, d] memory order instead of [b, h, s, d]
  bool scale_by_value = true;                  // else a [1,1,1,1] float tensor
  double scale = 0.35;
  bool bias = false;                           // [1, h, s_q, s_kv] float tensor added to the scores
  bool alibi = false;
  bool padding = false;                        // seq_len_q / seq_len_kv [b,1,1,1] INT32 tensors
  int64_t seq_q = 0, seq_kv = 0;               // their values (0: random in [1, s_q] / [1, s_kv])
  bool causal = false;
  int64_t window = 0;                          // sliding window: keep col > row - window (0: none)
  bool stats = false;                          // stats output [b, h, s_q, 1] float
  // A by-value MUL of the softmax output before P V (the shape of a dropout
  // scale): not the fused engine's pattern, so only the op-by-op engine runs it.
  double p_scale = 1.0;
  // Dropout as cudnn-frontend forms it: P * RNG(BERNOULLI, keep 1 - dropout,
  // INT64 seed / offset tensors [1,1,1,1]) * 1 / (1 - dropout) (by value).
  double dropout = 0;
  int64_t seed = 1234, offset = 0;
  double causal_fill = -std::numeric_limits<double>::infinity();  // value of masked scores
  // Grouped-query heads (1 < h_kv < h) in rank 4, as cudnn-frontend builds
  // them: K/V [b, h_kv, ..] broadcast over consecutive query heads (else
  // the grouped rank-5 form).
  bool rank4_groups = false;
  std::string name() const;
};

// Whether c's graph uses the grouped rank-5 form ([b, h_kv, h / h_kv, s, e]).
inline bool sdpa_rank5(const SdpaConfig &c) { return c.h_kv != c.h && c.h_kv != 1 && !c.rank4_groups; }

// Uids of the graph's caller-visible tensors.
enum SdpaUid : int64_t {
  kSdpaQ = 1, kSdpaK, kSdpaV, kSdpaO, kSdpaStats, kSdpaScale, kSdpaBias, kSdpaSeqQ, kSdpaSeqKv, kSdpaSlopes,
  kSdpaPScale, kSdpaSeed, kSdpaOffset, kSdpaDropScale,
};

// The dropout keep mask of score element (b, h, i, j) (0 or 1), from an
// independent Philox (tests/common/rng_reference.hpp); h counts Q heads.
int sdpa_keep(const SdpaConfig &c, int64_t b, int64_t h, int64_t i, int64_t j);

// The descriptors of one SDPA graph (they own each other's lifetimes) and the
// operation list to finalize.
struct SdpaGraph {
  std::vector<std::unique_ptr<Desc>> keep;
  std::vector<Desc *> ops;
  // By-value scalars (scale, mask fills, window width): uid and the host
  // bytes the variant pack points at, as cudnn-frontend passes them.
  struct Value {
    int64_t uid;
    unsigned char bytes[8];
  };
  std::vector<Value> values;
};

// Logical dims and strides (in elements) of the caller's tensors.
struct SdpaShapes {
  std::vector<int64_t> q_dims, q_strides, k_dims, k_strides, v_dims, v_strides, o_dims, o_strides;
  std::vector<int64_t> kt_dims, kt_strides;  // K^T as the first matmul's b
  std::vector<int64_t> score_dims, row_dims;  // [.., s_q, s_kv] and [.., s_q, 1]
  std::vector<int64_t> bias_dims, seq_dims, slopes_dims;
  int rank() const { return static_cast<int>(q_dims.size()); }
};

SdpaShapes sdpa_shapes(const SdpaConfig &c);
SdpaGraph build_sdpa_graph(const SdpaConfig &c);

// Host data of one problem.
struct SdpaData {
  HostTensor q, k, v, o, stats, scale, bias, seq_q, seq_kv, slopes;
  HostTensor seed, offset;  // INT64 [1,..,1] (dropout)
};
SdpaData make_sdpa_data(const SdpaConfig &c, Rng &rng);

// The float64 expectation of O and stats (logical row-major order of their
// dims) from the host inputs: a direct loop over the attention formula with
// the masked scores set to the graph's fill values, independent of the
// library. Only rows i with i == 0 or i % row_step == row_step - 1 are
// computed (the others keep value 0, tolerance 0); the tests use row_step 1.
struct SdpaExpect {
  std::vector<Expect> o, stats;  // in logical row-major order of O's and stats' dims
};
SdpaExpect sdpa_reference(const SdpaConfig &c, const SdpaData &d, int64_t row_step = 1);

}  // namespace fdnn_test
