// lbm outputs: probe points and line samples (nearest cell, CSV time series, restart without duplicates,
// case checks) and the vorticity / Q-criterion of analytic fields (second-order convergence).
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "catch_compat.hpp"
#include "lbm_app_util.hpp"
#include "tessera/core/case.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/field_file.hpp"
#include "tessera/lbm/solver/field_output.hpp"
#include "tessera/lbm/solver/probes.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

// A 32 x 32 cavity (dx = 0.1 / 32 m, dt = 1/32 s, 320 steps) with three probes (one inside, two outside
// the cell centres at the corners: clamped) and a vertical line through the centres of column 16.
const char* kCase = R"(
domain: {cells: [32, 32, 1], length: 0.1, lattice: D2Q9}
physics: {viscosity: 1.0e-5, velocity: 0.01}
boundary:
  x_min: {type: wall}
  x_max: {type: wall}
  y_min: {type: wall}
  y_max: {type: moving_wall, velocity: [0.01, 0, 0]}
time: {end: 10.0}
output:
  every: 100
  probe_every: 40
  checkpoint_every: 100
  checkpoint_keep: 0
  progress: 1000
  probes:
    - {name: mid, position: [0.05, 0.09, 0]}
    - {name: corner0, position: [0.0, 0.0, 0]}
    - {name: corner1, position: [0.1, 0.1, 0]}
  lines:
    - {name: centre, start: [0.05, 0.0015625, 0], end: [0.05, 0.0984375, 0], points: 32}
)";

double num(const std::string& s) { return std::stod(s); }

}  // namespace

TEST_CASE("nearest_cell picks the cell whose centre is nearest, clamped to the box", "[lbm]") {
  const std::array<int64_t, 3> n{10, 8, 1};
  REQUIRE(nearest_cell({0.349, 0.05, 0}, 0.1, n) == std::array<int64_t, 3>{3, 0, 0});
  REQUIRE(nearest_cell({0.35, 0.8, 7}, 0.1, n) == std::array<int64_t, 3>{3, 7, 0});  // the far face: last cell
  REQUIRE(nearest_cell({1.0, 0.0, 0}, 0.1, {10, 8, 4}) == std::array<int64_t, 3>{9, 0, 0});
}

TEST_CASE("truncate_csv_after keeps the header and the rows up to the step, drops a torn last row", "[lbm]") {
  const std::string p = tessera::test::scratch_path("trunc_" + std::to_string(tessera::test::mpi_rank()) + ".csv");
  std::ofstream(p) << "# comment\nstep,time,a\n0,0,1\n40,1.25,2\n80,2.5,3\n120,3.75,4\n";
  truncate_csv_after(p, 80);
  REQUIRE(read_text(p) == "# comment\nstep,time,a\n0,0,1\n40,1.25,2\n80,2.5,3\n");
  std::ofstream(p, std::ios::app) << "120,3.7";  // a crash in the middle of a row
  truncate_csv_after(p, 200);
  REQUIRE(read_text(p) == "# comment\nstep,time,a\n0,0,1\n40,1.25,2\n80,2.5,3\n");
  std::filesystem::remove(p);
}

TEST_CASE("probes outside the box or with bad names are refused with the key", "[lbm]") {
  const std::string base = "domain: {cells: [32, 32, 1], length: 0.1}\nphysics: {viscosity: 1.0e-5, velocity: 0.01}\n"
                           "time: {end: 1.0}\n";
  REQUIRE_NOTHROW(Case::from_string(base + "output: {probes: [{name: a, position: [0.1, 0.0, 5.0]}]}", schema()));
  for (const char* bad : {"output: {probes: [{name: a, position: [0.11, 0.05, 0]}]}",
                          "output: {lines: [{name: l, start: [0, 0, 0], end: [0.05, -0.01, 0]}]}",
                          "output: {probes: [{name: 'a b', position: [0.05, 0.05, 0]}]}",
                          "output: {probes: [{name: a, position: [0.05, 0.05, 0]}], lines: [{name: a, start: [0, 0, 0], end: [0.1, 0.1, 0]}]}"}) {
    INFO(bad);
    try {
      (void)Case::from_string(base + bad, schema());
      FAIL("accepted");
    } catch (const CaseError& e) {
      const std::string what = e.what();
      INFO(what);
      REQUIRE(what.find("output.") != std::string::npos);
    }
  }
}

