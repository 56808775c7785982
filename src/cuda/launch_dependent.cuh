// Kernel launches that may overlap the previous kernel in the stream
// (programmatic dependent launch, sm_90): the launch starts while that
// kernel's blocks finish, and the launched kernel waits with
// griddepcontrol.wait before it reads what the previous one wrote. Used
// where a short kernel follows a long one (a reduction's finalize, a
// filter gradient's sum of partials) and its launch latency would
// otherwise sit between the two.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda/cuda_util.hpp"

namespace fdnn::cuda {

// Launches kernel k on `threads` threads a block, as a programmatic
// dependent of the previous kernel in s when `pdl` (else an ordinary
// launch); `what` names it in errors.
template <class... P, class... A>
void launch_dep(bool pdl, void (*k)(P...), dim3 grid, unsigned threads, size_t shared, cudaStream_t s, const char *what,
                A &&...args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = shared;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  if (pdl) {
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  check_cuda(cudaLaunchKernelEx(&cfg, k, std::forward<A>(args)...), what);
  check_launch(what);
}

}  // namespace fdnn::cuda
