// STL surfaces: reading (binary and ASCII, own parser) and voxelisation onto the lattice by ray parity.
//
// Binary STL: 80-byte header, uint32 triangle count n, n records of 50 bytes (normal, 3 vertices as
// float32 little-endian, uint16 attribute); the file size must be 84 + 50 n. ASCII STL: "solid name",
// then "facet normal ..", "outer loop", three "vertex x y z", "endloop", "endfacet", ..., "endsolid".
// A file whose size matches the binary layout is read as binary even when it begins with "solid" (some
// exporters write that into the binary header).
//
// Voxelisation: for every row of cell centres along x, a ray cast along +x crosses the closed surface; a
// centre is inside when an odd number of crossings lie before it (Jordan curve theorem; the mesh must be
// watertight). Rays are offset by a tiny irrational fraction of dx so that they never pass exactly through
// an edge or vertex of a mesh aligned with the grid.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::lbm {

struct Triangle {
  std::array<double, 3> v[3];
};

// Throws tessera::Error naming the file and the problem (missing, truncated, bad number at line N, ...).
std::vector<Triangle> read_stl(const std::string& path);
void write_stl_binary(const std::string& path, const std::vector<Triangle>& t);
void write_stl_ascii(const std::string& path, const std::vector<Triangle>& t);

// Solid flags (x fastest) for an n[0] x n[1] x n[2] grid of spacing dx with cell centres at (i + 1/2) dx
// (z = z2d for a 2-D grid, n[2] == 1 and two_d true). Triangles are in m (scale and offset applied).
// odd_rows (optional): rows with an odd number of crossings, a sign of a mesh that is not closed.
std::vector<uint8_t> voxelise(const std::vector<Triangle>& tris, const std::array<int64_t, 3>& n, double dx,
                              bool two_d, double z2d = 0.0, int64_t* odd_rows = nullptr);

}  // namespace tessera::lbm
