# Mutation check of dropout_tiled_kernel on the device machine, after
# scripts/dev/memops.sh has built build-gpu: each mutant of
# src/cuda/dropout_kernels.cu is built incrementally and the permuted-layout
# dropout test must fail on it; the source is restored afterwards.
#   1. the last word slot of each row is never computed (rows that do not
#      start on a mask word lose their tail bits);
#   2. step 3 reads the keep bits of the neighbouring a-row.
set -uo pipefail
F=src/cuda/dropout_kernels.cu
L="env -u FREEDNN_DEVICE LD_LIBRARY_PATH=$PWD/build-gpu:/usr/local/cuda/lib64"
cp $F /tmp/dropout_kernels.cu.orig
mutate() {
  case $1 in
    1) sed -i 's/if (k == kWordsPerRow - 1 && !__any_sync(0xffffffffu, live)) continue;/if (k == kWordsPerRow - 1) continue;/' $F ;;
    2) sed -i 's/const uint8_t \*kb = keep + ai \* kPitch + vb;/const uint8_t *kb = keep + (ai ^ 1) * kPitch + vb;/' $F ;;
  esac
}
for m in 1 2; do
  cp /tmp/dropout_kernels.cu.orig $F
  mutate $m
  if cmp -s $F /tmp/dropout_kernels.cu.orig; then echo "mutant $m: sed did not apply"; continue; fi
  if ! ninja -C build-gpu cudnn >/tmp/mutant.build.txt 2>&1; then echo "mutant $m: build failed"; tail -5 /tmp/mutant.build.txt; continue; fi
  timeout 200 $L build-gpu/tests/freednn_tests --gtest_filter='*Permuted*' >/tmp/mutant.$m.txt 2>&1
  echo "mutant $m: exit $?, $(grep -c 'Failure' /tmp/mutant.$m.txt) failures, $(grep -c '^\[  FAILED  \]' /tmp/mutant.$m.txt) FAILED lines"
done
cp /tmp/dropout_kernels.cu.orig $F
ninja -C build-gpu cudnn >/dev/null 2>&1 && echo "restored and rebuilt"
