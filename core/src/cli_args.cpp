// Command-line parsing for the solver executables: options, walltime, usage and version text.
// A small hand parser (no CLI11) so that behaviour is identical on CLI11 2.1 and 2.4 machines.
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "tessera/core/cli.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/version.hpp"

namespace tessera::cli {

namespace {
struct OptionSpec {
  const char* long_name;
  const char* short_name;  // may be ""
  bool takes_value;
};
constexpr OptionSpec kOptions[] = {
    {"--help", "-h", false},         {"--version", "", false},       {"--check", "", false},
    {"--quiet", "-q", false},        {"--device", "", true},         {"--set", "", true},
    {"--output", "-o", true},        {"--restart", "", true},        {"--max-walltime", "", true},
    {"--progress-every", "", true},  {"--print-schema", "", true},   {"--ranks", "", true},
    {"--prometheus", "", true},
};

std::int64_t parse_count(const std::string& opt, const std::string& v, std::int64_t min) {
  std::int64_t n = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < min)
    throw UsageError(opt + " expects an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return n;
}
}  // namespace

Args parse_args(const std::vector<std::string>& argv) {
  Args a;
  bool options_done = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-") {
      if (!a.case_path.empty())
        throw UsageError("unexpected argument '" + arg + "': give one case file (already have '" + a.case_path + "')");
      a.case_path = arg;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string name = arg, value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    const OptionSpec* spec = nullptr;
    for (const auto& o : kOptions)
      if (name == o.long_name || (o.short_name[0] && name == o.short_name)) spec = &o;
    if (!spec) {
      std::string best;
      std::size_t bd = 4;
      for (const auto& o : kOptions)
        if (const auto d = edit_distance(name, o.long_name); d < bd) bd = d, best = o.long_name;
      throw UsageError("unknown option '" + name + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)"));
    }
    const std::string opt = spec->long_name;
    if (spec->takes_value && !has_value) {
      if (i + 1 >= argv.size()) throw UsageError(opt + " needs a value");
      value = argv[++i];
    } else if (!spec->takes_value && has_value) {
      throw UsageError(opt + " takes no value");
    }
    if (opt == "--help") a.help = true;
    else if (opt == "--version") a.version = true;
    else if (opt == "--check") a.check = true;
    else if (opt == "--quiet") a.quiet = true;
    else if (opt == "--device") {
      if (value != "cpu" && value != "gpu") throw UsageError("--device expects 'cpu' or 'gpu', got '" + value + "'");
      a.device = value;
    } else if (opt == "--set") {
      if (value.find('=') == std::string::npos)
        throw UsageError("--set expects KEY=VALUE (e.g. --set physics.viscosity=1e-5), got '" + value + "'");
      a.overrides.push_back(value);
    } else if (opt == "--output") {
      if (value.empty()) throw UsageError("--output needs a directory");
      a.output_dir = value;
    } else if (opt == "--restart") {
      if (value.empty()) throw UsageError("--restart needs a checkpoint file or 'auto'");
      a.restart = value;
    } else if (opt == "--max-walltime") a.max_walltime_s = parse_walltime(value);
    else if (opt == "--progress-every") a.progress_every = parse_count(opt, value, 0);
    else if (opt == "--prometheus") {
      if (value.empty()) throw UsageError("--prometheus needs a file name (e.g. /var/lib/node_exporter/tessera.prom)");
      a.prometheus = value;
    } else if (opt == "--ranks") a.ranks = static_cast<int>(parse_count(opt, value, 1));
    else if (opt == "--print-schema") {
      if (value != "md") throw UsageError("--print-schema supports 'md' (Markdown), got '" + value + "'");
      a.print_schema = value;
    }
  }
  if (a.case_path.empty() && !a.help && !a.version && a.print_schema.empty())
    throw UsageError("no case file given (usage: NAME [options] CASE.yaml)");
  if (a.ranks && !a.check) throw UsageError("--ranks applies only to --check (memory estimate for N ranks)");
  return a;
}

