// CUDA streams and events behind plain C++ types (host builds get working no-op streams and
// wall-clock events, so solver code is the same on both back ends).
#pragma once
#include <chrono>

#include "tessera/core/exec.hpp"

namespace tessera {

class Stream {
 public:
  enum class Priority { Normal, High };
  // Creates a non-blocking CUDA stream on the device. High: the device's greatest stream priority, for
  // communication (NCCL) work that runs beside a grid-filling kernel: the block scheduler then serves the
  // few blocks of the communication kernel first instead of after every block of the big kernel.
  explicit Stream(exec::Space space, Priority priority = Priority::Normal);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  void* handle() const { return h_; }  // cudaStream_t
  exec::Exec exec() const { return exec::Exec(space_, h_); }
  void synchronize() const;

 private:
  exec::Space space_ = exec::Space::Host;
  void* h_ = nullptr;
};

class Event {
 public:
  explicit Event(exec::Space space);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(void* stream = nullptr);
  void synchronize() const;
  // Milliseconds between two recorded events (CUDA events on the device, steady clock on the host).
  static double elapsed_ms(const Event& start, const Event& stop);
  // Make later work on `stream` wait for this event (device); no-op on the host.
  void wait_on(void* stream) const;

 private:
  exec::Space space_;
  void* h_ = nullptr;
  std::chrono::steady_clock::time_point t_{};
};

}  // namespace tessera
