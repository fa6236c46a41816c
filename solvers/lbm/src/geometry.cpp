// Bodies of an lbm case (geometry.hpp): primitives, voxel masks and STL surfaces.
#include "tessera/lbm/solver/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/stl.hpp"

namespace tessera::lbm {

void add_obstacle_keys(Schema& s) {
  Schema& ob = s.add_list("obstacles").describe("Solid bodies (half-way bounce-back); forces are reported per entry").entries();
  ob.add_enum("shape", {"box", "sphere", "cylinder", "mask", "stl"}).required()
      .describe("box: [lo, hi]; sphere: centre, radius; cylinder: axis along z; mask: HDF5 voxels; stl: surface file");
  ob.add_string("name").optional().describe("Body name in forces.csv / forces.h5 (default body<index>)");
  ob.add_float_array("center", 3).default_array({0, 0, 0}).unit("m")
      .describe("Centre (sphere, cylinder); torque reference (mask, stl: default the centroid of the solid cells)");
  ob.add_float("radius").default_value(0.0).min(0).unit("m").describe("Radius (sphere, cylinder)");
  ob.add_float_array("lo", 3).default_array({0, 0, 0}).unit("m").describe("Lower corner (box)");
  ob.add_float_array("hi", 3).default_array({0, 0, 0}).unit("m").describe("Upper corner (box)");
  ob.add_string("file").optional().describe("mask: HDF5 file; stl: STL file (binary or ASCII); relative to the case file");
  ob.add_string("dataset").default_value("mask").describe("mask: dataset name, shape [nz][ny][nx], nonzero = solid");
  ob.add_float("scale").default_value(1.0).greater_than(0).describe("stl: vertex coordinates x scale + offset = metres");
  ob.add_float_array("offset", 3).default_array({0, 0, 0}).unit("m")
      .describe("stl: added to the scaled vertices; mask: position of the mask's cell (0,0,0) lower corner");
}

namespace {
// Smallest t in (0, 1] where p + t d enters the solid, from the roots of a t^2 + b t + c = 0 (c > 0
// outside); -1 if the segment misses (rounding at a tangent).
double enter_quadratic(double a, double b, double c) {
  const double disc = b * b - 4 * a * c;
  if (a <= 0 || disc < 0) return -1;
  const double t = (-b - std::sqrt(disc)) / (2 * a);
  return t > 0 && t <= 1 ? t : -1;
}

// Moeller-Trumbore ray-triangle intersection: smallest t in (0, 1] over the mesh, -1 if none.
double enter_mesh(const std::vector<Triangle>& tris, const std::array<double, 3>& p, const std::array<double, 3>& d) {
  double best = -1;
  for (const Triangle& t : tris) {
    double e1[3], e2[3], h[3], s[3], qv[3];
    for (int a = 0; a < 3; ++a) e1[a] = t.v[1][size_t(a)] - t.v[0][size_t(a)], e2[a] = t.v[2][size_t(a)] - t.v[0][size_t(a)];
    h[0] = d[1] * e2[2] - d[2] * e2[1], h[1] = d[2] * e2[0] - d[0] * e2[2], h[2] = d[0] * e2[1] - d[1] * e2[0];
    const double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (std::abs(det) < 1e-300) continue;
    const double inv = 1.0 / det;
    for (int a = 0; a < 3; ++a) s[a] = p[size_t(a)] - t.v[0][size_t(a)];
    const double u = inv * (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]);
    if (u < 0 || u > 1) continue;
    qv[0] = s[1] * e1[2] - s[2] * e1[1], qv[1] = s[2] * e1[0] - s[0] * e1[2], qv[2] = s[0] * e1[1] - s[1] * e1[0];
    const double v = inv * (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]);
    if (v < 0 || u + v > 1) continue;
    const double tt = inv * (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]);
    if (tt > 0 && tt <= 1 && (best < 0 || tt < best)) best = tt;
  }
  return best;
}

std::string resolve(const Case& e, const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  if (p.is_absolute()) return file;
  const fs::path src(e.source());
  if (src.has_parent_path() && fs::exists(src)) return (src.parent_path() / p).string();
  return file;
}

BodyInfo info_of(const Case& e, std::size_t index) {
  BodyInfo b;
  b.name = e.has("name") ? e.get<std::string>("name") : fmt::format("body{}", index);
  const std::string sh = e.get<std::string>("shape");
  const auto cc = e.get<std::array<double, 3>>("center");
  if (sh == "box") {
    const auto lo = e.get<std::array<double, 3>>("lo"), hi = e.get<std::array<double, 3>>("hi");
    for (int a = 0; a < 3; ++a) b.center[size_t(a)] = 0.5 * (lo[size_t(a)] + hi[size_t(a)]);
    b.has_center = true;
  } else if (sh == "sphere" || sh == "cylinder" || e.given("center")) {
    b.center = cc;
    b.has_center = true;
  }
  return b;
}
}  // namespace

std::vector<BodyInfo> body_infos_from_case(const Case& c) {
  std::vector<BodyInfo> v;
  for (const Case& e : c.list("obstacles")) v.push_back(info_of(e, v.size()));
  return v;
}

