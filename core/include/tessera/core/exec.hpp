// One kernel source, two back ends.
//
// A kernel body is a functor or lambda callable on host and device (TESSERA_HD / TESSERA_LAMBDA).
// exec::parallel_for runs it on the OpenMP host back end or, in translation units compiled by nvcc
// (see tessera_kernel_sources() in CMake), on the CUDA back end. Reductions go through Thrust/CUB
// on the device and OpenMP on the host. Call sites never #ifdef __CUDACC__.
//
//   exec::parallel_for(ex, "lbm::init", Range3{nx, ny, nz}, TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {...});
//   double s = exec::reduce_sum<double>(ex, "mass", n, TESSERA_LAMBDA(int64_t i) { return rho[i]; });
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <omp.h>

#include "tessera/core/config_macros.hpp"
#include "tessera/core/error.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>
#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::exec {

// Where work runs. Host = OpenMP threads; Device = the CUDA GPU selected for this rank.
enum class Space { Host, Device };

Space parse_space(const std::string& s);  // "cpu"|"host" or "gpu"|"cuda"|"device"
const char* to_string(Space s);
// True when this build contains the CUDA back end (independent of whether a GPU is present).
bool cuda_enabled();

// Execution context: the space and, for the device, the CUDA stream (nullptr = default stream).
struct Exec {
  Space space = Space::Host;
  void* stream = nullptr;  // cudaStream_t when space == Device
  Exec() = default;
  Exec(Space s, void* st = nullptr) : space(s), stream(st) {}  // NOLINT(implicit)
  bool on_device() const { return space == Space::Device; }
};

struct Range2 {
  int64_t n0, n1;  // index 0 varies fastest in memory
};
struct Range3 {
  int64_t n0, n1, n2;
};

// Wait until all work submitted to ex has finished.
void fence(const Exec& ex);

// Reduction operators usable on both back ends.
struct Sum {
  template <class T>
  TESSERA_HD T operator()(const T& a, const T& b) const { return a + b; }
};
struct Min {
  template <class T>
  TESSERA_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct Max {
  template <class T>
  TESSERA_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

// Fixed-size vector of sums: reduce several quantities in one pass (mass, momentum, energy, ...).
template <class T, int N>
struct Vec {
  T v[N];
  TESSERA_HD T& operator[](int i) { return v[i]; }
  TESSERA_HD const T& operator[](int i) const { return v[i]; }
  TESSERA_HD friend Vec operator+(const Vec& a, const Vec& b) {
    Vec r;
    for (int i = 0; i < N; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
  TESSERA_HD static Vec zero() {
    Vec r;
    for (int i = 0; i < N; ++i) r.v[i] = T(0);
    return r;
  }
  std::array<T, N> to_array() const {
    std::array<T, N> a;
    for (int i = 0; i < N; ++i) a[i] = v[i];
    return a;
  }
};

namespace detail {
[[noreturn]] void no_device_backend(const char* label);

template <class F>
struct Flatten3 {  // index -> (i,j,k) for reductions over a 3-D range
  int64_t n0, n1;
  F f;
  TESSERA_HD auto operator()(int64_t idx) const {
    const int64_t i = idx % n0;
    const int64_t r = idx / n0;
    return f(i, r % n1, r / n1);
  }
};

#if TESSERA_CUDA_COMPILER
template <class F>
__global__ void kernel_1d(int64_t n, F f) {
  const int64_t stride = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}
template <class F>
__global__ void kernel_2d(int64_t n0, int64_t n1, F f) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n0) return;
  for (int64_t j = blockIdx.y; j < n1; j += gridDim.y) f(i, j);
}
template <class F>
__global__ void kernel_3d(int64_t n0, int64_t n1, int64_t n2, F f) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n0) return;
  for (int64_t k = blockIdx.z; k < n2; k += gridDim.z)
    for (int64_t j = blockIdx.y; j < n1; j += gridDim.y) f(i, j, k);
}
inline unsigned clamp_grid(int64_t n, int64_t maxv) { return unsigned(n < 1 ? 1 : (n > maxv ? maxv : n)); }

#endif
}  // namespace detail

// ---------------- parallel_for ----------------
template <class F>
void parallel_for(const Exec& ex, const char* label, int64_t n, F f) {
  if (n <= 0) return;
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    constexpr int block = 256;
    const unsigned grid = detail::clamp_grid((n + block - 1) / block, int64_t(1) << 30);
    detail::kernel_1d<<<grid, block, 0, static_cast<cudaStream_t>(ex.stream)>>>(n, f);
    TESSERA_CUDA_CHECK_LAUNCH(label);
    return;
#else
    detail::no_device_backend(label);
#endif
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) f(i);
}

