/* Speed of the float32 NCHW 3x3 convolutions of ResNet-50 (the list
 * beyond bench_convolution.c's batch-32 layers: 256x14x14 and 512x7x7 at
 * batch 32, and the four 3x3 layers at batch 256), built against FreeDNN
 * and against NVIDIA's cuDNN (scripts/gpu-check.sh puts the two side by
 * side). CUDNN_FMA_MATH (no TF32). Each library picks its own fastest
 * algorithm with cudnnFind*Algorithm, then that algorithm is timed: median
 * of 15 runs after 3 warm-up runs, CUDA events on the handle's stream.
 * "bytes" counts x, w and y once each; a second line gives TFLOP/s
 * (2 * N * K * C * P * R * S per direction) and the algorithm. */
#include "bench_convolution_driver.h"

int main(void) {
  bench_begin(4243);
  /* name, C, HW, K, R, stride, pad */
  bench_layer("r50.256x14.3x3.256.b32", CUDNN_DATA_FLOAT, 0, 32, 256, 14, 256, 3, 1, 1);
  bench_layer("r50.512x7.3x3.512.b32", CUDNN_DATA_FLOAT, 0, 32, 512, 7, 512, 3, 1, 1);
  bench_layer("r50.128x28.3x3.128.b256", CUDNN_DATA_FLOAT, 0, 256, 128, 28, 128, 3, 1, 1);
  bench_layer("r50.256x14.3x3.256.b256", CUDNN_DATA_FLOAT, 0, 256, 256, 14, 256, 3, 1, 1);
  bench_layer("r50.512x7.3x3.512.b256", CUDNN_DATA_FLOAT, 0, 256, 512, 7, 512, 3, 1, 1);
  bench_layer("r50.64x56.3x3.64.b256", CUDNN_DATA_FLOAT, 0, 256, 64, 56, 64, 3, 1, 1);
  bench_end();
  return 0;
}
