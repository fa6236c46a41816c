// Geometry: STL reading (binary and ASCII) and voxelisation against the sphere primitive, voxel masks
// through HDF5 (round trip, placement), and clear errors for bad files.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "catch_compat.hpp"
#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/geometry.hpp"
#include "tessera/lbm/solver/stl.hpp"

using namespace tessera;
using namespace tessera::lbm;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const std::string& name) {
  const fs::path d = test::scratch_root() / "lbm_geometry";
  fs::create_directories(d);
  return d / name;
}
std::string vec3(const std::array<double, 3>& v) { return fmt::format("[{}, {}, {}]", v[0], v[1], v[2]); }
}  // namespace

namespace {
// Icosphere: an icosahedron subdivided `levels` times, vertices pushed onto the sphere (outward facing).
std::vector<Triangle> icosphere(std::array<double, 3> c, double r, int levels) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<std::array<double, 3>> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                          {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                       {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                                       {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  auto norm = [](std::array<double, 3> a) {
    const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return std::array<double, 3>{a[0] / n, a[1] / n, a[2] / n};
  };
  for (auto& p : v) p = norm(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back(norm({(v[size_t(a)][0] + v[size_t(b)][0]) / 2, (v[size_t(a)][1] + v[size_t(b)][1]) / 2,
                        (v[size_t(a)][2] + v[size_t(b)][2]) / 2}));
      return mid[key] = int(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> g;
    for (const auto& tr : f) {
      const int a = midpoint(tr[0], tr[1]), b = midpoint(tr[1], tr[2]), cc = midpoint(tr[2], tr[0]);
      g.push_back({tr[0], a, cc});
      g.push_back({tr[1], b, a});
      g.push_back({tr[2], cc, b});
      g.push_back({a, b, cc});
    }
    f = g;
  }
  std::vector<Triangle> out;
  for (const auto& tr : f) {
    Triangle T;
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) T.v[k][size_t(a)] = c[size_t(a)] + r * v[size_t(tr[size_t(k)])][size_t(a)];
    out.push_back(T);
  }
  return out;
}

std::string case_text(const std::string& obstacles, const std::string& lattice = "D3Q19",
                      const std::string& cells = "[24, 20, 22]") {
  return "domain: {cells: " + cells + ", length: 0.024, lattice: " + lattice +
         "}\nphysics: {viscosity: 1.0e-5, velocity: 0.1}\ntime: {end: 0.001}\nobstacles:\n" + obstacles;
}

Geometry geometry_of(const std::string& yaml) {
  const Case c = Case::from_string(yaml, schema(), "geometry-test.yaml");
  const Units u = units_from_case(c);
  return geometry_from_case(c, u.dx, parse_lattice(c.get<std::string>("domain.lattice").c_str()),
                            c.get<std::array<int64_t, 3>>("domain.cells"));
}

std::string error_of(const std::string& yaml) {
  try {
    geometry_of(yaml);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// A sphere of radius 7.3 dx as an icosphere STL (5,120 triangles, max distance to the true sphere 0.0047
// radius) voxelises to the cells of the sphere primitive except in the surface layer: every cell that
// differs has its centre within 0.1 dx of the sphere's surface, and fewer than 2 % of the solid cells differ.
TEST_CASE("STL sphere (binary and ASCII) voxelises like the sphere primitive", "[lbm][geometry]") {
  if (test::mpi_rank() != 0) return;
  const double dx = 0.001, r = 7.3 * dx;
  const std::array<double, 3> c = {11.7 * dx, 9.9 * dx, 10.6 * dx};
  const auto tris = icosphere(c, r, 4);
  REQUIRE(tris.size() == 5120);
  const fs::path bin = scratch("sphere_bin.stl"), asc = scratch("sphere_ascii.stl");
  write_stl_binary(bin.string(), tris);
  write_stl_ascii(asc.string(), tris);
  const auto rb = read_stl(bin.string()), ra = read_stl(asc.string());
  REQUIRE(rb.size() == tris.size());
  REQUIRE(ra.size() == tris.size());
  const std::string prim = fmt::format("  - {{shape: sphere, center: {}, radius: {}}}\n", vec3(c), r);
  const Geometry gp = geometry_of(case_text(prim));
  for (const fs::path& file : {bin, asc}) {
    const Geometry gs = geometry_of(case_text("  - {shape: stl, file: " + file.string() + "}\n"));
    int64_t solid = 0, differ = 0;
    double worst = 0;
    for (int64_t k = 0; k < 22; ++k)
      for (int64_t j = 0; j < 20; ++j)
        for (int64_t i = 0; i < 24; ++i) {
          const bool a = gp.body(i, j, k) >= 0, b = gs.body(i, j, k) >= 0;
          solid += a;
          if (a == b) continue;
          ++differ;
          const double d = std::hypot(std::hypot((i + 0.5) * dx - c[0], (j + 0.5) * dx - c[1]), (k + 0.5) * dx - c[2]);
          worst = std::max(worst, std::abs(d - r) / dx);
        }
    INFO(file.filename().string() << ": " << differ << " of " << solid << " cells differ, worst " << worst << " dx from the surface");
    CHECK(solid > 1500);
    CHECK(worst < 0.1);
    CHECK(differ < solid / 50);
  }
  // Scale and offset: the same sphere written in millimetres around the origin.
  std::vector<Triangle> mm = icosphere({0, 0, 0}, r * 1000, 4);
  const fs::path mmf = scratch("sphere_mm.stl");
  write_stl_binary(mmf.string(), mm);
  const Geometry gm = geometry_of(
      case_text("  - {shape: stl, file: " + mmf.string() + ", scale: 0.001, offset: " + vec3(c) + "}\n"));
  int64_t differ = 0;
  for (int64_t k = 0; k < 22; ++k)
    for (int64_t j = 0; j < 20; ++j)
      for (int64_t i = 0; i < 24; ++i)
        differ += (gm.body(i, j, k) >= 0) != (gp.body(i, j, k) >= 0);
  CHECK(differ < 40);
}

TEST_CASE("Voxel mask round-trips through HDF5 and is placed at its offset", "[lbm][geometry]") {
  if (test::mpi_rank() != 0) return;
  VoxelMask m;
  m.n = {7, 5, 4};
  m.solid.resize(7 * 5 * 4);
  for (std::size_t i = 0; i < m.solid.size(); ++i) m.solid[i] = uint8_t((i * 7919) % 3 == 0);
  const fs::path f = scratch("mask.h5");
  write_voxel_mask(f.string(), "solid_cells", m);
  const VoxelMask back = read_voxel_mask(f.string(), "solid_cells");
  REQUIRE(back.n == m.n);
  REQUIRE(back.solid == m.solid);
  // In a case: offset [3, 2, 5] cells (dx = 1 mm).
  const Geometry g = geometry_of(case_text("  - {shape: mask, file: " + f.string() +
                                           ", dataset: solid_cells, offset: [0.003, 0.002, 0.005], name: porous}\n"));
  REQUIRE(g.bodies.size() == 1);
  CHECK(g.bodies[0].name == "porous");
  for (int64_t k = 0; k < 22; ++k)
    for (int64_t j = 0; j < 20; ++j)
      for (int64_t i = 0; i < 24; ++i) {
        const int64_t a = i - 3, b = j - 2, cc = k - 5;
        const bool in = a >= 0 && b >= 0 && cc >= 0 && a < 7 && b < 5 && cc < 4 &&
                        m.solid[std::size_t(a + 7 * (b + 5 * cc))];
        REQUIRE((g.body(i, j, k) == 0) == in);
      }
}

TEST_CASE("Bad STL and mask files give clear errors naming the file and the problem", "[lbm][geometry]") {
  if (test::mpi_rank() != 0) return;
  auto write = [](const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; };
  const fs::path missing = scratch("does_not_exist.stl");
  std::string e = error_of(case_text("  - {shape: stl, file: " + missing.string() + "}\n"));
  CHECK(e.find(missing.string()) != std::string::npos);
  CHECK(e.find("cannot open") != std::string::npos);
  CHECK(e.find("obstacles[0].file") != std::string::npos);

  const fs::path trunc = scratch("truncated.stl");
  {
    write_stl_binary(trunc.string(), icosphere({0.01, 0.01, 0.01}, 0.003, 1));
    const auto sz = fs::file_size(trunc);
    fs::resize_file(trunc, sz - 17);
  }
  e = error_of(case_text("  - {shape: stl, file: " + trunc.string() + "}\n"));
  CHECK(e.find(trunc.string()) != std::string::npos);
  CHECK(e.find("truncated") != std::string::npos);

  const fs::path badnum = scratch("badnum.stl");
  write(badnum, "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 zero\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n");
  e = error_of(case_text("  - {shape: stl, file: " + badnum.string() + "}\n"));
  CHECK(e.find("line 5") != std::string::npos);
  CHECK(e.find("'zero'") != std::string::npos);

  // An open surface (one face of the sphere removed): rays cross it an odd number of times.
  const fs::path open = scratch("open.stl");
  auto tris = icosphere({0.012, 0.01, 0.011}, 0.007, 3);
  tris.erase(tris.begin(), tris.begin() + 40);
  write_stl_binary(open.string(), tris);
  e = error_of(case_text("  - {shape: stl, file: " + open.string() + "}\n"));
  CHECK(e.find("not closed") != std::string::npos);

  const fs::path notmask = scratch("not_hdf5.h5");
  write(notmask, "plain text\n");
  e = error_of(case_text("  - {shape: mask, file: " + notmask.string() + "}\n"));
  CHECK(e.find(notmask.string()) != std::string::npos);
  CHECK(e.find("not an HDF5 file") != std::string::npos);

  VoxelMask m;
  m.n = {2, 2, 2};
  m.solid.assign(8, 1);
  const fs::path wrongds = scratch("mask_ds.h5");
  write_voxel_mask(wrongds.string(), "other", m);
  e = error_of(case_text("  - {shape: mask, file: " + wrongds.string() + ", dataset: solid}\n"));
  CHECK(e.find("no dataset 'solid'") != std::string::npos);

  e = error_of(case_text("  - {shape: stl}\n"));
  CHECK(e.find("needs 'file'") != std::string::npos);
}
