// Telemetry: progress lines, GPU health and energy through NVML, the run manifest and a Prometheus
// textfile. Solvers create one Telemetry per run.
//
//   telemetry::Progress p({.unit = "MLUPs/s", .work_per_step = double(cells), .total_steps = n});
//   p.update(step, t, phases);   // prints when due: step, sim time, throughput, compute/comm/io share, ETA
//
// On a terminal the progress line updates in place; when stdout is not a terminal (batch logs) every
// update is a plain line.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::telemetry {

// Seconds spent per phase since the start of the run (cumulative).
struct Phases {
  double compute = 0, comm = 0, io = 0;
};

struct ProgressConfig {
  std::string unit = "MLUPs/s";    // throughput unit printed
  double work_per_step = 0;        // cells (LBM), atoms (MD), cells (weather) per step
  double unit_scale = 1e-6;        // work/s * unit_scale = printed number (1e-6 for M...)
  int64_t total_steps = 0;         // for the ETA; 0 = unknown
  double total_time = 0;           // ... or, when steps are unknown (adaptive dt), the end time
  int64_t every_steps = 0;         // print every N steps (0: use every_seconds)
  double every_seconds = 5.0;      // ... or every this many seconds of wall time
  bool quiet = false;
  int rank = 0;                    // only rank 0 prints
};

class Progress {
 public:
  explicit Progress(ProgressConfig c);
  // Call once per step (cheap when nothing is due). Returns true when a line was printed.
  bool update(int64_t step, double sim_time, const Phases& ph = {});
  // Final line and a newline on terminals.
  void finish(int64_t step, double sim_time, const Phases& ph = {});
  // Throughput over the whole run so far, in work units per second.
  double rate() const;
  static bool stdout_is_tty();

 private:
  std::string line(int64_t step, double sim_time, const Phases& ph) const;
  ProgressConfig c_;
  bool tty_;
  std::chrono::steady_clock::time_point t0_, last_;
  int64_t step0_ = -1, last_step_ = -1, cur_step_ = 0;
  double time0_ = 0;
};

// One sample of a GPU's state.
struct GpuSample {
  double power_w = 0, temperature_c = 0, sm_clock_mhz = 0, util_gpu = 0, util_mem = 0;
  double mem_used_bytes = 0, mem_total_bytes = 0;
  double energy_j = 0;  // total energy since the driver loaded (counter), if supported
};

// NVML on a background thread, loaded at run time (libnvidia-ml.so.1), so host-only machines simply report
// "NVML not available". Energy-to-solution comes from the energy counter where the GPU has one, otherwise
// from integrating the power samples.
class GpuMonitor {
 public:
  GpuMonitor() = default;
  ~GpuMonitor();
  // Start sampling the GPU with this CUDA device's PCI bus id (from device::info()). Returns false (and
  // available() stays false) when NVML cannot be loaded or the device is not found.
  bool start(const std::string& pci_bus_id, double interval_s = 1.0);
  void stop();
  bool available() const { return ok_; }
  std::string why_unavailable() const { return why_; }
  GpuSample last() const;
  double energy_j() const;       // since start()
  double mean_power_w() const;
  // SM clock over the samples taken since start() (the first one, taken by start(), excluded like the
  // power's): mean and minimum in MHz; the last sample's where none was taken yet.
  double mean_sm_clock_mhz() const;
  double min_sm_clock_mhz() const;
  long samples() const;
  double max_temperature_c() const;
  double max_mem_used_bytes() const;
  std::string gpu_name() const { return name_; }

 private:
  void loop();
  std::atomic<bool> running_{false};
  bool ok_ = false;
  std::string why_ = "not started", name_;
  void* dev_ = nullptr;
  double interval_ = 1.0;
  std::thread th_;
  mutable std::mutex m_;
  GpuSample first_{}, last_{};
  double integ_j_ = 0, sum_p_ = 0, max_t_ = 0, max_mem_ = 0, sum_clk_ = 0, min_clk_ = 0;
  long nsamples_ = 0;
  bool has_counter_ = false;
  std::chrono::steady_clock::time_point tlast_;
};

// Write `text` to `path` atomically: write to path + ".tmp.<pid>", flush, fsync, rename.
void write_file_atomic(const std::string& path, const std::string& text);

// Prometheus node_exporter textfile-collector format. Names in base units, counters end in _total.
class PrometheusFile {
 public:
  explicit PrometheusFile(std::string path) : path_(std::move(path)) {}
  void gauge(const std::string& name, double v, const std::string& help, const std::string& labels = "");
  void counter(const std::string& name, double v, const std::string& help, const std::string& labels = "");
  void write();  // atomically replaces the file
  const std::string& path() const { return path_; }

 private:
  struct M {
    std::string name, type, help, labels;
    double v;
  };
  std::string path_;
  std::vector<M> m_;
};

}  // namespace tessera::telemetry
