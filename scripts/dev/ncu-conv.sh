# ncu summary of one of the library's convolution kernels inside the
# bench_convolution oracle program (device machine; ad-hoc profiling, not
# part of gpu-check). Builds the library alone into build-ncu.
#   KERNEL=regex:conv_stem_wgrad_kernel CASE=7x7s2.64.b256.bwd_filter.nhwc.f16 \
#   PROG=bench_convolution bash scripts/dev/ncu-conv.sh
set -e
B=build-ncu
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DFREEDNN_CUDA=ON -DFREEDNN_CUDA_ARCHS=90a \
  -DFREEDNN_TESTS=OFF -DFREEDNN_BENCH=OFF -DFREEDNN_EXAMPLES=OFF -DCMAKE_CUDA_FLAGS=-lineinfo >/dev/null
cmake --build $B -j "$(nproc)" --target cudnn > ${OUT:-/tmp}/ncu_build.log 2>&1 || { tail -30 ${OUT:-/tmp}/ncu_build.log; exit 1; }
PROG=${PROG:-bench_convolution}
gcc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -w tests/oracle_gpu/$PROG.c -Iinclude -I$CUDA_HOME/include -L$B -l:libcudnn.so.9 \
  -L$CUDA_HOME/lib64 -lcudart -lm -Wl,-rpath,$PWD/$B -o /tmp/prog_ours
NCU=$(command -v ncu || ls $CUDA_HOME/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters"
BENCH_CONV_FILTER="$CASE" timeout 300 $NCU $SECTIONS -k "$KERNEL" -c ${COUNT:-1} /tmp/prog_ours 2>&1 | grep -v '^==PROF==' | tail -${LINES:-120} | tee ${OUT:-/tmp}/ncu.txt
