// Buffer<T>: the one owner of memory in Tessera. RAII, move-only, one memory kind per buffer.
//
//   device  : cudaMalloc (default for fields on a GPU run)
//   managed : cudaMallocManaged, with prefetch and advice; refuses to allocate more than the card has
//             free (oversubscribed managed memory can hang a GPU)
//   pinned  : cudaMallocHost (staging for halos and I/O); plain host memory in a host-only build
//   host    : aligned host memory
//
// copy() moves data between any two kinds. No raw allocation happens anywhere else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "tessera/core/config_macros.hpp"
#include "tessera/core/exec.hpp"

namespace tessera {

enum class MemKind { Host, Pinned, Device, Managed };
const char* to_string(MemKind k);
MemKind parse_memkind(const std::string& s);
// The kind a field should live in for a given execution space ("device" on a GPU run, "host" otherwise).
MemKind default_memkind(exec::Space s);
// Whether code running in space s may dereference memory of kind k.
bool accessible_from(MemKind k, exec::Space s);

namespace detail {
void* mem_alloc(std::size_t bytes, MemKind kind, const char* label);
void mem_free(void* p, MemKind kind) noexcept;
void mem_copy(void* dst, MemKind dk, const void* src, MemKind sk, std::size_t bytes, void* stream);
void mem_fill_zero(void* p, MemKind kind, std::size_t bytes, void* stream);
void mem_prefetch(void* p, std::size_t bytes, exec::Space to, void* stream);
void mem_advise(void* p, std::size_t bytes, int advice);
}  // namespace detail

// Advice for managed memory (maps to cudaMemAdvise).
enum class MemAdvice { ReadMostly = 1, PreferDevice = 2, PreferHost = 3, AccessedByDevice = 4 };

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t n, MemKind kind, const char* label = "buffer") : n_(n), kind_(kind) {
    if (n_ > 0) p_ = static_cast<T*>(detail::mem_alloc(n_ * sizeof(T), kind_, label));
  }
  ~Buffer() { reset(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), kind_(o.kind_) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      kind_ = o.kind_;
    }
    return *this;
  }
  void reset() noexcept {
    if (p_) detail::mem_free(p_, kind_);
    p_ = nullptr;
    n_ = 0;
  }

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  bool empty() const { return n_ == 0; }
  MemKind kind() const { return kind_; }
  // Element access for host-accessible kinds only.
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }

  void zero(void* stream = nullptr) { detail::mem_fill_zero(p_, kind_, bytes(), stream); }
  // Managed memory only (no-op for other kinds): move pages to where they will be used.
  void prefetch(exec::Space to, void* stream = nullptr) {
    if (kind_ == MemKind::Managed) detail::mem_prefetch(p_, bytes(), to, stream);
  }
  void advise(MemAdvice a) {
    if (kind_ == MemKind::Managed) detail::mem_advise(p_, bytes(), int(a));
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
  MemKind kind_ = MemKind::Host;
};

// Copy count elements (default: all of src) between buffers of any kinds. Synchronous unless a
// stream is given and both sides allow asynchronous copies.
template <class T>
void copy(Buffer<T>& dst, const Buffer<T>& src, void* stream = nullptr) {
  TESSERA_REQUIRE(dst.size() >= src.size(), "destination buffer is smaller than the source");
  detail::mem_copy(dst.data(), dst.kind(), src.data(), src.kind(), src.bytes(), stream);
}
template <class T>
void copy_n(T* dst, MemKind dk, const T* src, MemKind sk, std::size_t count, void* stream = nullptr) {
  detail::mem_copy(dst, dk, src, sk, count * sizeof(T), stream);
}

}  // namespace tessera
