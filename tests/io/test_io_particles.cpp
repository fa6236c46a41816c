// H5MD particle output on 1 and 4 ranks: particles of all ranks land in one file ordered by id, every
// frame reads back exactly; the particle count is fixed per file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch_compat.hpp"
#include "io_test_util.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/h5md.hpp"

using namespace tessera::io;

namespace {
// Particle id q belongs to rank q % size (ids interleaved between ranks, so gathering in rank order
// is NOT id order); rank 0 holds its particles in descending id order.
struct Local {
  std::vector<int64_t> id;
  std::vector<int32_t> species;
  std::vector<double> pos, vel;
};
Local make_local(int64_t total, int frame) {
  const int size = tessera::test::mpi_size(), rank = tessera::test::mpi_rank();
  Local l;
  for (int64_t q = 0; q < total; ++q)
    if (q % size == rank) l.id.push_back(q);
  if (rank == 0) std::reverse(l.id.begin(), l.id.end());
  for (int64_t q : l.id) {
    l.species.push_back(static_cast<int32_t>(q % 3));
    for (int c = 0; c < 3; ++c) {
      l.pos.push_back(test::cell_value(q, c, frame, 0, 77));
      l.vel.push_back(test::cell_value(q, c, frame, 1, 78));
    }
  }
  return l;
}
}  // namespace

TEST_CASE("h5md: frames from all ranks, ordered by id, read back exactly", "[io][h5md]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "h5md");
  const int64_t total = 37;
  H5mdOptions opt;
  opt.author = "test";
  opt.periodic = {true, true, false};
  {
    H5mdWriter w(comm, dir + "/traj.h5", opt);
    for (int f = 0; f < 3; ++f) {
      Local l = make_local(total, f);
      ParticleFrameView v{static_cast<int64_t>(l.id.size()), l.id.data(), l.species.data(), l.pos.data(), l.vel.data()};
      w.append(10 * f, 0.5 * f, {10.0 + f, 11.0, 12.0}, v);
    }
    CHECK(w.frames() == 3);
  }
  CHECK(h5md_frame_count(dir + "/traj.h5") == 3);
  for (int f = -1; f < 3; ++f) {
    const int frame = f < 0 ? 2 : f;
    ParticleFrame pf = read_h5md_frame(dir + "/traj.h5", f);
    CHECK(pf.step == 10 * frame);
    CHECK(pf.time == 0.5 * frame);
    CHECK(pf.box_edges[0] == 10.0 + frame);
    REQUIRE(pf.size() == total);
    int64_t bad = 0;
    for (int64_t q = 0; q < total; ++q) {
      if (pf.id[q] != q || pf.species[q] != q % 3) ++bad;
      for (int c = 0; c < 3; ++c) {
        if (pf.position[3 * q + c] != test::cell_value(q, c, frame, 0, 77)) ++bad;
        if (pf.velocity[3 * q + c] != test::cell_value(q, c, frame, 1, 78)) ++bad;
      }
    }
    CHECK(bad == 0);
  }
  // The XDMF sidecar lists the three frames as Polyvertex grids.
  std::ifstream is(dir + "/traj.xdmf");
  std::stringstream ss;
  ss << is.rdbuf();
  const std::string x = ss.str();
  CHECK(x.find("Polyvertex") != std::string::npos);
  CHECK(x.find("step_00000020") != std::string::npos);
  CHECK(x.find("traj.h5:/particles/all/velocity/value") != std::string::npos);
}

TEST_CASE("h5md: the particle count is fixed per file", "[io][h5md]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "h5md_n");
  H5mdWriter w(comm, dir + "/traj.h5", H5mdOptions{});
  Local a = make_local(8, 0), b = make_local(9, 1);
  w.append(0, 0.0, {1, 1, 1}, {int64_t(a.id.size()), a.id.data(), nullptr, a.pos.data(), nullptr});
  try {
    w.append(1, 0.1, {1, 1, 1}, {int64_t(b.id.size()), b.id.data(), nullptr, b.pos.data(), nullptr});
    FAIL("a changed particle count must be refused");
  } catch (const tessera::Error& e) {
    CHECK(std::string(e.what()).find("8 particles per frame") != std::string::npos);
  }
  ParticleFrame pf = read_h5md_frame(dir + "/traj.h5", 0);
  CHECK(pf.velocity.empty());
  CHECK(pf.species == std::vector<int32_t>(8, 0));
  CHECK_THROWS_AS(read_h5md_frame(dir + "/traj.h5", 5), tessera::Error);
}
