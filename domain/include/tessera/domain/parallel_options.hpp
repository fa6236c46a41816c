// The `parallel` section of a grid solver's case file: how halos travel and where fields live.
//
//   parallel:
//     transport: auto     # host | cuda_aware | nccl | auto   (see transport.hpp)
//     memory: device      # device | managed                  (GPU runs; see field_memory.hpp)
//     overlap: true       # interior update while the halo moves (solvers that split their update)
//
// Both solvers (lbm, weather) declare these keys through add_parallel_keys() so that the names, the
// choices and the help text are the same everywhere; `--set parallel.transport=nccl` on the command
// line overrides the case like any key.
#pragma once
#include "tessera/core/buffer.hpp"
#include "tessera/core/case.hpp"
#include "tessera/core/schema.hpp"
#include "tessera/domain/transport.hpp"

namespace tessera::domain {

struct ParallelOptions {
  Transport transport = Transport::HostStaged;
  bool managed = false;  // fields in managed (unified) memory instead of device memory on GPU runs
  bool overlap = true;   // update interior cells while the halo moves, the boundary shell after
};

// Declares parallel.transport (default "host") and, for solvers that support them, parallel.memory
// (default "device") and parallel.overlap (default overlap_default: each solver picks what measured faster).
void add_parallel_keys(Schema& s, bool memory = true, bool overlap = true, bool overlap_default = true);
ParallelOptions parallel_from_case(const Case& c);

}  // namespace tessera::domain
