// Solid bodies of an lbm case: primitives (box, sphere, cylinder), a voxel mask read from HDF5, and STL
// surfaces voxelised onto the grid. Each `obstacles` entry is one body (wall id kBodyWallId0 + index),
// so that forces are reported per body (forces.hpp).
//
// A cell is solid when its centre ((i + 1/2) dx, (j + 1/2) dx, (k + 1/2) dx) lies inside the body (z = 0 in
// 2-D); with half-way bounce-back the surface then sits on the faces between solid and fluid cells.
// Masks and STL voxelisations are held as one byte per global cell on every rank (fine up to a few 10^8
// cells; a distributed voxelisation would be the next step for larger grids).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/core/schema.hpp"
#include "tessera/lbm/lattice.hpp"

namespace tessera::lbm {

struct BodyInfo {
  std::string name;                   // obstacles[].name, default "body<index>"
  bool has_center = false;            // torque reference given (or implied by a primitive)
  std::array<double, 3> center{0, 0, 0};  // m
};

// Where the segment p + t d (metres), t in [0, 1], from a fluid cell centre p to the centre p + d of a
// solid cell of the body, first enters the body: t in (0, 1], or -1 when the body cannot say (voxel
// masks: the surface is unknown, interpolated bounce-back then keeps half-way, t = 1/2).
using SurfaceFraction = std::function<double(const std::array<double, 3>& p, const std::array<double, 3>& d)>;

struct Geometry {
  std::vector<BodyInfo> bodies;
  // Body index of global cell (i, j, k), -1 for fluid. Empty when there are no bodies.
  std::function<int(int64_t, int64_t, int64_t)> body;
  // Per body: exact ray-surface intersection (sphere, cylinder: quadratic; box: slabs; STL: ray-triangle,
  // Moeller & Trumbore, J. Graphics Tools 2, 21, 1997) for interpolated bounce-back (boundary_links.hpp).
  std::vector<SurfaceFraction> fraction;
};

// Declares the `obstacles` list keys (shape, center, radius, lo, hi, file, dataset, scale, offset, name).
void add_obstacle_keys(Schema& s);
// Builds the bodies of a case; reads masks and STL files (paths relative to the case file's folder).
// Throws CaseError at the entry's key for a bad file, naming the file and what is wrong.
Geometry geometry_from_case(const Case& c, double dx, LatticeKind lattice, const std::array<int64_t, 3>& global);
// Names and torque reference points only (no file is read).
std::vector<BodyInfo> body_infos_from_case(const Case& c);

// ---- Voxel masks (HDF5): dataset of any integer type, shape [nz][ny][nx] (x fastest, as the field
// files), nonzero = solid. ----
struct VoxelMask {
  std::array<int64_t, 3> n{0, 0, 0};  // nx, ny, nz
  std::vector<uint8_t> solid;         // x fastest
};
VoxelMask read_voxel_mask(const std::string& path, const std::string& dataset);
void write_voxel_mask(const std::string& path, const std::string& dataset, const VoxelMask& m);

}  // namespace tessera::lbm
