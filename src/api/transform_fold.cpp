#include "api/transform_fold.hpp"

#include <algorithm>

#include "api/transform_copy.hpp"
#include "core/error.hpp"

namespace fdnn::api {

namespace {

// Integer division rounding down / up, for numerators of either sign
// (positive denominators).
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

int64_t fold_of(const cudnnTensorTransformStruct &tr, size_t spatial) {
  return std::max<int64_t>(1, static_cast<int64_t>(tr.fold[spatial]));
}

int64_t element_count(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// One rectangular piece of the correspondence: the source elements of one
// fold offset and where they go.
struct Piece {
  LaneLayout src, dst;
  int64_t src_offset = 0, dst_offset = 0;  // in lanes
};

}  // namespace

bool has_folds(const cudnnTensorTransformStruct &tr, size_t nb) {
  for (size_t i = 2; i < nb; ++i)
    if (fold_of(tr, i - 2) > 1) return true;
  return false;
}

std::vector<int64_t> transformed_dims(const cudnnTensorTransformStruct &tr, std::vector<int64_t> dims) {
  const size_t nb = dims.size();
  auto pad = [&] {
    for (size_t i = 0; i < nb; ++i) dims[i] += tr.pad_before[i] + tr.pad_after[i];
  };
  if (!has_folds(tr, nb)) {
    pad();
  } else if (tr.direction == CUDNN_TRANSFORM_FOLD) {
    pad();
    for (size_t i = 2; i < nb; ++i) {
      const int64_t f = fold_of(tr, i - 2);
      dims[i] = ceil_div(dims[i], f);
      dims[1] *= f;
    }
  } else {
    int64_t total = 1;
    for (size_t i = 2; i < nb; ++i) {
      const int64_t f = fold_of(tr, i - 2);
      dims[i] *= f;
      total *= f;
    }
    dims[1] = ceil_div(dims[1], total);
    pad();
  }
  return dims;
}

void run_fold(cudnnContext &h, const char *fn, const cudnnTensorTransformStruct &tr, double alpha, double beta,
              const LaneLayout &src, const void *sp, const LaneLayout &dst, void *dp) {
  const size_t nb = src.dims.size();
  const bool folding = tr.direction == CUDNN_TRANSFORM_FOLD;
  check_supported(src.lanes == 1 && dst.lanes == 1, "folding transforms of vector types are not implemented");
  check_supported(tr.pad_before[0] == 0 && tr.pad_after[0] == 0 && tr.pad_before[1] == 0 && tr.pad_after[1] == 0,
                  "padding N or C in a folding transform is not implemented");
  // `plain` has the unfolded shape (N, C, spatial), `folded` (N, C * T,
  // spatial / F). A folded position q of spatial dim i holds the plain
  // position q * F + o + shift, o the fold offset.
  const LaneLayout &plain = folding ? src : dst;
  const LaneLayout &folded = folding ? dst : src;
  const int64_t channels = plain.dims[1];
  int64_t offsets = 1;
  for (size_t i = 2; i < nb; ++i) offsets *= fold_of(tr, i - 2);

  std::vector<Piece> pieces;
  int64_t covered = 0;
  for (int64_t f = 0; f < offsets; ++f) {
    std::vector<int64_t> o(nb, 0);  // fold offset per spatial dim, row-major in f
    for (int64_t rest = f, i = static_cast<int64_t>(nb) - 1; i >= 2; --i) {
      o[i] = rest % fold_of(tr, i - 2);
      rest /= fold_of(tr, i - 2);
    }
    // UNFOLD: the last channel group may be short when C * T exceeds the source's channels.
    const int64_t c_count = std::min(channels, folded.dims[1] - f * channels);
    if (c_count <= 0) continue;
    LaneLayout fv = folded, pv = plain;
    int64_t f_off = f * channels * folded.strides[1], p_off = 0;
    fv.dims[1] = pv.dims[1] = c_count;
    bool empty = false;
    for (size_t i = 2; i < nb && !empty; ++i) {
      const int64_t F = fold_of(tr, i - 2);
      // FOLD: plain = source, padded before folding; UNFOLD: plain = destination, padded after.
      const int64_t shift = folding ? -tr.pad_before[i] : tr.pad_before[i];
      const int64_t lo = std::max<int64_t>(0, ceil_div(-shift - o[i], F));
      const int64_t hi = std::min<int64_t>(folded.dims[i] - 1, floor_div(plain.dims[i] - 1 - shift - o[i], F));
      empty = hi < lo;
      fv.dims[i] = pv.dims[i] = hi - lo + 1;
      f_off += lo * folded.strides[i];
      p_off += (lo * F + o[i] + shift) * plain.strides[i];
      pv.strides[i] = plain.strides[i] * F;
    }
    if (empty) continue;
    covered += element_count(fv.dims);
    Piece piece;
    piece.src = folding ? pv : fv;
    piece.dst = folding ? fv : pv;
    piece.src_offset = folding ? p_off : f_off;
    piece.dst_offset = folding ? f_off : p_off;
    pieces.push_back(std::move(piece));
  }

  // Elements no source element reaches are zeros, which (as for padding)
  // cuDNN does not blend: it wants beta = 0 then.
  if (covered < element_count(dst.dims)) {
    check_supported(beta == 0.0, "this folding transform pads the destination with zeros, which needs beta = 0 (got ",
                    beta, ")");
    run_zero_fill(h, fn, dst, dp);
  }
  const size_t sb = lane_bytes(src.dtype), db = lane_bytes(dst.dtype);
  for (const Piece &p : pieces)
    run_copy(h, fn, alpha, beta, p.src, static_cast<const char *>(sp) + p.src_offset * static_cast<int64_t>(sb),
             p.dst, static_cast<char *>(dp) + p.dst_offset * static_cast<int64_t>(db));
}

}  // namespace fdnn::api
