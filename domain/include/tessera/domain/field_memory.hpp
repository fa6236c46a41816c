// Where a solver's fields live on a GPU run: device memory (the default) or managed (unified) memory.
//
// Managed memory (parallel.memory: managed) lets the host touch fields without explicit copies (debug
// prints, in-situ analysis) at the price of page migration if both sides use them. Tessera keeps the
// pages on the GPU: each field is advised to prefer the device (cudaMemAdviseSetPreferredLocation) and
// prefetched there (cudaMemPrefetchAsync) before the first step, so a step never faults. Managed
// memory is never oversubscribed: a run whose fields would not fit in the GPU's free memory is refused
// before anything is allocated (oversubscription turns every step into page migration and can hang).
#pragma once
#include <cstddef>
#include <string>

#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/domain/field.hpp"

namespace tessera::domain {

// Memory kind for a solver's fields: managed only when asked for on the device.
MemKind field_memkind(exec::Space space, bool managed);

// Throws a clear error when `bytes` of managed fields (plus a reserve for the runtime) exceed the
// GPU's free memory; does nothing for other kinds. `what` names the solver and case for the message.
void check_managed_fits(MemKind kind, std::size_t bytes, const std::string& what);

// Managed fields: advise the pages to stay on the device and prefetch them there on ex's stream.
// No-op for other kinds and on host runs.
template <class T>
void place_on_device(Field<T>& f, const exec::Exec& ex) {
  if (f.kind() != MemKind::Managed || !ex.on_device()) return;
  f.buffer().advise(MemAdvice::PreferDevice);
  f.buffer().advise(MemAdvice::AccessedByDevice);
  f.buffer().prefetch(exec::Space::Device, ex.stream);
}

}  // namespace tessera::domain
