// The layers of the digits network, each a thin wrapper over the cuDNN calls
// that compute it: forward() reads x.value and writes y.value, backward()
// reads y.grad (and whatever the forward pass kept) and writes x.grad and the
// layer's parameter gradients. All tensors are float NCHW.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <cudnn.h>

#include "cudnn_check.hpp"
#include "device_buffer.hpp"

namespace demo {

// Constants cuDNN reads through `const void *alpha, *beta` (float for float data).
inline const float kOne = 1.0f;
inline const float kZero = 0.0f;

// One activation of the network (the output of a layer) and its gradient.
// Buffers hold max_batch images; set_batch() describes the first n of them.
struct Activation {
  int c, h, w;
  cudnnTensorDescriptor_t desc = nullptr;
  DeviceBuffer value, grad;

  Activation(int channels, int height, int width, int max_batch, bool with_grad = true)
      : c(channels), h(height), w(width),
        value(static_cast<size_t>(max_batch) * channels * height * width),
        grad(with_grad ? static_cast<size_t>(max_batch) * channels * height * width : 0) {
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&desc));
    set_batch(max_batch);
  }
  ~Activation() { cudnnDestroyTensorDescriptor(desc); }
  Activation(const Activation &) = delete;
  Activation &operator=(const Activation &) = delete;

  void set_batch(int n) { CHECK_CUDNN(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w)); }
};

// A learnable tensor with its gradient and SGD momentum. The descriptor is a
// plain tensor descriptor of the same shape so that the update can use
// cudnnAddTensor (a filter is a KxCxRxS tensor for that purpose).
struct Parameter {
  cudnnTensorDescriptor_t desc = nullptr;
  DeviceBuffer value, grad, velocity;
  bool weight_decay;  // conv/fc weights decay; batch-norm scale/shift and biases do not

  Parameter(int n, int c, int h, int w, bool decay)
      : value(static_cast<size_t>(n) * c * h * w), grad(value.count()), velocity(value.count()), weight_decay(decay) {
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&desc));
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  }
  ~Parameter() { cudnnDestroyTensorDescriptor(desc); }
  Parameter(const Parameter &) = delete;
  Parameter &operator=(const Parameter &) = delete;

  void fill(float v) { value.upload(std::vector<float>(value.count(), v)); }
};

// SGD with momentum and L2 weight decay, entirely with cudnnAddTensor
// (C = alpha * A + beta * C):
//   g += decay * w;   v = momentum * v + g;   w += -lr * v
inline void sgd_update(cudnnHandle_t handle, Parameter &p, float lr, float momentum, float decay) {
  if (p.weight_decay && decay != 0.0f)
    CHECK_CUDNN(cudnnAddTensor(handle, &decay, p.desc, p.value.get(), &kOne, p.desc, p.grad.get()));
  CHECK_CUDNN(cudnnAddTensor(handle, &kOne, p.desc, p.grad.get(), &momentum, p.desc, p.velocity.get()));
  const float minus_lr = -lr;
  CHECK_CUDNN(cudnnAddTensor(handle, &minus_lr, p.desc, p.velocity.get(), &kOne, p.desc, p.value.get()));
}

// Scratch memory shared by all convolutions (only one runs at a time).
struct Workspace {
  DeviceBuffer buffer;
  size_t bytes = 0;
  void reserve(size_t need) {
    if (need <= bytes) return;
    buffer = DeviceBuffer((need + sizeof(float) - 1) / sizeof(float));
    bytes = need;
  }
};

// Convolution (cross-correlation, as in every framework) with square
// kernels, optional bias. A fully connected layer is the same layer with a
// kernel as large as its input and no padding: 32x2x2 -> 10x1x1.
class Conv2d {
 public:
  Parameter weight;
  Parameter bias;  // 1 x K x 1 x 1, unused when has_bias is false
  bool has_bias;

