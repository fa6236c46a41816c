// Grid pieces as the I/O layer sees them: the global grid, this rank's box of it, which part of the
// grid to write (sub-box, slice, every n-th cell), and a view of one quantity's host data.
//
// Values are CELL-CENTRED: cell (i,j,k) spans origin + (i,j,k)*spacing to origin + (i+1,j+1,k+1)*spacing.
// ParaView shows them as cell data of an image whose points are the cell corners. Arrays in files are
// stored C-order [z][y][x] (x fastest), vectors as [z][y][x][component]; vectors of three
// components written in (x, y, z) order. Attributes origin/spacing/cells are listed in (x, y, z) order.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace tessera::io {

using Index3 = std::array<int64_t, 3>;

struct GridGeometry {
  Index3 global_cells{0, 0, 0};            // cells per axis (x, y, z)
  std::array<double, 3> origin{0, 0, 0};   // lower corner of cell (0,0,0), physical units
  std::array<double, 3> spacing{1, 1, 1};  // cell size per axis
  int64_t num_cells() const { return global_cells[0] * global_cells[1] * global_cells[2]; }
};

// This rank's owned cells in global indices (no ghosts). An empty box (some cells[d] == 0) is allowed.
struct LocalBox {
  Index3 offset{0, 0, 0};
  Index3 cells{0, 0, 0};
  int64_t num_cells() const { return cells[0] * cells[1] * cells[2]; }
  static LocalBox whole(const GridGeometry& g) { return LocalBox{{0, 0, 0}, g.global_cells}; }
};

// The part of the grid that goes into a file: cells lo <= i < hi, taking every stride-th cell from lo.
// An empty hi (all zeros) means "to the end of the grid".
struct Selection {
  Index3 lo{0, 0, 0};
  Index3 hi{0, 0, 0};
  Index3 stride{1, 1, 1};

  static Selection all() { return {}; }
  static Selection sub_box(Index3 lo, Index3 hi) { return {lo, hi, {1, 1, 1}}; }
  static Selection every(int64_t n) { return {{0, 0, 0}, {0, 0, 0}, {n, n, n}}; }
  // The plane of cells with index `index` on `axis` (0 = x, 1 = y, 2 = z): a one-cell-thick slab.
  static Selection slice(int axis, int64_t index);
};

// A selection resolved against a grid: the output grid's cell counts, origin and spacing.
struct ResolvedSelection {
  Index3 lo, hi, stride;
  Index3 out_cells;                       // cells in the output grid (x, y, z)
  std::array<double, 3> out_origin;       // lower corner of output cell 0
  std::array<double, 3> out_spacing;      // spacing * stride
  int64_t out_num_cells() const { return out_cells[0] * out_cells[1] * out_cells[2]; }
};
// Checks the selection against the grid (throws naming the axis and the bounds) and resolves it.
ResolvedSelection resolve(const Selection& s, const GridGeometry& g);

// The part of a rank's box that falls into a resolved selection, in output-grid indices.
struct OutputBlock {
  Index3 out_offset{0, 0, 0};  // first output cell (x, y, z)
  Index3 out_count{0, 0, 0};   // output cells of this rank
  Index3 first_local{0, 0, 0}; // index of the first selected cell inside the LocalBox
  int64_t num_cells() const { return out_count[0] * out_count[1] * out_count[2]; }
};
OutputBlock output_block(const ResolvedSelection& s, const LocalBox& box);

enum class Precision { Float32, Float64 };
const char* to_string(Precision p);
Precision parse_precision(const std::string& s);  // "float32"|"single"|"fp32" or "float64"|"double"|"fp64"

// How the ncomp components of a vector quantity lie in memory:
//   Interleaved: data[cell * ncomp + c]     (array of structs, what H5 stores)
//   Planar:      data[c * ncells + cell]    (separate component arrays, structure of arrays)
// with cell = (k * cells_y + j) * cells_x + i over the LocalBox (x fastest).
enum class Layout { Interleaved, Planar };

// One quantity on this rank's box: host memory only (copy device data to a pinned Buffer first).
struct FieldView {
  std::string name;   // dataset name, e.g. "density", "velocity"
  std::string units;  // e.g. "kg/m^3", "m/s", "1" for dimensionless
  int ncomp = 1;      // 1 = scalar, 3 = vector, other = tensor/multi-component
  Layout layout = Layout::Planar;
  const double* f64 = nullptr;  // exactly one of f64 / f32 is set
  const float* f32 = nullptr;

  static FieldView scalar(std::string name, const double* d, std::string units = "1") {
    return {std::move(name), std::move(units), 1, Layout::Planar, d, nullptr};
  }
  static FieldView scalar(std::string name, const float* d, std::string units = "1") {
    return {std::move(name), std::move(units), 1, Layout::Planar, nullptr, d};
  }
  static FieldView vector(std::string name, const double* d, int ncomp, Layout l, std::string units = "1") {
    return {std::move(name), std::move(units), ncomp, l, d, nullptr};
  }
  static FieldView vector(std::string name, const float* d, int ncomp, Layout l, std::string units = "1") {
    return {std::move(name), std::move(units), ncomp, l, nullptr, d};
  }
};

}  // namespace tessera::io
