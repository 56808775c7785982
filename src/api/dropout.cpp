// Dropout: the descriptor (create/set/get/restore/destroy), the states and
// reserve-space size queries, cudnnDropoutForward and cudnnDropoutBackward.
//
// The random generator is Philox4x32-10 (core/philox.hpp), counter based:
// the states buffer holds only the seed and a running offset
// (core/dropout_descriptors.hpp), so a mask depends on (seed, offset,
// element index) alone. Set initialises the buffer on the handle's device;
// each forward call uses the current offset and advances it by one; Restore
// re-binds a buffer without touching it, so its stream of masks resumes.
// Forward stores the keep bits in the reserve space, and backward applies
// exactly those bits.
#include <cstring>

#include "api/guard.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dropout_descriptors.hpp"
#include "core/dropout_support.hpp"
#include "core/dtype.hpp"
#include "core/gpu.hpp"
#include "core/handle.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;

namespace {

cudnnDropoutStruct &live_dropout(cudnnDropoutDescriptor_t d, const char *name = "dropoutDesc") {
  return live_descriptor(d, name, "dropout");
}

int64_t element_count(const cudnnTensorStruct &d) {
  int64_t n = d.nb_dims > 0 ? 1 : 0;
  for (int i = 0; i < d.nb_dims; ++i) n *= d.dims[i];
  return n;
}

// cuDNN 9 accepts any probability (measured: 1.5 and -0.5 succeed); values
// above 1 drop everything and values below 0 keep everything (with the
// scale 1 / (1 - p)). Only NaN is refused.
void check_probability(float p) { check_arg(p == p, "dropout is NaN: expected a probability"); }

// cuDNN 9 answers BAD_PARAM (not the INVALID_VALUE its 8.0 manual names).
void check_states_size(const void *states, size_t bytes) {
  if (states == nullptr) return;
  if (bytes < DropoutStatesLayout::kBytes)
    fail(CUDNN_STATUS_BAD_PARAM, "stateSizeInBytes = ", bytes, " but the states need ",
         DropoutStatesLayout::kBytes, " bytes (cudnnDropoutGetStatesSize)");
}

// Writes a fresh generator state (seed, offset 0) into the user's buffer.
void init_states(cudnnContext &h, void *states, unsigned long long seed) {
  uint64_t image[DropoutStatesLayout::kWords] = {};
  image[DropoutStatesLayout::kMagicWord] = DropoutStatesLayout::kMagic;
  image[DropoutStatesLayout::kSeedWord] = seed;
  image[DropoutStatesLayout::kOffsetWord] = 0;
  if (h.device.kind == DeviceKind::cuda) gpu::memcpy_h2d(states, image, sizeof image, h.stream);
  else std::memcpy(states, image, sizeof image);
}

graph::Tensor scalar_int64() {
  graph::Tensor t;
  t.dtype = CUDNN_DATA_INT64;
  t.dims = {1};
  t.strides = {1};
  return t;
}

// Validates a forward or backward call and runs it. in/out are x/y
// (forward) or dy/dx (backward).
void run_dropout(const char *fn, cudnnHandle_t handle, cudnnDropoutDescriptor_t dropoutDesc,
                 graph::DropoutOp::Direction dir, cudnnTensorDescriptor_t in_desc, const void *in,
                 cudnnTensorDescriptor_t out_desc, void *out, void *reserve, size_t reserve_bytes) {
  const bool fwd = dir == graph::DropoutOp::Direction::forward;
  const char *in_name = fwd ? "xDesc" : "dyDesc", *out_name = fwd ? "yDesc" : "dxDesc";
  cudnnContext &h = checked_handle(handle);
  const cudnnDropoutStruct &d = live_dropout(dropoutDesc);
  check_arg(d.is_set && d.states != nullptr, "dropoutDesc has no random generator states: call "
            "cudnnSetDropoutDescriptor (or cudnnRestoreDropoutDescriptor) with a non-NULL states buffer first");
  const cudnnTensorStruct &id = checked_tensor(in_desc, in_name);
  const cudnnTensorStruct &od = checked_tensor(out_desc, out_name);
  check_not_null(in, fwd ? "x" : "dy");
  check_not_null(out, fwd ? "y" : "dx");
  check_arg(id.dtype == od.dtype, in_name, " is ", type_info(id.dtype).enum_name, " but ", out_name, " is ",
            type_info(od.dtype).enum_name, ": dropout does not convert");
  // cuDNN 9: INT8 and UINT8 are BAD_PARAM, the other types it lacks
  // NOT_SUPPORTED (it also lacks BFLOAT16, which FreeDNN runs).
  check_arg(id.dtype != CUDNN_DATA_INT8 && id.dtype != CUDNN_DATA_UINT8, in_name, " data type ",
            type_info(id.dtype).enum_name, " is not a dropout type (FLOAT, DOUBLE, HALF or BFLOAT16)");
  check_supported(is_dropout_io_type(id.dtype), in_name, " data type ", type_info(id.dtype).enum_name,
                  " is not supported (FLOAT, DOUBLE, HALF or BFLOAT16)");
  const int64_t n = element_count(id);
  check_arg(element_count(od) == n, in_name, " has ", n, " elements but ", out_name, " has ", element_count(od));
  if (in == out) {
    bool same = id.nb_dims == od.nb_dims;
    for (int i = 0; same && i < id.nb_dims; ++i) same = id.dims[i] == od.dims[i] && id.strides[i] == od.strides[i];
    check_arg(same, "in-place dropout (", fwd ? "x == y" : "dy == dx", ") needs ", in_name, " and ", out_name,
              " with the same dimensions and strides");
  }
  const size_t need = dropout_reserve_bytes(n);
  check_not_null(reserve, "reserveSpace");
  if (reserve_bytes < need)
    fail(CUDNN_STATUS_BAD_PARAM, "reserveSpaceSizeInBytes = ", reserve_bytes, " but ", n, " elements need ", need,
         " bytes (cudnnDropoutGetReserveSpaceSize)");

  graph::Graph g;
  graph::DropoutOp op;
  op.direction = dir;
  op.probability = d.dropout;
  op.x = g.add_tensor_auto(to_graph_tensor(id));
  op.y = g.add_tensor_auto(to_graph_tensor(od));
  graph::Tensor m;
  m.dtype = CUDNN_DATA_UINT32;
  m.dims = {graph::dropout_mask_words(n)};
  m.strides = {1};
  op.mask = g.add_tensor_auto(m);
  VariantPack pack;
  pack.set(op.x, in);
  pack.set(op.y, out);
  pack.set(op.mask, reserve);
  if (fwd) {
    op.seed = g.add_tensor_auto(scalar_int64());
    op.offset = g.add_tensor_auto(scalar_int64());
    op.advance_offset = true;
    uint64_t *words = static_cast<uint64_t *>(d.states);
    pack.set(op.seed, words + DropoutStatesLayout::kSeedWord);
    pack.set(op.offset, words + DropoutStatesLayout::kOffsetWord);
  }
  g.add_op(op);
  if (n == 0) return;
  run_graph(h, fn, g, pack);
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *dropoutDesc) {
  return FDNN_GUARDED([&] { create_descriptor(dropoutDesc, "dropoutDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(dropoutDesc, "dropoutDesc", "dropout"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    checked_handle(handle);
    check_not_null(sizeInBytes, "sizeInBytes");
    *sizeInBytes = DropoutStatesLayout::kBytes;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes) {
  return FDNN_GUARDED([&] {
    const cudnnTensorStruct &x = live_tensor(xDesc, "xDesc");
    check_not_null(sizeInBytes, "sizeInBytes");
    // cuDNN 9 sizes FLOAT, DOUBLE, HALF, BFLOAT16 and INT32 tensors and
    // answers NOT_SUPPORTED for the byte types.
    const cudnnDataType_t t = x.dtype;
    check_supported(is_dropout_io_type(t) || t == CUDNN_DATA_INT32 || !x.is_set, "xDesc data type ",
                    type_info(t).enum_name, " is not supported by dropout");
    *sizeInBytes = x.is_set ? dropout_reserve_bytes(element_count(x)) : 0;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                    float dropout, void *states, size_t stateSizeInBytes,
                                                    unsigned long long seed) {
  return FDNN_GUARDED([&] {
    cudnnDropoutStruct &d = live_dropout(dropoutDesc);
    cudnnContext &h = checked_handle(handle);
    check_probability(dropout);
    check_states_size(states, stateSizeInBytes);
    if (states != nullptr) init_states(h, states, seed);
    d.dropout = dropout;
    // Without states only the probability changes (cuDNN keeps the
    // generator a previous call set up).
    if (states != nullptr) {
      d.states = states;
      d.states_bytes = stateSizeInBytes;
      d.seed = seed;
    }
    d.is_set = true;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                        float dropout, void *states, size_t stateSizeInBytes,
                                                        unsigned long long seed) {
  return FDNN_GUARDED([&] {
    cudnnDropoutStruct &d = live_dropout(dropoutDesc);
    checked_handle(handle);
    check_probability(dropout);
    check_states_size(states, stateSizeInBytes);
    // The buffer keeps its seed and offset: the masks continue its stream
    // (the seed argument only comes back from cudnnGetDropoutDescriptor).
    d.dropout = dropout;
    d.states = states;
    d.states_bytes = stateSizeInBytes;
    d.seed = seed;
    d.is_set = true;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                    float *dropout, void **states, unsigned long long *seed) {
  return FDNN_GUARDED([&] {
    const cudnnDropoutStruct &d = live_dropout(dropoutDesc);
    checked_handle(handle);
    check_not_null(dropout, "dropout");
    check_not_null(states, "states");
    check_not_null(seed, "seed");
    *dropout = d.dropout;
    *states = d.states;
    *seed = d.seed;
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                              const cudnnTensorDescriptor_t xdesc, const void *x,
                                              const cudnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                              size_t reserveSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    run_dropout(fn, handle, dropoutDesc, graph::DropoutOp::Direction::forward, xdesc, x, ydesc, y, reserveSpace,
                reserveSpaceSizeInBytes);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                               const cudnnTensorDescriptor_t dydesc, const void *dy,
                                               const cudnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                               size_t reserveSpaceSizeInBytes) {
  const char *fn = __func__;
  return FDNN_GUARDED([&] {
    run_dropout(fn, handle, dropoutDesc, graph::DropoutOp::Direction::backward, dydesc, dy, dxdesc, dx,
                reserveSpace, reserveSpaceSizeInBytes);
  });
}

}  // extern "C"