  Conv2d(int in_channels, int out_channels, int kernel, int pad, bool with_bias, std::mt19937 &rng)
      : weight(out_channels, in_channels, kernel, kernel, true), bias(1, with_bias ? out_channels : 1, 1, 1, false),
        has_bias(with_bias) {
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&filter_));
    CHECK_CUDNN(cudnnSetFilter4dDescriptor(filter_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, out_channels, in_channels,
                                           kernel, kernel));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv_));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(conv_, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    // He initialisation: normal with variance 2 / fan_in, for ReLU networks.
    std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / (in_channels * kernel * kernel)));
    std::vector<float> w(weight.value.count());
    for (float &v : w) v = normal(rng);
    weight.value.upload(w);
    bias.fill(0.0f);
  }
  ~Conv2d() {
    cudnnDestroyConvolutionDescriptor(conv_);
    cudnnDestroyFilterDescriptor(filter_);
  }
  Conv2d(const Conv2d &) = delete;
  Conv2d &operator=(const Conv2d &) = delete;

  std::vector<Parameter *> parameters() {
    if (has_bias) return {&weight, &bias};
    return {&weight};
  }

  // Picks each direction's algorithm for the current batch size with
  // cuDNN's heuristics (the first one that works) and reserves its workspace.
  void choose_algorithms(cudnnHandle_t handle, const Activation &x, const Activation &y, Workspace &ws) {
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, x.desc, filter_, conv_, y.desc,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, fwd));
    fwd_algo_ = first_working(fwd, found, "forward").algo;
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, filter_, y.desc, conv_, x.desc,
                                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, bwd_data));
    bwd_data_algo_ = first_working(bwd_data, found, "backward data").algo;
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        handle, x.desc, y.desc, conv_, filter_, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, bwd_filter));
    bwd_filter_algo_ = first_working(bwd_filter, found, "backward filter").algo;

    size_t need = 0, bytes = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handle, x.desc, filter_, conv_, y.desc, fwd_algo_, &bytes));
    need = std::max(need, bytes);
    CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, filter_, y.desc, conv_, x.desc, bwd_data_algo_,
                                                             &bytes));
    need = std::max(need, bytes);
    CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x.desc, y.desc, conv_, filter_,
                                                               bwd_filter_algo_, &bytes));
    need = std::max(need, bytes);
    ws.reserve(need);
  }

  // y = conv(x, w) (+ b, broadcast over N, H, W)
  void forward(cudnnHandle_t handle, const Activation &x, Activation &y, Workspace &ws) {
    CHECK_CUDNN(cudnnConvolutionForward(handle, &kOne, x.desc, x.value.get(), filter_, weight.value.get(), conv_,
                                        fwd_algo_, ws.buffer.get(), ws.bytes, &kZero, y.desc, y.value.get()));
    if (has_bias) CHECK_CUDNN(cudnnAddTensor(handle, &kOne, bias.desc, bias.value.get(), &kOne, y.desc, y.value.get()));
  }

  // dw = x (*) dy, db = sum of dy over N, H, W, and (when the layer below
  // needs it) dx = dy (*)^T w.
  void backward(cudnnHandle_t handle, Activation &x, const Activation &y, Workspace &ws, bool need_dx) {
    if (has_bias)
      CHECK_CUDNN(cudnnConvolutionBackwardBias(handle, &kOne, y.desc, y.grad.get(), &kZero, bias.desc, bias.grad.get()));
    CHECK_CUDNN(cudnnConvolutionBackwardFilter(handle, &kOne, x.desc, x.value.get(), y.desc, y.grad.get(), conv_,
                                               bwd_filter_algo_, ws.buffer.get(), ws.bytes, &kZero, filter_,
                                               weight.grad.get()));
    if (need_dx)
      CHECK_CUDNN(cudnnConvolutionBackwardData(handle, &kOne, filter_, weight.value.get(), y.desc, y.grad.get(), conv_,
                                               bwd_data_algo_, ws.buffer.get(), ws.bytes, &kZero, x.desc,
                                               x.grad.get()));
  }

 private:
  template <typename Perf>
  static const Perf &first_working(const Perf *perf, int count, const char *direction) {
    for (int i = 0; i < count; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i];
    std::fprintf(stderr,
                 "no convolution %s algorithm works for this problem on this device\n"
                 "  (with FreeDNN, FREEDNN_DEVICE=cpu runs every function on the CPU backend)\n",
                 direction);
    std::exit(2);
  }

  cudnnFilterDescriptor_t filter_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  cudnnConvolutionFwdAlgo_t fwd_algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t bwd_data_algo_ = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo_ = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
};

// Spatial batch normalization: per channel over N, H, W, with a learned
// scale (gamma) and shift (beta). Training normalises with the batch's
// statistics and keeps running averages; inference uses those averages.
class BatchNorm2d {
 public:
  Parameter gamma, beta;

  explicit BatchNorm2d(int channels)
      : gamma(1, channels, 1, 1, false), beta(1, channels, 1, 1, false), running_mean_(channels),
        running_var_(channels), saved_mean_(channels), saved_inv_std_(channels) {
    gamma.fill(1.0f);
    beta.fill(0.0f);
    running_var_.upload(std::vector<float>(channels, 1.0f));
  }

  std::vector<Parameter *> parameters() { return {&gamma, &beta}; }

