// Ghost position pack/unpack kernels (see ghost_pack.hpp). One source for host and device.
#include "tessera/md/ghost_pack.hpp"

namespace tessera::md {

namespace {
struct Pack {
  const double *x, *y, *z;
  const int* idx;
  int64_t m;
  double sx, sy, sz;
  double* buf;
  TESSERA_HD void operator()(int64_t k) const {
    const int j = idx[k];
    buf[k] = x[j] + sx;
    buf[m + k] = y[j] + sy;
    buf[2 * m + k] = z[j] + sz;
  }
};
struct Unpack {
  double *x, *y, *z;
  int64_t first, m;
  const double* buf;
  TESSERA_HD void operator()(int64_t k) const {
    x[first + k] = buf[k];
    y[first + k] = buf[m + k];
    z[first + k] = buf[2 * m + k];
  }
};
}  // namespace

void pack_positions(const exec::Exec& ex, Particles& p, const int* idx, int64_t m, const double shift[3],
                    double* buf) {
  if (m == 0) return;
  exec::parallel_for(ex, "md::ghost_pack", m,
                     Pack{p.x.data(), p.y.data(), p.z.data(), idx, m, shift[0], shift[1], shift[2], buf});
}

void unpack_positions(const exec::Exec& ex, Particles& p, int64_t first, int64_t m, const double* buf) {
  if (m == 0) return;
  exec::parallel_for(ex, "md::ghost_unpack", m, Unpack{p.x.data(), p.y.data(), p.z.data(), first, m, buf});
}

}  // namespace tessera::md
