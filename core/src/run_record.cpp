// RunRecord: progress, NVML energy, Prometheus textfile and run.json for one solver run.
#include "tessera/core/run_record.hpp"

#include <mpi.h>

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "tessera/core/cli.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/log.hpp"
#include "tessera/core/manifest.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::telemetry {

namespace {
using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

// Prometheus label values escape backslash, quote and newline.
std::string label_value(const std::string& v) {
  std::string o;
  for (char ch : v) {
    if (ch == '\\' || ch == '"') o += '\\';
    if (ch == '\n') {
      o += "\\n";
      continue;
    }
    o += ch;
  }
  return o;
}
}  // namespace

std::string prometheus_path_for_rank(const std::string& file, int rank) {
  if (rank == 0 || file.empty()) return file;
  const std::string ext = ".prom";
  const bool has_ext = file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? file.substr(0, file.size() - ext.size()) : file) + ".rank" + std::to_string(rank) + ext;
}

RunRecord::RunRecord(const Runtime& rt, const RunOptions& opt, RunRecordConfig c)
    : rt_(rt),
      opt_(opt),
      c_(std::move(c)),
      progress_({.unit = c_.rate_unit,
                 .work_per_step = c_.work_per_step,
                 .total_steps = c_.total_steps,
                 .total_time = c_.total_time,
                 .every_steps = c_.progress_every,
                 .every_seconds = c_.progress_seconds,
                 .quiet = opt.quiet,
                 .rank = rt.rank()}) {
  std::vector<char*> argv;
  for (const auto& a : opt.command_line) argv.push_back(const_cast<char*>(a.c_str()));
  manifest_ = base_manifest(rt, int(argv.size()), argv.data());
  manifest_["solver"] = c_.solver;
  manifest_["output_dir"] = opt.output_dir;
  if (const char* job = std::getenv("SLURM_JOB_ID")) manifest_["slurm_job_id"] = job;
  if (const char* n = std::getenv("SLURM_RESTART_COUNT")) manifest_["slurm_restart_count"] = n;

  // One sampler per physical GPU: ranks beyond the node's GPU count share a GPU with a lower local rank.
  if (rt.space() != exec::Space::Device) {
    gpu_why_ = "host run, no GPU in use";
  } else if (rt.local_rank() >= device::count()) {
    gpu_why_ = "GPU shared with a lower node-local rank, which samples it";
  } else {
    gpu_ = std::make_unique<GpuMonitor>();
    if (!gpu_->start(device::info(rt.device_id()).pci_bus_id, c_.nvml_interval_s)) {
      gpu_why_ = gpu_->why_unavailable();
      gpu_.reset();
    }
  }
  prom_path_ = prometheus_path_for_rank(opt.prometheus_path, rt.rank());
  t_begin_ = t_prom_ = clock::now();
}

RunRecord::~RunRecord() = default;

bool RunRecord::gpu_telemetry() const { return gpu_ && gpu_->available(); }

void RunRecord::begin(int64_t step, double sim_time) {
  begun_ = true;
  step_begin_ = step;
  t_begin_ = clock::now();
  progress_.update(step, sim_time, ph_);
  if (!prom_path_.empty()) write_prometheus(step, sim_time, false);
}

void RunRecord::update(int64_t step, double sim_time) {
  if (!begun_) begin(step, sim_time);
  progress_.update(step, sim_time, ph_);
  if (!prom_path_.empty() && since(t_prom_) >= c_.prometheus_seconds) write_prometheus(step, sim_time, false);
}

void RunRecord::write_prometheus(int64_t step, double sim_time, bool final) {
  t_prom_ = clock::now();
  std::string lab = fmt::format("solver=\"{}\",rank=\"{}\"", c_.solver, rt_.rank());
  if (const char* job = std::getenv("SLURM_JOB_ID")) lab += fmt::format(",job=\"{}\"", label_value(job));
  PrometheusFile f(prom_path_);
  const double work = c_.work_per_step * double(step - step_begin_);
  const double loop = since(t_begin_);
  f.gauge("tessera_step", double(step), "Current time step", lab);
  f.gauge("tessera_simulated_time", sim_time, "Simulated time reached (solver time unit: s, or tau in LJ units)", lab);
  f.counter("tessera_work_total", work, "Work done in this run: " + c_.work_name, lab);
  f.gauge("tessera_throughput_per_second", loop > 0 ? work / loop : 0.0, c_.work_name + " per second of wall time", lab);
  for (const auto& [name, v] : {std::pair{"compute", ph_.compute}, {"comm", ph_.comm}, {"io", ph_.io}})
    f.counter("tessera_phase_seconds_total", v, "Wall time per phase", lab + fmt::format(",phase=\"{}\"", name));
  f.gauge("tessera_running", final ? 0.0 : 1.0, "1 while the run is in its time loop, 0 once it finished", lab);
  if (c_.total_steps > 0 && step > step_begin_)
    f.gauge("tessera_eta_seconds", loop / double(step - step_begin_) * double(c_.total_steps - step),
            "Estimated wall time to the end of the run", lab);
  if (gpu_telemetry()) {
    const GpuSample s = gpu_->last();
    const std::string g = lab + fmt::format(",gpu=\"{}\"", label_value(gpu_->gpu_name()));
    f.gauge("tessera_gpu_power_watts", s.power_w, "GPU board power", g);
    f.counter("tessera_gpu_energy_joules_total", gpu_->energy_j(), "GPU energy since the run started", g);
    f.gauge("tessera_gpu_temperature_celsius", s.temperature_c, "GPU temperature", g);
    f.gauge("tessera_gpu_sm_clock_hertz", s.sm_clock_mhz * 1e6, "GPU SM clock", g);
    f.gauge("tessera_gpu_utilization_ratio", s.util_gpu / 100.0, "GPU utilisation (share of time a kernel ran)", g);
    f.gauge("tessera_gpu_memory_used_bytes", s.mem_used_bytes, "GPU memory in use", g);
    f.gauge("tessera_gpu_memory_total_bytes", s.mem_total_bytes, "GPU memory", g);
  }
  f.write();
}

