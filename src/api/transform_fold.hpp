// Folding transforms: a cudnnTensorTransformDescriptor with fold factors
// above 1 (cudnnTransformTensorEx, cudnnTransformFilter).
//
// FOLD pads the source first, then moves each Fh x Fw block of the spatial
// dimensions into the channels:
//     dest(n, f * C + c, h', w') = padded(n, c, h' * Fh + fh, w' * Fw + fw)
// with f = fh * Fw + fw (row-major over the fold offsets, one per spatial
// dimension in 5-d); positions past the padded source are 0. UNFOLD is the
// inverse, followed by the padding. This is the element order cuDNN 9.19
// produces (tests/oracle_gpu/tensor_ops_gpu.c, probe.xformex.*).
#pragma once

#include <vector>

#include "api/tensor_views.hpp"
#include "core/handle.hpp"
#include "core/op_descriptors.hpp"

namespace fdnn::api {

// Whether one of the first nb - 2 (spatial) fold factors is above 1.
bool has_folds(const cudnnTensorTransformStruct &tr, size_t nb);

// The destination's logical dims (C in channels) for a source of logical
// dims `dims`: what cudnnInitTransformDest reports.
std::vector<int64_t> transformed_dims(const cudnnTensorTransformStruct &tr, std::vector<int64_t> dims);

// dst = alpha * fold(src) + beta * dst between scalar layouts (lanes 1),
// dst's dims being transformed_dims(src). Destination elements that no source
// element reaches get 0, and then beta must be 0 (NOT_SUPPORTED otherwise).
void run_fold(cudnnContext &h, const char *fn, const cudnnTensorTransformStruct &tr, double alpha, double beta,
              const LaneLayout &src, const void *sp, const LaneLayout &dst, void *dp);

}  // namespace fdnn::api
