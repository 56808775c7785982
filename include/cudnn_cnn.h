/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_cnn.h: cuDNN 9 name of the convolution sub-library; the declarations live in
 * the cuDNN 8 split headers (inference and training parts).
 */

#ifndef CUDNN_CNN_H_
#define CUDNN_CNN_H_

#include "cudnn_ops.h"
#include "cudnn_cnn_infer.h"
#include "cudnn_cnn_train.h"

/* Version of the sub-library under its cuDNN 9 name. */
#define CUDNN_CNN_MAJOR CUDNN_MAJOR
#define CUDNN_CNN_MINOR CUDNN_MINOR
#define CUDNN_CNN_PATCH CUDNN_PATCHLEVEL

#endif /* CUDNN_CNN_H_ */