double parse_walltime(const std::string& text) {
  auto bad = [&]() -> UsageError {
    return UsageError("--max-walltime expects seconds, 30m, 2h, M:S, H:M:S or D-H:M:S (e.g. 23:30:00), got '" + text + "'");
  };
  std::string s = text;
  double days = 0;
  bool has_days = false;
  if (const auto dash = s.find('-'); dash != std::string::npos) {
    std::int64_t d = 0;
    const auto r = std::from_chars(s.data(), s.data() + dash, d);
    if (r.ec != std::errc() || r.ptr != s.data() + dash || d < 0) throw bad();
    days = double(d);
    has_days = true;
    s = s.substr(dash + 1);
    if (s.find(':') == std::string::npos) s += ":00:00";  // "1-12" is days-hours in Slurm
  }
  std::vector<double> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = s.find(':', start);
    const std::string p = s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string num = p;
    double scale = 1;  // a single number may carry a unit: 90s, 30m, 2h
    if (parts.empty() && colon == std::string::npos && !has_days && !num.empty()) {
      if (num.back() == 's') num.pop_back();
      else if (num.back() == 'm') num.pop_back(), scale = 60;
      else if (num.back() == 'h') num.pop_back(), scale = 3600;
    }
    double v = 0;
    const auto r = std::from_chars(num.data(), num.data() + num.size(), v);
    if (num.empty() || r.ec != std::errc() || r.ptr != num.data() + num.size() || v < 0) throw bad();
    parts.push_back(v * scale);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  double sec = 0;
  if (parts.size() == 1) sec = parts[0];
  else if (parts.size() == 2) sec = has_days ? parts[0] * 3600 + parts[1] * 60 : parts[0] * 60 + parts[1];
  else if (parts.size() == 3) sec = parts[0] * 3600 + parts[1] * 60 + parts[2];
  else throw bad();
  sec += days * 86400;
  if (!(sec > 0)) throw bad();
  return sec;
}

std::string default_output_dir(const std::string& case_path) {
  return (std::filesystem::path("out") / std::filesystem::path(case_path).stem()).string();
}

std::string usage(const SolverApp& app) {
  std::string u = app.name + " — " + app.summary + "\n\n" + "Usage: " + app.name + " [options] CASE.yaml\n\n" +
                  "Options:\n"
                  "  -h, --help               show this help and exit\n"
                  "  --version                print the Tessera version, git hash and build configuration\n"
                  "  --check                  validate the case, print it resolved (defaults filled) and the\n"
                  "                           memory estimate per rank, then exit (0 valid, 2 invalid)\n"
                  "  --ranks N                with --check: estimate the memory for N ranks\n"
                  "  --device cpu|gpu         where to run (default: gpu if this build has CUDA and a GPU is\n"
                  "                           visible, else cpu)\n"
                  "  --set KEY=VALUE          override a case key, e.g. --set physics.viscosity=1e-5 (repeatable)\n"
                  "  -o, --output DIR         output directory (default: out/<case file name>)\n"
                  "  --restart FILE|auto      continue from a checkpoint (auto: newest in the output directory)\n"
                  "  --max-walltime T         checkpoint and stop (exit 3) before T: seconds, M:S, H:M:S, D-H:M:S\n"
                  "  --progress-every N       progress line every N steps (0: solver default)\n"
                  "  --prometheus FILE        keep FILE (*.prom) up to date with progress and GPU figures for\n"
                  "                           node_exporter's textfile collector (rank r > 0: FILE.rank<r>.prom)\n"
                  "  -q, --quiet              print only warnings and errors\n"
                  "  --print-schema md        print the reference of every case key as Markdown\n\n"
                  "Exit codes: 0 ok, 1 runtime error, 2 invalid case or usage, 3 stopped early (resubmit with\n"
                  "--restart auto).\n";
  return u;
}

std::string version_text(const SolverApp& app) {
  return app.name + " (Tessera " + version() + ")\n" + "git: " + git_hash() + "\n" + "build: " + build_config() +
         "\n" + "CUDA back end: " + (exec::cuda_enabled() ? "yes" : "no") +
         ", GPUs visible: " + std::to_string(device::count()) + "\n";
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : (v < 100 ? "%.1f %s" : "%.0f %s"), v, units[u]);
  return buf;
}

}  // namespace tessera::cli
