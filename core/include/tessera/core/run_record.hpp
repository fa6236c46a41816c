// RunRecord: the telemetry every solver run carries, in one object.
//
//   telemetry::RunRecord rec(rt, opt, {.solver = "lbm", .work_name = "cell updates", .rate_unit = "MLUPs/s",
//                                      .work_per_step = cells, .total_steps = n});
//   rec.manifest()["case_file"] = ...;         // solver-specific fields for run.json
//   rec.update(step, t);                        // in the loop: progress line, Prometheus refresh
//   return rec.finish(exit_code::ok, "done", step, t);   // summary line, energy, run.json, final .prom
//
// It owns the progress line (telemetry::Progress), the per-phase timers (phases()), an NVML GpuMonitor per
// GPU (only the first rank on each GPU samples it, so shared GPUs are not counted twice), the optional
// Prometheus textfile (--prometheus FILE; rank r > 0 writes FILE.rank<r>.prom) and the run manifest (run.json:
// base_manifest + timings, throughput, energy, exit status). finish() is collective over the runtime's
// communicator: every rank must call it.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tessera/core/telemetry.hpp"

namespace tessera {
class Runtime;
struct RunOptions;
}  // namespace tessera

namespace tessera::telemetry {

struct RunRecordConfig {
  std::string solver;                   // "lbm", "md", "weather": file names and metric labels
  std::string work_name = "cell updates";  // what one unit of work is, for the summary ("atom-steps", ...)
  std::string rate_unit = "MLUPs/s";    // progress unit (work/s * 1e-6)
  double work_per_step = 0;             // global cells or atoms updated per step
  int64_t total_steps = 0;              // for the ETA (0: unknown, then total_time is used)
  double total_time = 0;                // end time in the solver's time unit
  int64_t progress_every = 0;           // progress line every N steps (0: every progress_seconds)
  double progress_seconds = 10.0;
  double prometheus_seconds = 15.0;     // refresh interval of the .prom file
  double nvml_interval_s = 1.0;         // GPU sampling interval
};

class RunRecord {
 public:
  RunRecord(const Runtime& rt, const RunOptions& opt, RunRecordConfig c);
  ~RunRecord();
  RunRecord(const RunRecord&) = delete;
  RunRecord& operator=(const RunRecord&) = delete;

  nlohmann::json& manifest() { return manifest_; }
  Phases& phases() { return ph_; }
  // Work (cells or atoms per step) can change during a run (MD with a growing system is not supported,
  // but a solver may learn it late): set before the loop.
  void set_work_per_step(double w) { c_.work_per_step = w; }
  // First step of the timed loop (after a restart: the restart's step), so throughput counts only this run.
  void begin(int64_t step, double sim_time);
  // Call after each chunk of steps on every rank (cheap when nothing is due; no communication).
  void update(int64_t step, double sim_time);
  // Last progress line, run summary (throughput, time split, energy), run.json and the final .prom.
  // Collective. Returns `status` so that solvers can `return rec.finish(...)`.
  int finish(int status, const std::string& reason, int64_t step, double sim_time);

  bool gpu_telemetry() const;                 // NVML sampling on this rank
  std::string prometheus_file() const { return prom_path_; }
  // Figures of the finished run (valid after finish()): total GPU energy over all GPUs in J, work done.
  double energy_j() const { return energy_j_; }
  double work_done() const { return work_done_; }

 private:
  void write_prometheus(int64_t step, double sim_time, bool final);
  const Runtime& rt_;
  const RunOptions& opt_;
  RunRecordConfig c_;
  nlohmann::json manifest_;
  Phases ph_;
  Progress progress_;
  std::unique_ptr<GpuMonitor> gpu_;
  std::string gpu_why_;
  std::string prom_path_;
  std::chrono::steady_clock::time_point t_begin_, t_prom_;
  int64_t step_begin_ = 0;
  bool begun_ = false;
  double energy_j_ = 0, work_done_ = 0;
};

// "<file>" for rank 0, "<file without .prom>.rank<r>.prom" for rank r > 0.
std::string prometheus_path_for_rank(const std::string& file, int rank);

}  // namespace tessera::telemetry
