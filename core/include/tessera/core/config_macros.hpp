// Compile-time facts about this build and the host/device annotation macros.
#pragma once

#if defined(TESSERA_WITH_CUDA)
#define TESSERA_HAVE_CUDA 1
#else
#define TESSERA_HAVE_CUDA 0
#endif

// True while nvcc compiles this translation unit (host or device pass).
#if defined(__CUDACC__)
#define TESSERA_CUDA_COMPILER 1
#define TESSERA_HD __host__ __device__
#define TESSERA_DEVICE __device__
#define TESSERA_FORCEINLINE __forceinline__
// A lambda body usable on both back ends: TESSERA_LAMBDA(int64_t i) { ... }
#define TESSERA_LAMBDA [=] __host__ __device__
#else
#define TESSERA_CUDA_COMPILER 0
#define TESSERA_HD
#define TESSERA_DEVICE
#define TESSERA_FORCEINLINE inline __attribute__((always_inline))
#define TESSERA_LAMBDA [=]
#endif

// True only in nvcc's device pass.
#if defined(__CUDA_ARCH__)
#define TESSERA_DEVICE_PASS 1
#else
#define TESSERA_DEVICE_PASS 0
#endif
