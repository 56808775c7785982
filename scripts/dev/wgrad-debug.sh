set -e
NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Iinclude -Isrc -I$NV/include -diag-suppress 20013 tests/oracle_gpu/wgrad_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/wgh
ls /usr/local/cuda/bin/compute-sanitizer || true
for cfg in "32 64 56 64 6 44" "256 64 56 64 6 44" "32 128 28 128 5 22" "256 128 28 128 5 22" "256 256 14 256 4 11"; do
  echo "== $cfg"; timeout 60 /tmp/wgh --repeat $cfg 30 2>&1 | tail -2 || true
done
timeout 120 /usr/local/cuda/bin/compute-sanitizer --print-limit 5 /tmp/wgh --repeat 32 64 56 64 6 44 2 2>&1 | tail -30 || true
