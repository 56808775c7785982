// Arguments of the CUDA paged K/V cache gather (paged_cache_load.cpp <->
// paged_cache_load.cu).
#pragma once

#include <cstdint>

#include "cuda/fast_divmod.hpp"

namespace fdnn::cuda {

struct PagedLoadArgs {
  const void *container = nullptr;
  void *y = nullptr;
  const void *seq_len = nullptr;
  const int32_t *table = nullptr;
  bool seq64 = false;
  // Bytes moved per thread: 16, 8, 4, 2 or 1. A unit is a slice of one row's
  // contiguous D elements, or (when a row is not contiguous in y or in the
  // container) exactly one element.
  int unit_bytes = 1;
  int64_t units_per_row = 0;
  // Strides in units: b, h, s, d of y (logical order) and block, h,
  // position, d of the container; the d strides step from one unit to the
  // next.
  int64_t ys[4] = {};
  int64_t cs[4] = {};
  int64_t table_b = 0, table_page = 0, seq_b = 0;
  int64_t num_blocks = 0;
  int64_t rows = 0;  // B * H * S
  FastDivmod upr, seq, heads, block;
};

void launch_paged_cache_load(const PagedLoadArgs &a, void *stream);

}  // namespace fdnn::cuda
