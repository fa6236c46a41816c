// GpuMonitor: NVML loaded at run time with dlopen, so that builds need no NVML headers or library and host
// machines report "not available". Only the handful of stable NVML entry points below are used; their
// signatures are those of the public NVML API (nvml.h, NVML_API_VERSION 11+).
#include <dlfcn.h>

#include <algorithm>

#include "tessera/core/telemetry.hpp"

namespace tessera::telemetry {

namespace {
using nvmlReturn = int;  // NVML_SUCCESS == 0
using nvmlDevice = void*;
struct nvmlUtilization {
  unsigned gpu, memory;
};
struct nvmlMemory {
  unsigned long long total, free, used;
};
constexpr unsigned kTempGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr unsigned kClockSM = 1;    // NVML_CLOCK_SM

struct Nvml {
  void* lib = nullptr;
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*by_pci)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*name)(nvmlDevice, char*, unsigned) = nullptr;
  nvmlReturn (*power)(nvmlDevice, unsigned*) = nullptr;                 // milliwatts
  nvmlReturn (*energy)(nvmlDevice, unsigned long long*) = nullptr;      // millijoules
  nvmlReturn (*temp)(nvmlDevice, unsigned, unsigned*) = nullptr;
  nvmlReturn (*clock)(nvmlDevice, unsigned, unsigned*) = nullptr;
  nvmlReturn (*util)(nvmlDevice, nvmlUtilization*) = nullptr;
  nvmlReturn (*mem)(nvmlDevice, nvmlMemory*) = nullptr;
  bool load(std::string& why) {
    if (lib) return true;
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      why = "NVML not available (libnvidia-ml.so.1 not found: no NVIDIA driver on this machine)";
      return false;
    }
    auto sym = [&](auto& f, const char* n) { f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, n)); return f != nullptr; };
    if (!sym(init, "nvmlInit_v2") || !sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2") ||
        !sym(name, "nvmlDeviceGetName") || !sym(power, "nvmlDeviceGetPowerUsage") ||
        !sym(temp, "nvmlDeviceGetTemperature") || !sym(clock, "nvmlDeviceGetClockInfo") ||
        !sym(util, "nvmlDeviceGetUtilizationRates") || !sym(mem, "nvmlDeviceGetMemoryInfo")) {
      why = "NVML library lacks an expected entry point";
      return false;
    }
    sym(energy, "nvmlDeviceGetTotalEnergyConsumption");  // optional (Volta and newer)
    if (init() != 0) {
      why = "nvmlInit failed";
      return false;
    }
    return true;
  }
};
Nvml& nvml() {
  static Nvml n;
  return n;
}

GpuSample sample(nvmlDevice d, bool& has_counter) {
  auto& n = nvml();
  GpuSample s;
  unsigned v = 0;
  if (n.power(d, &v) == 0) s.power_w = v * 1e-3;
  if (n.temp(d, kTempGpu, &v) == 0) s.temperature_c = v;
  if (n.clock(d, kClockSM, &v) == 0) s.sm_clock_mhz = v;
  nvmlUtilization u{};
  if (n.util(d, &u) == 0) {
    s.util_gpu = u.gpu;
    s.util_mem = u.memory;
  }
  nvmlMemory m{};
  if (n.mem(d, &m) == 0) {
    s.mem_used_bytes = double(m.used);
    s.mem_total_bytes = double(m.total);
  }
  unsigned long long e = 0;
  has_counter = n.energy && n.energy(d, &e) == 0;
  if (has_counter) s.energy_j = double(e) * 1e-3;
  return s;
}
}  // namespace

GpuMonitor::~GpuMonitor() { stop(); }

bool GpuMonitor::start(const std::string& pci_bus_id, double interval_s) {
  if (!nvml().load(why_)) return false;
  nvmlDevice d = nullptr;
  if (nvml().by_pci(pci_bus_id.c_str(), &d) != 0) {
    why_ = "NVML does not know the GPU with PCI bus id '" + pci_bus_id + "'";
    return false;
  }
  char nm[96] = {0};
  if (nvml().name(d, nm, sizeof nm) == 0) name_ = nm;
  dev_ = d;
  interval_ = interval_s;
  first_ = last_ = sample(d, has_counter_);
  tlast_ = std::chrono::steady_clock::now();
  ok_ = true;
  why_.clear();
  running_ = true;
  th_ = std::thread([this] { loop(); });
  return true;
}

void GpuMonitor::loop() {
  while (running_) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(interval_);
    while (running_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    bool hc = false;
    const GpuSample s = sample(dev_, hc);
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lk(m_);
    const double dt = std::chrono::duration<double>(now - tlast_).count();
    integ_j_ += 0.5 * (s.power_w + last_.power_w) * dt;  // trapezoid rule over the power samples
    tlast_ = now;
    last_ = s;
    sum_p_ += s.power_w;
    sum_clk_ += s.sm_clock_mhz;
    min_clk_ = nsamples_ ? std::min(min_clk_, s.sm_clock_mhz) : s.sm_clock_mhz;
    max_t_ = std::max(max_t_, s.temperature_c);
    max_mem_ = std::max(max_mem_, s.mem_used_bytes);
    ++nsamples_;
  }
}

void GpuMonitor::stop() {
  if (running_.exchange(false) && th_.joinable()) th_.join();
}

GpuSample GpuMonitor::last() const {
  std::lock_guard<std::mutex> lk(m_);
  return last_;
}
double GpuMonitor::energy_j() const {
  std::lock_guard<std::mutex> lk(m_);
  if (has_counter_ && last_.energy_j >= first_.energy_j && nsamples_ > 0) return last_.energy_j - first_.energy_j;
  return integ_j_;
}
double GpuMonitor::mean_power_w() const {
  std::lock_guard<std::mutex> lk(m_);
  return nsamples_ ? sum_p_ / double(nsamples_) : last_.power_w;
}
double GpuMonitor::mean_sm_clock_mhz() const {
  std::lock_guard<std::mutex> lk(m_);
  return nsamples_ ? sum_clk_ / double(nsamples_) : last_.sm_clock_mhz;
}
double GpuMonitor::min_sm_clock_mhz() const {
  std::lock_guard<std::mutex> lk(m_);
  return nsamples_ ? min_clk_ : last_.sm_clock_mhz;
}
long GpuMonitor::samples() const {
  std::lock_guard<std::mutex> lk(m_);
  return nsamples_;
}
double GpuMonitor::max_temperature_c() const {
  std::lock_guard<std::mutex> lk(m_);
  return std::max(max_t_, last_.temperature_c);
}
double GpuMonitor::max_mem_used_bytes() const {
  std::lock_guard<std::mutex> lk(m_);
  return std::max(max_mem_, last_.mem_used_bytes);
}

}  // namespace tessera::telemetry