TEST_CASE("probes and line samples equal the written fields at their cells; restart continues without duplicates",
          "[lbm][mpi]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  const std::string dir = fresh_dir("probes");
  const std::string case_path = write_case(dir, kCase);
  std::string log;
  const int rc = run_lbm_case(rt, case_path, dir, {}, &log);
  INFO(log);
  REQUIRE(rc == exit_code::ok);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string probes = dir + "/probes.csv", line = dir + "/line_centre.csv";
  std::string probes_text, line_text;
  if (rt.rank() == 0) {
    const auto rows = csv_rows(probes);
    REQUIRE(rows.size() == 9);  // steps 0, 40, ..., 320
    for (std::size_t r = 0; r < rows.size(); ++r) {
      REQUIRE(std::stoll(rows[r][0]) == int64_t(40 * r));
      REQUIRE(num(rows[r][1]) == Approx(1.25 * double(r)));  // dt = 1/32 s
      REQUIRE(rows[r].size() == 2 + 3 * 4);
    }
    const std::array<std::array<int, 2>, 3> cells{{{16, 28}, {0, 0}, {31, 31}}};
    const auto lrows = csv_rows(line);
    REQUIRE(lrows.size() == 9 * 32);
    for (int64_t step : {0, 200, 320}) {
      const std::string f = fmt::format("{}/fields_{:08d}.h5", dir, step);
      const auto rho = io::read_field(f, "density"), u = io::read_field(f, "velocity");  // [y][x], [y][x][3]
      const auto& row = rows[std::size_t(step / 40)];
      for (std::size_t p = 0; p < 3; ++p) {
        const std::size_t c = std::size_t(cells[p][1] * 32 + cells[p][0]);
        REQUIRE(float(num(row[2 + 4 * p])) == float(rho[c]));
        for (std::size_t a = 0; a < 3; ++a) REQUIRE(float(num(row[3 + 4 * p + a])) == float(u[3 * c + a]));
      }
      if (step == 200) REQUIRE(std::abs(num(row[3])) > 1e-4);  // the probe below the lid moves: a real check
      for (std::size_t q = 0; q < 32; ++q) {
        const auto& lr = lrows[std::size_t(step / 40) * 32 + q];
        REQUIRE(std::stoll(lr[0]) == step);
        const int i = std::stoi(lr[6]), j = std::stoi(lr[7]);
        REQUIRE(i == 16);
        REQUIRE(j == int(q));  // y = (q + 1/2) dx
        REQUIRE(num(lr[2]) == Approx(0.1 * double(q) / 32.0));
        const std::size_t c = std::size_t(j * 32 + i);
        REQUIRE(float(num(lr[9])) == float(rho[c]));
        for (std::size_t a = 0; a < 3; ++a) REQUIRE(float(num(lr[10 + a])) == float(u[3 * c + a]));
      }
    }
    probes_text = read_text(probes);
    line_text = read_text(line);
  }
  // Restart from step 200 in the same directory: the rows after 200 (written by the first run) are dropped,
  // then written again; the series ends identical to the uninterrupted one, every step once.
  std::string ck;
  for (const auto& c : io::list_checkpoints(dir))
    if (c.step == 200) ck = c.path;
  REQUIRE(!ck.empty());
  REQUIRE(run_lbm_case(rt, case_path, dir, {"--restart", ck}) == exit_code::ok);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rt.rank() != 0) return;
  REQUIRE(read_text(probes) == probes_text);
  REQUIRE(read_text(line) == line_text);
}

