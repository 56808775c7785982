// Builders for the variants of the scaled dot-product attention forward graph
// (tests/common/backend_sdpa.hpp has the plain one) through the public
// backend API, in the forms cudnn-frontend lowers its sdpa / sdpa_fp8 nodes to:
//
//  - grouped-query heads in rank 4: Q [b, h, s_q, d], K^T / V [b, h_kv, .., ..]
//    with h_kv dividing h: the matmuls broadcast the K/V batch extent, query
//    head i using K/V head i / (h / h_kv);
//  - dropout after the softmax: P * mask * 1/(1 - p), the mask from an RNG
//    op (Bernoulli with the keep probability 1 - p, INT64 or INT32 seed and
//    offset tensors) or a caller's mask tensor, the scale by value;
//  - paged K/V caches: PAGED_CACHE_LOAD ops produce K^T (the [b, h, d, s]
//    form, stride 1 on dim 2) and V from page containers [blocks, h_kv,
//    block_size, d], page tables [b, 1, pages, 1] and seq_len_kv [b, 1, 1, 1];
//    the padding mask hides the keys past each sequence's end;
//  - FP8 (E4M3 / E5M2 Q, K, V, O): S = Q K^T * scale * descale_q * descale_k,
//    [causal], softmax (stats), amax_S = AMAX(P), P8 = FP8(P * scale_s),
//    O_f = P8 V * descale_s * descale_v, amax_O = AMAX(O_f), O = FP8(O_f * scale_o),
//    with the scales FP32 [1,1,1,1] tensors (where each MUL and AMAX sits
//    follows the frontend's sdpa_fp8 and matmul_fp8 nodes).
//
// The reference (sdpa_variant_reference) computes the same formula in
// float64 from the host tensors, independently of the library: the dropout
// mask from tests/common/rng_reference (Philox), the paged K/V from index
// arithmetic, the FP8 roundings with the test encoder (tensor_data.hpp).
#pragma once

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "common/backend_ops.hpp"
#include "common/backend_sdpa.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

enum class SdpaDropout { none, rng, mask };

struct SdpaVariantConfig {
  int64_t b = 1, h = 4, h_kv = 2, s_q = 8, s_kv = 8, d = 8, d_v = 8;
  cudnnDataType_t io_type = CUDNN_DATA_FLOAT;  // Q, K, V, O (FP8 types select the FP8 graph)
  bool bshd = false;                           // [b, s, h, d] memory order
  double scale = 0.3;                          // attention scale (by value)
  bool causal = false;
  bool padding = false;  // seq_len_q / seq_len_kv masks (always on with paged K/V)
  bool stats = false;
  SdpaDropout dropout = SdpaDropout::none;
  double dropout_p = 0.25;
  int64_t seed = 1234567, offset = 42;
  cudnnDataType_t seed_type = CUDNN_DATA_INT64;  // of the seed and offset tensors (INT32 or INT64)
  bool paged = false;
  int64_t block_size = 4;
  // FP8 scale factors (FP32 [1,1,1,1] tensors).
  double descale_q = 0.5, descale_k = 0.25, descale_v = 0.5, descale_s = 1.0 / 256, scale_s = 256, scale_o = 32;
  bool fp8() const { return io_type == CUDNN_DATA_FP8_E4M3 || io_type == CUDNN_DATA_FP8_E5M2; }
  std::string name() const;
};

enum SdpaVariantUid : int64_t {
  kVarQ = 1, kVarK, kVarV, kVarO, kVarStats, kVarScale, kVarSeqQ, kVarSeqKv, kVarPadFill, kVarCausalFill,
  kVarSeed, kVarOffset, kVarDropMask, kVarDropScale, kVarPageK, kVarPageV,
  kVarDescaleQ, kVarDescaleK, kVarDescaleV, kVarDescaleS, kVarScaleS, kVarScaleO, kVarAmaxS, kVarAmaxO,
};

// The graph's descriptors and operations, plus the by-value scalars.
using SdpaVariantGraph = SdpaGraph;

SdpaVariantGraph build_sdpa_variant_graph(const SdpaVariantConfig &c);

// Host data. With paged K/V, k and v are the page containers and page_k /
// page_v the page tables.
struct SdpaVariantData {
  HostTensor q, k, v, o, stats, seq_q, seq_kv, drop_mask, page_k, page_v, amax_s, amax_o;
  int64_t blocks = 0;  // pages in each container
  // Scalar inputs: RNG seed and offset (INT64), FP8 scales (FLOAT).
  std::vector<std::pair<int64_t, HostTensor>> scalars;
};
SdpaVariantData make_sdpa_variant_data(const SdpaVariantConfig &c, Rng &rng);

// Tensor uid -> host tensor of every caller tensor the graph reads or writes
// (outputs poisoned), for the variant pack.
std::vector<std::pair<int64_t, HostTensor *>> sdpa_variant_tensors(const SdpaVariantConfig &c, SdpaVariantData &d);

struct SdpaVariantExpect {
  std::vector<Expect> o, stats, amax_s, amax_o;  // logical row-major order of each output
};
SdpaVariantExpect sdpa_variant_reference(const SdpaVariantConfig &c, const SdpaVariantData &d);

}  // namespace fdnn_test
