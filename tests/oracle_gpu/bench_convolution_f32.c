/* Speed of the legacy convolutions on the ResNet-50 layers of the issue
 * (batch 32 and 256) in float NCHW with CUDNN_FMA_MATH (no TF32), against
 * NVIDIA's cuDNN; see bench_convolution.c and bench_convolution_driver.h. */
#include "bench_convolution_driver.h"

int main(void) {
  bench_begin(4243);
  bench_resnet50(CUDNN_DATA_FLOAT, 0);
  bench_end();
  return 0;
}
