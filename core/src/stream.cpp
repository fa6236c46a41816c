#include "tessera/core/stream.hpp"

#include <utility>

#include "tessera/core/cuda_check.hpp"

namespace tessera {

Stream::Stream(exec::Space space, Priority priority) : space_(space) {
#if TESSERA_HAVE_CUDA
  if (space_ == exec::Space::Device) {
    cudaStream_t s = nullptr;
    int least = 0, greatest = 0;  // numerically: greatest priority is the lowest number
    TESSERA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TESSERA_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                    priority == Priority::High ? greatest : least));
    h_ = s;
  }
#else
  (void)priority;
#endif
}
Stream::~Stream() {
#if TESSERA_HAVE_CUDA
  if (h_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(h_));
#endif
}
Stream::Stream(Stream&& o) noexcept : space_(o.space_), h_(std::exchange(o.h_, nullptr)) {}
Stream& Stream::operator=(Stream&& o) noexcept {
  std::swap(space_, o.space_);
  std::swap(h_, o.h_);
  return *this;
}
void Stream::synchronize() const { exec::fence(exec()); }

Event::Event(exec::Space space) : space_(space) {
#if TESSERA_HAVE_CUDA
  if (space_ == exec::Space::Device) {
    cudaEvent_t e = nullptr;
    TESSERA_CUDA_CHECK(cudaEventCreate(&e));
    h_ = e;
  }
#endif
}
Event::~Event() {
#if TESSERA_HAVE_CUDA
  if (h_) (void)cudaEventDestroy(static_cast<cudaEvent_t>(h_));
#endif
}
void Event::record(void* stream) {
#if TESSERA_HAVE_CUDA
  if (h_) {
    TESSERA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(h_), static_cast<cudaStream_t>(stream)));
    return;
  }
#endif
  (void)stream;
  t_ = std::chrono::steady_clock::now();
}
void Event::synchronize() const {
#if TESSERA_HAVE_CUDA
  if (h_) TESSERA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(h_)));
#endif
}
void Event::wait_on(void* stream) const {
#if TESSERA_HAVE_CUDA
  if (h_) TESSERA_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(h_), 0));
#else
  (void)stream;
#endif
}
double Event::elapsed_ms(const Event& a, const Event& b) {
#if TESSERA_HAVE_CUDA
  if (a.h_ && b.h_) {
    float ms = 0;
    TESSERA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(b.h_)));
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(a.h_), static_cast<cudaEvent_t>(b.h_)));
    return double(ms);
  }
#endif
  return std::chrono::duration<double, std::milli>(b.t_ - a.t_).count();
}

}  // namespace tessera
