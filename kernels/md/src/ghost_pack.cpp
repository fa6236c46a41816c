// Ghost position pack/unpack kernels (see ghost_pack.hpp). One source for host and device.
#include "tessera/md/ghost_pack.hpp"

#include "tessera/core/error.hpp"

namespace tessera::md {

namespace {
struct Pack2 {
  const double *x, *y, *z;
  GhostSend a, b;  // b.m == 0 with one stage
  TESSERA_HD void operator()(int64_t k) const {
    const bool first = k < a.m;
    const GhostSend& s = first ? a : b;
    const int64_t i = first ? k : k - a.m;
    const int j = s.idx[i];
    s.buf[i] = x[j] + s.shift[0];
    s.buf[s.m + i] = y[j] + s.shift[1];
    s.buf[2 * s.m + i] = z[j] + s.shift[2];
  }
};
struct Unpack2 {
  double *x, *y, *z;
  GhostRecv a, b;
  TESSERA_HD void operator()(int64_t k) const {
    const bool first = k < a.m;
    const GhostRecv& r = first ? a : b;
    const int64_t i = first ? k : k - a.m;
    x[r.first + i] = r.buf[i];
    y[r.first + i] = r.buf[r.m + i];
    z[r.first + i] = r.buf[2 * r.m + i];
  }
};
}  // namespace

void pack_positions(const exec::Exec& ex, Particles& p, const GhostSend* s, int k) {
  TESSERA_REQUIRE(k >= 1 && k <= 2, "md::pack_positions: one or two stages");
  const GhostSend b = k == 2 ? s[1] : GhostSend{};
  const int64_t m = s[0].m + b.m;
  if (m == 0) return;
  exec::parallel_for(ex, "md::ghost_pack", m, Pack2{p.x.data(), p.y.data(), p.z.data(), s[0], b});
}

void unpack_positions(const exec::Exec& ex, Particles& p, const GhostRecv* r, int k) {
  TESSERA_REQUIRE(k >= 1 && k <= 2, "md::unpack_positions: one or two stages");
  const GhostRecv b = k == 2 ? r[1] : GhostRecv{};
  const int64_t m = r[0].m + b.m;
  if (m == 0) return;
  exec::parallel_for(ex, "md::ghost_unpack", m, Unpack2{p.x.data(), p.y.data(), p.z.data(), r[0], b});
}

}  // namespace tessera::md
