// A run's grid output: one HDF5 file per output step plus an XDMF3 time series that ParaView opens in
// one go, and optionally VTK XML ImageData (.vti per rank, .pvti per step) with a .pvd collection.
//
//   <dir>/<base>_<step:08>.h5         fields of one step (field_file.hpp)
//   <dir>/<base>.xdmf                 temporal collection of every step written so far
//   <dir>/vtk/<base>_<step>_<rank>.vti, <dir>/<base>_<step>.pvti, <dir>/<base>.pvd   (if vtk_xml)
//
// The .xdmf and .pvd are rewritten after every step under a temporary name and renamed, so a run
// killed at any moment leaves a valid series that lists the complete steps.
#pragma once
#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "tessera/io/field_file.hpp"
#include "tessera/io/xdmf.hpp"

namespace tessera::io {

struct GridOutputOptions {
  FieldFileOptions file;   // precision, selection, compression, write mode, case text
  bool vtk_xml = false;    // also write .vti/.pvti/.pvd (small runs: uncompressed, one file per rank)
  // Restart: keep the steps already listed by existing files in `dir` with step < the first new step.
  bool append_existing = true;
};

class GridOutput {
 public:
  GridOutput(MPI_Comm comm, std::string dir, std::string base, GridGeometry grid, GridOutputOptions opt);

  // Collective. Writes one step; returns the path of the HDF5 file.
  std::string write(int64_t step, double time, const LocalBox& box, std::span<const FieldView> fields);

  const std::string& xdmf_path() const { return xdmf_path_; }
  std::string pvd_path() const;
  std::string step_path(int64_t step) const;
  const std::vector<XdmfGridStep>& steps() const { return steps_; }

 private:
  void adopt_existing(int64_t first_new_step);

  MPI_Comm comm_;
  std::string dir_, base_, xdmf_path_;
  GridGeometry grid_;
  GridOutputOptions opt_;
  int rank_ = 0, size_ = 1;
  bool adopted_ = false;
  std::vector<XdmfGridStep> steps_;                 // rank 0
  std::vector<std::pair<double, std::string>> pvd_; // rank 0: (time, relative file)
};

}  // namespace tessera::io
