// Mean-square displacement kernels (see msd.hpp).
#include "tessera/md/msd.hpp"

#include "tessera/core/error.hpp"

namespace tessera::md {

namespace {
struct Unwrapped {
  ParticleView p;
  Box box;
  TESSERA_HD double x(int64_t i) const { return p.x[i] + double(p.ix[i]) * box.L[0]; }
  TESSERA_HD double y(int64_t i) const { return p.y[i] + double(p.iy[i]) * box.L[1]; }
  TESSERA_HD double z(int64_t i) const { return p.z[i] + double(p.iz[i]) * box.L[2]; }
};

struct SetReference {
  Unwrapped u;
  double *rx, *ry, *rz;
  TESSERA_HD void operator()(int64_t i) const {
    rx[i] = u.x(i);
    ry[i] = u.y(i);
    rz[i] = u.z(i);
  }
};

struct Displacement {
  Unwrapped u;
  const double *rx, *ry, *rz;
  TESSERA_HD exec::Vec<double, 3> operator()(int64_t i) const {
    const double dx = u.x(i) - rx[i], dy = u.y(i) - ry[i], dz = u.z(i) - rz[i];
    exec::Vec<double, 3> r;
    r[0] = dx * dx, r[1] = dy * dy, r[2] = dz * dz;
    return r;
  }
};
}  // namespace

void set_msd_reference(const exec::Exec& ex, Particles& p, const Box& box) {
  const auto n = std::size_t(p.size());
  for (auto* b : {&p.rx0, &p.ry0, &p.rz0})
    if (b->size() != n) *b = Buffer<double>(n, default_memkind(p.space()), "md::msd_reference");
  if (n == 0) return;
  exec::parallel_for(ex, "md::msd_reference", p.size(),
                     SetReference{Unwrapped{p.view(), box}, p.rx0.data(), p.ry0.data(), p.rz0.data()});
}

std::array<double, 3> msd_components(const exec::Exec& ex, Particles& p, const Box& box) {
  TESSERA_REQUIRE(p.size() == 0 || p.has_reference(), "msd: no reference positions (call set_msd_reference first)");
  if (p.size() == 0) return {0, 0, 0};
  const auto s = exec::reduce_sums<double, 3>(ex, "md::msd", p.size(),
                                              Displacement{Unwrapped{p.view(), box}, p.rx0.data(), p.ry0.data(), p.rz0.data()});
  const double n = double(p.size());
  return {s[0] / n, s[1] / n, s[2] / n};
}

}  // namespace tessera::md
