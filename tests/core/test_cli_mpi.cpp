// The solver front end under mpiexec: only rank 0 prints; every rank loads the same case; the memory
// estimate defaults to the job's rank count; the output directory exists on every rank before run().
#include <filesystem>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/log.hpp"
#include "test_case_toy.hpp"

using namespace tessera;
using tessera::test::case_path;

namespace {
SolverApp mpi_app(int& ranks_seen, bool& dir_seen, std::uint64_t& hash_seen) {
  SolverApp app;
  app.name = "toy";
  app.summary = "toy solver for MPI tests";
  app.schema = &tessera::test::toy_schema();
  app.memory_estimate = [&ranks_seen](const Case&, int nranks) {
    ranks_seen = nranks;
    return MemoryEstimate{std::size_t(1) << 20, {}};
  };
  app.run = [&dir_seen, &hash_seen](Runtime&, const Case& c, const RunOptions& o) {
    dir_seen = std::filesystem::is_directory(o.output_dir);
    hash_seen = c.hash();
    return exit_code::ok;
  };
  return app;
}
}  // namespace

TEST_CASE("cli under MPI: rank 0 prints, all ranks agree", "[cli][mpi]") {
  int argc = 0;
  char** argv = nullptr;
  Runtime rt(&argc, &argv);
  int ranks_seen = 0;
  bool dir_seen = false;
  std::uint64_t hash_seen = 0;
  const SolverApp app = mpi_app(ranks_seen, dir_seen, hash_seen);

  std::ostringstream out, err;
  int rc = cli::run(rt, {"toy", "--check", case_path("good.yaml")}, app, out, err);
  CHECK(rc == 0);
  CHECK(ranks_seen == rt.size());
  if (rt.rank() == 0) CHECK(out.str().find("on " + std::to_string(rt.size()) + " rank") != std::string::npos);
  else CHECK(out.str().empty());

  std::ostringstream out2, err2;
  rc = cli::run(rt, {"toy", "--check", case_path("bad_range.yaml")}, app, out2, err2);
  CHECK(rc == exit_code::bad_input);  // every rank rejects the case
  CHECK(err2.str().empty() == (rt.rank() != 0));

  const std::string dir = tessera::test::scratch_path("cli_mpi");
  std::ostringstream out3, err3;
  rc = cli::run(rt, {"toy", case_path("good.yaml"), "--device", "cpu", "-o", dir, "-q"}, app, out3, err3);
  CHECK(rc == 0);
  CHECK(dir_seen);
  // Every rank resolved the same case.
  unsigned long long h = hash_seen, hmin = 0, hmax = 0;
  MPI_Allreduce(&h, &hmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, rt.comm());
  MPI_Allreduce(&h, &hmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, rt.comm());
  CHECK(hmin == hmax);
  CHECK(h != 0);
  MPI_Barrier(rt.comm());
  if (rt.rank() == 0) std::filesystem::remove_all(dir);
  tessera::log::set_level(tessera::log::Level::Info);
}
