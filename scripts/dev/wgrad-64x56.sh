# The wgmma filter gradient's row windows on the device machine: builds the
# wgrad harness (and the forward one, which shares headers), runs both
# checks, the timing table, and (NCU=1) ncu on 64x56 b256 with row windows
# and with 64-pixel stages (FREEDNN_CONV_WGRAD_WGMMA_ROWS=0). Everything
# lands under $OUT. SWEEP=1: the harness's whole variant sweep.
set -o pipefail
NV=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])')
B="nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Iinclude -Isrc -I$NV/include -diag-suppress 20013"
$B tests/oracle_gpu/wgrad_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/wgh &
$B tests/oracle_gpu/fwd_wgmma_harness.cu -L$NV/lib -l:libcudnn.so.9 -Xlinker -rpath=$NV/lib -o /tmp/fwdh &
wait
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
timeout 200 /tmp/wgh --check-only > $OUT/check.txt 2>&1; echo "wgrad check rc $?"
grep -E "FAIL|correctness" $OUT/check.txt | head -20
timeout 120 /tmp/fwdh --check-only 2>&1 | tail -3 | tee $OUT/fwd.txt
if [ "${SKIP_TIMING:-0}" != 1 ]; then
  ${SWEEP:+env WGRAD_SWEEP=1} timeout 400 /tmp/wgh 2>&1 | grep -v "^ok " | tee $OUT/time.txt
fi
if [ "${NCU:-0}" = 1 ]; then
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
  for rows in 1 0; do
    FREEDNN_CONV_WGRAD_WGMMA_ROWS=$rows timeout 150 $NCU $S -k regex:wgrad_wgmma_kernel -c 1 /tmp/wgh --repeat 256 64 56 64 0 0 1 \
      2>&1 | grep -v '^==PROF==' > $OUT/ncu_rows$rows.txt
    grep -E "Duration|Throughput|Hit Rate|Bank|Pipe|Issue Slots|Eligible|No Eligible|Executed Ipc" $OUT/ncu_rows$rows.txt | head -40
  done
fi
