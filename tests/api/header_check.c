/*
 * Compile-only check that the public headers are valid C99 and usable from C:
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude -c tests/api/header_check.c
 * (with and without the CUDA include directory after -Iinclude).
 */
#include "cudnn.h"
#include "cudnn.h" /* include guards */
#include "cudnn_backend.h"
#include "cudnn_ops_infer.h"
#include "cudnn_ops_train.h"
#include "cudnn_cnn_infer.h"
#include "cudnn_cnn_train.h"
#include "cudnn_adv_infer.h"
#include "cudnn_adv_train.h"

/* C99 has no static_assert: a negative array size fails the build. */
#define HC_ASSERT(name, cond) typedef char header_check_##name[(cond) ? 1 : -1]

HC_ASSERT(version, CUDNN_VERSION == 90000);
HC_ASSERT(dim_max, CUDNN_DIM_MAX == 8);
HC_ASSERT(status_success, CUDNN_STATUS_SUCCESS == 0);
HC_ASSERT(status_bad_param, CUDNN_STATUS_BAD_PARAM == 2000);
HC_ASSERT(sev_mask, CUDNN_SEV_WARNING_EN == 4u);
HC_ASSERT(padded_io, CUDNN_RNN_PADDED_IO_ENABLED == 1u);
HC_ASSERT(seqdata_dims, CUDNN_SEQDATA_DIM_COUNT == 4);

/* Take the address of a few functions of each sub-library (checks the prototypes parse
 * and the names are declared; nothing is called, so no library is needed to link). */
typedef cudnnStatus_t (*create_fn)(cudnnHandle_t *);
typedef cudnnStatus_t (*set4d_fn)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int,
                                  int, int);
typedef cudnnStatus_t (*backend_set_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                        cudnnBackendAttributeType_t, int64_t, const void *);

static const void *header_check_symbols(void) {
    static create_fn create;
    static set4d_fn set4d;
    static backend_set_fn backend_set;
    create = cudnnCreate;
    set4d = cudnnSetTensor4dDescriptor;
    backend_set = cudnnBackendSetAttribute;
    (void)create;
    (void)set4d;
    (void)backend_set;
    return (const void *)&backend_set;
}

int header_check_c(void);
int header_check_c(void) {
    cudnnConvolutionFwdAlgoPerf_t fwd;
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data;
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter;
    cudnnDebug_t dbg;
    cudnnFraction_t frac;
    cudnnAlgorithm_t algo;
    cudnnRNNPaddingMode_t pad = CUDNN_RNN_PADDED_IO_DISABLED;
    cudnnBackendDescriptorType_t dt = CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
    cudnnBackendAttributeName_t an = CUDNN_ATTR_TENSOR_UNIQUE_ID;
    cudnnPointwiseMode_t pw = CUDNN_POINTWISE_RELU_FWD;
    cudnnRNNMode_t rnn = CUDNN_LSTM;
    cudnnFusedOps_t fused = CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    cudnnCTCLossAlgo_t ctc = CUDNN_CTC_LOSS_ALGO_DETERMINISTIC;
    libraryPropertyType prop = MAJOR_VERSION;
    cudaStream_t stream = NULL;

    fwd.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    bwd_data.algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    bwd_filter.algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    dbg.cudaDeviceId = 0;
    frac.numerator = 1;
    frac.denominator = 2;
    algo.algo.convFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    (void)stream;
    (void)header_check_symbols();
    return (int)fwd.algo + (int)bwd_data.algo + (int)bwd_filter.algo + dbg.cudaDeviceId +
           (int)frac.numerator + (int)algo.algo.convFwdAlgo + (int)pad + (int)dt + (int)an + (int)pw +
           (int)rnn + (int)fused + (int)ctc + (int)prop;
}
