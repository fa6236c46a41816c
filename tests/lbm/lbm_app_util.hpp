// Running the `lbm` executable's front end (cli::run with the lbm app) inside a test, in a fresh output
// directory shared by all ranks. Used by the output and validation tests.
#pragma once
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm::test {

// A path in the test scratch directory with nothing there yet, the same on every rank (collective).
inline std::string fresh_dir(const std::string& tag) { return ::tessera::test::fresh_scratch_path("lbm_" + tag); }

// Writes `yaml` to <dir>.yaml (rank 0) and returns that path.
inline std::string write_case(const std::string& dir, const std::string& yaml) {
  const std::string path = dir + ".yaml";
  if (tessera::test::mpi_rank() == 0) std::ofstream(path) << yaml;
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

// `lbm CASE --device cpu -o DIR -q EXTRA...`; returns the exit code; the output and errors go to *log.
inline int run_lbm_case(Runtime& rt, const std::string& case_path, const std::string& dir,
                        const std::vector<std::string>& extra, std::string* log = nullptr) {
  static const SolverApp app{"lbm", "test", &lbm::schema(), lbm::memory_estimate, lbm::run};
  std::vector<std::string> argv{"lbm", case_path, "--device", "cpu", "-o", dir, "-q"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int rc = cli::run(rt, argv, app, out, err);
  if (log) *log = out.str() + err.str();
  return rc;
}

using tessera::test::read_text;

// Data rows of a CSV (lines that start with a digit), split at commas.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::vector<std::string> r;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) r.push_back(cell);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace tessera::lbm::test
