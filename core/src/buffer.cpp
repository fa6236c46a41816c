#include "tessera/core/buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "tessera/core/cuda_check.hpp"

namespace tessera {

const char* to_string(MemKind k) {
  switch (k) {
    case MemKind::Host: return "host";
    case MemKind::Pinned: return "pinned";
    case MemKind::Device: return "device";
    case MemKind::Managed: return "managed";
  }
  return "?";
}

MemKind parse_memkind(const std::string& s) {
  if (s == "host") return MemKind::Host;
  if (s == "pinned") return MemKind::Pinned;
  if (s == "device") return MemKind::Device;
  if (s == "managed" || s == "unified") return MemKind::Managed;
  TESSERA_THROW("unknown memory kind '" + s + "': expected host, pinned, device or managed");
}

MemKind default_memkind(exec::Space s) { return s == exec::Space::Device ? MemKind::Device : MemKind::Host; }

bool accessible_from(MemKind k, exec::Space s) {
  if (k == MemKind::Managed) return true;
  if (s == exec::Space::Device) return k == MemKind::Device;
  return k == MemKind::Host || k == MemKind::Pinned;
}

namespace detail {

namespace {
[[noreturn, maybe_unused]] void need_cuda(MemKind k, const char* label) {
  TESSERA_THROW(std::string("cannot allocate '") + label + "' in " + to_string(k) +
                " memory: this build has no CUDA back end (configure with the 'cuda' preset, or run with --device cpu)");
}
std::string gib(std::size_t b) { return std::to_string(double(b) / double(1ull << 30)).substr(0, 6) + " GiB"; }
}  // namespace

void* mem_alloc(std::size_t bytes, MemKind kind, const char* label) {
  void* p = nullptr;
  switch (kind) {
    case MemKind::Host: {
      const std::size_t align = 64;
      p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
      if (!p) TESSERA_THROW(std::string("host allocation of ") + gib(bytes) + " for '" + label + "' failed");
      return p;
    }
    case MemKind::Pinned:
#if TESSERA_HAVE_CUDA
      if (cudaMallocHost(&p, bytes) == cudaSuccess) return p;
      (void)cudaGetLastError();  // no driver: fall back to pageable memory
#endif
      return mem_alloc(bytes, MemKind::Host, label);
    case MemKind::Device:
#if TESSERA_HAVE_CUDA
    {
      const cudaError_t e = cudaMalloc(&p, bytes);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        std::size_t fr = 0, tot = 0;
        (void)cudaMemGetInfo(&fr, &tot);
        TESSERA_THROW(std::string("cudaMalloc of ") + gib(bytes) + " for '" + label + "' failed (" +
                      cudaGetErrorString(e) + "; " + gib(fr) + " free of " + gib(tot) +
                      "): use a smaller grid, more GPUs, or a smaller storage precision");
      }
      return p;
    }
#else
      need_cuda(kind, label);
#endif
    case MemKind::Managed:
#if TESSERA_HAVE_CUDA
    {
      // Never oversubscribe: managed memory beyond what the card has free can hang the GPU.
      std::size_t fr = 0, tot = 0;
      TESSERA_CUDA_CHECK(cudaMemGetInfo(&fr, &tot));
      const std::size_t reserve = std::size_t(256) << 20;  // leave room for the runtime and kernels
      if (bytes + reserve > fr)
        TESSERA_THROW(std::string("refusing managed allocation of ") + gib(bytes) + " for '" + label + "': only " +
                      gib(fr) + " of " + gib(tot) +
                      " is free on the GPU (managed memory is never oversubscribed). Use device memory, a "
                      "smaller problem, or more GPUs");
      TESSERA_CUDA_CHECK(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
      return p;
    }
#else
      need_cuda(kind, label);
#endif
  }
  TESSERA_THROW("invalid memory kind");
}

void mem_free(void* p, MemKind kind) noexcept {
  if (!p) return;
  switch (kind) {
    case MemKind::Host: std::free(p); return;
    case MemKind::Pinned:
#if TESSERA_HAVE_CUDA
    {
      cudaPointerAttributes a{};
      if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost) {
        (void)cudaFreeHost(p);
        return;
      }
      (void)cudaGetLastError();
    }
#endif
      std::free(p);
      return;
    case MemKind::Device:
    case MemKind::Managed:
#if TESSERA_HAVE_CUDA
      (void)cudaFree(p);
#endif
      return;
  }
}

void mem_copy(void* dst, MemKind dk, const void* src, MemKind sk, std::size_t bytes, void* stream) {
  if (bytes == 0) return;
  const bool host_only = (dk == MemKind::Host || dk == MemKind::Pinned) && (sk == MemKind::Host || sk == MemKind::Pinned);
#if TESSERA_HAVE_CUDA
  if (!host_only) {
    auto st = static_cast<cudaStream_t>(stream);
    if (stream) {
      TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st));
    } else {
      TESSERA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
    }
    return;
  }
#else
  (void)stream;
  if (!host_only) TESSERA_THROW("device copy requested in a build without CUDA");
#endif
  std::memcpy(dst, src, bytes);
}

void mem_fill_zero(void* p, MemKind kind, std::size_t bytes, void* stream) {
  if (!p || bytes == 0) return;
#if TESSERA_HAVE_CUDA
  if (kind == MemKind::Device || kind == MemKind::Managed) {
    TESSERA_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, static_cast<cudaStream_t>(stream)));
    if (!stream) TESSERA_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return;
  }
#else
  (void)stream;
  (void)kind;
#endif
  std::memset(p, 0, bytes);
}

void mem_prefetch(void* p, std::size_t bytes, exec::Space to, void* stream) {
#if TESSERA_HAVE_CUDA
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  cudaMemLocation loc{};
  if (to == exec::Space::Device) {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = dev;
  } else {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  }
  TESSERA_CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, loc, 0, static_cast<cudaStream_t>(stream)));
#else
  (void)p, (void)bytes, (void)to, (void)stream;
#endif
}

void mem_advise(void* p, std::size_t bytes, int advice) {
#if TESSERA_HAVE_CUDA
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  cudaMemLocation dloc{cudaMemLocationTypeDevice, dev};
  cudaMemLocation hloc{cudaMemLocationTypeHost, 0};
  switch (MemAdvice(advice)) {
    case MemAdvice::ReadMostly: TESSERA_CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, dloc)); break;
    case MemAdvice::PreferDevice:
      TESSERA_CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, dloc));
      break;
    case MemAdvice::PreferHost:
      TESSERA_CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, hloc));
      break;
    case MemAdvice::AccessedByDevice:
      TESSERA_CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetAccessedBy, dloc));
      break;
  }
#else
  (void)p, (void)bytes, (void)advice;
#endif
}

}  // namespace detail
}  // namespace tessera
