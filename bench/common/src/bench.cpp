#include "tessera/bench/bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/core/buffer.hpp"
#include "tessera/core/cuda_check.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/stream.hpp"
#include "tessera/core/version.hpp"

namespace tessera::bench {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) r.push_back(x);
  return r;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<double> time_ms(exec::Space space, const std::function<void()>& fn, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) fn();
  device::synchronize();
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

void append_jsonl(const std::string& path, const std::vector<Record>& records) {
  const auto p = std::filesystem::path(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream f(path, std::ios::app);
  if (!f) TESSERA_THROW("cannot open benchmark result file '" + path + "' for appending");
  for (const auto& r : records) f << r.str() << "\n";
}

}  // namespace tessera::bench
