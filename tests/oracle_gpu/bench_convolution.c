/* Speed of the legacy convolutions on the ResNet-50 layers of the issue
 * (batch 32 and 256) in half NHWC with tensor cores allowed, built against
 * FreeDNN and against NVIDIA's cuDNN (scripts/gpu-check.sh puts the two side
 * by side). bench_convolution_bf16.c and bench_convolution_f32.c run the same
 * layers in bfloat16 NHWC and float NCHW (no TF32). Each library picks its
 * own fastest algorithm with cudnnFind*Algorithm (the one it would
 * recommend), then that algorithm is timed (see bench_convolution_driver.h).
 * "bytes" counts x, w and y once each; a second line gives TFLOP/s
 * (2 * N * K * C/g * P * R * S per direction) and the algorithm. */
#include "bench_convolution_driver.h"

int main(void) {
  bench_begin(4242);
  bench_resnet50(CUDNN_DATA_HALF, 1);
  bench_end();
  return 0;
}
