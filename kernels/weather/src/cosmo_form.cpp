// Which form of each COSMO stencil ran last: hdiff_last_form() and vadv_last_form() read it, the paths
// note it as they launch (cosmo_cuda.hpp). For the tests (that a form under test really ran, not its
// fallback) and the benchmark records.
#include <atomic>

#include "cosmo_cuda.hpp"
#include "tessera/weather/hdiff.hpp"
#include "tessera/weather/vadv.hpp"

namespace tessera::weather {

namespace {
std::atomic<const char*> g_last_form[2] = {"portable", "portable"};  // by detail::Stencil
}

namespace detail {
void note_form(Stencil stencil, const char* form) { g_last_form[int(stencil)].store(form); }
}  // namespace detail

const char* hdiff_last_form() { return g_last_form[int(detail::Stencil::Hdiff)].load(); }
const char* vadv_last_form() { return g_last_form[int(detail::Stencil::Vadv)].load(); }

}  // namespace tessera::weather
