// A whole MD step as one CUDA graph, with the neighbour-list rebuild decided on the device.
//
//   pre (integrator, first half) -> displacement check -> IF(rebuild) -> post (forces, second half)
//
// The check kernel compares every particle's displacement since the last build with skin/2 (the same
// test as NeighborList::needs_rebuild, in the same arithmetic) and sets the condition of a conditional
// graph node (CUDA 12.4+); the rebuild body (NeighborList::build_async) runs only when it is set. No
// value comes back to the host during a step, so the host queues steps as fast as it can launch one
// graph each (a few microseconds) and the card never waits for it. The check's last block also
// advances a step counter in device memory (read by the Langevin kernel) and counts the builds.
//
// Each recorded variant (e.g. with and without energies) is its own executable graph; all variants share
// the stream and the counters. The stream is a blocking one: work on the legacy default stream (copies,
// thermo reductions) stays ordered with the graphs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "tessera/core/exec.hpp"
#include "tessera/md/box.hpp"

namespace tessera::md {

// Inputs of the rebuild test: current and reference positions of n particles, limit2 = (skin/2)^2.
struct DisplacementCheck {
  const double *x, *y, *z, *x0, *y0, *z0;
  Box box;
  int64_t n = 0;
  double limit2 = 0;
};

class StepGraphs {
 public:
  using Launcher = std::function<void(const exec::Exec&)>;
  StepGraphs();
  ~StepGraphs();
  StepGraphs(StepGraphs&&) noexcept;
  StepGraphs& operator=(StepGraphs&&) noexcept;
  // A CUDA build with a device whose runtime supports conditional graph nodes.
  static bool supported();
  // Records variant v (0 or 1): pre, the check, the conditional rebuild, post. Each launcher enqueues its
  // kernels on the Exec it is given (and must not synchronise or allocate). Replaces an earlier v.
  void record(int v, const Launcher& pre, const DisplacementCheck& check, const Launcher& rebuild, const Launcher& post);
  bool recorded(int v) const;
  void launch(int v);  // one step, asynchronous
  void clear();        // drop every recorded graph (after buffers were reallocated)
  exec::Exec exec() const;
  // The device step counter (advanced by every launch) and the number of builds the graphs made.
  const uint64_t* device_step() const;
  void set_step(uint64_t step);  // ordered on the graphs' stream
  int64_t builds();              // synchronises the stream
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::md
