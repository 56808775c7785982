# Memory-bound ops (LRN, dropout, pooling) on the device machine, one call:
# scripts/gpu-check.sh with the benches and oracle programs named in
# ORACLE_ONLY and the gtests named in GTEST_FILTER (none when unset), then each bench again
# (ours only) under each variant of VARIANTS, each printed as a table
# against the same run's cuDNN lines, then an ncu summary of the kernels
# named in NCU_SPECS.
#   VARIANTS='lrn-old:FREEDNN_LRN_TUNE=noftz,divrows,fu1:bench_lrn dropout-old:FREEDNN_DROPOUT_TUNE=old:bench_dropout'
#   NCU_SPECS='bench_pooling%BENCH_ONLY=max3s2.nchw.f32%pooling_max%2'
# The whole output goes to $OUT (gpu-check.txt, gtest.txt, ncu.txt, memops-logs.tar.gz).
set -uo pipefail
# gpu-check runs the gtests of GTEST_FILTER (in parallel shards) when it is set.
[ -n "${GTEST_FILTER:-}" ] && export SKIP_GTEST=0 || export SKIP_GTEST=1
bash scripts/gpu-check.sh >"${OUT:-/tmp}/gpu-check.txt" 2>&1
grep -E '^build|^oracle|^gtest|failed|cut off' build-gpu/out/summary.txt
[ -f build-gpu/out/gtest.log ] && cp build-gpu/out/gtest.log "${OUT:-/tmp}/gtest.txt"
L="env -u FREEDNN_DEVICE LD_LIBRARY_PATH=$PWD/build-gpu:/usr/local/cuda/lib64"
O=build-gpu/out
copy=$(grep '^bench memcpy.d2d.f32 ' $O/bench.ours.txt)
for v in ${VARIANTS:-}; do
  name=${v%%:*}; rest=${v#*:}; envs=${rest%:*}; prog=${rest##*:}
  { echo "$copy"; $L ${envs//;/ } build-gpu/oracle_gpu/${prog}_ours; } >$O/variant.$name.txt 2>&1
  echo "== variant $name ($envs, $prog)"
  python3 tests/oracle_gpu/bench_table.py $O/variant.$name.txt $O/bench.nvidia.txt | grep -v '^memcpy\|^---\|^operation\|copy measured'
done
echo "== default run"
cat $O/bench_table.txt
# NCU_SPECS: space-separated prog%env%regex%count (env: ';'-separated
# assignments; a '.' in the regex for a space); NCU_EXTRA: more ncu options
# (e.g. '--section MemoryWorkloadAnalysis').
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
: >"${OUT:-/tmp}/ncu.txt"
for spec in ${NCU_SPECS:-}; do
  IFS=% read -r prog envs regex count <<<"$spec"
  echo "== ncu $prog ($envs) $regex"
  $L ${envs//;/ } timeout 200 $NCU --kernel-name-base demangled -k "regex:$regex" -c "${count:-1}" \
    --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats ${NCU_EXTRA:-} \
    build-gpu/oracle_gpu/${prog}_ours >$O/ncu.one.txt 2>&1
  cat $O/ncu.one.txt >>"${OUT:-/tmp}/ncu.txt"
  grep -E '^  [a-zA-Z_]|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Thr|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issued Ipc|Grid Size' \
    $O/ncu.one.txt | sed 's/  */ /g' | cut -c1-140 | head -${NCU_LINES:-30}
done
tar czf "${OUT:-/tmp}/memops-logs.tar.gz" -C $O . 2>/dev/null
exit 0
