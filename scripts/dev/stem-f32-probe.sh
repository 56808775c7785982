# Builds and runs tests/oracle_gpu/stem_f32_probe.cu on the GPU machine
# (float32 NCHW stem gradients as cuBLAS GEMMs next to NVIDIA cuDNN).
set -e
NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Isrc -I$NV/include -diag-suppress 20013 \
  tests/oracle_gpu/stem_f32_probe.cu -L$NV/lib -l:libcudnn.so.9 -lcublas -Xlinker -rpath=$NV/lib -o /tmp/stemf32
timeout 300 /tmp/stemf32 "$@" 2>&1 | tee ${OUT:-/tmp}/stem_f32_probe.txt
