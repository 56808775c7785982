/* Pieces the GPU differential programs (tests/oracle_gpu/<family>_gpu.c)
 * share beyond oracle_common.h: alpha/beta scalars of the type cuDNN reads
 * for a tensor type, and the start of main() (the `--groups` protocol of
 * scripts/gpu-check.sh, the handle, the first `create` result line). */
#ifndef FREEDNN_ORACLE_PROGRAM_H
#define FREEDNN_ORACLE_PROGRAM_H

#include "oracle_common.h"

/* A blending scalar held both ways: cuDNN reads a double for double tensors
 * and a float for every other type. */
typedef struct {
  float f;
  double d;
} Scale;
static Scale scale(double v) {
  Scale s = {(float)v, v};
  return s;
}
static const void *sp(const Scale *s, cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? (const void *)&s->d : (const void *)&s->f; }

/* Programs split into groups run one process per group (a crash in one
 * loses only that group's lines). `<prog> --groups` prints the count and the
 * program exits (returns 1); otherwise *which is the group of argv[1], or -1
 * (all groups) without an argument. */
static int oracle_groups_query(int argc, char **argv, int groups, int *which) {
  if (argc > 1 && strcmp(argv[1], "--groups") == 0) {
    printf("%d\n", groups);
    return 1;
  }
  *which = argc > 1 ? atoi(argv[1]) : -1;
  return 0;
}

/* Seeds the inputs, line-buffers stdout, creates *handle and prints its
 * status as the first result line; returns 0 when creation failed. */
static int oracle_open(cudnnHandle_t *handle, uint64_t seed) {
  oracle_seed(seed);
  setvbuf(stdout, NULL, _IOLBF, 0);
  cudnnStatus_t st = cudnnCreate(handle);
  printf("create tol=0 st=%d\n", (int)st);
  return st == CUDNN_STATUS_SUCCESS;
}

#endif
