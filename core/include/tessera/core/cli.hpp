// Shared command-line front end of the solver executables (lbm, md, weather).
//
//   int main(int argc, char** argv) {
//     tessera::SolverApp app{"lbm", "Lattice-Boltzmann fluid solver", &lbm::schema(),
//                            lbm::memory_estimate, lbm::run};
//     return tessera::run_app(argc, argv, app);
//   }
//
// Usage: NAME [options] CASE.yaml
//   -h, --help               usage and options
//   --version                Tessera version, git hash and build configuration
//   --check                  validate, print the resolved case (defaults filled) and the memory
//                            estimate per rank, then exit (0 valid, 2 invalid); runs nothing
//   --ranks N                with --check: estimate memory for N ranks (default: ranks of this run)
//   --device cpu|gpu         default gpu when this build has CUDA and a GPU is visible, else cpu;
//                            asking for gpu without one is an error
//   --set KEY=VALUE          override a case key (repeatable); VALUE is YAML: 0.1, [64, 64, 1], bgk
//   -o, --output DIR         output directory (default ./out/<case file stem>), created before the run
//   --restart FILE|auto      continue from a checkpoint (auto: the newest in the output directory);
//                            a FILE that does not exist is an error (exit 2) before the run
//   --max-walltime T         stop cleanly (checkpoint, exit 3) before T: seconds, M:S, H:M:S or D-H:M:S
//   --progress-every N       progress line every N steps (0: the solver's default)
//   -q, --quiet              warnings and errors only
//   --print-schema md        Markdown reference of every case key (the solver docs are generated from it)
// CASE.yaml may be omitted only with --help, --version or --print-schema.
//
// Exit codes (tessera::exit_code): 0 ok; 1 runtime error; 2 bad input or usage (invalid case, unknown
// option); 3 stopped early (walltime or signal) with a checkpoint: resubmit with --restart auto.
// Only rank 0 prints, except runtime errors, which the failing rank prints before MPI_Abort.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "tessera/core/case.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/schema.hpp"

namespace tessera {

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int runtime_error = 1;
inline constexpr int bad_input = 2;
inline constexpr int stopped_early = 3;
}  // namespace exit_code

struct MemoryEstimate {
  std::size_t bytes_per_rank = 0;
  std::vector<std::string> notes;  // e.g. "populations: 19 x 4 B x 2 x 16.8 M cells = 2.55 GB"
};

struct RunOptions {
  exec::Space device = exec::Space::Host;
  std::string case_path;
  std::string output_dir;             // already created (rank 0) when run() is called
  std::string restart;                // "" none, "auto", or a checkpoint path
  double max_walltime_s = 0;          // 0: no limit
  std::int64_t progress_every = 0;    // 0: the solver's default
  bool quiet = false;
  std::string prometheus_path;            // --prometheus FILE: node_exporter textfile ("" = none)
  std::vector<std::string> overrides;     // the --set strings
  std::vector<std::string> command_line;  // argv as given
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  double elapsed_s() const;
  // True when less than `margin_s` seconds are left before --max-walltime (false without a limit).
  // Solvers call it between steps, write a checkpoint and return exit_code::stopped_early.
  bool walltime_near(double margin_s) const;
  std::string command_line_str() const;  // argv joined with spaces (for run manifests)
};

// The batch keys every solver's case accepts: batch.max_walltime (like --max-walltime, which overrides it).
void add_batch_keys(Schema& s);

struct SolverApp {
  std::string name, summary;
  const Schema* schema = nullptr;
  std::function<MemoryEstimate(const Case&, int nranks)> memory_estimate;  // bytes per rank + notes
  std::function<int(Runtime&, const Case&, const RunOptions&)> run;     // returns an exit_code
};

// Parses argv, loads and validates the case, and calls app.run (or --check / --help / ...).
// Catches CaseError (exit 2) and tessera::Error / std::exception (printed as "NAME: error: ...", exit 1).
int run_app(int argc, char** argv, const SolverApp& app);

namespace cli {

// What the command line asked for (parse_args does no I/O and touches neither MPI nor the GPU).
struct Args {
  bool help = false, version = false, check = false, quiet = false;
  std::string print_schema;  // "" or "md"
  std::string case_path;
  std::string device;        // "" (automatic), "cpu" or "gpu"
  std::vector<std::string> overrides;
  std::string output_dir;    // "" = default
  std::string restart;
  double max_walltime_s = 0;
  std::int64_t progress_every = 0;
  int ranks = 0;             // --ranks for --check; 0 = ranks of this run
  std::string prometheus;    // --prometheus FILE ("" = none)
};

// Throws UsageError (message without program name) on an unknown option, a missing value, etc.
class UsageError : public Error {
 public:
  using Error::Error;
};
Args parse_args(const std::vector<std::string>& argv_without_program);

// "3600", "90s", "30m", "2h", "30:00" (M:S), "23:30:00" (H:M:S), "1-00:00:00" (D-H:M:S) -> seconds. Throws UsageError.
double parse_walltime(const std::string& text);
// "./out/<stem of case path>".
std::string default_output_dir(const std::string& case_path);
std::string usage(const SolverApp& app);
std::string version_text(const SolverApp& app);
// "1.50 GiB", "12.0 MiB", "512 B".
std::string format_bytes(std::size_t bytes);

// run_app's body with an existing Runtime and explicit streams (tests call this; run_app builds the
// Runtime from argc/argv and uses stdout/stderr). argv[0] is the program name.
int run(Runtime& rt, const std::vector<std::string>& argv, const SolverApp& app, std::ostream& out,
        std::ostream& err);

}  // namespace cli
}  // namespace tessera
