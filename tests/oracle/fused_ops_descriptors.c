/*
 * Differential test of the fused-ops param packs (no handle needed): which
 * const-pack and variant-pack labels each fused-op kind accepts (Set and Get),
 * defaults, stored values (placeholders, batch-norm mode, descriptors copied
 * into the pack, host scalars copied), NULL arguments, bad kinds, and
 * make / execute with a NULL handle. Built against FreeDNN and against
 * NVIDIA's cuDNN; lines not starting with '#' must be identical.
 */
#include <cudnn.h>

#include <stdint.h>
#include <stdio.h>

static int ok(cudnnStatus_t s) { return s == CUDNN_STATUS_SUCCESS ? 0 : (int)s; }

int main(void) {
  cudnnFusedOpsConstParamPack_t cp;
  cudnnFusedOpsVariantParamPack_t vp;
  cudnnFusedOpsPlan_t pl;
  int op, l;
  for (op = -1; op <= 8; ++op) {
    cudnnStatus_t a = cudnnCreateFusedOpsConstParamPack(&cp, (cudnnFusedOps_t)op);
    cudnnStatus_t b = cudnnCreateFusedOpsVariantParamPack(&vp, (cudnnFusedOps_t)op);
    cudnnStatus_t c = cudnnCreateFusedOpsPlan(&pl, (cudnnFusedOps_t)op);
    printf("create ops=%d const=%d var=%d plan=%d\n", op, ok(a), ok(b), ok(c));
    if (a == CUDNN_STATUS_SUCCESS) cudnnDestroyFusedOpsConstParamPack(cp);
    if (b == CUDNN_STATUS_SUCCESS) cudnnDestroyFusedOpsVariantParamPack(vp);
    if (c == CUDNN_STATUS_SUCCESS) cudnnDestroyFusedOpsPlan(pl);
  }
  printf("create NULL const=%d var=%d plan=%d\n", ok(cudnnCreateFusedOpsConstParamPack(NULL, 0)),
         ok(cudnnCreateFusedOpsVariantParamPack(NULL, 0)), ok(cudnnCreateFusedOpsPlan(NULL, 0)));
  printf("destroy NULL const=%d var=%d plan=%d\n", ok(cudnnDestroyFusedOpsConstParamPack(NULL)),
         ok(cudnnDestroyFusedOpsVariantParamPack(NULL)), ok(cudnnDestroyFusedOpsPlan(NULL)));

  for (op = 0; op <= 6; ++op) {
    cudnnCreateFusedOpsConstParamPack(&cp, (cudnnFusedOps_t)op);
    printf("ops=%d const set(NULL):", op);
    for (l = -1; l <= 40; ++l) printf(" %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, (cudnnFusedOpsConstParamLabel_t)l, NULL)));
    printf("\nops=%d const get:", op);
    for (l = -1; l <= 40; ++l) {
      char buf[256];
      int isnull = -7;
      cudnnStatus_t s = cudnnGetFusedOpsConstParamPackAttribute(cp, (cudnnFusedOpsConstParamLabel_t)l, buf, &isnull);
      printf(" %d/%d", ok(s), isnull);
    }
    printf("\n");
    cudnnDestroyFusedOpsConstParamPack(cp);
    cudnnCreateFusedOpsVariantParamPack(&vp, (cudnnFusedOps_t)op);
    printf("ops=%d var set/get:", op);
    for (l = -1; l <= 105; ++l) {
      int64_t v = 5;
      char buf[16];
      if (l > 24 && l < 99) continue;
      printf(" %d:%d/%d", l, ok(cudnnSetFusedOpsVariantParamPackAttribute(vp, (cudnnFusedOpsVariantParamLabel_t)l, &v)),
             ok(cudnnGetFusedOpsVariantParamPackAttribute(vp, (cudnnFusedOpsVariantParamLabel_t)l, buf)));
    }
    printf("\n");
    cudnnDestroyFusedOpsVariantParamPack(vp);
  }

  {
    int v = 99, isnull = -7, mode = 17;
    cudnnFusedOpsPointerPlaceHolder_t ph = (cudnnFusedOpsPointerPlaceHolder_t)7;
    cudnnTensorDescriptor_t t, u;
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    cudnnCreateFusedOpsConstParamPack(&cp, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    printf("default ph: %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull)));
    printf(" %d %d\n", v, isnull);
    printf("default mode: %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, &v, &isnull)));
    printf(" %d %d\n", v, isnull);
    printf("set ph 7: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &ph)));
    printf(" get %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull)));
    printf(" %d %d\n", v, isnull);
    printf("set ph NULL: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, NULL)));
    printf(" get %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDATA_PLACEHOLDER, &v, &isnull)));
    printf(" %d %d\n", v, isnull);
    printf("set mode 17: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, &mode)));
    printf(" get %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, &v, &isnull)));
    printf(" %d %d\n", v, isnull);
    printf("get NULL param %d isNULL %d pack %d; set NULL pack %d\n",
           ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, NULL, &isnull)),
           ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_BN_MODE, &v, NULL)),
           ok(cudnnGetFusedOpsConstParamPackAttribute(NULL, CUDNN_PARAM_BN_MODE, &v, &isnull)),
           ok(cudnnSetFusedOpsConstParamPackAttribute(NULL, CUDNN_PARAM_BN_MODE, &mode)));
    cudnnCreateTensorDescriptor(&t);
    cudnnCreateTensorDescriptor(&u);
    printf("set unset tensor: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, t)));
    printf(" get %d isnull %d\n", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, u, &isnull)), isnull);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 5, 5);
    printf("set tensor: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, t)));
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    printf(" get %d", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, u, &isnull)));
    cudnnGetTensor4dDescriptor(u, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws);
    printf(" isnull %d t%d %d %d %d %d / %d %d %d %d\n", isnull, (int)dt, n, c, h, w, ns, cs, hs, ws);
    printf("set tensor NULL: %d", ok(cudnnSetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, NULL)));
    printf(" get %d isnull %d\n", ok(cudnnGetFusedOpsConstParamPackAttribute(cp, CUDNN_PARAM_XDESC, u, &isnull)), isnull);
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyTensorDescriptor(u);
    cudnnDestroyFusedOpsConstParamPack(cp);
  }

  {
    double eps = 1e-3, ge = -1;
    int64_t cnt = 77, gc = -1;
    size_t wsz = 123, gw = 0;
    void *gp = (void *)1;
    size_t wss = 0;
    cudnnCreateFusedOpsVariantParamPack(&vp, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    printf("defaults eps %d", ok(cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &ge)));
    printf(" %g ysum %d", ge, ok(cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSUM, &gp)));
    printf(" %d ws %d", gp == NULL, ok(cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &gw)));
    printf(" %zu\n", gw);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps);
    eps = 5;
    cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &ge);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &cnt);
    cnt = 9;
    cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &gc);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsz);
    cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &gw);
    printf("copied eps %g count %lld ws %zu\n", ge, (long long)gc, gw);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSUM, (void *)0x1230);
    cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSUM, &gp);
    printf("pointer kept %d\n", gp == (void *)0x1230);
    cudnnSetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, NULL);
    ge = -1;
    cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &ge);
    printf("eps after NULL %g\n", ge);
    printf("NULL args get %d set pack %d get pack %d\n",
           ok(cudnnGetFusedOpsVariantParamPackAttribute(vp, CUDNN_PTR_YSUM, NULL)),
           ok(cudnnSetFusedOpsVariantParamPackAttribute(NULL, CUDNN_PTR_YSUM, &gp)),
           ok(cudnnGetFusedOpsVariantParamPackAttribute(NULL, CUDNN_PTR_YSUM, &gp)));
    cudnnCreateFusedOpsPlan(&pl, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    printf("NULL handle make %d execute %d\n", ok(cudnnMakeFusedOpsPlan(NULL, pl, NULL, &wss)),
           ok(cudnnFusedOpsExecute(NULL, pl, vp)));
    cudnnDestroyFusedOpsPlan(pl);
    cudnnDestroyFusedOpsVariantParamPack(vp);
  }
  return 0;
}
