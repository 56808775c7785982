/*
 * FreeDNN - an open implementation of the cuDNN API.
 *
 * cudnn_version.h: the cuDNN API version FreeDNN implements, and FreeDNN's own version.
 */

#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

/* cuDNN API level (cuDNN 9 numbering: major * 10000 + minor * 100 + patch). */
#define CUDNN_MAJOR 9
#define CUDNN_MINOR 0
#define CUDNN_PATCHLEVEL 0

#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

/* Newest GPU architecture (SM major.minor) this API level knows about, and the same
 * value in the encoding returned by cudnnGetMaxDeviceVersion() (major * 100 + minor * 10). */
#define CUDNN_MAX_SM_MAJOR_NUMBER 9
#define CUDNN_MAX_SM_MINOR_NUMBER 0
#define CUDNN_MAX_DEVICE_VERSION (CUDNN_MAX_SM_MAJOR_NUMBER * 100 + CUDNN_MAX_SM_MINOR_NUMBER * 10)

/* FreeDNN release. */
#define FREEDNN_VERSION "0.1.0"

#endif /* CUDNN_VERSION_H_ */
