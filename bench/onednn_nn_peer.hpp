// oneDNN peers of the neural-network ops (op_batch_norm.cpp, op_softmax.cpp,
// op_lrn.cpp, op_activation.cpp): one primitive with its memories made once,
// run on the same problem. Each factory returns null when oneDNN is not
// linked or does not take the problem (type, layout). The callers offer a
// peer only where oneDNN's primitive means exactly the cuDNN call (see each
// op file for the conditions).
#pragma once

#include <memory>
#include <string>

#include "onednn_peer.hpp"
#include "op.hpp"

namespace bench {

// phase: "train" (forward_training: mean and variance out), "infer"
// (use_global_stats), "bwd" (diff_src, diff_scale, diff_shift); always
// use_scale | use_shift, statistics per channel (dimension 1).
std::unique_ptr<PeerRun> onednn_batch_norm(const std::string &phase, const PeerTensor &x, double epsilon);

// softmax_v2 along `axis` (accurate or log), forward or backward (from dst).
std::unique_ptr<PeerRun> onednn_softmax(bool log, bool backward, const PeerTensor &x, int axis);

// lrn_across_channels (dst = src / (k + alpha / n * sum src^2)^beta).
std::unique_ptr<PeerRun> onednn_lrn(bool backward, const PeerTensor &x, int n, double alpha, double beta, double k);

// eltwise: alg is relu, tanh, logistic, elu, clip; use_dst: the
// *_use_dst_for_bwd variant (backward reads dst, not src).
std::unique_ptr<PeerRun> onednn_eltwise(const std::string &alg, bool use_dst, bool backward, const PeerTensor &x,
                                        double alpha, double beta);

}  // namespace bench
