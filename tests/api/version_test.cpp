// Versions, library properties, sub-library version checks and status names.
// Expected names and behaviour were taken from NVIDIA's cuDNN 9 by a probe
// program (these calls run there without a GPU).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

TEST(Version, GetVersionMatchesHeader) {
  EXPECT_EQ(cudnnGetVersion(), static_cast<size_t>(CUDNN_VERSION));
  EXPECT_EQ(static_cast<size_t>(CUDNN_VERSION), static_cast<size_t>(CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL));
}

TEST(Version, GetPropertyReturnsEachComponent) {
  const std::pair<libraryPropertyType, int> expected[] = {
      {MAJOR_VERSION, CUDNN_MAJOR}, {MINOR_VERSION, CUDNN_MINOR}, {PATCH_LEVEL, CUDNN_PATCHLEVEL}};
  for (const auto &e : expected) {
    int value = -12345;
    EXPECT_EQ(cudnnGetProperty(e.first, &value), CUDNN_STATUS_SUCCESS) << "type " << e.first;
    EXPECT_EQ(value, e.second) << "type " << e.first;
  }
}

TEST(Version, GetPropertyRejectsUnknownTypeWithoutWriting) {
  for (int bad : {-1, 3, 4, 1000}) {
    int value = -12345;
    EXPECT_EQ(cudnnGetProperty(static_cast<libraryPropertyType>(bad), &value), CUDNN_STATUS_BAD_PARAM) << bad;
    EXPECT_EQ(value, -12345) << "output written for bad type " << bad;
  }
}

TEST(Version, GetPropertyRejectsNullOutput) {
  EXPECT_EQ(cudnnGetProperty(MAJOR_VERSION, nullptr), CUDNN_STATUS_BAD_PARAM);
  char drain[256];
  cudnnGetLastErrorString(drain, sizeof drain);
}

TEST(Version, CudartVersionIsZeroOrPlausible) {
  // 0 in a build without the CUDA backend; else the runtime it was built
  // with (major*1000 + minor*10, e.g. 12040).
  size_t v = cudnnGetCudartVersion();
  if (v != 0) {
    EXPECT_GE(v, 11000u);
    EXPECT_LT(v, 100000u);
  }
}

TEST(Version, MaxDeviceVersionIsZeroOrPlausible) {
  // Highest compute capability with device code, as major*100 + minor*10
  // (e.g. 900 for sm_90); 0 when there is no CUDA backend.
  size_t v = cudnnGetMaxDeviceVersion();
  if (v != 0) {
    EXPECT_GE(v, 500u);
    EXPECT_LT(v, 10000u);
    EXPECT_EQ(v % 10, 0u);
  }
  if (cudnnGetCudartVersion() == 0) EXPECT_EQ(v, 0u) << "device code without a CUDA runtime";
}

TEST(Version, EverySubLibraryCheckSucceeds) {
  // cuDNN 8.0.3 names, then cuDNN 9 names.
  EXPECT_EQ(cudnnOpsInferVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnOpsTrainVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCnnInferVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCnnTrainVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnAdvInferVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnAdvTrainVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGraphVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnOpsVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCnnVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnAdvVersionCheck(), CUDNN_STATUS_SUCCESS);
}

// Every value of cudnnStatus_t in the cuDNN 9 header. The deprecated aliases
// share a value with a current name, and NVIDIA's library returns the current
// name for them, except INVALID_VALUE, which has a value of its own.
#define FDNN_STATUS(s) {s, #s}
const std::vector<std::pair<cudnnStatus_t, std::string>> kStatusNames = {
    FDNN_STATUS(CUDNN_STATUS_SUCCESS),
    FDNN_STATUS(CUDNN_STATUS_NOT_INITIALIZED),
    FDNN_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_DEPRECATED),
    FDNN_STATUS(CUDNN_STATUS_LICENSE_ERROR),
    FDNN_STATUS(CUDNN_STATUS_RUNTIME_IN_PROGRESS),
    FDNN_STATUS(CUDNN_STATUS_RUNTIME_FP_OVERFLOW),
    FDNN_STATUS(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM),
    FDNN_STATUS(CUDNN_STATUS_INVALID_VALUE),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_PADDING),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API),
    FDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM),
    FDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED),
    FDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED),
    FDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER),
    FDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS),
    FDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART),
    FDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CURAND),
};
#undef FDNN_STATUS

TEST(Version, ErrorStringNamesEveryStatus) {
  for (const auto &s : kStatusNames) {
    const char *name = cudnnGetErrorString(s.first);
    ASSERT_NE(name, nullptr) << s.second;
    EXPECT_EQ(std::string(name), s.second) << "value " << static_cast<int>(s.first);
  }
}

TEST(Version, ErrorStringOfDeprecatedAliasIsTheCurrentName) {
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_ALLOC_FAILED), "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_ARCH_MISMATCH), "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_MAPPING_ERROR), "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_VERSION_MISMATCH), "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING),
               "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING");
}

TEST(Version, ErrorStringOfUnknownValue) {
  // The cuDNN 7/8 small values (1..15) are not cuDNN 9 statuses any more.
  for (int v : {-1, 1, 2, 3, 8, 14, 15, 999, 1000, 1009, 2013, 3015, 4007, 5005, 6000, 12345}) {
    const char *name = cudnnGetErrorString(static_cast<cudnnStatus_t>(v));
    ASSERT_NE(name, nullptr) << v;
    EXPECT_STREQ(name, "CUDNN_UNKNOWN_STATUS") << v;
  }
}

}  // namespace
