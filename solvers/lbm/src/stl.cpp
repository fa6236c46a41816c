// STL reading (binary and ASCII) and ray-parity voxelisation; see stl.hpp.
#include "tessera/lbm/solver/stl.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tessera/core/error.hpp"

namespace tessera::lbm {

namespace {
float le_float(const unsigned char* p) {
  uint32_t u = uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
void put_le_float(std::string& s, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  for (int b = 0; b < 4; ++b) s.push_back(char((u >> (8 * b)) & 0xffu));
}

std::vector<Triangle> parse_binary(const std::string& path, const std::string& data, uint32_t n) {
  std::vector<Triangle> t(n);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + 84;
  for (uint32_t i = 0; i < n; ++i, p += 50)
    for (int v = 0; v < 3; ++v)
      for (int a = 0; a < 3; ++a) {
        const float x = le_float(p + 12 + 12 * v + 4 * a);
        if (!std::isfinite(x))
          TESSERA_THROW(fmt::format("STL file {}: triangle {} has a non-finite vertex coordinate", path, i));
        t[i].v[v][size_t(a)] = double(x);
      }
  return t;
}

std::vector<Triangle> parse_ascii(const std::string& path, const std::string& data) {
  std::istringstream in(data);
  std::string line;
  int lineno = 0, nv = 0;
  bool in_loop = false;
  std::vector<Triangle> t;
  Triangle cur{};
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string word;
    if (!(ls >> word)) continue;
    if (word == "vertex") {
      if (!in_loop) TESSERA_THROW(fmt::format("STL file {} line {}: 'vertex' outside 'outer loop'", path, lineno));
      if (nv >= 3) TESSERA_THROW(fmt::format("STL file {} line {}: more than 3 vertices in a facet", path, lineno));
      for (int a = 0; a < 3; ++a) {
        std::string tok;
        if (!(ls >> tok)) TESSERA_THROW(fmt::format("STL file {} line {}: 'vertex' needs 3 numbers", path, lineno));
        char* end = nullptr;
        const double x = std::strtod(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0' || !std::isfinite(x))
          TESSERA_THROW(fmt::format("STL file {} line {}: '{}' is not a finite number", path, lineno, tok));
        cur.v[nv][size_t(a)] = x;
      }
      ++nv;
    } else if (word == "outer") {
      in_loop = true;
      nv = 0;
    } else if (word == "endloop") {
      if (nv != 3)
        TESSERA_THROW(fmt::format("STL file {} line {}: a facet needs exactly 3 vertices, found {}", path, lineno, nv));
      t.push_back(cur);
      in_loop = false;
    } else if (word != "solid" && word != "facet" && word != "endfacet" && word != "endsolid") {
      TESSERA_THROW(fmt::format("STL file {} line {}: unexpected '{}' (ASCII STL keywords: solid, facet normal, "
                                "outer loop, vertex, endloop, endfacet, endsolid)", path, lineno, word));
    }
  }
  if (in_loop) TESSERA_THROW(fmt::format("STL file {}: ends inside a facet (truncated?)", path));
  return t;
}
}  // namespace

std::vector<Triangle> read_stl(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) TESSERA_THROW(fmt::format("STL file {}: cannot open it (check the path; it is relative to the case file)", path));
  const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<Triangle> t;
  uint32_t n = 0;
  if (data.size() >= 84) {
    const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + 80;
    n = uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
  }
  const bool binary_size = data.size() >= 84 && uint64_t(data.size()) == 84 + 50 * uint64_t(n);
  const bool starts_solid = data.compare(0, 5, "solid") == 0;
  if (binary_size) {
    t = parse_binary(path, data, n);
  } else if (starts_solid) {
    t = parse_ascii(path, data);
  } else if (data.size() >= 84) {
    TESSERA_THROW(fmt::format("STL file {}: not ASCII (no leading 'solid') and {} bytes do not match a binary STL of "
                              "{} triangles (84 + 50 x {} = {} bytes): truncated or not an STL file",
                              path, data.size(), n, n, 84 + 50 * uint64_t(n)));
  } else {
    TESSERA_THROW(fmt::format("STL file {}: only {} bytes: too short for a binary STL and no ASCII 'solid' header",
                              path, data.size()));
  }
  if (t.empty()) TESSERA_THROW(fmt::format("STL file {}: no triangles", path));
  return t;
}

void write_stl_binary(const std::string& path, const std::vector<Triangle>& t) {
  std::string s(80, ' ');
  s.replace(0, 24, "tessera binary STL      ");
  const uint32_t n = uint32_t(t.size());
  for (int b = 0; b < 4; ++b) s.push_back(char((n >> (8 * b)) & 0xffu));
  for (const Triangle& tr : t) {
    for (int a = 0; a < 3; ++a) put_le_float(s, 0.0f);  // normal: unused by the voxeliser
    for (int v = 0; v < 3; ++v)
      for (int a = 0; a < 3; ++a) put_le_float(s, float(tr.v[v][size_t(a)]));
    s.push_back(0);
    s.push_back(0);
  }
  std::ofstream f(path, std::ios::binary);
  f.write(s.data(), std::streamsize(s.size()));
  if (!f) TESSERA_THROW(fmt::format("STL file {}: write failed", path));
}

void write_stl_ascii(const std::string& path, const std::vector<Triangle>& t) {
  std::ofstream f(path);
  f << "solid tessera\n";
  for (const Triangle& tr : t) {
    f << "  facet normal 0 0 0\n    outer loop\n";
    for (int v = 0; v < 3; ++v)
      f << fmt::format("      vertex {:.9g} {:.9g} {:.9g}\n", tr.v[v][0], tr.v[v][1], tr.v[v][2]);
    f << "    endloop\n  endfacet\n";
  }
  f << "endsolid tessera\n";
  if (!f) TESSERA_THROW(fmt::format("STL file {}: write failed", path));
}

std::vector<uint8_t> voxelise(const std::vector<Triangle>& tris, const std::array<int64_t, 3>& n, double dx,
                              bool two_d, double z2d, int64_t* odd_rows) {
  if (odd_rows) *odd_rows = 0;
  const int64_t nx = n[0], ny = n[1], nz = n[2];
  std::vector<uint8_t> solid(std::size_t(nx * ny * nz), 0);
  // Crossings of the rays (y_j, z_k) + t e_x with every triangle, per row.
  std::vector<std::vector<double>> hits(std::size_t(ny * nz));
  const double ey = 1.0e-7 * std::sqrt(2.0) * dx, ez = 1.0e-7 * std::sqrt(3.0) * dx;  // off edges and vertices
  for (const Triangle& t : tris) {
    const auto &a = t.v[0], &b = t.v[1], &c = t.v[2];
    const double ylo = std::min({a[1], b[1], c[1]}), yhi = std::max({a[1], b[1], c[1]});
    const double zlo = std::min({a[2], b[2], c[2]}), zhi = std::max({a[2], b[2], c[2]});
    const int64_t j0 = std::max<int64_t>(0, int64_t(std::floor(ylo / dx - 0.5))),
                  j1 = std::min<int64_t>(ny - 1, int64_t(std::ceil(yhi / dx - 0.5)));
    int64_t k0 = 0, k1 = 0;
    if (!two_d) {
      k0 = std::max<int64_t>(0, int64_t(std::floor(zlo / dx - 0.5)));
      k1 = std::min<int64_t>(nz - 1, int64_t(std::ceil(zhi / dx - 0.5)));
    } else if (z2d + ez < zlo || z2d + ez > zhi) {
      continue;
    }
    // Barycentric coordinates of the ray's (y, z) in the triangle's yz projection.
    const double d = (b[1] - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (b[2] - a[2]);
    if (d == 0.0) continue;  // parallel to x: the ray grazes it (measure zero after the offset)
    for (int64_t k = k0; k <= k1; ++k)
      for (int64_t j = j0; j <= j1; ++j) {
        const double y = (double(j) + 0.5) * dx + ey, z = (two_d ? z2d : (double(k) + 0.5) * dx) + ez;
        const double l1 = ((y - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (z - a[2])) / d;
        const double l2 = ((b[1] - a[1]) * (z - a[2]) - (y - a[1]) * (b[2] - a[2])) / d;
        if (l1 < 0.0 || l2 < 0.0 || l1 + l2 > 1.0) continue;
        hits[std::size_t(j + ny * k)].push_back(a[0] + l1 * (b[0] - a[0]) + l2 * (c[0] - a[0]));
      }
  }
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j) {
      auto& h = hits[std::size_t(j + ny * k)];
      std::sort(h.begin(), h.end());
      if ((h.size() % 2) && odd_rows) ++*odd_rows;
      for (std::size_t p = 0; p + 1 < h.size(); p += 2) {
        // Cells with centres in [h[p], h[p+1]) are inside.
        const int64_t i0 = std::max<int64_t>(0, int64_t(std::ceil(h[p] / dx - 0.5)));
        const int64_t i1 = std::min<int64_t>(nx - 1, int64_t(std::ceil(h[p + 1] / dx - 0.5)) - 1);
        for (int64_t i = i0; i <= i1; ++i) solid[std::size_t(i + nx * (j + ny * k))] = 1;
      }
    }
  return solid;
}

}  // namespace tessera::lbm