int RunRecord::finish(int status, const std::string& reason, int64_t step, double sim_time) {
  if (!begun_) begin(step, sim_time);
  progress_.finish(step, sim_time, ph_);
  const double loop = since(t_begin_);
  work_done_ = c_.work_per_step * double(step - step_begin_);
  if (gpu_) gpu_->stop();

  // Per-rank GPU figures gathered on rank 0: monitored, energy, mean power, max temperature, max memory.
  const bool mon = gpu_telemetry();
  const double mine[5] = {mon ? 1.0 : 0.0, mon ? gpu_->energy_j() : 0.0, mon ? gpu_->mean_power_w() : 0.0,
                          mon ? gpu_->max_temperature_c() : 0.0, mon ? gpu_->max_mem_used_bytes() : 0.0};
  std::vector<double> all(rt_.rank() == 0 ? 5 * std::size_t(rt_.size()) : 0);
  MPI_Gather(mine, 5, MPI_DOUBLE, all.data(), 5, MPI_DOUBLE, 0, rt_.comm());
  // The slowest rank's phase split is the run's (max over ranks).
  double ph[3] = {ph_.compute, ph_.comm, ph_.io}, ph_max[3];
  MPI_Allreduce(ph, ph_max, 3, MPI_DOUBLE, MPI_MAX, rt_.comm());

  int ngpu = 0;
  double power = 0, tmax = 0;
  energy_j_ = 0;
  nlohmann::json gpus = nlohmann::json::array();
  for (int r = 0; r < rt_.size() && rt_.rank() == 0; ++r) {
    const double* g = &all[5 * std::size_t(r)];
    if (g[0] == 0) continue;
    ++ngpu;
    energy_j_ += g[1];
    power += g[2];
    tmax = std::max(tmax, g[3]);
    gpus.push_back({{"rank", r}, {"energy_j", g[1]}, {"mean_power_w", g[2]}, {"max_temperature_c", g[3]},
                    {"max_memory_used_bytes", g[4]}});
  }
  const double mwork = work_done_ / 1e6;
  const double rate = loop > 0 ? work_done_ / loop : 0.0;
  manifest_["exit_status"] = status;
  manifest_["stop_reason"] = reason;
  manifest_["steps"] = step;
  manifest_["steps_this_run"] = step - step_begin_;
  manifest_["total_steps"] = c_.total_steps;
  manifest_["simulated_time"] = sim_time;
  manifest_["wall_time_s"] = opt_.elapsed_s();
  manifest_["loop_time_s"] = loop;
  manifest_["timings_s"] = {{"compute", ph_max[0]}, {"comm", ph_max[1]}, {"io", ph_max[2]},
                            {"other", std::max(0.0, loop - ph_max[0] - ph_max[1] - ph_max[2])}};
  manifest_["throughput"] = {{"work", c_.work_name},
                             {"work_done", work_done_},
                             {"per_second", rate},
                             {"per_compute_second", ph_max[0] > 0 ? work_done_ / ph_max[0] : 0.0},
                             {"unit", c_.rate_unit},
                             {"value", rate * 1e-6}};
  if (ngpu > 0) {
    manifest_["energy"] = {{"source", "NVML"},
                           {"gpus", gpus},
                           {"total_j", energy_j_},
                           {"mean_power_w", power},
                           {"max_temperature_c", tmax},
                           {"j_per_million_work", mwork > 0 ? energy_j_ / mwork : 0.0},
                           {"work", c_.work_name}};
  } else {
    manifest_["energy"] = {{"source", "none"}, {"why", gpu_why_.empty() ? "NVML not available" : gpu_why_}};
  }
  if (!prom_path_.empty()) write_prometheus(step, sim_time, true);
  write_manifest(rt_, opt_.output_dir, manifest_);

  const double tot = std::max(1e-30, ph_max[0] + ph_max[1] + ph_max[2]);
  log::info("{}: {} steps in {:.3g} s, {:.4g} {} (compute {:.0f}%, comm {:.0f}%, io {:.0f}%)", c_.solver,
            step - step_begin_, loop, rate * 1e-6, c_.rate_unit, 100 * ph_max[0] / tot, 100 * ph_max[1] / tot,
            100 * ph_max[2] / tot);
  if (ngpu > 0)
    log::info("{}: energy to solution {:.4g} J on {} GPU{} (mean {:.0f} W, max {:.0f} C), {:.4g} J per million {}",
              c_.solver, energy_j_, ngpu, ngpu == 1 ? "" : "s", power, tmax, mwork > 0 ? energy_j_ / mwork : 0.0,
              c_.work_name);
  else
    log::info("{}: GPU energy: not measured ({})", c_.solver, gpu_why_.empty() ? "NVML not available" : gpu_why_);
  log::info("{}: run record {}/run.json", c_.solver, opt_.output_dir);
  return status;
}

}  // namespace tessera::telemetry