  // `gamma.desc` is 1xCx1x1, what cudnnDeriveBNTensorDescriptor gives for SPATIAL mode.
  void forward_training(cudnnHandle_t handle, const Activation &x, Activation &y) {
    CHECK_CUDNN(cudnnBatchNormalizationForwardTraining(
        handle, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, x.desc, x.value.get(), y.desc, y.value.get(), gamma.desc,
        gamma.value.get(), beta.value.get(), kMomentum, running_mean_.get(), running_var_.get(), kEpsilon,
        saved_mean_.get(), saved_inv_std_.get()));
  }

  void forward_inference(cudnnHandle_t handle, const Activation &x, Activation &y) {
    CHECK_CUDNN(cudnnBatchNormalizationForwardInference(
        handle, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, x.desc, x.value.get(), y.desc, y.value.get(), gamma.desc,
        gamma.value.get(), beta.value.get(), running_mean_.get(), running_var_.get(), kEpsilon));
  }

  // dx, dgamma, dbeta from dy, reusing the mean and 1/std saved by the forward pass.
  void backward(cudnnHandle_t handle, Activation &x, const Activation &y) {
    CHECK_CUDNN(cudnnBatchNormalizationBackward(
        handle, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero, x.desc, x.value.get(), y.desc, y.grad.get(),
        x.desc, x.grad.get(), gamma.desc, gamma.value.get(), gamma.grad.get(), beta.grad.get(), kEpsilon,
        saved_mean_.get(), saved_inv_std_.get()));
  }

 private:
  static constexpr double kEpsilon = 1e-5;
  static constexpr double kMomentum = 0.1;  // running = 0.9 * running + 0.1 * batch
  DeviceBuffer running_mean_, running_var_, saved_mean_, saved_inv_std_;
};

// Rectified linear unit, y = max(x, 0).
class Relu {
 public:
  Relu() {
    CHECK_CUDNN(cudnnCreateActivationDescriptor(&act_));
    CHECK_CUDNN(cudnnSetActivationDescriptor(act_, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  }
  ~Relu() { cudnnDestroyActivationDescriptor(act_); }
  Relu(const Relu &) = delete;
  Relu &operator=(const Relu &) = delete;

  void forward(cudnnHandle_t handle, const Activation &x, Activation &y) {
    CHECK_CUDNN(cudnnActivationForward(handle, act_, &kOne, x.desc, x.value.get(), &kZero, y.desc, y.value.get()));
  }
  // dx = dy where x > 0, else 0
  void backward(cudnnHandle_t handle, Activation &x, const Activation &y) {
    CHECK_CUDNN(cudnnActivationBackward(handle, act_, &kOne, y.desc, y.value.get(), y.desc, y.grad.get(), x.desc,
                                        x.value.get(), &kZero, x.desc, x.grad.get()));
  }

 private:
  cudnnActivationDescriptor_t act_ = nullptr;
};

// 2x2 max pooling with stride 2: halves height and width.
class MaxPool2x2 {
 public:
  MaxPool2x2() {
    CHECK_CUDNN(cudnnCreatePoolingDescriptor(&pool_));
    CHECK_CUDNN(cudnnSetPooling2dDescriptor(pool_, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
  }
  ~MaxPool2x2() { cudnnDestroyPoolingDescriptor(pool_); }
  MaxPool2x2(const MaxPool2x2 &) = delete;
  MaxPool2x2 &operator=(const MaxPool2x2 &) = delete;

  void forward(cudnnHandle_t handle, const Activation &x, Activation &y) {
    CHECK_CUDNN(cudnnPoolingForward(handle, pool_, &kOne, x.desc, x.value.get(), &kZero, y.desc, y.value.get()));
  }
  // Each dy goes to the position of its window's maximum.
  void backward(cudnnHandle_t handle, Activation &x, const Activation &y) {
    CHECK_CUDNN(cudnnPoolingBackward(handle, pool_, &kOne, y.desc, y.value.get(), y.desc, y.grad.get(), x.desc,
                                     x.value.get(), &kZero, x.desc, x.grad.get()));
  }

 private:
  cudnnPoolingDescriptor_t pool_ = nullptr;
};

// Log-softmax over the channels (the 10 classes) of each image.
struct LogSoftmax {
  static void forward(cudnnHandle_t handle, const Activation &x, Activation &y) {
    CHECK_CUDNN(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, x.desc,
                                    x.value.get(), &kZero, y.desc, y.value.get()));
  }
  // dx = dy - exp(y) * sum_c(dy): with dy = -onehot / batch (the gradient of
  // the mean negative log-likelihood) this is (softmax - onehot) / batch.
  static void backward(cudnnHandle_t handle, Activation &x, const Activation &y) {
    CHECK_CUDNN(cudnnSoftmaxBackward(handle, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, y.desc,
                                     y.value.get(), y.desc, y.grad.get(), &kZero, x.desc, x.grad.get()));
  }
};

}  // namespace demo
