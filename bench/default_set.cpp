#include "default_set.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace bench {

namespace {

struct Group {
  int order;
  std::vector<const char *> lines;
};

std::vector<Group> &groups() {
  static std::vector<Group> all;
  return all;
}

}  // namespace

DefaultProblems::DefaultProblems(int order, std::initializer_list<const char *> lines) {
  groups().push_back({order, std::vector<const char *>(lines)});
}

// One problem per line; every line starts with --reset so that lines are
// independent and can be pasted after `freednn-bench`.
// The tensor operations: the large memory-bound ones (each tensor far larger
// than the CPU's L3) first, then a few cache-sized ones.
BENCH_DEFAULT_PROBLEMS(tensor_ops, 0, {
      // Layout transforms (ResNet-50 res2 activations, 205 MB per f32 tensor).
      // cudnnTransformTensor changes layouts, not types (BAD_PARAM otherwise).
      "--reset --name=transform.nchw2nhwc --op=transform --dt=f32 --stag=nchw --dtag=nhwc 64x256x56x56",
      "--reset --name=transform.nhwc2nchw --op=transform --dt=f32 --stag=nhwc --dtag=nchw 64x256x56x56",
      "--reset --name=transform.nchw2nhwc.f16 --op=transform --dt=f16 --stag=nchw --dtag=nhwc 64x256x56x56",
      // cudnnAddTensor: bias add (C += A) with broadcast, and a full-size add.
      "--reset --name=add.bias --op=add --dt=f32 --tag=nchw --beta=1 64x256x56x56:1x256x1x1",
      "--reset --name=add.bias.f16 --op=add --dt=f16 --tag=nchw --beta=1 32x64x56x56:1x64x1x1",
      "--reset --name=add.full --op=add --dt=f32 --tag=nchw --beta=1 64x256x56x56:64x256x56x56",
      // cudnnOpTensor.
      "--reset --name=optensor.add --op=optensor --alg=add --dt=f32 --tag=nchw --beta=0 64x256x56x56:64x256x56x56",
      "--reset --name=optensor.mul.bcast --op=optensor --alg=mul --dt=f32 --tag=nchw --beta=0 64x256x56x56:1x256x1x1",
      "--reset --name=optensor.max.nhwc --op=optensor --alg=max --dt=f32 --tag=nhwc --beta=0 64x256x56x56:64x256x56x56",
      // cudnnReduceTensor: per-channel statistics, global pooling, row-wise.
      "--reset --name=reduce.sum.channel --op=reduce --alg=add --dt=f32 --tag=nchw 64x256x56x56:1x256x1x1",
      "--reset --name=reduce.avg.spatial --op=reduce --alg=avg --dt=f32 --tag=nchw 64x256x56x56:64x256x1x1",
      "--reset --name=reduce.max.rows --op=reduce --alg=max --dt=f32 65536x1024:65536x1",
      "--reset --name=reduce.max.rows.idx --op=reduce --alg=max --indices=32 --dt=f32 65536x1024:65536x1",
      "--reset --name=reduce.norm2.rows --op=reduce --alg=norm2 --dt=f32 65536x1024:65536x1",
      // cudnnSetTensor, cudnnScaleTensor.
      "--reset --name=set --op=set --dt=f32 --value=0 64x256x56x56",
      "--reset --name=scale --op=scale --dt=f32 --alpha=0.5 64x256x56x56",
      // Cache-sized problems (L2/L3 resident): per-call overheads show here.
      "--reset --name=small.transform --op=transform --dt=f32 --stag=nchw --dtag=nhwc 8x64x28x28",
      "--reset --name=small.add.bias --op=add --dt=f32 --tag=nchw --beta=1 8x64x28x28:1x64x1x1",
      "--reset --name=small.reduce.max.idx --op=reduce --alg=max --indices=32 --dt=f32 256x1024:256x1",
})

std::vector<std::string> default_set_arguments() {
  std::vector<Group> sorted = groups();
  std::stable_sort(sorted.begin(), sorted.end(), [](const Group &a, const Group &b) { return a.order < b.order; });
  std::vector<std::string> args;
  for (const Group &g : sorted)
    for (const char *line : g.lines) {
      std::istringstream words(line);
      std::string w;
      while (words >> w) args.push_back(w);
    }
  return args;
}

}  // namespace bench