namespace {
// Max error of the computed vorticity and Q of the 3-D Taylor-Green field (unit amplitude, box 2 pi) on n^3:
//   u = sin x cos y cos z, v = -cos x sin y cos z, w = 0;
//   omega = (-cos x sin y sin z, -sin x cos y sin z, 2 sin x sin y cos z);
//   Q = -(1/2) G_ab G_ba = cos^2 z (sin^2 x sin^2 y - cos^2 x cos^2 y).
std::pair<double, double> tgv_derivative_errors(int64_t n) {
  const std::array<int64_t, 3> ns{n, n, n};
  const int64_t N = n * n * n;
  const double dx = 2 * M_PI / double(n);
  std::vector<float> u(std::size_t(3 * N)), vort, q;
  auto at = [&](int64_t i) { return (double(i) + 0.5) * dx; };
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = i + n * (j + n * k);
        u[std::size_t(c)] = float(std::sin(at(i)) * std::cos(at(j)) * std::cos(at(k)));
        u[std::size_t(N + c)] = float(-std::cos(at(i)) * std::sin(at(j)) * std::cos(at(k)));
      }
  vorticity_and_q(ns, {true, true, true}, dx, u, vort, &q);
  double ew = 0, eq = 0;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        const double x = at(i), y = at(j), z = at(k);
        const int64_t c = i + n * (j + n * k);
        const double w[3] = {-std::cos(x) * std::sin(y) * std::sin(z), -std::sin(x) * std::cos(y) * std::sin(z),
                             2 * std::sin(x) * std::sin(y) * std::cos(z)};
        for (int a = 0; a < 3; ++a) ew = std::max(ew, std::abs(double(vort[std::size_t(a * N + c)]) - w[a]));
        const double sx = std::sin(x), sy = std::sin(y), cx = std::cos(x), cy = std::cos(y), cz = std::cos(z);
        eq = std::max(eq, std::abs(double(q[std::size_t(c)]) - cz * cz * (sx * sx * sy * sy - cx * cx * cy * cy)));
      }
  return {ew, eq};
}
}  // namespace

TEST_CASE("vorticity and Q-criterion of the 3-D Taylor-Green field converge at second order", "[lbm]") {
  const auto e32 = tgv_derivative_errors(32), e64 = tgv_derivative_errors(64);
  INFO("vorticity " << e32.first << " " << e64.first << ", Q " << e32.second << " " << e64.second);
  // Central differences: error = h^2/6 f''' + ...; |omega| <= 2, |Q| <= 1 (measured at 32^3: 0.013, 0.012).
  REQUIRE(e64.first < 4e-3);
  REQUIRE(e64.second < 4e-3);
  REQUIRE(std::log2(e32.first / e64.first) > 1.9);
  REQUIRE(std::log2(e32.second / e64.second) > 1.9);
}

TEST_CASE("2-D vorticity of the Taylor-Green field converges at second order", "[lbm]") {
  // u = -cos x sin y, v = sin x cos y: omega_z = 2 cos x cos y.
  auto err = [](int64_t n) {
    const int64_t N = n * n;
    const double dx = 2 * M_PI / double(n);
    std::vector<float> u(std::size_t(3 * N), 0.0f), vort;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        const double x = (double(i) + 0.5) * dx, y = (double(j) + 0.5) * dx;
        u[std::size_t(i + n * j)] = float(-std::cos(x) * std::sin(y));
        u[std::size_t(N + i + n * j)] = float(std::sin(x) * std::cos(y));
      }
    vorticity_and_q({n, n, 1}, {true, true, false}, dx, u, vort, nullptr);
    double e = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        e = std::max(e, std::abs(double(vort[std::size_t(i + n * j)]) -
                                 2 * std::cos((double(i) + 0.5) * dx) * std::cos((double(j) + 0.5) * dx)));
    return e;
  };
  const double e32 = err(32), e64 = err(64);
  INFO(e32 << " " << e64);
  REQUIRE(e64 < 4e-3);  // about h^2 / 3 at h = 2 pi / 64
  REQUIRE(std::log2(e32 / e64) > 1.9);
}
