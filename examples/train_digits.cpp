// Trains a small convolutional network on scikit-learn's handwritten digits
// (8x8 images, 10 classes) with the cuDNN API: every layer's forward and
// backward pass and the SGD update are cuDNN calls; the host only feeds
// images, reads the log-probabilities back for the loss and the accuracy,
// and writes the loss gradient's one-hot pattern.
//
//   input 1x8x8
//   -> conv 3x3 pad 1, 16 channels -> batch norm -> ReLU -> max pool 2x2  (16x4x4)
//   -> conv 3x3 pad 1, 32 channels -> batch norm -> ReLU -> max pool 2x2  (32x2x2)
//   -> fully connected as a 2x2 convolution with bias                     (10x1x1)
//   -> log-softmax; loss: mean negative log-likelihood
//
// It runs on the GPU when FreeDNN (or NVIDIA's cuDNN) has one, else on the
// CPU. Usage: train_digits --data digits.bin [--epochs N] [--batch N]
// [--lr X] [--min-accuracy PERCENT]; exits with status 1 when the final test
// accuracy is below --min-accuracy (default 90).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cudnn.h>

#include "cudnn_check.hpp"
#include "device_buffer.hpp"
#include "digits_dataset.hpp"
#include "layers.hpp"

namespace {

using namespace demo;

constexpr int kClasses = 10;

struct Options {
  std::string data = "digits.bin";
  int epochs = 15;
  int batch = 32;
  float lr = 0.05f;
  float momentum = 0.9f;
  float weight_decay = 5e-4f;
  double test_fraction = 0.2;  // the last 20% of the file are held out
  double min_accuracy = 90.0;  // percent
  unsigned seed = 1;
};

// The network: its layers and the activations between them.
class DigitsNet {
 public:
  DigitsNet(cudnnHandle_t handle, int rows, int cols, int max_batch, std::mt19937 &rng)
      : handle_(handle),
        input_(1, rows, cols, max_batch, /*with_grad=*/false),
        conv1_out_(16, rows, cols, max_batch), bn1_out_(16, rows, cols, max_batch), relu1_out_(16, rows, cols, max_batch),
        pool1_out_(16, rows / 2, cols / 2, max_batch),
        conv2_out_(32, rows / 2, cols / 2, max_batch), bn2_out_(32, rows / 2, cols / 2, max_batch),
        relu2_out_(32, rows / 2, cols / 2, max_batch), pool2_out_(32, rows / 4, cols / 4, max_batch),
        logits_(kClasses, 1, 1, max_batch), log_probs_(kClasses, 1, 1, max_batch),
        conv1_(1, 16, 3, 1, /*bias=*/false, rng),  // no bias: batch norm's shift replaces it
        bn1_(16),
        conv2_(16, 32, 3, 1, false, rng),
        bn2_(32),
        fc_(32, kClasses, rows / 4, 0, /*bias=*/true, rng) {}

  Activation &input() { return input_; }
  Activation &log_probs() { return log_probs_; }

  // Describes the first n images of every buffer and re-picks algorithms.
  void set_batch(int n) {
    if (n == batch_) return;
    batch_ = n;
    for (Activation *a : {&input_, &conv1_out_, &bn1_out_, &relu1_out_, &pool1_out_, &conv2_out_, &bn2_out_,
                          &relu2_out_, &pool2_out_, &logits_, &log_probs_})
      a->set_batch(n);
    conv1_.choose_algorithms(handle_, input_, conv1_out_, workspace_);
    conv2_.choose_algorithms(handle_, pool1_out_, conv2_out_, workspace_);
    fc_.choose_algorithms(handle_, pool2_out_, logits_, workspace_);
  }

  // input -> log_probs. Training mode normalises with batch statistics.
  void forward(bool training) {
    conv1_.forward(handle_, input_, conv1_out_, workspace_);
    if (training) bn1_.forward_training(handle_, conv1_out_, bn1_out_);
    else bn1_.forward_inference(handle_, conv1_out_, bn1_out_);
    relu_.forward(handle_, bn1_out_, relu1_out_);
    pool_.forward(handle_, relu1_out_, pool1_out_);

    conv2_.forward(handle_, pool1_out_, conv2_out_, workspace_);
    if (training) bn2_.forward_training(handle_, conv2_out_, bn2_out_);
    else bn2_.forward_inference(handle_, conv2_out_, bn2_out_);
    relu_.forward(handle_, bn2_out_, relu2_out_);
    pool_.forward(handle_, relu2_out_, pool2_out_);

    fc_.forward(handle_, pool2_out_, logits_, workspace_);
    LogSoftmax::forward(handle_, logits_, log_probs_);
  }

