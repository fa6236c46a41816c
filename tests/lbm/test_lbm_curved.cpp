// Interpolated bounce-back in the solver: 1 rank vs N ranks bit for bit with curved walls across rank
// faces, and a checkpoint restart after an odd step (the links have rewritten their slots: the checkpoint
// holds the interpolated populations, and the restart continues bit for bit).
// Convergence order: test_lbm_pipe.cpp.
#include <cmath>
#include <cstring>
#include <filesystem>

#include "catch_compat.hpp"
#include "lbm_specs.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/geometry.hpp"
#include "tessera/lbm/solver/simulation.hpp"
#include "tessera/lbm/solver/stl.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {

// Entry fraction of the segment p + t d into a circle (x, y) of centre c, radius r: solid inside (t in
// (0, 1]), or outside (`outside`: the solid is the exterior, e.g. a pipe wall).
double circle_fraction(double cx, double cy, double r, bool outside, double px, double py, double dx, double dy) {
  const double ox = px - cx, oy = py - cy;
  const double A = dx * dx + dy * dy, B = 2 * (ox * dx + oy * dy), C = ox * ox + oy * oy - r * r;
  const double disc = B * B - 4 * A * C;
  if (disc < 0) return -1;
  const double t = outside ? (-B + std::sqrt(disc)) / (2 * A) : (-B - std::sqrt(disc)) / (2 * A);
  return t > 0 && t <= 1 ? t : -1;
}

// D2Q9 channel (walls on y, the top one moving, body force along x) with a cylinder of radius 4.3 centred
// off the lattice, placed so that it crosses the rank faces of 2 and 4 ranks along x and y.
SimulationSpec cylinder_channel(Precision p) {
  SimulationSpec s;
  s.lattice = LatticeKind::D2Q9;
  s.precision = p;
  s.collision.kind = CollisionKind::TRT;
  s.collision.omega = 1.5;
  s.collision.force[0] = 3e-5;
  s.global = {32, 21, 1};
  s.faces[2].kind = s.faces[3].kind = FaceBC::Wall;
  s.faces[3].u = {0.04, 0, 0};
  const double cx = 15.8, cy = 10.3, r = 4.3;  // lattice units, cell (i, j) centred at (i + 1/2, j + 1/2)
  s.body = [=](int64_t i, int64_t j, int64_t) {
    const double x = double(i) + 0.5 - cx, y = double(j) + 0.5 - cy;
    return x * x + y * y <= r * r ? 0 : -1;
  };
  s.solid = [b = s.body](int64_t i, int64_t j, int64_t k) { return b(i, j, k) >= 0; };
  s.link_fraction = [=](int, int64_t i, int64_t j, int64_t, int dx, int dy, int) {
    return circle_fraction(cx, cy, r, false, double(i) + 0.5, double(j) + 0.5, dx, dy);
  };
  s.initial = fixtures::wavy_initial;
  return s;
}

