#include "api/tensor_views.hpp"

#include <algorithm>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn::api {

namespace {

template <class Desc>
LaneLayout layout_of(const Desc &d) {
  LaneLayout l;
  l.dtype = scalar_type(d.dtype);
  l.lanes = d.vect_count;
  for (int i = 0; i < d.nb_dims; ++i) {
    int64_t extent = d.dims[i];
    // Whole-vector elements (vector type outside NCHW_VECT_C) report C in
    // vectors; NCHW_VECT_C reports it in channels already.
    if (i == 1 && l.lanes > 1 && d.vect_dim != 1) extent *= l.lanes;
    l.dims.push_back(extent);
    l.strides.push_back(static_cast<int64_t>(d.strides[i]) * l.lanes);
  }
  return l;
}

}  // namespace

LaneLayout lane_layout(const cudnnTensorStruct &d) { return layout_of(d); }
LaneLayout lane_layout(const cudnnFilterStruct &d) { return layout_of(d); }

std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

std::vector<graph::Tensor> common_views(const std::vector<LaneLayout> &operands) {
  int vmax = 1;
  bool has4 = false;
  for (const LaneLayout &l : operands) {
    vmax = std::max(vmax, l.lanes);
    has4 = has4 || l.lanes == 4;
  }
  const bool both = vmax == 32 && has4;  // INT8x4 meets INT8x32: C = C/32 x 8 x 4

  std::vector<graph::Tensor> out;
  for (const LaneLayout &l : operands) {
    graph::Tensor t;
    t.dtype = l.dtype;
    t.dims = l.dims;
    t.strides = l.strides;
    if (vmax > 1 && t.dims.size() >= 2) {
      const int64_t c = l.dims[1], s = l.strides[1];
      std::vector<int64_t> lane_dims = both ? std::vector<int64_t>{8, 4} : std::vector<int64_t>{vmax};
      std::vector<int64_t> lane_strides;
      if (c == 1) {  // broadcast along C
        t.dims[1] = 1;
        t.strides[1] = 0;
        lane_dims.assign(lane_dims.size(), 1);
        lane_strides.assign(lane_dims.size(), 0);
      } else {
        check_arg(c % vmax == 0, "C = ", c, " is not a multiple of ", vmax,
                  ", the vector width of another operand of this operation");
        t.dims[1] = c / vmax;
        if (l.lanes == 1) {  // s per channel
          t.strides[1] = vmax * s;
          lane_strides = both ? std::vector<int64_t>{4 * s, s} : std::vector<int64_t>{s};
        } else if (l.lanes == vmax) {  // s per vector of vmax channels
          t.strides[1] = s;
          lane_strides = both ? std::vector<int64_t>{4, 1} : std::vector<int64_t>{1};
        } else {  // INT8x4 next to INT8x32: s per vector of 4
          t.strides[1] = 8 * s;
          lane_strides = {s, 1};
        }
      }
      t.dims.insert(t.dims.end(), lane_dims.begin(), lane_dims.end());
      t.strides.insert(t.strides.end(), lane_strides.begin(), lane_strides.end());
    }
    // Broadcast dimensions read one element.
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] == 1) t.strides[i] = 0;
    out.push_back(std::move(t));
  }
  return out;
}

int64_t sub_view(LaneLayout &l, const std::vector<int64_t> &start, const std::vector<int64_t> &extent) {
  int64_t offset = 0;
  for (size_t i = 0; i < l.dims.size(); ++i) {
    if (i == 1 && l.lanes > 1) {
      check_supported(start[i] % l.lanes == 0, "a channel offset of ", start[i],
                      " inside a vector of ", l.lanes, " lanes is not supported");
      offset += start[i] / l.lanes * l.strides[i];
    } else {
      offset += start[i] * l.strides[i];
    }
    l.dims[i] = extent[i];
  }
  return offset;
}

}  // namespace fdnn::api
