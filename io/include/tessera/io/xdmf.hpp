// XDMF3 (www.xdmf.org, "XDMF Model and Format") light-data files that point into HDF5 files, so that
// ParaView's Xdmf3 reader opens a whole run as one time series.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/io/field_file.hpp"

namespace tessera::io {

// One grid output step: a 3DCoRectMesh with cell-centred attributes in `h5_file` (relative to the
// .xdmf so that a run directory can be moved).
struct XdmfGridStep {
  int64_t step = 0;
  double time = 0.0;
  std::string h5_file;
  GridGeometry grid;
  std::vector<FieldInfo> fields;
};

// The XML text of a temporal collection of grid steps.
std::string xdmf_grid_series(const std::vector<XdmfGridStep>& steps);

// One particle frame inside an H5MD file: Polyvertex topology, positions as geometry, the other
// per-particle arrays as point attributes. Each array is /particles/<group>/<name>/value [frames][N](...).
struct XdmfParticleArray {
  std::string name;   // "velocity", "id", "species", ...
  int ncomp = 1;      // 1 scalar, 3 vector
  bool is_integer = false;
  int bytes = 8;
};
struct XdmfParticleFrame {
  int64_t step = 0;
  double time = 0.0;
  int64_t frame = 0;  // index into the value datasets
};
std::string xdmf_particle_series(const std::string& h5_file, const std::string& group, int64_t num_particles,
                                 int64_t num_frames_in_file, int position_bytes,
                                 const std::vector<XdmfParticleArray>& arrays,
                                 const std::vector<XdmfParticleFrame>& frames);

// XML-escapes text for attribute values.
std::string xml_escape(const std::string& s);

}  // namespace tessera::io