void compare(SimulationSpec spec, int64_t steps, std::array<int, 3> dims) {
  spec.rank_dims = dims;
  std::vector<float> rn, un, r1, u1;
  std::vector<std::array<double, 6>> fn, f1;
  {
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim.advance(steps);
    sim.gather(rn, un);
    fn = sim.wall_forces({kBodyWallId0});
  }
  if (test::mpi_rank() == 0) {
    SimulationSpec one = spec;
    one.rank_dims = {0, 0, 0};
    Simulation sim(MPI_COMM_SELF, exec::Space::Host, one);
    REQUIRE(sim.interpolated_links() > 20);
    sim.advance(steps);
    sim.gather(r1, u1);
    f1 = sim.wall_forces({kBodyWallId0});
    REQUIRE(rn.size() == r1.size());
    REQUIRE(std::memcmp(rn.data(), r1.data(), rn.size() * sizeof(float)) == 0);
    REQUIRE(std::memcmp(un.data(), u1.data(), un.size() * sizeof(float)) == 0);
    REQUIRE(fixtures::max_abs(u1) > 1e-3);
    for (int a = 0; a < 3; ++a)  // force sums: the same terms summed per rank first
      REQUIRE(fn[0][std::size_t(a)] == Approx(f1[0][std::size_t(a)]).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("curved walls (interpolated): N ranks equal 1 rank bit for bit", "[lbm][mpi]") {
  const int n = test::mpi_size();
  compare(cylinder_channel(Precision::FP64), 31, {n, 1, 1});  // odd: ends on parity 0
  compare(cylinder_channel(Precision::FP16), 30, {1, n, 1});
  compare(cylinder_channel(Precision::FP32), 30, {0, 0, 1});
}

TEST_CASE("curved walls (interpolated): restart after an odd step continues bit for bit", "[lbm][mpi]") {
  const int n = test::mpi_size();
  SimulationSpec spec = cylinder_channel(Precision::FP32);
  spec.rank_dims = {n, 1, 1};
  const std::string dir_s = test::scratch_path("lbm_curved");  // the same on every rank
  std::vector<float> ra, ua, rb, ub;
  std::string path;
  {
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    sim.advance(17);  // odd: parity 0
    path = sim.write_checkpoint(dir_s, io::CheckpointMeta{});
    sim.advance(12);
    sim.gather(ra, ua);
  }
  {
    Simulation sim(MPI_COMM_WORLD, exec::Space::Host, spec);
    io::CheckpointReader r(MPI_COMM_WORLD, path);
    sim.restore(r);
    sim.advance(12);
    sim.gather(rb, ub);
  }
  if (test::mpi_rank() == 0) {
    REQUIRE(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(float)) == 0);
    REQUIRE(std::memcmp(ua.data(), ub.data(), ua.size() * sizeof(float)) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (test::mpi_rank() == 0) std::filesystem::remove_all(dir_s);
}

namespace {
Geometry geometry_of(const std::string& obstacles) {
  const std::string yaml = "domain: {cells: [20, 18, 16], length: 0.02, lattice: D3Q19}\n"
                           "physics: {viscosity: 1.0e-5, velocity: 0.1}\ntime: {end: 0.001}\nobstacles:\n" + obstacles;
  const Case c = Case::from_string(yaml, schema(), "curved-test.yaml");
  return geometry_from_case(c, 0.001, LatticeKind::D3Q19, {20, 18, 16});
}
// Every fluid -> solid link of body 0 on the 20 x 18 x 16 grid (dx = 1 mm): (centre p, step d) in metres.
template <class Fn>
int for_links(const Geometry& g, Fn fn) {
  int n = 0;
  for (int64_t k = 1; k < 15; ++k)
    for (int64_t j = 1; j < 17; ++j)
      for (int64_t i = 1; i < 19; ++i) {
        if (g.body(i, j, k) >= 0) continue;
        for (int q = 1; q < D3Q19::Q; ++q) {
          const int cx = D3Q19::c(q, 0), cy = D3Q19::c(q, 1), cz = D3Q19::c(q, 2);
          if (g.body(i + cx, j + cy, k + cz) != 0) continue;
          const std::array<double, 3> p{(i + 0.5) * 1e-3, (j + 0.5) * 1e-3, (k + 0.5) * 1e-3};
          fn(p, std::array<double, 3>{cx * 1e-3, cy * 1e-3, cz * 1e-3});
          ++n;
        }
      }
  return n;
}
}  // namespace

TEST_CASE("wall fractions: exact for sphere and cylinder, box slabs equal a box STL", "[lbm][unit]") {
  if (test::mpi_rank() != 0) return;
  const Geometry sph = geometry_of("  - {shape: sphere, center: [0.0101, 0.0093, 0.0082], radius: 0.0051}\n");
  REQUIRE(for_links(sph, [&](const std::array<double, 3>& p, const std::array<double, 3>& d) {
            const double t = sph.fraction[0](p, d);
            REQUIRE(t > 0.0);
            REQUIRE(t <= 1.0);
            const double x = p[0] + t * d[0] - 0.0101, y = p[1] + t * d[1] - 0.0093, z = p[2] + t * d[2] - 0.0082;
            REQUIRE(std::sqrt(x * x + y * y + z * z) == Approx(0.0051).epsilon(1e-12));
          }) > 100);
  const Geometry cyl = geometry_of("  - {shape: cylinder, center: [0.0097, 0.0088, 0], radius: 0.0047}\n");
  REQUIRE(for_links(cyl, [&](const std::array<double, 3>& p, const std::array<double, 3>& d) {
            const double t = cyl.fraction[0](p, d);
            REQUIRE(t > 0.0);
            REQUIRE(t <= 1.0);
            const double x = p[0] + t * d[0] - 0.0097, y = p[1] + t * d[1] - 0.0088;
            REQUIRE(std::sqrt(x * x + y * y) == Approx(0.0047).epsilon(1e-12));
          }) > 100);
  // A box [lo, hi] as 12 triangles: ray-triangle fractions equal the slab fractions of the primitive.
  const double lo[3] = {0.0043, 0.0051, 0.0038}, hi[3] = {0.0142, 0.0127, 0.0117};
  std::vector<Triangle> tris;
  auto corner = [&](int m) { return std::array<double, 3>{m & 1 ? hi[0] : lo[0], m & 2 ? hi[1] : lo[1], m & 4 ? hi[2] : lo[2]}; };
  const int faces[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  for (const auto& f : faces) {
    tris.push_back(Triangle{{corner(f[0]), corner(f[1]), corner(f[2])}});
    tris.push_back(Triangle{{corner(f[0]), corner(f[2]), corner(f[3])}});
  }
  const auto file = test::scratch_root() / ("curved_box_" + std::to_string(test::mpi_rank()) + ".stl");
  write_stl_binary(file.string(), tris);
  const Geometry box = geometry_of("  - {shape: box, lo: [0.0043, 0.0051, 0.0038], hi: [0.0142, 0.0127, 0.0117]}\n");
  const Geometry stl = geometry_of("  - {shape: stl, file: " + file.string() + "}\n");
  std::filesystem::remove(file);
  REQUIRE(for_links(box, [&](const std::array<double, 3>& p, const std::array<double, 3>& d) {
            const double tb = box.fraction[0](p, d), ts = stl.fraction[0](p, d);
            REQUIRE(tb > 0.0);
            REQUIRE(tb <= 1.0);
            REQUIRE(ts == Approx(tb).margin(1e-6));  // float32 vertices in the STL file
          }) > 100);
}
