// The solver front end: parse options, load and validate the case (every problem reported before
// anything runs or is written), pick the device, create the output directory, call the solver.
#include "tessera/core/cli.hpp"

#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include "tessera/core/device.hpp"
#include "tessera/core/log.hpp"
#include "tessera/core/signals.hpp"

namespace tessera {

double RunOptions::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
bool RunOptions::walltime_near(double margin_s) const {
  return max_walltime_s > 0 && elapsed_s() + margin_s >= max_walltime_s;
}
std::string RunOptions::command_line_str() const {
  std::string s;
  for (const auto& a : command_line) s += (s.empty() ? "" : " ") + a;
  return s;
}

namespace cli {

namespace {
// The line a diagnostic points at, with a caret under its column, as compilers print it:
//     6 |   viscosity: -1.0e-3
//       |              ^
// Empty when the diagnostic has no position or its source is not a readable file (e.g. --set).
std::string excerpt(const Diagnostic& d, std::map<std::string, std::vector<std::string>>& files) {
  if (d.line <= 0 || d.column <= 0) return "";
  auto it = files.find(d.source);
  if (it == files.end()) {
    std::vector<std::string> lines;
    if (std::ifstream in(d.source); in)
      for (std::string l; std::getline(in, l);) lines.push_back(l);
    it = files.emplace(d.source, std::move(lines)).first;
  }
  if (std::size_t(d.line) > it->second.size()) return "";
  std::string line = it->second[std::size_t(d.line) - 1];
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::string num = std::to_string(d.line);
  std::string pad;  // keeps tabs so that the caret lines up
  for (std::size_t i = 0; i + 1 < std::size_t(d.column) && i < line.size(); ++i) pad += line[i] == '\t' ? '\t' : ' ';
  const std::string gutter(std::max<std::size_t>(num.size(), 5), ' ');
  return gutter.substr(num.size()) + num + " | " + line + "\n" + gutter + " | " + pad + "^\n";
}

void print_case_errors(std::ostream& err, const SolverApp& app, const CaseError& e, const std::string& what) {
  std::map<std::string, std::vector<std::string>> files;
  for (const auto& d : e.diagnostics()) err << d.str() << "\n" << excerpt(d, files);
  const auto n = e.diagnostics().size();
  err << app.name << ": " << n << " problem" << (n == 1 ? "" : "s") << " in " << what << "; nothing was run\n";
}

// The device a run uses: --device, else gpu when this build has CUDA and a GPU is visible.
// Returns an empty string when fine, else why the request cannot be met.
std::string resolve_device(const Args& a, exec::Space& space) {
  const bool gpu_ok = exec::cuda_enabled() && device::gpu_available();
  if (a.device.empty()) {
    space = gpu_ok ? exec::Space::Device : exec::Space::Host;
    return "";
  }
  space = a.device == "gpu" ? exec::Space::Device : exec::Space::Host;
  if (space == exec::Space::Device && !exec::cuda_enabled())
    return "--device gpu: this build has no CUDA back end (configure with the 'cuda' preset), or use --device cpu";
  if (space == exec::Space::Device && !gpu_ok)
    return "--device gpu: no GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES), or use --device cpu";
  return "";
}
}  // namespace

int run(Runtime& rt, const std::vector<std::string>& argv, const SolverApp& app, std::ostream& out_all,
        std::ostream& err_all) {
  // Only rank 0 prints (runtime errors excepted, below).
  std::ostringstream sink;
  std::ostream& out = rt.rank() == 0 ? out_all : sink;
  std::ostream& err = rt.rank() == 0 ? err_all : sink;
  TESSERA_REQUIRE(app.schema != nullptr, "SolverApp '" + app.name + "' has no schema");

  Args a;
  try {
    a = parse_args(std::vector<std::string>(argv.begin() + (argv.empty() ? 0 : 1), argv.end()));
  } catch (const UsageError& e) {
    err << app.name << ": error: " << e.what() << "\nRun '" << app.name << " --help' for usage.\n";
    return exit_code::bad_input;
  }
  if (a.help) return out << usage(app), exit_code::ok;
  if (a.version) return out << version_text(app), exit_code::ok;
  if (!a.print_schema.empty()) return out << app.schema->markdown(), exit_code::ok;
  if (a.quiet) log::set_level(log::Level::Warn);

  try {
    const Case c = Case::load(a.case_path, *app.schema, a.overrides);
    exec::Space space = exec::Space::Host;
    const std::string device_problem = resolve_device(a, space);
    const int nranks = a.ranks ? a.ranks : rt.size();
    MemoryEstimate mem;
    if (app.memory_estimate) mem = app.memory_estimate(c, nranks);

    if (a.check) {
      // Printed as YAML (the summary as comments), so the output can be saved and run as a case.
      out << "# " << app.name << " --check: '" << a.case_path << "' is valid\n";
      for (const auto& ov : a.overrides) out << "# --set " << ov << "\n";
      out << "# case hash (FNV-1a 64 of the resolved YAML): " << c.hash_hex() << "\n" << c.yaml();
      out << "# device: " << exec::to_string(space)
          << (device_problem.empty() ? "" : " (not available here: " + device_problem + ")") << "\n";
      out << "# estimated memory per rank on " << nranks << " rank" << (nranks == 1 ? "" : "s") << ": "
          << (app.memory_estimate ? format_bytes(mem.bytes_per_rank) : std::string("(no estimate)")) << "\n";
      for (const auto& n : mem.notes) out << "#   " << n << "\n";
      return exit_code::ok;
    }
    if (!a.restart.empty() && a.restart != "auto" && !std::filesystem::is_regular_file(a.restart)) {
      err << app.name << ": error: --restart: no checkpoint file '" << a.restart
          << "' (give an existing checkpoint, or 'auto' for the newest in the output directory)\n";
      return exit_code::bad_input;
    }
    if (!device_problem.empty()) {
      err << app.name << ": error: " << device_problem << "\n";
      return exit_code::bad_input;
    }
    rt.set_space(space);
    if (space == exec::Space::Device && mem.bytes_per_rank > 0) {
      const auto [free_b, total_b] = device::mem_info();
      if (mem.bytes_per_rank > free_b) {
        err << app.name << ": error: the case needs about " << format_bytes(mem.bytes_per_rank)
            << " per rank but the GPU has " << format_bytes(free_b) << " free of " << format_bytes(total_b)
            << ": use more ranks/GPUs or a smaller case (see " << app.name << " --check)\n";
        return exit_code::bad_input;
      }
    }

    RunOptions opt;
    opt.device = space;
    opt.case_path = a.case_path;
    opt.output_dir = a.output_dir.empty() ? default_output_dir(a.case_path) : a.output_dir;
    opt.restart = a.restart;
    opt.max_walltime_s = a.max_walltime_s;
    // The case's batch.max_walltime when the command line gives none (--max-walltime wins).
    if (opt.max_walltime_s == 0 && app.schema->find("batch.max_walltime") && c.given("batch.max_walltime")) {
      try {
        opt.max_walltime_s = cli::parse_walltime(c.get<std::string>("batch.max_walltime"));
      } catch (const cli::UsageError& e) {
        c.fail("batch.max_walltime", std::string(e.what()).replace(0, std::string("--max-walltime").size(),
                                                                    "batch.max_walltime"));
      }
    }
    opt.progress_every = a.progress_every;
    opt.quiet = a.quiet;
    opt.prometheus_path = a.prometheus;
    opt.overrides = a.overrides;
    opt.command_line = argv;
    if (rt.rank() == 0) {
      std::error_code ec;
      std::filesystem::create_directories(opt.output_dir, ec);
      if (ec) TESSERA_THROW("cannot create the output directory '" + opt.output_dir + "': " + ec.message() + " (choose another with -o DIR)");
    }
    MPI_Barrier(rt.comm());
    log::info("{}: case {} (hash {}), {} rank{}, device {}, output {}", app.name, a.case_path, c.hash_hex(),
              rt.size(), rt.size() == 1 ? "" : "s", exec::to_string(space), opt.output_dir);
    if (mem.bytes_per_rank) log::info("{}: estimated memory per rank: {}", app.name, format_bytes(mem.bytes_per_rank));
    // Which rank runs where (host, node-local rank and its source, GPU and PCI bus id): collective.
    {
      const std::string bindings = rt.binding_report();
      if (!bindings.empty()) log::info("{}: rank binding:\n{}", app.name, bindings.substr(0, bindings.size() - 1));
    }
    if (!app.run) TESSERA_THROW("SolverApp '" + app.name + "' has no run function");
    signals::install();  // SIGTERM/SIGUSR1: the solver checkpoints and returns exit_code::stopped_early
    return app.run(rt, c, opt);
  } catch (const CaseError& e) {
    print_case_errors(err, app, e, "'" + a.case_path + "'");
    return exit_code::bad_input;
  } catch (const std::exception& e) {
    // A runtime error may hit one rank only: that rank prints it, then the job is aborted so that the
    // other ranks do not wait forever in a collective.
    std::ostream& e_out = rt.size() > 1 ? err_all : err;
    e_out << app.name << ": error: " << (rt.size() > 1 ? "[rank " + std::to_string(rt.rank()) + "] " : "") << e.what()
          << "\n";
    e_out.flush();
    if (rt.size() > 1) MPI_Abort(rt.comm(), exit_code::runtime_error);
    return exit_code::runtime_error;
  }
}

}  // namespace cli

int run_app(int argc, char** argv, const SolverApp& app) {
  Runtime rt(&argc, &argv);
  std::vector<std::string> args(argv, argv + argc);
  return cli::run(rt, args, app, std::cout, std::cerr);
}

void add_batch_keys(Schema& s) {
  s.section("batch", "Batch jobs (docs/slurm.md)");
  s.add_string("batch.max_walltime").optional().describe(
      "Checkpoint and stop (exit 3) before this wall time: seconds, 30m, 2h, M:S, H:M:S or D-H:M:S, like "
      "--max-walltime (which overrides it)");
}

}  // namespace tessera
