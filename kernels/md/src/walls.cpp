// Wall force kernel (see walls.hpp).
#include "tessera/md/walls.hpp"

namespace tessera::md {

namespace {
struct WallForce {
  ParticleView p;
  Box box;
  WallParam w;
  bool energy;
  TESSERA_HD void operator()(int64_t i) const {
    double* x[3] = {p.x, p.y, p.z};
    double* f[3] = {p.fx, p.fy, p.fz};
    double e = 0;
    for (int a = 0; a < 3; ++a) {
      if (!w.on[a]) continue;
      double fl, ul, fu, uu;
      WallParam::eval(x[a][i] - box.lo[a], w, fl, ul);             // lower face pushes +
      WallParam::eval(box.lo[a] + box.L[a] - x[a][i], w, fu, uu);  // upper face pushes -
      f[a][i] += fl - fu;
      e += ul + uu;
    }
    if (energy) p.pe[i] += e;
  }
};
}  // namespace

void add_wall_forces(const exec::Exec& ex, Particles& p, const Box& box, const WallParam& w, bool energy) {
  if (!w.any() || p.size() == 0) return;
  exec::parallel_for(ex, "md::wall_force", p.size(), WallForce{p.view(), box, w, energy});
}

}  // namespace tessera::md