template <class F>
void parallel_for(const Exec& ex, const char* label, Range2 r, F f) {
  if (r.n0 <= 0 || r.n1 <= 0) return;
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    const int block = r.n0 >= 128 ? 128 : 32;
    dim3 grid(detail::clamp_grid((r.n0 + block - 1) / block, int64_t(1) << 30), detail::clamp_grid(r.n1, 65535));
    detail::kernel_2d<<<grid, block, 0, static_cast<cudaStream_t>(ex.stream)>>>(r.n0, r.n1, f);
    TESSERA_CUDA_CHECK_LAUNCH(label);
    return;
#else
    detail::no_device_backend(label);
#endif
  }
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < r.n1; ++j)
    for (int64_t i = 0; i < r.n0; ++i) f(i, j);
}

template <class F>
void parallel_for(const Exec& ex, const char* label, Range3 r, F f) {
  if (r.n0 <= 0 || r.n1 <= 0 || r.n2 <= 0) return;
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    const int block = r.n0 >= 128 ? 128 : 32;
    dim3 grid(detail::clamp_grid((r.n0 + block - 1) / block, int64_t(1) << 30), detail::clamp_grid(r.n1, 65535),
              detail::clamp_grid(r.n2, 65535));
    detail::kernel_3d<<<grid, block, 0, static_cast<cudaStream_t>(ex.stream)>>>(r.n0, r.n1, r.n2, f);
    TESSERA_CUDA_CHECK_LAUNCH(label);
    return;
#else
    detail::no_device_backend(label);
#endif
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < r.n2; ++k)
    for (int64_t j = 0; j < r.n1; ++j)
      for (int64_t i = 0; i < r.n0; ++i) f(i, j, k);
}

// ---------------- reductions ----------------
// transform_reduce: op(init, f(0), f(1), ...). Deterministic on the host for a fixed thread count
// (per-thread partials combined in thread order).
template <class T, class F, class Op>
T transform_reduce(const Exec& ex, const char* label, int64_t n, T init, F f, Op op) {
  if (n <= 0) return init;
  if (ex.on_device()) {
#if TESSERA_CUDA_COMPILER
    (void)label;
    T r = thrust::transform_reduce(thrust::cuda::par.on(static_cast<cudaStream_t>(ex.stream)),
                                   thrust::counting_iterator<int64_t>(0), thrust::counting_iterator<int64_t>(n), f,
                                   init, op);
    TESSERA_CUDA_CHECK(cudaGetLastError());
    return r;
#else
    detail::no_device_backend(label);
#endif
  }
  // init must be the identity of op (0 for Sum, +max for Min, lowest for Max).
  const int nt = omp_get_max_threads();
  std::vector<T> partial(size_t(nt), init);
#pragma omp parallel num_threads(nt)
  {
    T acc = init;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) acc = op(acc, T(f(i)));
    partial[size_t(omp_get_thread_num())] = acc;
  }
  T r = init;
  for (int t = 0; t < nt; ++t) r = op(r, partial[size_t(t)]);
  return r;
}

template <class T, class F, class Op>
T transform_reduce(const Exec& ex, const char* label, Range3 rg, T init, F f, Op op) {
  const int64_t n = rg.n0 * rg.n1 * rg.n2;
  return transform_reduce(ex, label, n, init, detail::Flatten3<F>{rg.n0, rg.n1, f}, op);
}

template <class T, class R, class F>
T reduce_sum(const Exec& ex, const char* label, R range, F f) {
  return transform_reduce(ex, label, range, T(0), f, Sum{});
}
template <class T, class R, class F>
T reduce_min(const Exec& ex, const char* label, R range, F f) {
  return transform_reduce(ex, label, range, std::numeric_limits<T>::max(), f, Min{});
}
template <class T, class R, class F>
T reduce_max(const Exec& ex, const char* label, R range, F f) {
  return transform_reduce(ex, label, range, std::numeric_limits<T>::lowest(), f, Max{});
}
// Several sums in one pass: f returns exec::Vec<T, N>.
template <class T, int N, class R, class F>
std::array<T, N> reduce_sums(const Exec& ex, const char* label, R range, F f) {
  return transform_reduce(ex, label, range, Vec<T, N>::zero(), f, Sum{}).to_array();
}

}  // namespace tessera::exec
