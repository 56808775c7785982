// Chooses the kernel family for an element-wise operation and splits index
// spaces too large for the kernels' 32-bit index arithmetic.
#include <algorithm>
#include <functional>

#include "core/error.hpp"
#include "cuda/pointwise_paths.hpp"

namespace fdnn::cuda {
namespace {

// Calls launch(args) on pieces of the layout that each hold fewer than
// kMaxLaunchElements elements, shifting the operands' base offsets.
void for_each_piece(const PointwiseArgs &a, const std::function<void(const PointwiseArgs &)> &launch) {
  const StridedLayout &l = a.layout;
  const int64_t count = l.element_count();
  if (count <= kMaxLaunchElements) {
    launch(a);
    return;
  }
  const int64_t inner = count / l.extent[0];
  PointwiseArgs piece = a;
  if (inner > kMaxLaunchElements) {
    // Dim 0 is walked on the host; the rest is split further.
    for (int d = 0; d + 1 < l.rank; ++d) {
      piece.layout.extent[d] = l.extent[d + 1];
      for (int k = 0; k < kMaxOperands; ++k) piece.layout.stride[k][d] = l.stride[k][d + 1];
    }
    piece.layout.rank = l.rank - 1;
    for (int64_t i = 0; i < l.extent[0]; ++i) {
      piece.y_base = a.y_base + i * l.stride[0][0];
      for (int j = 0; j < 3; ++j) piece.in[j].base = a.in[j].base + i * l.stride[j + 1][0];
      for_each_piece(piece, launch);
    }
    return;
  }
  const int64_t chunk = kMaxLaunchElements / inner;
  for (int64_t i0 = 0; i0 < l.extent[0]; i0 += chunk) {
    piece.layout.extent[0] = std::min(chunk, l.extent[0] - i0);
    piece.y_base = a.y_base + i0 * l.stride[0][0];
    for (int j = 0; j < 3; ++j) piece.in[j].base = a.in[j].base + i0 * l.stride[j + 1][0];
    launch(piece);
  }
}

}  // namespace

void launch_pointwise(const PointwiseArgs &args, void *stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (args.layout.element_count() == 0) return;
  if (args.mode == CUDNN_POINTWISE_GEN_INDEX) {
    // Coordinates are taken from the whole layout: it cannot be split.
    check_supported(args.layout.element_count() <= kMaxLaunchElements,
                    "GEN_INDEX over more than 2^31 elements is not supported on CUDA");
    launch_pointwise_generic(args, stream);
    return;
  }
  if (try_pointwise_fill(args, stream)) return;
  if (try_pointwise_vector(args, stream)) return;
  if (try_pointwise_transpose(args, stream)) return;
  for_each_piece(args, [&](const PointwiseArgs &piece) { launch_pointwise_generic(piece, stream); });
}

}  // namespace fdnn::cuda
