// The md run's time series: thermo.csv, msd.csv and the H5MD trajectory (+ XDMF for ParaView).
//
// On a restart from a checkpoint at step S every series continues where the checkpoint left it:
// rows and frames with a step > S (written after the checkpoint, before the run stopped or crashed) are
// dropped first, so a series holds every step once, without gaps or duplicates.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "tessera/core/case.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/io/h5md.hpp"
#include "tessera/md/case_config.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

// Keeps the comment lines, the header and the rows whose first column (the step) is <= last_step.
// Rewrites the file atomically; no-op when it does not exist. Returns the number of data rows kept.
int64_t truncate_csv_after(const std::string& path, int64_t last_step);

class RunOutput {
 public:
  // resume_step < 0: a fresh run (files are created); else continue the series after that step.
  RunOutput(const Runtime& rt, const Case& c, const CaseConfig& k, const Simulation& sim, const std::string& dir,
            int64_t resume_step);
  ~RunOutput();
  RunOutput(const RunOutput&) = delete;
  RunOutput& operator=(const RunOutput&) = delete;

  void thermo(const Thermo& t);  // terminal line + thermo.csv
  void frame(Simulation& sim);   // one H5MD frame (if output.trajectory_every > 0)
  void msd(Simulation& sim);     // one msd.csv row (if output.msd_every > 0)
  void thermo_header() const;    // the terminal header line

  std::string trajectory_path() const { return traj_ ? traj_->path() : ""; }
  std::string xdmf_path() const { return traj_ ? traj_->xdmf_path() : ""; }
  int64_t frames() const { return traj_ ? traj_->frames() : 0; }

 private:
  std::FILE* open_csv(const std::string& name, const char* header, int64_t resume_step);
  const Units units_;
  std::FILE* thermo_ = nullptr;
  std::FILE* msd_ = nullptr;
  std::unique_ptr<io::H5mdWriter> traj_;
  int rank_ = 0;
  std::string dir_;
};

}  // namespace tessera::md
