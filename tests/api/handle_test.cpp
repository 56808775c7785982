// cudnnCreate / cudnnDestroy / cudnnSetStream / cudnnGetStream, and the
// device a handle binds to.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/buffer.hpp"
#include "common/child_process.hpp"

#ifdef FREEDNN_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

void drain_last_error() {
  char buf[512];
  cudnnGetLastErrorString(buf, sizeof buf);
}

TEST(Handle, CreateAndDestroy) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

TEST(Handle, ManyHandlesAreDistinct) {
  std::vector<cudnnHandle_t> handles(16, nullptr);
  for (auto &h : handles) ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  for (size_t i = 0; i < handles.size(); ++i)
    for (size_t j = i + 1; j < handles.size(); ++j) EXPECT_NE(handles[i], handles[j]);
  for (auto h : handles) EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

TEST(Handle, CreateRejectsNullOutput) {
  EXPECT_EQ(cudnnCreate(nullptr), CUDNN_STATUS_BAD_PARAM);
  drain_last_error();
}

TEST(Handle, DestroyAcceptsNull) {
  // NVIDIA's cuDNN 9 returns SUCCESS here (the 8.0.3 text said BAD_PARAM); we follow cuDNN 9.
  EXPECT_EQ(cudnnDestroy(nullptr), CUDNN_STATUS_SUCCESS);
  drain_last_error();
}

TEST(Handle, NewHandleUsesTheDefaultStream) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  cudaStream_t s = reinterpret_cast<cudaStream_t>(0x1);
  EXPECT_EQ(cudnnGetStream(h, &s), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

TEST(Handle, SetStreamGetStreamRoundTrip) {
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  std::vector<cudaStream_t> streams;
#ifdef FREEDNN_TEST_CUDA
  cudaStream_t real = nullptr;
  if (fdnn_test::gpu_mode()) {
    ASSERT_EQ(cudaStreamCreate(&real), cudaSuccess);
    streams = {real, nullptr, real};
  }
#endif
  if (streams.empty()) {
    // A CPU handle keeps the value for cudnnGetStream and never uses it.
    streams = {reinterpret_cast<cudaStream_t>(0x1234), nullptr, reinterpret_cast<cudaStream_t>(0x5678)};
  }
  for (cudaStream_t want : streams) {
    ASSERT_EQ(cudnnSetStream(h, want), CUDNN_STATUS_SUCCESS);
    cudaStream_t got = reinterpret_cast<cudaStream_t>(0x9);
    ASSERT_EQ(cudnnGetStream(h, &got), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
#ifdef FREEDNN_TEST_CUDA
  if (real) cudaStreamDestroy(real);
#endif
}

TEST(Handle, StreamCallsRejectBadArguments) {
  EXPECT_EQ(cudnnSetStream(nullptr, nullptr), CUDNN_STATUS_BAD_PARAM);
  cudaStream_t s = nullptr;
  EXPECT_EQ(cudnnGetStream(nullptr, &s), CUDNN_STATUS_BAD_PARAM);
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetStream(h, nullptr), CUDNN_STATUS_BAD_PARAM);
  char msg[512];
  cudnnGetLastErrorString(msg, sizeof msg);
  EXPECT_NE(std::strstr(msg, "streamId"), nullptr) << msg;
  EXPECT_EQ(cudnnDestroy(h), CUDNN_STATUS_SUCCESS);
}

TEST(Handle, HandlesHandedAcrossThreadsWork) {
  // A handle is not bound to the thread that created it.
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  cudnnStatus_t in_thread = CUDNN_STATUS_INTERNAL_ERROR;
  std::thread t([&] {
    cudaStream_t s = reinterpret_cast<cudaStream_t>(0x1);
    in_thread = cudnnGetStream(h, &s);
    if (in_thread == CUDNN_STATUS_SUCCESS) in_thread = cudnnDestroy(h);
  });
  t.join();
  EXPECT_EQ(in_thread, CUDNN_STATUS_SUCCESS);
}

// FREEDNN_DEVICE=cpu makes every handle a CPU handle, even where a GPU is
// present: the handle's verbose line names the device, and an operation on
// plain host memory gives the right result.
FDNN_CHILD_BODY(CreateOnForcedCpu) {
  cudnnHandle_t handle = nullptr;
  if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) return 2;
  cudnnTensorDescriptor_t desc = nullptr;
  cudnnStatus_t s = cudnnCreateTensorDescriptor(&desc);
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 1, 5);
  std::vector<float> host(30, -1.0f);
  const float value = 0.25f;
  if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetTensor(handle, desc, host.data(), &value);
  if (s == CUDNN_STATUS_NOT_SUPPORTED) {
    std::printf("note: cudnnSetTensor not available yet; only the handle's device was checked\n");
  } else if (s != CUDNN_STATUS_SUCCESS) {
    std::printf("FAIL: %s\n", cudnnGetErrorString(s));
    return 3;
  } else {
    for (float x : host)
      if (x != 0.25f) {
        std::printf("FAIL: host element %g, expected 0.25\n", x);
        return 4;
      }
    std::printf("host op ok\n");
  }
  if (desc) cudnnDestroyTensorDescriptor(desc);
  return cudnnDestroy(handle) == CUDNN_STATUS_SUCCESS ? 0 : 5;
}

TEST(Handle, ForcedCpuDeviceIsHonoured) {
  fdnn_test::ChildResult r = fdnn_test::run_child("CreateOnForcedCpu", {{"FREEDNN_DEVICE", "cpu"}, {"FREEDNN_VERBOSE", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("freednn_verbose,create,cpu"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("freednn_verbose,create,cuda"), std::string::npos) << r.output;
  if (r.output.find("note:") == std::string::npos) EXPECT_NE(r.output.find("host op ok"), std::string::npos) << r.output;
}

}  // namespace