  // log_probs.grad -> every parameter's gradient, in reverse layer order.
  void backward() {
    LogSoftmax::backward(handle_, logits_, log_probs_);
    fc_.backward(handle_, pool2_out_, logits_, workspace_, /*need_dx=*/true);

    pool_.backward(handle_, relu2_out_, pool2_out_);
    relu_.backward(handle_, bn2_out_, relu2_out_);
    bn2_.backward(handle_, conv2_out_, bn2_out_);
    conv2_.backward(handle_, pool1_out_, conv2_out_, workspace_, true);

    pool_.backward(handle_, relu1_out_, pool1_out_);
    relu_.backward(handle_, bn1_out_, relu1_out_);
    bn1_.backward(handle_, conv1_out_, bn1_out_);
    conv1_.backward(handle_, input_, conv1_out_, workspace_, /*need_dx=*/false);  // no gradient for the images
  }

  // Every learnable tensor of the network.
  std::vector<Parameter *> parameters() {
    std::vector<Parameter *> all;
    for (const auto &layer : {conv1_.parameters(), bn1_.parameters(), conv2_.parameters(), bn2_.parameters(),
                              fc_.parameters()})
      all.insert(all.end(), layer.begin(), layer.end());
    return all;
  }

  void update(float lr, float momentum, float weight_decay) {
    for (Parameter *p : parameters()) sgd_update(handle_, *p, lr, momentum, weight_decay);
  }

