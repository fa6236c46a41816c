// Benchmark support shared by bench/<solver> drivers (see bench/README.md for the protocol):
// the memory-copy ceiling measured on the same device in the same run, median-of-repeats timing with
// CUDA events (wall clock on the host back end), and one JSON record per configuration stamped with the
// card, driver, commit and ceiling.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessera/core/exec.hpp"

namespace tessera::bench {

struct Ceiling {
  double bytes_per_s = 0;  // read + write counted
  std::size_t size_bytes = 0;
  std::string method;  // "cudaMemcpy D2D" / "OpenMP host copy"
};

// Copy `bytes` (default 4 GiB on the GPU, 1 GiB on the host) between two buffers, warm-up + median of reps.
Ceiling measure_copy_ceiling(exec::Space space, std::size_t bytes = 0, int reps = 20);

// Time fn() `reps` times after `warmup` calls; returns every sample in milliseconds (CUDA events around
// each call on the device, so fn must enqueue work on the default stream or synchronise itself).
// On the GPU the warm-up also lasts at least warmup_seconds(): the sustained state. An H200 running the
// LBM kernels reaches its 700 W power limit about a second into the load and its SM clock then drops from
// 1,980 MHz to 1,425-1,965 MHz, so a warm-up of one call (tens of milliseconds) timed the card before
// that: D3Q19 fp16 at 512^3 measured 40,879-40,929 MLUPs/s in 20-step samples after a 20-step warm-up
// and 38,862-39,303 in 100- and 400-step samples, D3Q19 fp32 24,074-24,105 against 23,811-23,913
// (bench/results/20261204T0553Z-NVIDIA-H200-640a8e6-lbm-steps-clocks.*, docs/performance.md).
// min_warmup_s < 0: warmup_seconds(); a caller that warmed the card up itself passes 0.
std::vector<double> time_ms(exec::Space space, const std::function<void()>& fn, int warmup, int reps,
                            double min_warmup_s = -1);
// The least warm-up on the GPU in seconds (default 3; the drivers' --warmup-s; 0: `warmup` calls only,
// the protocol before 2026-12-04).
void set_warmup_seconds(double s);
double warmup_seconds();
// A --warmup-s value: seconds >= 0; throws std::invalid_argument naming the option otherwise.
double parse_warmup_seconds(const std::string& v);
// The card's state during the last time_ms call's timed samples: the warm-up actually run, and where NVML
// is available (a GPU run), power and SM clock sampled every ~20 ms over the timed calls.
struct Timing {
  double warmup_s = 0;  // seconds of warm-up run (the `warmup` calls included)
  long nvml_samples = 0;
  double power_w_mean = 0, sm_clock_mhz_mean = 0, sm_clock_mhz_min = 0;
};
Timing last_timing();
double median(std::vector<double> v);

// A flat JSON object: add fields, then str(). Strings are escaped; numbers printed with full precision. Setting
// a key again replaces its value.
class Record {
 public:
  Record& set(const std::string& k, const std::string& v);
  Record& set(const std::string& k, const char* v) { return set(k, std::string(v)); }
  Record& set(const std::string& k, double v);
  Record& set(const std::string& k, long long v);
  Record& set(const std::string& k, int v) { return set(k, static_cast<long long>(v)); }
  Record& set(const std::string& k, bool v);
  std::string str() const;

 private:
  Record& put(const std::string& k, std::string json);
  std::vector<std::pair<std::string, std::string>> fields_;  // value already JSON-encoded
};

// The items of a comma-separated option value ("256,512" -> {"256", "512"}), as the drivers' --sizes,
// --lattices and --precisions take them.
std::vector<std::string> split_list(const std::string& s);

// The drivers' command lines. help_asked: --help or -h anywhere in argv prints `usage` to stdout and returns
// true (checked before the Runtime starts MPI, so --help needs no launcher). option_value: the value after
// the option argv[i], moving i onto it; where argv ends first, "<program>: <option> needs a value" on stderr
// and exit status 2.
bool help_asked(int argc, char** argv, const char* usage);
std::string option_value(int argc, char** argv, int& i, const char* program);

// Card, driver, host, commit, build, date and the ceiling, for the first fields of a record.
Record environment_record(exec::Space space, const Ceiling& c);
// t's fields in r: warmup_s, and where NVML sampled, power_w_mean, sm_clock_mhz_mean, sm_clock_mhz_min,
// nvml_samples.
void set_timing(Record& r, const Timing& t);

// Append lines to a JSON Lines file (one record per line); the directory is created if needed.
void append_jsonl(const std::string& path, const std::vector<Record>& records);

}  // namespace tessera::bench
