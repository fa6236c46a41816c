// One HDF5 file holding grid fields at one output step, and reading it back.
//
// Layout (see docs/output.md):
//   /                      attrs: format="tessera-fields", format_version, step, time, origin[3],
//                                 spacing[3], cells[3] (of the data in this file), grid_cells[3],
//                                 grid_origin[3], grid_spacing[3], selection_lo/hi/stride[3],
//                                 tessera_version, case_text, title
//   /fields/<name>         float32|float64, scalar [nz][ny][nx], vector [nz][ny][nx][ncomp];
//                          attrs: units, ncomp
// All ranks of `comm` call write_field_file collectively with the same geometry, selection, options and
// field list (names, ncomp, units); each passes the data of its own LocalBox.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tessera/io/grid.hpp"
#include "tessera/io/write_mode.hpp"

namespace tessera::io {

struct FieldFileOptions {
  Precision precision = Precision::Float32;
  Selection selection = Selection::all();
  int deflate_level = 0;     // 0 = no compression; 1..9 = gzip level (datasets become chunked)
  WriteMode mode = WriteMode::Auto;
  std::string case_text;     // the case file as given (stored verbatim)
  std::string title;         // free text, e.g. the solver name
};

struct FieldStepInfo {
  int64_t step = 0;
  double time = 0.0;
};

// Writes the fields to `path` (overwrites). Throws tessera::Error naming the file and the problem.
void write_field_file(MPI_Comm comm, const std::string& path, const GridGeometry& grid, const LocalBox& box,
                      std::span<const FieldView> fields, const FieldStepInfo& when, const FieldFileOptions& opt);

// ---- Reading back (any process, any rank count; serial reads, so files from either mode work) ----

struct FieldInfo {
  std::string name;
  std::string units;
  int ncomp = 1;
  Precision precision = Precision::Float64;
};

struct FieldFileInfo {
  int64_t step = 0;
  double time = 0.0;
  GridGeometry grid;               // the grid of the data in this file (after selection)
  GridGeometry source_grid;        // the full simulation grid
  Selection selection;             // what was selected from the source grid
  std::string tessera_version;
  std::string case_text;
  std::string title;
  std::vector<FieldInfo> fields;   // sorted by name
  const FieldInfo& field(const std::string& name) const;  // throws listing the fields present
};

FieldFileInfo read_field_file_info(const std::string& path);

// Reads `box` (indices of the grid stored in the file) of one field into `out`, converted to T, in
// the layout asked for (component `c` of cell (i,j,k) of the box). out must hold box cells * ncomp.
void read_field_box(const std::string& path, const std::string& name, const LocalBox& box, double* out,
                    Layout layout = Layout::Interleaved);
void read_field_box(const std::string& path, const std::string& name, const LocalBox& box, float* out,
                    Layout layout = Layout::Interleaved);
// The whole dataset as double, interleaved ([z][y][x][c]).
std::vector<double> read_field(const std::string& path, const std::string& name);

}  // namespace tessera::io
