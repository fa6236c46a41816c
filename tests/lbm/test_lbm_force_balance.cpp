// Momentum balance of the momentum-exchange forces with half-way and interpolated (Bouzidi et al. 2001)
// walls: a channel periodic in x and z, walls at the y faces, driven by a uniform body force density g, with
// a cylinder (D2Q9) or a sphere (D3Q19) whose wall fractions delta spread over (0, 1].
//
// Per step, the fluid's momentum P = sum over fluid cells of sum_q c_q f_q changes by the body force on the
// fluid, N_fluid g (Guo forcing adds exactly g per cell), minus what the walls take: the momentum exchange
// sum over links c_q [f*_q(x_f) + f_qb(x_f, t+1)] (Ladd 1994; Mei et al. 2002 eq. 11 with the interpolated
// incoming population at rest walls; Wen et al., J. Comput. Phys. 266, 161, 2014, eq. 9 is the same
// expression when u_w = 0). This holds exactly, step by step, in the transient too, whatever the incoming
// population is, provided the force sums what really left and what really came back. So
//   P(t+1) - P(t) = N_fluid g - (F_body + F_y_min + F_y_max)
// to round-off (P from the fp32 moments: rho u = sum c f + g/2, the g/2 cancels in the difference). At
// steady state the same balance gives F_body + F_walls = N_fluid g (checked to the steady-state residual).
#include <cmath>
#include <string>

#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/lbm/solver/app.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {
struct Ball {
  double c[3];
  double r;
  int nd;  // 2: a cylinder along z (the D2Q9 disc), 3: a sphere
};

// Entry fraction t in (0, 1] of the ray p + t c into the ball (smaller root of |p + t c - centre|^2 = r^2).
double enter(const Ball& b, const double p[3], const int c[3]) {
  double A = 0, B = 0, C = -b.r * b.r;
  for (int a = 0; a < b.nd; ++a) {
    const double o = p[a] - b.c[a];
    A += double(c[a] * c[a]), B += 2 * o * c[a], C += o * o;
  }
  const double disc = B * B - 4 * A * C;
  if (A <= 0 || disc < 0) return -1;
  const double t = (-B - std::sqrt(disc)) / (2 * A);
  return t > 0 && t <= 1 ? t : -1;
}

SimulationSpec channel(LatticeKind k, bool interpolated, double g) {
  SimulationSpec s;
  s.lattice = k;
  s.precision = Precision::FP64;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.0;  // tau 1: nu = 1/6, the transient decays in a few thousand steps
  s.collision.force[0] = g;
  s.collision.force[1] = 0.3 * g;  // towards a wall: the walls take it as pressure, the balance still holds
  const bool d3 = lattice_dim(k) == 3;
  s.global = d3 ? std::array<int64_t, 3>{16, 14, 12} : std::array<int64_t, 3>{40, 30, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  const Ball b = d3 ? Ball{{7.8, 7.1, 6.2}, 3.6, 3} : Ball{{17.3, 13.6, 0.5}, 5.55, 2};
  s.body = [b](int64_t i, int64_t j, int64_t kk) {
    const double p[3] = {i + 0.5, j + 0.5, kk + 0.5};
    double d2 = 0;
    for (int a = 0; a < b.nd; ++a) d2 += (p[a] - b.c[a]) * (p[a] - b.c[a]);
    return d2 <= b.r * b.r ? 0 : -1;
  };
  s.solid = [bb = s.body](int64_t i, int64_t j, int64_t kk) { return bb(i, j, kk) >= 0; };
  if (interpolated)
    s.link_fraction = [b](int, int64_t i, int64_t j, int64_t kk, int cx, int cy, int cz) {
      const double p[3] = {i + 0.5, j + 0.5, kk + 0.5};
      const int c[3] = {cx, cy, cz};
      return enter(b, p, c);
    };
  return s;
}

// The fractions of the links of the fluid cells next to the body (all of them, listed or not).
std::pair<double, double> fraction_range(const SimulationSpec& s) {
  double lo = 2, hi = -1;
  const int d = lattice_dim(s.lattice);
  for (int64_t k = 0; k < s.global[2]; ++k)
    for (int64_t j = 0; j < s.global[1]; ++j)
      for (int64_t i = 0; i < s.global[0]; ++i) {
        if (s.body(i, j, k) >= 0) continue;
        for (int cx = -1; cx <= 1; ++cx)
          for (int cy = -1; cy <= 1; ++cy)
            for (int cz = (d == 3 ? -1 : 0); cz <= (d == 3 ? 1 : 0); ++cz) {
              if (std::abs(cx) + std::abs(cy) + std::abs(cz) == 3 || (cx == 0 && cy == 0 && cz == 0)) continue;
              const int64_t z = d == 3 ? (k + cz + s.global[2]) % s.global[2] : k;
              if (s.body((i + cx + s.global[0]) % s.global[0], j + cy, z) < 0) continue;
              const double t = s.link_fraction(0, i, j, k, cx, cy, cz);
              lo = std::min(lo, t), hi = std::max(hi, t);
            }
      }
  return {lo, hi};
}

// Fluid momentum minus N g / 2 (rank 0; collective): sum over fluid cells of rho u.
std::array<double, 3> momentum(Simulation& sim) {
  std::vector<float> rho, u;
  sim.gather(rho, u);
  std::array<double, 3> p{0, 0, 0};
  const auto& s = sim.spec();
  const int64_t N = s.global[0] * s.global[1] * s.global[2];
  for (int64_t c = 0; c < int64_t(rho.size()); ++c) {
    const int64_t i = c % s.global[0], j = (c / s.global[0]) % s.global[1], k = c / (s.global[0] * s.global[1]);
    if (s.body(i, j, k) >= 0) continue;
    for (int a = 0; a < 3; ++a) p[size_t(a)] += double(rho[size_t(c)]) * double(u[size_t(a * N + c)]);
  }
  return p;
}

std::array<double, 3> total_wall_force(Simulation& sim) {
  const auto f = sim.wall_forces({kBodyWallId0, kFaceWallId0 + 2, kFaceWallId0 + 3});
  return {f[0][0] + f[1][0] + f[2][0], f[0][1] + f[1][1] + f[2][1], f[0][2] + f[1][2] + f[2][2]};
}

using fixtures::fluid_cells;
}  // namespace

