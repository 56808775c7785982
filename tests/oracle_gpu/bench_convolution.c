/* Speed of the legacy convolutions on ResNet-50 layers (batch 32), built
 * against FreeDNN and against NVIDIA's cuDNN (scripts/gpu-check.sh puts the
 * two side by side). Each library picks its own fastest algorithm with
 * cudnnFind*Algorithm (the one it would recommend), then that algorithm is
 * timed: median of 15 runs after 3 warm-up runs, CUDA events on the handle's
 * stream. Types: half NHWC (tensor cores allowed; bfloat16 on one layer) and
 * float NCHW with CUDNN_FMA_MATH (no TF32). "bytes" counts x, w and y once each; a second
 * line gives TFLOP/s (2 * N * K * C/g * P * R * S per direction). */
#include "bench_convolution_driver.h"

int main(void) {
  bench_begin(4242);
  /* name, C, HW, K, R, stride, pad at batch 32 */
  for (int f = 0; f < 2; ++f) {
    const cudnnDataType_t t = f == 0 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    const int nhwc = f == 0;
    bench_layer("r50.64x56.3x3.64", t, nhwc, 32, 64, 56, 64, 3, 1, 1);
    bench_layer("r50.256x56.1x1.64", t, nhwc, 32, 256, 56, 64, 1, 1, 0);
    bench_layer("r50.128x28.3x3.128", t, nhwc, 32, 128, 28, 128, 3, 1, 1);
  }
  bench_layer("r50.64x56.3x3.64", CUDNN_DATA_BFLOAT16, 1, 32, 64, 56, 64, 3, 1, 1);
  bench_end();
  return 0;
}
