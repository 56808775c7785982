/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_ops.h: cuDNN 9 name of the ops sub-library; the declarations live in the
 * cuDNN 8 split headers (inference and training parts).
 */

#ifndef CUDNN_OPS_H_
#define CUDNN_OPS_H_

#include "cudnn_graph.h"
#include "cudnn_ops_infer.h"
#include "cudnn_ops_train.h"

/* Version of the sub-library under its cuDNN 9 name. */
#define CUDNN_OPS_MAJOR CUDNN_MAJOR
#define CUDNN_OPS_MINOR CUDNN_MINOR
#define CUDNN_OPS_PATCH CUDNN_PATCHLEVEL

#endif /* CUDNN_OPS_H_ */
