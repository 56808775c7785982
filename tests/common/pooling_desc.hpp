// An owned pooling descriptor set from PoolingParams, and one forward or
// backward call on a handle's device, for the tests that run the pooling calls (the API
// tests and the CPU engine's own paths).
#pragma once

#include <cudnn.h>
#include <gtest/gtest.h>

#include "common/pooling_reference.hpp"
#include "common/tensor_data.hpp"

namespace fdnn_test {

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  explicit PoolDesc(const PoolingParams &p) {
    cudnnCreatePoolingDescriptor(&d);
    EXPECT_EQ(cudnnSetPoolingNdDescriptor(d, p.mode, p.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                          static_cast<int>(p.window.size()), p.window.data(), p.padding.data(),
                                          p.stride.data()),
              CUDNN_STATUS_SUCCESS);
  }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc &) = delete;
  PoolDesc &operator=(const PoolDesc &) = delete;
  operator cudnnPoolingDescriptor_t() const { return d; }
};

// cudnnPoolingForward of x into a copy of y0 (alpha, beta as the types
// take them) on handle h, both uploaded to its device; *y gets y0 with the
// call's result downloaded over it when the call succeeds.
inline cudnnStatus_t pooling_forward(cudnnHandle_t h, const PoolingParams &p, double alpha, const HostTensor &x,
                                     double beta, const HostTensor &y0, HostTensor *y) {
  const PoolDesc pd(p);
  const TensorDesc xd(x), yd(y0);
  const Scaling a(alpha), b(beta);
  Buffer xb = upload(x), yb = upload(y0);
  const cudnnStatus_t st =
      cudnnPoolingForward(h, pd.d, a.for_type(x.dtype), xd, xb.get(), b.for_type(x.dtype), yd, yb.get());
  *y = y0;
  if (st == CUDNN_STATUS_SUCCESS) download(yb, *y);
  return st;
}

// cudnnPoolingBackward of dy (with x and y) into a copy of dx0 on handle h,
// all uploaded to its device; *dx gets dx0 with the call's result
// downloaded over it when the call succeeds.
inline cudnnStatus_t pooling_backward(cudnnHandle_t h, const PoolingParams &p, double alpha, const HostTensor &y,
                                      const HostTensor &dy, const HostTensor &x, double beta, const HostTensor &dx0,
                                      HostTensor *dx) {
  const PoolDesc pd(p);
  const TensorDesc xd(x), yd(y), dyd(dy), dxd(dx0);
  const Scaling a(alpha), b(beta);
  Buffer xb = upload(x), yb = upload(y), dyb = upload(dy), dxb = upload(dx0);
  const cudnnStatus_t st = cudnnPoolingBackward(h, pd.d, a.for_type(x.dtype), yd, yb.get(), dyd, dyb.get(), xd,
                                                xb.get(), b.for_type(x.dtype), dxd, dxb.get());
  *dx = dx0;
  if (st == CUDNN_STATUS_SUCCESS) download(dxb, *dx);
  return st;
}

}  // namespace fdnn_test
