# ncu summaries of the two wgmma convolution kernels on ResNet-50 layers
# (device machine; ad-hoc profiling, not part of gpu-check).
set -e
NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
B="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Iinclude -Isrc -I$NV/include -diag-suppress 20013"
$B tests/oracle_gpu/wgrad_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/wgh &
$B tests/oracle_gpu/fwd_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/fwdh &
wait
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy"
timeout 200 $NCU $SECTIONS -k regex:fwd_wgmma_kernel -c 1 /tmp/fwdh --profile 256 128 28 2>&1 | grep -v '^==PROF==' | tail -80 > $OUT/ncu_fwd_128x28.txt || true
timeout 200 $NCU $SECTIONS -k regex:wgrad_wgmma_kernel -c 1 /tmp/wgh --repeat 256 64 56 64 4 44 1 2>&1 | grep -v '^==PROF==' | tail -80 > $OUT/ncu_wgrad_64x56.txt || true
head -c 3000 $OUT/ncu_fwd_128x28.txt
