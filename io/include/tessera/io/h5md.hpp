// Particle trajectories in H5MD 1.1 (de Buyl, Colberg, Höfling, "H5MD: a structured, efficient, and
// portable file format for molecular data", Comput. Phys. Commun. 185 (2014) 1546; nongnu.org/h5md),
// readable by MDAnalysis and OVITO, plus an XDMF Polyvertex sidecar so ParaView shows the points.
//
//   /h5md                     attr version = [1, 1]
//   /h5md/author              attr name
//   /h5md/creator             attrs name = "Tessera", version
//   /particles/<group>/box    attrs dimension = 3, boundary = ["periodic"|"none"] x3
//   /particles/<group>/box/edges/{step,time,value[frames][3]}
//   /particles/<group>/{position,velocity}/{step[frames], time[frames], value[frames][N][3]}
//   /particles/<group>/{id,species}/{step, time, value[frames][N]} (int64 / int32)
// Particles are stored ordered by id (ranks' particles are gathered to rank 0 and sorted), so row r of
// every frame is the same particle. N is fixed per file.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tessera::io {

// One rank's particles at one instant (host memory). Positions and velocities interleaved xyz.
struct ParticleFrameView {
  int64_t n = 0;
  const int64_t* id = nullptr;
  const int32_t* species = nullptr;   // may be null: written as 0
  const double* position = nullptr;   // [n][3]
  const double* velocity = nullptr;   // [n][3], may be null: no velocity element then (fixed per file)
};

// A frame read back (all particles, ordered by id).
struct ParticleFrame {
  int64_t step = 0;
  double time = 0.0;
  std::array<double, 3> box_edges{0, 0, 0};
  std::vector<int64_t> id;
  std::vector<int32_t> species;
  std::vector<double> position;  // [n][3]
  std::vector<double> velocity;  // [n][3], empty if the file has no velocity
  int64_t size() const { return static_cast<int64_t>(id.size()); }
};

struct H5mdOptions {
  std::string group = "all";
  std::string author = "unknown";
  std::array<bool, 3> periodic{true, true, true};
  bool position_float32 = false;   // positions/velocities as float32 (smaller) instead of float64
  bool xdmf_sidecar = true;        // <file without .h5>.xdmf next to the file
  std::string case_text;           // stored as /parameters attr case_text (H5MD "parameters" group)
};

class H5mdWriter {
 public:
  // Collective. `path` is created (overwritten) by the first append(); the file is closed after every
  // frame, so it is complete and readable between frames and nothing needs closing at the end.
  H5mdWriter(MPI_Comm comm, std::string path, H5mdOptions opt);
  ~H5mdWriter();
  H5mdWriter(const H5mdWriter&) = delete;
  H5mdWriter& operator=(const H5mdWriter&) = delete;

  // Collective: gathers every rank's particles to rank 0, sorts by id, appends one frame; flushes the
  // file and rewrites the XDMF sidecar so both are readable after each frame.
  void append(int64_t step, double time, const std::array<double, 3>& box_edges, const ParticleFrameView& local);
  // Collective. Continue an existing file after a restart from a checkpoint at `last_step`: frames with a
  // larger step (written after that checkpoint, before the run stopped) are dropped, and the next append()
  // adds to the frames kept. Without a file (or with no frame kept) the next append() starts a new one.
  // Call before the first append(); returns the number of frames kept.
  int64_t resume(int64_t last_step);
  const std::string& path() const { return path_; }
  std::string xdmf_path() const;
  int64_t frames() const { return frames_; }

 private:
  struct Impl;
  Impl* impl_ = nullptr;   // rank 0 only
  MPI_Comm comm_;
  std::string path_;
  H5mdOptions opt_;
  int rank_ = 0;
  int64_t frames_ = 0, n_ = -1;
  bool has_velocity_ = false;
};

// Number of frames of the position element of `group`.
int64_t h5md_frame_count(const std::string& path, const std::string& group = "all");
// Reads frame `frame` (negative counts from the end: -1 = last).
ParticleFrame read_h5md_frame(const std::string& path, int64_t frame, const std::string& group = "all");

}  // namespace tessera::io
