#include "tessera/bench/bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tessera/core/buffer.hpp"
#include "tessera/core/cuda_check.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/stream.hpp"
#include "tessera/core/telemetry.hpp"
#include "tessera/core/version.hpp"

namespace tessera::bench {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) r.push_back(x);
  return r;
}

bool help_asked(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(usage, stdout);
      return true;
    }
  return false;
}

std::string option_value(int argc, char** argv, int& i, const char* program) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "%s: %s needs a value\n", program, argv[i]);
    std::exit(2);
  }
  return argv[++i];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {
double g_warmup_s = 3.0;
Timing g_timing;
}  // namespace

void set_warmup_seconds(double s) {
  TESSERA_REQUIRE(s >= 0 && std::isfinite(s), "--warmup-s: expected a number of seconds >= 0");
  g_warmup_s = s;
}
double warmup_seconds() { return g_warmup_s; }
double parse_warmup_seconds(const std::string& v) {
  char* end = nullptr;
  const double w = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(w >= 0) || !std::isfinite(w))
    throw std::invalid_argument("--warmup-s '" + v + "': expected seconds >= 0 (default 3; 0: the warm-up calls only)");
  return w;
}
Timing last_timing() { return g_timing; }

std::vector<double> time_ms(exec::Space space, const std::function<void()>& fn, int warmup, int reps,
                            double min_warmup_s) {
  if (min_warmup_s < 0) min_warmup_s = g_warmup_s;
  using clk = std::chrono::steady_clock;
  const auto t0 = clk::now();
  auto since = [](clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); };
  for (int i = 0; i < warmup; ++i) fn();
  device::synchronize();
  const bool gpu = space == exec::Space::Device;
  if (gpu && since(t0) < min_warmup_s) {
    // Batches of about 50 ms between synchronisations, so the card stays loaded as in the timed samples.
    const auto t1 = clk::now();
    fn();
    device::synchronize();
    const double per_call = std::max(since(t1), 1e-6);
    const int batch = int(std::clamp(0.05 / per_call, 1.0, 1e6));
    while (since(t0) < min_warmup_s) {
      for (int i = 0; i < batch; ++i) fn();
      device::synchronize();
    }
  }
  Timing t;
  t.warmup_s = since(t0);
  telemetry::GpuMonitor mon;
  if (gpu) mon.start(device::info().pci_bus_id, 0.02);  // false (nothing sampled) where NVML is missing
  std::vector<double> out;
  out.reserve(std::size_t(reps));
  Event a(space), b(space);
  for (int i = 0; i < reps; ++i) {
    a.record();
    fn();
    b.record();
    b.synchronize();
    out.push_back(Event::elapsed_ms(a, b));
  }
  mon.stop();
  if (mon.available() && mon.samples() > 0) {
    t.nvml_samples = mon.samples();
    t.power_w_mean = mon.mean_power_w();
    t.sm_clock_mhz_mean = mon.mean_sm_clock_mhz();
    t.sm_clock_mhz_min = mon.min_sm_clock_mhz();
  }
  g_timing = t;
  return out;
}

Ceiling measure_copy_ceiling(exec::Space space, std::size_t bytes, int reps) {
  Ceiling c;
  if (bytes == 0) bytes = space == exec::Space::Device ? (std::size_t(4) << 30) : (std::size_t(1) << 30);
  const std::size_t n = bytes / sizeof(double);
  const MemKind mk = default_memkind(space);
  Buffer<double> a(n, mk, "copy_src"), b(n, mk, "copy_dst");
  a.zero();
  b.zero();
  std::function<void()> fn;
  if (space == exec::Space::Device) {
#if TESSERA_HAVE_CUDA
    fn = [&] { TESSERA_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, nullptr)); };
    c.method = "cudaMemcpyAsync device-to-device";
#endif
  } else {
    double* pa = a.data();
    double* pb = b.data();
    fn = [=] {
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < n; ++i) pb[i] = pa[i];
    };
    c.method = "OpenMP host copy";
  }
  const double ms = median(time_ms(space, fn, 3, reps));
  c.size_bytes = n * sizeof(double);
  c.bytes_per_s = 2.0 * double(c.size_bytes) / (ms * 1e-3);
  return c;
}

namespace {
std::string esc(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o + "\"";
}
}  // namespace

// A key set twice keeps its first place and takes the new value: a record never holds a key twice (JSON
// readers would keep only one of them).
Record& Record::put(const std::string& k, std::string json) {
  for (auto& f : fields_)
    if (f.first == k) {
      f.second = std::move(json);
      return *this;
    }
  fields_.emplace_back(k, std::move(json));
  return *this;
}
Record& Record::set(const std::string& k, const std::string& v) { return put(k, esc(v)); }
Record& Record::set(const std::string& k, double v) {
  char buf[64];
  if (std::isfinite(v))
    std::snprintf(buf, sizeof buf, "%.6g", v);
  else
    std::snprintf(buf, sizeof buf, "null");
  return put(k, buf);
}
Record& Record::set(const std::string& k, long long v) { return put(k, std::to_string(v)); }
Record& Record::set(const std::string& k, bool v) {
  return put(k, v ? "true" : "false");
}
std::string Record::str() const {
  std::string o = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i) o += ", ";
    o += esc(fields_[i].first) + ": " + fields_[i].second;
  }
  return o + "}";
}

Record environment_record(exec::Space space, const Ceiling& c) {
  Record r;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const std::time_t t = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  r.set("date", date).set("host", host).set("commit", git_hash()).set("version", version()).set("build", build_config());
  r.set("space", exec::to_string(space));
  if (space == exec::Space::Device) {
    const auto inf = device::info();
    r.set("card", inf.name).set("driver", (long long)inf.driver_version).set("sms", inf.sm_count);  // CUDA driver version
    r.set("card_memory_bytes", (long long)inf.total_bytes);
  } else {
    r.set("card", "host CPU");
  }
  r.set("ceiling_bytes_per_s", c.bytes_per_s).set("ceiling_method", c.method).set("ceiling_size_bytes", (long long)c.size_bytes);
  return r;
}

void set_timing(Record& r, const Timing& t) {
  r.set("warmup_s", t.warmup_s);
  if (t.nvml_samples > 0)
    r.set("power_w_mean", t.power_w_mean).set("sm_clock_mhz_mean", t.sm_clock_mhz_mean)
        .set("sm_clock_mhz_min", t.sm_clock_mhz_min).set("nvml_samples", (long long)t.nvml_samples);
}

void append_jsonl(const std::string& path, const std::vector<Record>& records) {
  const auto p = std::filesystem::path(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream f(path, std::ios::app);
  if (!f) TESSERA_THROW("cannot open benchmark result file '" + path + "' for appending");
  for (const auto& r : records) f << r.str() << "\n";
}

}  // namespace tessera::bench
