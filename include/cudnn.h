/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn.h: umbrella header; includes the whole API.
 */

#ifndef CUDNN_H_
#define CUDNN_H_

#include "cudnn_version.h"
#include "cudnn_graph.h"
#include "cudnn_backend.h"
#include "cudnn_ops.h"
#include "cudnn_cnn.h"
#include "cudnn_adv.h"

#endif /* CUDNN_H_ */
