/* Speed of the legacy convolutions on the ResNet-50 layers of the issue
 * (batch 32 and 256) in bfloat16 NHWC with tensor cores allowed, against
 * NVIDIA's cuDNN; see bench_convolution.c and bench_convolution_driver.h. */
#include "bench_convolution_driver.h"

int main(void) {
  bench_begin(4244);
  bench_resnet50(CUDNN_DATA_BFLOAT16, 1);
  bench_end();
  return 0;
}
