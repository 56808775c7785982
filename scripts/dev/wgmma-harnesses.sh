set -e
NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
B="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Isrc -I$NV/include -diag-suppress 20013"
$B tests/oracle_gpu/wgrad_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/wgh &
$B tests/oracle_gpu/fwd_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/fwdh &
wait
timeout 400 /tmp/wgh "$@" 2>&1 | tee $OUT/wgrad.txt
timeout 120 /tmp/fwdh --check-only 2>&1 | tail -4 | tee $OUT/fwd.txt
