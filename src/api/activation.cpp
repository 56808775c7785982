// Activation descriptors and cudnnActivationForward/Backward. An activation
// is one PointwiseOp (mode *_FWD, or *_BWD with the forward value and dy),
// run by the pointwise engines; set_activation() (core) does the mapping.
#include <cstring>

#include "api/guard.hpp"
#include "core/activation_descriptors.hpp"
#include "core/descriptor_lifetime.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "core/tensor_desc.hpp"
#include "graph/graph.hpp"

using namespace fdnn;

namespace {

const cudnnActivationStruct &checked_activation(const cudnnActivationStruct *d) {
  return live_descriptor(const_cast<cudnnActivationStruct *>(d), "activationDesc", "activation");
}

// FLOAT, DOUBLE, HALF and BFLOAT16 (float math for all but DOUBLE); the
// forward call also takes INT8 (cuDNN 9.19 accepts it there, not backward).
void check_activation_type(const cudnnTensorStruct &d, const char *name, bool allow_int8) {
  const cudnnDataType_t t = d.dtype;
  check_supported(t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16 ||
                      (allow_int8 && t == CUDNN_DATA_INT8),
                  name, " has data type ", type_info(t).enum_name,
                  allow_int8 ? "; activations support FLOAT, DOUBLE, HALF, BFLOAT16 and INT8"
                             : "; activation backward supports FLOAT, DOUBLE, HALF and BFLOAT16");
  check_supported(d.vect_count == 1, name, " is a vectorised (NCHW_VECT_C) tensor; activations take scalar layouts");
}

bool same_dims(const cudnnTensorStruct &a, const cudnnTensorStruct &b) {
  if (a.nb_dims != b.nb_dims) return false;
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

bool same_strides(const cudnnTensorStruct &a, const cudnnTensorStruct &b) {
  for (int i = 0; i < a.nb_dims; ++i)
    if (a.strides[i] != b.strides[i]) return false;
  return true;
}

// `b` must describe the same logical tensor as `a` (dims and type); `status`
// is what cuDNN answers otherwise.
void check_same_shape(const cudnnTensorStruct &a, const char *an, const cudnnTensorStruct &b, const char *bn,
                      cudnnStatus_t status) {
  if (!same_dims(a, b)) fail(status, bn, " has other dimensions than ", an, " (", to_graph_tensor(b).to_string(),
                              " vs ", to_graph_tensor(a).to_string(), ")");
  if (a.dtype != b.dtype)
    fail(status, bn, " has data type ", type_info(b.dtype).enum_name, " but ", an, " has ",
         type_info(a.dtype).enum_name);
}

// IDENTITY exists for cudnnConvolutionBiasActivationForward only; cuDNN 9.19
// answers BAD_PARAM to it here (as the seed documents).
void check_not_identity(const cudnnActivationStruct &d) {
  check_arg(d.mode != CUDNN_ACTIVATION_IDENTITY,
            "activationDesc has mode CUDNN_ACTIVATION_IDENTITY, which only cudnnConvolutionBiasActivationForward takes");
}

cudnnDataType_t compute_type_for(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

// The mode parameters as the float computation sees them, so that every
// engine (the float64 reference included) puts the CLIPPED_RELU ceiling at
// the same place: y = ceiling must compare equal to it in the backward pass.
void round_params_to(graph::PointwiseOp &op) {
  if (op.compute_type == CUDNN_DATA_DOUBLE) return;
  op.relu_upper_clip = static_cast<float>(op.relu_upper_clip);
  op.elu_alpha = static_cast<float>(op.elu_alpha);
  op.swish_beta = static_cast<float>(op.swish_beta);
}

}  // namespace

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc) {
  return FDNN_GUARDED([&] { create_descriptor(activationDesc, "activationDesc"); });
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
  return FDNN_GUARDED([&] { destroy_descriptor(activationDesc, "activationDesc", "activation"); });
}

// Like cuDNN 9: any coef is stored (negative, NaN, inf included); only the
// enumerants are checked.
cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
                                                       cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt,
                                                       double coef) {
  return FDNN_GUARDED([&] {
    cudnnActivationStruct &d = live_descriptor(activationDesc, "activationDesc", "activation");
    check_arg(mode >= CUDNN_ACTIVATION_SIGMOID && mode <= CUDNN_ACTIVATION_SWISH, "mode = ", static_cast<int>(mode),
              ": expected a cudnnActivationMode_t value (SIGMOID 0 .. SWISH 6)");
    check_arg(reluNanOpt == CUDNN_NOT_PROPAGATE_NAN || reluNanOpt == CUDNN_PROPAGATE_NAN, "reluNanOpt = ",
              static_cast<int>(reluNanOpt), ": expected CUDNN_NOT_PROPAGATE_NAN (0) or CUDNN_PROPAGATE_NAN (1)");
    d.mode = mode;
    d.nan_propagation = reluNanOpt;
    d.coef = coef;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                                                       cudnnActivationMode_t *mode, cudnnNanPropagation_t *reluNanOpt,
                                                       double *coef) {
  return FDNN_GUARDED([&] {
    const cudnnActivationStruct &d = checked_activation(activationDesc);
    // (cuDNN 9 crashes on NULL out-pointers; we answer BAD_PARAM.)
    check_not_null(mode, "mode");
    check_not_null(reluNanOpt, "reluNanOpt");
    check_not_null(coef, "coef");
    *mode = d.mode;
    *reluNanOpt = d.nan_propagation;
    *coef = d.coef;
  });
}

cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                                double swish_beta) {
  return FDNN_GUARDED([&] {
    cudnnActivationStruct &d = live_descriptor(activationDesc, "activationDesc", "activation");
    d.swish_beta = swish_beta;  // any value, as cuDNN 9 stores it
  });
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc,
                                                                double *swish_beta) {
  return FDNN_GUARDED([&] {
    const cudnnActivationStruct &d = checked_activation(activationDesc);
    check_not_null(swish_beta, "swish_beta");
    *swish_beta = d.swish_beta;
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                                 const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                                 const void *x, const void *beta,
                                                 const cudnnTensorDescriptor_t yDesc, void *y) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnActivationStruct &ad = checked_activation(activationDesc);
    check_not_identity(ad);
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    check_not_null(x, "x");
    check_not_null(y, "y");
    check_same_shape(xd, "xDesc", yd, "yDesc", CUDNN_STATUS_BAD_PARAM);
    check_activation_type(xd, "xDesc", true);
    check_arg(x != y || same_strides(xd, yd), "x and y are the same buffer (in place) but xDesc and yDesc have "
              "different strides");

    graph::Graph g;
    graph::PointwiseOp op;
    set_activation(op, ad, /*backward=*/false);
    op.compute_type = compute_type_for(xd.dtype);
    round_params_to(op);
    op.blend.alpha = read_scaling(alpha, yd.dtype);
    op.blend.beta = read_scaling(beta, yd.dtype);
    op.x = g.add_tensor_auto(to_graph_tensor(xd));
    op.y = g.add_tensor_auto(to_graph_tensor(yd));
    g.add_op(op);
    VariantPack pack;
    pack.set(op.x, x);
    pack.set(op.y, y);
    run_graph(h, fn, g, pack);
  });
}

