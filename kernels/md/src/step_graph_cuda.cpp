// CUDA graphs for the MD step with a device-side rebuild decision (see step_graph.hpp).
#include "tessera/md/step_graph.hpp"

#include <string>

#include "tessera/core/error.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>

#include "tessera/core/cuda_check.hpp"
#endif

namespace tessera::md {

#if TESSERA_CUDA_COMPILER
namespace {
struct Counters {
  unsigned long long step;
  unsigned long long builds;
  int flag;       // some particle moved more than skin/2 (set by any block, reset by the last)
  unsigned done;  // blocks finished
};

constexpr int kBlock = 256;

// The rebuild test: any |dr|^2 > limit2. The last block to finish reads the flag, sets the condition of
// the IF node, resets the flag for the next step, counts the build and advances the step counter (which
// the step's integrator kernels have already read).
__global__ void __launch_bounds__(kBlock) check_kernel(DisplacementCheck c, Counters* k, cudaGraphConditionalHandle h) {
  const int64_t i = int64_t(blockIdx.x) * kBlock + threadIdx.x;
  bool far = false;
  if (i < c.n) {
    const double dx = c.box.image(c.x[i] - c.x0[i], 0), dy = c.box.image(c.y[i] - c.y0[i], 1),
                 dz = c.box.image(c.z[i] - c.z0[i], 2);
    far = dx * dx + dy * dy + dz * dz > c.limit2;
  }
  const int any = __syncthreads_or(far);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    if (any) atomicOr(&k->flag, 1);
    __threadfence();
    last = atomicAdd(&k->done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    const int f = atomicExch(&k->flag, 0);
    k->done = 0;
    if (f) k->builds += 1;
    k->step += 1;
    cudaGraphSetConditional(h, f ? 1u : 0u);
  }
}
}  // namespace

struct StepGraphs::Impl {
  cudaStream_t stream = nullptr, body_stream = nullptr;
  cudaGraphExec_t exec[2] = {nullptr, nullptr};
  Counters* counters = nullptr;
  Impl() {
    TESSERA_CUDA_CHECK(cudaStreamCreate(&stream));
    TESSERA_CUDA_CHECK(cudaStreamCreate(&body_stream));
    TESSERA_CUDA_CHECK(cudaMalloc(&counters, sizeof(Counters)));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(Counters), stream));
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Impl() {
    // No throwing from a destructor: errors here only leak.
    for (auto& e : exec)
      if (e) cudaGraphExecDestroy(e);
    if (stream) cudaStreamSynchronize(stream);
    if (counters) cudaFree(counters);
    if (body_stream) cudaStreamDestroy(body_stream);
    if (stream) cudaStreamDestroy(stream);
  }
};

StepGraphs::StepGraphs() : impl_(std::make_unique<Impl>()) {}
StepGraphs::~StepGraphs() = default;
StepGraphs::StepGraphs(StepGraphs&&) noexcept = default;
StepGraphs& StepGraphs::operator=(StepGraphs&&) noexcept = default;

bool StepGraphs::supported() {
  int dev = 0, rt = 0, drv = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaRuntimeGetVersion(&rt) != cudaSuccess || cudaDriverGetVersion(&drv) != cudaSuccess) return false;
  return rt >= 12040 && drv >= 12040;  // conditional IF nodes and capture into a body graph
}

