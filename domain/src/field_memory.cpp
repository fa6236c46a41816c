#include "tessera/domain/field_memory.hpp"

#include <fmt/format.h>

#include "tessera/core/device.hpp"
#include "tessera/core/error.hpp"

namespace tessera::domain {

MemKind field_memkind(exec::Space space, bool managed) {
  if (space == exec::Space::Device && managed) return MemKind::Managed;
  return default_memkind(space);
}

void check_managed_fits(MemKind kind, std::size_t bytes, const std::string& what) {
  if (kind != MemKind::Managed) return;
  const auto [free_b, total_b] = device::mem_info();
  const std::size_t reserve = std::size_t(512) << 20;  // CUDA context, kernels' scratch, halo buffers
  if (bytes + reserve > free_b)
    TESSERA_THROW(fmt::format("{}: parallel.memory: managed needs {:.2f} GiB of fields, but the GPU has only {:.2f} "
                              "GiB free of {:.2f} GiB (with {:.2f} GiB kept in reserve); managed memory is never "
                              "oversubscribed. Use parallel.memory: device, a smaller grid, or more GPUs",
                              what, double(bytes) / 1073741824.0, double(free_b) / 1073741824.0,
                              double(total_b) / 1073741824.0, double(reserve) / 1073741824.0));
}

}  // namespace tessera::domain
