// Geometry of cases/lbm/cylinder2d.yaml (Schaefer-Turek 2D-1) as the solver builds it: cell centres at
// (i + 1/2) dx, the cylinder (centre (0.2, 0.2) m, radius 0.05 m) and the wall fractions of its links.
//  * A few links by hand (D = 20 cells, dx = 5 mm: the centre is the cell corner (40, 40), radius 10 cells):
//    from cell (50, 40), centre (50.5, 40.5), along -x the wall is where (10.5 - t)^2 + 0.5^2 = 10^2,
//    t = 10.5 - sqrt(99.75) = 0.512492; along (-1, -1), (10.5 - t)^2 + (0.5 - t)^2 = 100 gives
//    2 t^2 - 22 t + 10.5 = 0, t = (22 - 20) / 4 = 1/2 exactly (half-way, not listed).
//  * The centre lies on a cell corner, so the cells and fractions are mirror-symmetric about y = 0.2
//    (row j <-> 79 - j) and x = 0.2 (column i <-> 79 - i): the lift comes only from the channel's asymmetry
//    (its centre line is y = 0.205), not from the discretised cylinder.
//  * The solver lists exactly the links a brute-force count finds (fluid cell, solid neighbour, delta != 1/2).
#include <cmath>
#include <string>

#include "catch_compat.hpp"
#include "tessera/lbm/solver/app.hpp"

using namespace tessera;
using namespace tessera::lbm;

namespace {
SimulationSpec cylinder_spec(int64_t nx, int64_t ny) {
  const Case c = Case::load(std::string(TESSERA_LBM_CASES_DIR) + "/cylinder2d.yaml", schema(),
                            {"domain.cells=[" + std::to_string(nx) + ", " + std::to_string(ny) + ", 1]"});
  return spec_from_case(c, units_from_case(c));
}
const int kC[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}};
}  // namespace

TEST_CASE("Schaefer-Turek 2D-1 geometry: wall fractions by hand, symmetry, link count", "[lbm][cylinder]") {
  const SimulationSpec s = cylinder_spec(440, 82);
  REQUIRE(s.link_fraction);
  // Cells: (49, 40) is solid (centre 9.5, 0.5 from the axis: 90.5 < 100), (50, 40) fluid (110.5 > 100).
  CHECK(s.solid(49, 40, 0));
  CHECK_FALSE(s.solid(50, 40, 0));
  CHECK(s.link_fraction(0, 50, 40, 0, -1, 0, 0) == Approx(10.5 - std::sqrt(99.75)).epsilon(1e-12));
  CHECK(s.link_fraction(0, 50, 40, 0, -1, -1, 0) == Approx(0.5).epsilon(1e-12));
  // The same link on the other three sides of the cylinder (top, bottom, front).
  CHECK(s.link_fraction(0, 40, 50, 0, 0, -1, 0) == Approx(10.5 - std::sqrt(99.75)).epsilon(1e-12));
  CHECK(s.link_fraction(0, 39, 29, 0, 0, 1, 0) == Approx(10.5 - std::sqrt(99.75)).epsilon(1e-12));
  CHECK(s.link_fraction(0, 29, 39, 0, 1, 0, 0) == Approx(10.5 - std::sqrt(99.75)).epsilon(1e-12));

  // Mirror symmetry about the cylinder's centre lines, and the brute-force link count.
  int64_t listed = 0, asym = 0, out_of_range = 0;
  for (int64_t j = 0; j < 82; ++j)
    for (int64_t i = 0; i < 440; ++i) {
      if (s.solid(i, j, 0) != s.solid(i, 79 - j, 0) && j < 80) ++asym;
      if (i < 80 && s.solid(i, j, 0) != s.solid(79 - i, j, 0)) ++asym;
      if (s.solid(i, j, 0)) continue;
      for (const auto& c : kC) {
        if (!s.solid(i + c[0], j + c[1], 0)) continue;
        const double t = s.link_fraction(0, i, j, 0, c[0], c[1], 0);
        if (!(t > 0 && t <= 1)) ++out_of_range;
        if (j < 80) {
          const double tm = s.link_fraction(0, i, 79 - j, 0, c[0], -c[1], 0);
          if (std::abs(t - tm) > 1e-12) ++asym;
        }
        if (t != 0.5) ++listed;
      }
    }
  CHECK(asym == 0);
  CHECK(out_of_range == 0);
  Simulation sim(MPI_COMM_WORLD, exec::Space::Host, s);
  CHECK(sim.interpolated_links() == listed);
  CHECK(listed > 60);
}
