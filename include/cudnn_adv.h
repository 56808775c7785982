/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_adv.h: cuDNN 9 name of the RNN / attention / CTC sub-library; the declarations
 * live in the cuDNN 8 split headers (inference and training parts).
 */

#ifndef CUDNN_ADV_H_
#define CUDNN_ADV_H_

#include "cudnn_ops.h"
#include "cudnn_adv_infer.h"
#include "cudnn_adv_train.h"

/* Version of the sub-library under its cuDNN 9 name. */
#define CUDNN_ADV_MAJOR CUDNN_MAJOR
#define CUDNN_ADV_MINOR CUDNN_MINOR
#define CUDNN_ADV_PATCH CUDNN_PATCHLEVEL

#endif /* CUDNN_ADV_H_ */