 private:
  cudnnHandle_t handle_;
  int batch_ = -1;
  Workspace workspace_;
  Activation input_, conv1_out_, bn1_out_, relu1_out_, pool1_out_, conv2_out_, bn2_out_, relu2_out_, pool2_out_,
      logits_, log_probs_;
  Conv2d conv1_;
  BatchNorm2d bn1_;
  Conv2d conv2_;
  BatchNorm2d bn2_;
  Conv2d fc_;
  Relu relu_;
  MaxPool2x2 pool_;
};

// Copies images order[begin, end) of a set into the network's input.
void load_batch(const Digits &set, const std::vector<int> &order, int begin, int end, DigitsNet &net,
                std::vector<int> *labels) {
  std::vector<float> host(static_cast<size_t>(end - begin) * set.pixels());
  labels->clear();
  for (int i = begin; i < end; ++i) {
    int k = order[i];
    std::copy_n(set.images.begin() + static_cast<size_t>(k) * set.pixels(), set.pixels(),
                host.begin() + static_cast<size_t>(i - begin) * set.pixels());
    labels->push_back(set.labels[k]);
  }
  net.input().value.upload(host);
}

// Reads the log-probabilities back: adds the summed negative log-likelihood
// of the true classes to *loss and the number of correct argmaxes to *correct.
void score(DigitsNet &net, const std::vector<int> &labels, double *loss, int *correct) {
  std::vector<float> log_probs(labels.size() * kClasses);
  net.log_probs().value.download(log_probs.data(), log_probs.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    const float *row = &log_probs[i * kClasses];
    *loss -= row[labels[i]];
    *correct += static_cast<int>(std::max_element(row, row + kClasses) - row) == labels[i];
  }
}

// Test accuracy in percent, in inference mode (running batch-norm statistics).
double evaluate(DigitsNet &net, const Digits &test, int max_batch) {
  std::vector<int> order(test.size()), labels;
  std::iota(order.begin(), order.end(), 0);
  double loss = 0;
  int correct = 0;
  for (int begin = 0; begin < test.size(); begin += max_batch) {
    int end = std::min(test.size(), begin + max_batch);
    net.set_batch(end - begin);
    load_batch(test, order, begin, end, net, &labels);
    net.forward(/*training=*/false);
    score(net, labels, &loss, &correct);
  }
  return 100.0 * correct / test.size();
}

size_t parameter_count(DigitsNet &net) {
  size_t n = 0;
  for (Parameter *p : net.parameters()) n += p->value.count();
  return n;
}

bool parse(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t n = std::strlen(name);
      if (a.compare(0, n, name) != 0) return nullptr;
      if (a.size() > n && a[n] == '=') return argv[i] + n + 1;
      if (a.size() == n && i + 1 < argc) return argv[++i];
      return nullptr;
    };
    const char *v;
    if ((v = value("--data"))) o->data = v;
    else if ((v = value("--epochs"))) o->epochs = std::atoi(v);
    else if ((v = value("--batch"))) o->batch = std::atoi(v);
    else if ((v = value("--lr"))) o->lr = std::strtof(v, nullptr);
    else if ((v = value("--min-accuracy"))) o->min_accuracy = std::strtod(v, nullptr);
    else if ((v = value("--seed"))) o->seed = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
    else {
      const bool help = a == "--help" || a == "-h";
      std::fprintf(help ? stdout : stderr,
                   "usage: %s [--data digits.bin] [--epochs N] [--batch N] [--lr X] [--min-accuracy PERCENT] "
                   "[--seed N]\n",
                   argv[0]);
      if (help) std::exit(0);
      return false;
    }
  }
  return o->epochs > 0 && o->batch > 1;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  if (!parse(argc, argv, &opt)) return 2;

  Digits all;
  std::string error;
  if (!load_digits(opt.data, &all, &error)) {
    std::fprintf(stderr, "train_digits: %s\n", error.c_str());
    return 2;
  }
  if (all.rows % 4 != 0 || all.cols != all.rows) {
    std::fprintf(stderr, "train_digits: expected square images with a side divisible by 4\n");
    return 2;
  }
  const int n_test = static_cast<int>(all.size() * opt.test_fraction);
  const Digits train = slice(all, 0, all.size() - n_test);
  const Digits test = slice(all, all.size() - n_test, all.size());
  if (train.size() < opt.batch) {
    std::fprintf(stderr, "train_digits: fewer training images than one batch\n");
    return 2;
  }

  cudnnHandle_t handle;
  CHECK_CUDNN(cudnnCreate(&handle));
  const int max_batch = std::max(opt.batch, 512);  // evaluation runs up to 512 images at once
  std::mt19937 rng(opt.seed);
  DigitsNet net(handle, all.rows, all.cols, max_batch, rng);

  std::printf("digits: %d training and %d test images of %dx%d pixels, 10 classes\n", train.size(), test.size(),
              all.rows, all.cols);
  std::printf("network: conv-bn-relu-pool x2, fully connected as a convolution, log-softmax; %zu parameters\n",
              parameter_count(net));
  const size_t version = cudnnGetVersion();  // major * 10000 + minor * 100 + patch since cuDNN 9
  std::printf("training on the %s with cuDNN %zu.%zu.%zu: %d epochs, batch %d, SGD lr %.3g momentum %.2g\n",
              device_name().c_str(), version / 10000, version / 100 % 100, version % 100, opt.epochs, opt.batch,
              opt.lr, opt.momentum);
  std::printf("%5s %10s %10s %10s %9s\n", "epoch", "loss", "train acc", "test acc", "time");

  std::vector<int> order(train.size()), labels;
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> dloss(static_cast<size_t>(opt.batch) * kClasses);
  const int batches = train.size() / opt.batch;  // the remainder is dropped; the next shuffle uses it
  double test_accuracy = 0;
  double total_seconds = 0;

  for (int epoch = 1; epoch <= opt.epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    // Cosine learning-rate decay from lr to 0 over the run.
    const float lr = opt.lr * 0.5f * (1.0f + std::cos(3.14159265f * (epoch - 1) / opt.epochs));
    std::shuffle(order.begin(), order.end(), rng);
    net.set_batch(opt.batch);
    double loss = 0;
    int correct = 0;
    for (int b = 0; b < batches; ++b) {
      load_batch(train, order, b * opt.batch, (b + 1) * opt.batch, net, &labels);
      net.forward(/*training=*/true);
      score(net, labels, &loss, &correct);

      // d(mean NLL)/d(log_probs) = -onehot / batch; the rest is cuDNN's.
      std::fill(dloss.begin(), dloss.end(), 0.0f);
      for (int i = 0; i < opt.batch; ++i) dloss[static_cast<size_t>(i) * kClasses + labels[i]] = -1.0f / opt.batch;
      net.log_probs().grad.upload(dloss);
      net.backward();
      net.update(lr, opt.momentum, opt.weight_decay);
    }
    test_accuracy = evaluate(net, test, max_batch);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total_seconds += seconds;
    const int seen = batches * opt.batch;
    std::printf("%5d %10.4f %9.2f%% %9.2f%% %8.2fs\n", epoch, loss / seen, 100.0 * correct / seen, test_accuracy,
                seconds);
    std::fflush(stdout);
  }
  CHECK_CUDNN(cudnnDestroy(handle));

  const bool ok = test_accuracy >= opt.min_accuracy;
  std::printf("final test accuracy %.2f%% (%s %.1f%%), %.2fs in all\n", test_accuracy, ok ? ">=" : "BELOW",
              opt.min_accuracy, total_seconds);
  return ok ? 0 : 1;
}
