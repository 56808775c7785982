// oneDNN as a peer: the same problem run through oneDNN's primitives in the
// same process, where the semantics are exactly ours (reorder = transform
// with alpha 1, beta 0; binary = add/optensor with unit scales; reduction
// without indices). Built only when libdnnl is found (FREEDNN_BENCH_ONEDNN);
// otherwise every factory returns null and the tables say "n/a".
#pragma once

#include <memory>
#include <string>

#include "op.hpp"
#include "problem.hpp"

namespace bench {

struct PeerTensor {
  Dims dims;
  Dims strides;
  std::string dt;
};

bool onednn_available();
std::string onednn_version();
// OpenMP threads of oneDNN (it reads OMP_NUM_THREADS only at load time).
void onednn_set_threads(int threads);

std::unique_ptr<PeerRun> onednn_reorder(const PeerTensor &src, const PeerTensor &dst);
// alg: add, mul, min, max. dst = src0 OP src1 (src1 broadcasts). in_place:
// dst is src0's memory (cudnnAddTensor's C += A).
std::unique_ptr<PeerRun> onednn_binary(const std::string &alg, const PeerTensor &src0, const PeerTensor &src1,
                                       const PeerTensor &dst, bool in_place);
// alg: sum, mul, min, max, mean, norm1, norm2.
std::unique_ptr<PeerRun> onednn_reduction(const std::string &alg, const PeerTensor &src, const PeerTensor &dst);

// dst = alpha * src in place (eltwise_linear with beta 0): cudnnScaleTensor.
std::unique_ptr<PeerRun> onednn_scale(const PeerTensor &t, float alpha);

}  // namespace bench
