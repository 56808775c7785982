/*
 * Differential test of read-only backend attributes (no handle needed):
 * setting one is NOT_SUPPORTED in cuDNN 9, except for the few answered with
 * BAD_PARAM; and the LAYOUT_INFO descriptor's lifecycle (create, get before
 * finalize, finalize with nothing set, reads after it, set after it). The
 * values read after finalize are not compared: NVIDIA's are uninitialised
 * memory (a random uid, a random count of types).
 * Built against FreeDNN and against NVIDIA's cuDNN; lines not starting with
 * '#' must agree.
 */
#include <cudnn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void note(int st) {
  char m[512];
  if (!st) return;
  m[0] = 0;
  cudnnGetLastErrorString(m, sizeof m);
  printf("# %s\n", m);
}
#define LINE(l, c)                            \
  do {                                        \
    int s_ = (int)(c);                        \
    printf("%-52s -> %d\n", l, s_);           \
    note(s_);                                 \
  } while (0)

static void set_read_only(cudnnBackendDescriptorType_t t, cudnnBackendAttributeName_t a,
                          cudnnBackendAttributeType_t type, const char *label) {
  cudnnBackendDescriptor_t d = NULL;
  char zeros[64];
  memset(zeros, 0, sizeof zeros);
  if (cudnnBackendCreateDescriptor(t, &d) != CUDNN_STATUS_SUCCESS) {
    printf("%-52s -> create failed\n", label);
    return;
  }
  LINE(label, cudnnBackendSetAttribute(d, a, type, 1, zeros));
  cudnnBackendDestroyDescriptor(d);
}
#define RO(t, a, ty) set_read_only(t, a, ty, "set " #a)

int main(void) {
  cudnnBackendDescriptor_t d = NULL;
  int64_t n = -1, uid = 7;
  cudnnBackendLayoutType_t types[4];

  RO(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE);
  RO(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE);
  RO(CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE);
  RO(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR);
  RO(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS,
     CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED,
     CUDNN_TYPE_BACKEND_DESCRIPTOR);
  RO(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, CUDNN_TYPE_INT64);
  RO(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, CUDNN_ATTR_LAYOUT_INFO_TYPES, CUDNN_TYPE_LAYOUT_TYPE);

  LINE("layout info: create", cudnnBackendCreateDescriptor(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, &d));
  LINE("layout info: get TYPES before finalize",
       cudnnBackendGetAttribute(d, CUDNN_ATTR_LAYOUT_INFO_TYPES, CUDNN_TYPE_LAYOUT_TYPE, 4, &n, types));
  LINE("layout info: finalize with nothing set", cudnnBackendFinalize(d));
  LINE("layout info: get TYPES", cudnnBackendGetAttribute(d, CUDNN_ATTR_LAYOUT_INFO_TYPES, CUDNN_TYPE_LAYOUT_TYPE,
                                                          4, &n, types));
  LINE("layout info: get TENSOR_UID",
       cudnnBackendGetAttribute(d, CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, CUDNN_TYPE_INT64, 1, &n, &uid));
  LINE("layout info: set TENSOR_UID after finalize",
       cudnnBackendSetAttribute(d, CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, CUDNN_TYPE_INT64, 1, &uid));
  LINE("layout info: destroy", cudnnBackendDestroyDescriptor(d));
  return 0;
}