TEST_CASE("Momentum exchange balances the fluid's momentum step by step (half-way, interpolated)", "[lbm][forces]") {
  const double g = 1e-5;
  for (LatticeKind k : {LatticeKind::D2Q9, LatticeKind::D3Q19})
    for (bool interp : {false, true}) {
      const SimulationSpec spec = channel(k, interp, g);
      if (interp) {
        const auto [lo, hi] = fraction_range(spec);
        INFO(to_string(k) << ": wall fractions in [" << lo << ", " << hi << "]");
        CHECK(lo < 0.2);  // far from 1/2 on both sides
        CHECK(hi > 0.8);
      }
      Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
      int64_t links = sim.interpolated_links();
      MPI_Allreduce(MPI_IN_PLACE, &links, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      CHECK((links > 0) == interp);
      const double N = double(fluid_cells(spec)), Fb[3] = {g * N, 0.3 * g * N, 0.0};
      sim.advance(120);  // mid-transient: the walls take a fraction of the body force that still changes
      auto p0 = momentum(sim);
      for (int s = 0; s < 2; ++s) {  // both parities of the AA pattern
        sim.advance(1);
        const auto F = total_wall_force(sim);
        const auto p1 = momentum(sim);
        if (test::mpi_rank() == 0)
          for (int a = 0; a < 3; ++a) {
            const double dp = p1[size_t(a)] - p0[size_t(a)], want = Fb[a] - F[size_t(a)];
            INFO(to_string(k) << (interp ? " interpolated" : " half-way") << ", step " << sim.step() << ", axis " << a
                              << ": dP " << dp << ", N g - F_walls " << want << " (F_walls " << F[size_t(a)] << ")");
            // fp32 moments: a sum of ~1e3 products of 1e-3 values rounds at ~1e-9; N g ~ 1e-2.
            CHECK(std::abs(dp - want) < 2e-6 * g * N);
          }
        p0 = p1;
      }
    }
}

TEST_CASE("Interpolated walls: at steady state the walls take the whole body force", "[lbm][forces]") {
  const double g = 1e-5;
  const std::pair<LatticeKind, int64_t> cases[] = {{LatticeKind::D2Q9, 5000}, {LatticeKind::D3Q19, 2500}};
  for (const auto& [k, steps] : cases) {
    const SimulationSpec spec = channel(k, true, g);
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim.advance(steps);
    const auto F = total_wall_force(sim);
    const auto body = sim.wall_forces({kBodyWallId0})[0];
    const double N = double(fluid_cells(spec));
    INFO(to_string(k) << ": F_walls = (" << F[0] << ", " << F[1] << ", " << F[2] << "), N g = (" << g * N << ", "
                      << 0.3 * g * N << "), body (" << body[0] << ", " << body[1] << ")");
    // Residual of the transient: the slowest channel mode decays as exp(-nu (pi / H)^2 t).
    CHECK(std::abs(F[0] - g * N) < 2e-3 * g * N);
    CHECK(std::abs(F[1] - 0.3 * g * N) < 2e-3 * g * N);
    CHECK(std::abs(F[2]) < 2e-3 * g * N);
    CHECK(body[0] > 0.1 * g * N);  // the body takes a real share of the drag
  }
}