// backends: cpu cuda
cudnnStatus_t CUDNNWINAPI cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                                  const void *alpha, const cudnnTensorDescriptor_t yDesc,
                                                  const void *y, const cudnnTensorDescriptor_t dyDesc,
                                                  const void *dy, const cudnnTensorDescriptor_t xDesc,
                                                  const void *x, const void *beta,
                                                  const cudnnTensorDescriptor_t dxDesc, void *dx) {
  const char *fn = __func__;  // inside the lambda __func__ would be "operator()"
  return FDNN_GUARDED([&] {
    cudnnContext &h = checked_handle(handle);
    const cudnnActivationStruct &ad = checked_activation(activationDesc);
    check_not_identity(ad);
    const cudnnTensorStruct &yd = checked_tensor(yDesc, "yDesc");
    const cudnnTensorStruct &dyd = checked_tensor(dyDesc, "dyDesc");
    const cudnnTensorStruct &xd = checked_tensor(xDesc, "xDesc");
    const cudnnTensorStruct &dxd = checked_tensor(dxDesc, "dxDesc");
    check_not_null(alpha, "alpha");
    check_not_null(beta, "beta");
    // Like cuDNN, only the forward value the mode reads must be given (RELU
    // accepts y = NULL).
    const bool reads_y = activation_backward_reads_output(ad.mode);
    if (reads_y) check_not_null(y, "y");
    else check_not_null(x, "x");
    check_not_null(dy, "dy");
    check_not_null(dx, "dx");
    // The seed's rule: shape or type differences between the tensors are
    // NOT_SUPPORTED here (BAD_PARAM in the forward call).
    check_same_shape(yd, "yDesc", dyd, "dyDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_same_shape(yd, "yDesc", xd, "xDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_same_shape(yd, "yDesc", dxd, "dxDesc", CUDNN_STATUS_NOT_SUPPORTED);
    check_activation_type(yd, "yDesc", false);
    check_arg(dy != dx || same_strides(dyd, dxd), "dy and dx are the same buffer (in place) but dyDesc and dxDesc "
              "have different strides");
    // Measured on cuDNN 9.19 (tests/oracle_gpu/activation_gpu.c): y and dy,
    // x and dx, and x and y must have the same strides, else NOT_SUPPORTED.
    check_supported(same_strides(yd, dyd), "yDesc and dyDesc have different strides");
    check_supported(same_strides(xd, dxd), "xDesc and dxDesc have different strides");
    check_supported(same_strides(yd, xd), "yDesc and xDesc have different strides");

    graph::Graph g;
    graph::PointwiseOp op;
    set_activation(op, ad, /*backward=*/true);
    op.compute_type = compute_type_for(yd.dtype);
    round_params_to(op);
    op.blend.alpha = read_scaling(alpha, dxd.dtype);
    op.blend.beta = read_scaling(beta, dxd.dtype);
    VariantPack pack;
    op.y = g.add_tensor_auto(to_graph_tensor(dxd));
    pack.set(op.y, dx);
    const graph::Uid dy_uid = g.add_tensor_auto(to_graph_tensor(dyd));
    pack.set(dy_uid, dy);
    if (op.mode == CUDNN_POINTWISE_IDENTITY) {
      op.x = dy_uid;  // dx = dy
    } else {
      // PointwiseOp's *_BWD form: x = the forward value the derivative is
      // taken at, b = dy. Which forward value cuDNN's legacy formula reads is
      // explained at activation_backward_reads_output().
      const bool from_y = op.bwd_from_output;
      op.x = g.add_tensor_auto(to_graph_tensor(from_y ? yd : xd));
      pack.set(op.x, from_y ? y : x);
      op.b = dy_uid;
    }
    g.add_op(op);
    run_graph(h, fn, g, pack);
  });
}

}  // extern "C"