Geometry geometry_from_case(const Case& c, double dx, LatticeKind lattice, const std::array<int64_t, 3>& global) {
  const bool is2d = lattice_dim(lattice) == 2;
  // One inside-test per body on the cell's global indices.
  using Inside = std::function<bool(int64_t, int64_t, int64_t)>;
  std::vector<Inside> tests;
  Geometry g;
  for (const Case& e : c.list("obstacles")) {
    g.bodies.push_back(info_of(e, g.bodies.size()));
    const std::string sh = e.get<std::string>("shape");
    if (sh == "box" || sh == "sphere" || sh == "cylinder") {
      const auto cc = e.get<std::array<double, 3>>("center");
      const auto lo = e.get<std::array<double, 3>>("lo"), hi = e.get<std::array<double, 3>>("hi");
      const double r = e.get<double>("radius");
      const int shape = sh == "box" ? 0 : (sh == "sphere" ? 1 : 2);
      tests.push_back([=](int64_t i, int64_t j, int64_t k) {
        const double p[3] = {(double(i) + 0.5) * dx, (double(j) + 0.5) * dx, is2d ? 0.0 : (double(k) + 0.5) * dx};
        if (shape == 0) {
          bool in = true;
          for (int a = 0; a < (is2d ? 2 : 3); ++a) in = in && p[a] >= lo[size_t(a)] && p[a] <= hi[size_t(a)];
          return in;
        }
        const double x = p[0] - cc[0], y = p[1] - cc[1], z = (shape == 1 && !is2d) ? p[2] - cc[2] : 0.0;
        return x * x + y * y + z * z <= r * r;
      });
      g.fraction.push_back([=](const std::array<double, 3>& p, const std::array<double, 3>& d) -> double {
        const int na = is2d ? 2 : 3;
        if (shape == 0) {  // slabs: the entry time is the latest of the per-axis entries
          double t = 0;
          for (int a = 0; a < na; ++a) {
            if (d[size_t(a)] == 0) continue;
            const double t0 = (lo[size_t(a)] - p[size_t(a)]) / d[size_t(a)], t1 = (hi[size_t(a)] - p[size_t(a)]) / d[size_t(a)];
            t = std::max(t, std::min(t0, t1));
          }
          return t > 0 && t <= 1 ? t : -1;
        }
        const int nd = (shape == 1 && !is2d) ? 3 : 2;  // a cylinder's axis is z
        double A = 0, B = 0, C = -r * r;
        for (int a = 0; a < nd; ++a) {
          const double o = p[size_t(a)] - cc[size_t(a)];
          A += d[size_t(a)] * d[size_t(a)], B += 2 * o * d[size_t(a)], C += o * o;
        }
        return enter_quadratic(A, B, C);
      });
      continue;
    }
    if (!e.has("file")) e.fail("shape", "shape '" + sh + "' needs 'file'");
    const std::string path = resolve(e, e.get<std::string>("file"));
    auto vox = std::make_shared<VoxelMask>();
    auto mesh = std::make_shared<std::vector<Triangle>>();
    vox->n = global;
    if (sh == "mask") {
      VoxelMask m;
      try {
        m = read_voxel_mask(path, e.get<std::string>("dataset"));
      } catch (const std::exception& ex) {
        e.fail("file", ex.what());
      }
      // Place the mask with its cell (0,0,0) at `offset` (rounded to whole cells).
      const auto off = e.get<std::array<double, 3>>("offset");
      int64_t o[3];
      for (int a = 0; a < 3; ++a) o[a] = int64_t(std::llround(off[size_t(a)] / dx));
      if (is2d && m.n[2] != 1)
        e.fail("file", fmt::format("mask {}:{} has {} cells along z; a D2Q9 case needs 1", path, e.get<std::string>("dataset"), m.n[2]));
      vox->solid.assign(std::size_t(global[0] * global[1] * global[2]), 0);
      for (int64_t k = 0; k < m.n[2]; ++k)
        for (int64_t j = 0; j < m.n[1]; ++j)
          for (int64_t i = 0; i < m.n[0]; ++i) {
            const int64_t x = i + o[0], y = j + o[1], z = k + (is2d ? 0 : o[2]);
            if (x < 0 || y < 0 || z < 0 || x >= global[0] || y >= global[1] || z >= global[2]) continue;
            vox->solid[std::size_t(x + global[0] * (y + global[1] * z))] = m.solid[std::size_t(i + m.n[0] * (j + m.n[1] * k))];
          }
    } else {
      std::vector<Triangle> tris;
      try {
        tris = read_stl(path);
      } catch (const std::exception& ex) {
        e.fail("file", ex.what());
      }
      const double sc = e.get<double>("scale");
      const auto off = e.get<std::array<double, 3>>("offset");
      for (Triangle& t : tris)
        for (auto& v : t.v)
          for (int a = 0; a < 3; ++a) v[size_t(a)] = v[size_t(a)] * sc + off[size_t(a)];
      int64_t odd = 0;
      vox->solid = voxelise(tris, global, dx, is2d, 0.0, &odd);
      *mesh = tris;
      if (odd > 0)
        e.fail("file", fmt::format("STL file {}: {} ray(s) along x cross the surface an odd number of times: the "
                                   "mesh is not closed (watertight); repair it (e.g. fill holes) and retry", path, odd));
    }
    if (sh == "mask")
      g.fraction.push_back([](const std::array<double, 3>&, const std::array<double, 3>&) { return -1.0; });
    else
      g.fraction.push_back([mesh](const std::array<double, 3>& p, const std::array<double, 3>& d) {
        return enter_mesh(*mesh, p, d);
      });
    const std::array<int64_t, 3> n = global;
    tests.push_back([vox, n](int64_t i, int64_t j, int64_t k) {
      return vox->solid[std::size_t(i + n[0] * (j + n[1] * k))] != 0;
    });
  }
  if (!tests.empty())
    g.body = [tests](int64_t i, int64_t j, int64_t k) {
      for (std::size_t b = 0; b < tests.size(); ++b)
        if (tests[b](i, j, k)) return int(b);
      return -1;
    };
  return g;
}

}  // namespace tessera::lbm
