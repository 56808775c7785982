#include "core/tensor_desc.hpp"

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace fdnn {

const cudnnTensorStruct &checked_tensor(const cudnnTensorStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnTensorStruct::kAlive) fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live tensor descriptor");
  if (!d->is_set) fail(CUDNN_STATUS_BAD_PARAM, name, " has not been set (call cudnnSetTensor*Descriptor first)");
  return *d;
}

const cudnnFilterStruct &checked_filter(const cudnnFilterStruct *d, const char *name) {
  if (d == nullptr) fail(CUDNN_STATUS_BAD_PARAM, name, " is NULL");
  if (d->magic != cudnnFilterStruct::kAlive) fail(CUDNN_STATUS_BAD_PARAM, name, " is not a live filter descriptor");
  if (!d->is_set) fail(CUDNN_STATUS_BAD_PARAM, name, " has not been set (call cudnnSetFilter*Descriptor first)");
  return *d;
}

graph::Tensor to_graph_tensor(const cudnnTensorStruct &d) {
  graph::Tensor t;
  t.dtype = scalar_type(d.dtype);
  const int v = d.vect_count;
  for (int i = 0; i < d.nb_dims; ++i) {
    int64_t extent = d.dims[i];
    if (v > 1 && i == d.vect_dim) extent /= v;
    t.dims.push_back(extent);
    t.strides.push_back(static_cast<int64_t>(d.strides[i]) * v);
  }
  if (v > 1) {
    t.dims.push_back(v);
    t.strides.push_back(1);
  }
  return t;
}

void split_vector_dim(graph::Tensor &t, int dim, int v) {
  if (v <= 1) return;
  if (t.dims[dim] == 1) {  // broadcast along the vectorised dimension
    t.dims.push_back(1);
    t.strides.push_back(0);
    return;
  }
  int64_t stride = t.strides[dim];
  t.dims[dim] /= v;
  t.strides[dim] = stride * v;
  t.dims.push_back(v);
  t.strides.push_back(stride);
}

}  // namespace fdnn