void StepGraphs::record(int v, const Launcher& pre, const DisplacementCheck& check, const Launcher& rebuild,
                        const Launcher& post) {
  TESSERA_REQUIRE(v == 0 || v == 1, "StepGraphs: variant must be 0 or 1");
  TESSERA_REQUIRE(check.n > 0, "StepGraphs: nothing to record for zero particles");
  Impl& m = *impl_;
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  cudaGraph_t g = nullptr;
  TESSERA_CUDA_CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  TESSERA_CUDA_CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
  const exec::Exec ex(exec::Space::Device, m.stream);
  TESSERA_CUDA_CHECK(cudaStreamBeginCaptureToGraph(m.stream, g, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
  cudaGraph_t body = nullptr;
  try {
    pre(ex);
    const unsigned grid = unsigned((check.n + kBlock - 1) / kBlock);
    check_kernel<<<grid, kBlock, 0, m.stream>>>(check, m.counters, h);
    TESSERA_CUDA_CHECK_LAUNCH("md::rebuild_check");
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 0;
    TESSERA_CUDA_CHECK(cudaStreamGetCaptureInfo(m.stream, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    cudaGraphNode_t node;
    TESSERA_CUDA_CHECK(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &cp));
    body = cp.conditional.phGraph_out[0];
    TESSERA_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(m.stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
    post(ex);
  } catch (...) {
    cudaGraph_t tmp;
    cudaStreamEndCapture(m.stream, &tmp);
    cudaGraphDestroy(g);
    throw;
  }
  TESSERA_CUDA_CHECK(cudaStreamEndCapture(m.stream, &g));
  try {
    TESSERA_CUDA_CHECK(cudaStreamBeginCaptureToGraph(m.body_stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    try {
      rebuild(exec::Exec(exec::Space::Device, m.body_stream));
    } catch (...) {
      cudaGraph_t tmp;
      cudaStreamEndCapture(m.body_stream, &tmp);
      throw;
    }
    TESSERA_CUDA_CHECK(cudaStreamEndCapture(m.body_stream, &body));
    if (m.exec[v]) {
      TESSERA_CUDA_CHECK(cudaGraphExecDestroy(m.exec[v]));
      m.exec[v] = nullptr;
    }
    TESSERA_CUDA_CHECK(cudaGraphInstantiate(&m.exec[v], g, 0));
    TESSERA_CUDA_CHECK(cudaGraphUpload(m.exec[v], m.stream));
  } catch (...) {
    cudaGraphDestroy(g);
    throw;
  }
  TESSERA_CUDA_CHECK(cudaGraphDestroy(g));
}

bool StepGraphs::recorded(int v) const { return impl_ && (v == 0 || v == 1) && impl_->exec[v] != nullptr; }

void StepGraphs::launch(int v) {
  TESSERA_REQUIRE(recorded(v), "StepGraphs: launch of a variant that was not recorded");
  TESSERA_CUDA_CHECK(cudaGraphLaunch(impl_->exec[v], impl_->stream));
}

void StepGraphs::clear() {
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  for (auto& e : impl_->exec)
    if (e) {
      TESSERA_CUDA_CHECK(cudaGraphExecDestroy(e));
      e = nullptr;
    }
}

exec::Exec StepGraphs::exec() const { return exec::Exec(exec::Space::Device, impl_->stream); }

const uint64_t* StepGraphs::device_step() const {
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "step counter width");
  return reinterpret_cast<const uint64_t*>(&impl_->counters->step);
}

void StepGraphs::set_step(uint64_t step) {
  const unsigned long long s = step;
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(&impl_->counters->step, &s, sizeof(s), cudaMemcpyHostToDevice, impl_->stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));  // s lives on this stack frame
}

int64_t StepGraphs::builds() {
  unsigned long long b = 0;
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(&b, &impl_->counters->builds, sizeof(b), cudaMemcpyDeviceToHost, impl_->stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  return int64_t(b);
}

#else

struct StepGraphs::Impl {};
StepGraphs::StepGraphs() = default;
StepGraphs::~StepGraphs() = default;
StepGraphs::StepGraphs(StepGraphs&&) noexcept = default;
StepGraphs& StepGraphs::operator=(StepGraphs&&) noexcept = default;
bool StepGraphs::supported() { return false; }
void StepGraphs::record(int, const Launcher&, const DisplacementCheck&, const Launcher&, const Launcher&) {
  TESSERA_THROW("md: CUDA-graph steps need a CUDA build (TESSERA_ENABLE_CUDA=ON) and a GPU");
}
bool StepGraphs::recorded(int) const { return false; }
void StepGraphs::launch(int) { TESSERA_THROW("md: CUDA-graph steps need a CUDA build"); }
void StepGraphs::clear() {}
exec::Exec StepGraphs::exec() const { return exec::Exec(exec::Space::Host); }
const uint64_t* StepGraphs::device_step() const { return nullptr; }
void StepGraphs::set_step(uint64_t) {}
int64_t StepGraphs::builds() { return 0; }

#endif

}  // namespace tessera::md
