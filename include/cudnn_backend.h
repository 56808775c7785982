/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_backend.h: the backend (graph) API. Since cuDNN 9 it is part of cudnn_graph.h;
 * this header remains for code that includes it by name.
 */

#ifndef CUDNN_BACKEND_H_
#define CUDNN_BACKEND_H_

#include "cudnn_graph.h"

#endif /* CUDNN_BACKEND_H_ */
