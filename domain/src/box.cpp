#include "tessera/domain/box.hpp"

#include <fmt/format.h>

namespace tessera::domain {

std::string to_string(Int3 p) { return fmt::format("({},{},{})", p.x, p.y, p.z); }

std::string to_string(const Box3& b) {
  return fmt::format("[{},{})x[{},{})x[{},{})", b.lo.x, b.hi.x, b.lo.y, b.hi.y, b.lo.z, b.hi.z);
}

}  // namespace tessera::domain
