// Checkpoints on 1 and 4 ranks: bit-exact round trips, restart on another rank count, keep-last-N,
// case-hash mismatch, a writer stopped between write and rename, truncated and bit-flipped files.
#include <filesystem>
#include <fstream>
#include <functional>

#include "catch_compat.hpp"
#include "io_test_util.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/checkpoint.hpp"

using namespace tessera::io;

namespace {
const GridGeometry kGrid{{9, 7, 5}, {0, 0, 0}, {1, 1, 1}};
const double kMarker = 12345.6789012345;  // a value that occurs only in the "marker" array

struct State {
  LocalBox box;
  std::vector<double> pops;      // interleaved, 3 components
  std::vector<float> phi;        // scalar
  std::vector<int64_t> ids;      // per-rank particles (rank 1 has none)
  std::vector<double> pos;       // [n][3]
  std::vector<uint8_t> rng;      // per-rank RNG state, different sizes
  std::vector<double> marker;    // global
};

State make_state(MPI_Comm comm, const LocalBox& box, uint64_t seed) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  State s;
  s.box = box;
  s.pops = test::make_interleaved(box, 3, seed);
  auto p = test::make_planar(box, 1, seed + 1);
  s.phi.assign(p.begin(), p.end());
  const int n = rank == 1 ? 0 : rank + 3;
  for (int m = 0; m < n; ++m) {
    s.ids.push_back(1000 * rank + m);
    for (int c = 0; c < 3; ++c) s.pos.push_back(test::cell_value(rank, m, c, 0, seed));
  }
  for (int b = 0; b < 16 + rank; ++b) s.rng.push_back(static_cast<uint8_t>(seed * 31 + rank * 7 + b));
  s.marker.assign(64, kMarker);
  return s;
}

CheckpointData to_data(const State& s, int64_t step, const std::string& case_hash = "case-abc") {
  CheckpointData d;
  d.meta = CheckpointMeta{step, 0.125 * static_cast<double>(step), case_hash, "lbm:\n  tau: 0.6\n  nx: 9\n", "lbm"};
  d.add_field("pops", kGrid.global_cells, s.box, s.pops.data(), 3);
  d.add_field("phi", kGrid.global_cells, s.box, s.phi.data());
  d.add_local("id", s.ids.data(), static_cast<int64_t>(s.ids.size()));
  d.add_local("position", s.pos.data(), static_cast<int64_t>(s.ids.size()), 3);
  d.add_local("rng_state", s.rng.data(), static_cast<int64_t>(s.rng.size()));
  d.add_global("marker", s.marker.data(), static_cast<int64_t>(s.marker.size()));
  return d;
}

LocalBox my_box(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return test::box_of(kGrid, test::proc_grid(comm), rank);
}

void check_fields(const CheckpointReader& r, MPI_Comm comm, uint64_t seed) {
  const LocalBox box = my_box(comm);
  std::vector<double> pops(static_cast<std::size_t>(box.num_cells() * 3));
  r.read_field("pops", box, pops.data());
  CHECK(pops == test::make_interleaved(box, 3, seed));
  std::vector<float> phi(static_cast<std::size_t>(box.num_cells()));
  r.read_field("phi", box, phi.data());
  auto want = test::make_planar(box, 1, seed + 1);
  CHECK(phi == std::vector<float>(want.begin(), want.end()));
}

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  FAIL("expected a tessera::Error");
  return "";
}
}  // namespace

TEST_CASE("checkpoint: bit-exact round trip of fields, per-rank and global arrays", "[io][checkpoint]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "ckpt_roundtrip");
  State s = make_state(comm, my_box(comm), 3);
  const std::string path = write_checkpoint(comm, dir, to_data(s, 40));
  CHECK(std::filesystem::path(path).filename() == "checkpoint_0000000040.h5");
  CHECK(verify_checkpoint(path).empty());
  CheckpointReader r(comm, path, LoadOptions{"case-abc", "", false});
  CHECK(r.meta().step == 40);
  CHECK(r.meta().time == 5.0);
  CHECK(r.meta().solver == "lbm");
  CHECK(r.meta().case_text == "lbm:\n  tau: 0.6\n  nx: 9\n");
  CHECK(r.nranks_written() == tessera::test::mpi_size());
  check_fields(r, comm, 3);
  CHECK(r.read_local<int64_t>("id") == s.ids);
  CHECK(r.read_local<double>("position") == s.pos);
  CHECK(r.read_local<uint8_t>("rng_state") == s.rng);
  CHECK(r.read_global<double>("marker") == s.marker);
  CHECK(r.names("fields") == std::vector<std::string>{"phi", "pops"});
  // All ranks' particles in rank order.
  std::vector<int64_t> all = r.read_local_all<int64_t>("id");
  int64_t expected_total = 0;
  for (int q = 0; q < tessera::test::mpi_size(); ++q) expected_total += q == 1 ? 0 : q + 3;
  CHECK(static_cast<int64_t>(all.size()) == expected_total);
  CHECK(std::is_sorted(all.begin(), all.end()));
}

TEST_CASE("checkpoint: restart on a different rank count", "[io][checkpoint]") {
  MPI_Comm world = MPI_COMM_WORLD;
  const int rank = tessera::test::mpi_rank();
  const std::string dir = test::scratch_dir(world, "ckpt_ranks");
  // Written by rank 0 alone (one box = the whole grid) ...
  MPI_Comm solo;
  MPI_Comm_split(world, rank == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (solo != MPI_COMM_NULL) {
    State s = make_state(solo, LocalBox::whole(kGrid), 9);
    write_checkpoint(solo, dir, to_data(s, 7));
    MPI_Comm_free(&solo);
  }
  MPI_Barrier(world);
  // ... read by all ranks, each its box: the same values.
  CheckpointReader r(world, dir + "/checkpoint_0000000007.h5");
  check_fields(r, world, 9);
  if (tessera::test::mpi_size() > 1) {
    std::string msg = expect_error([&] { r.read_local<int64_t>("id"); });
    CHECK(msg.find("written by 1 ranks") != std::string::npos);
  }
  CHECK(r.read_local_all<int64_t>("id").size() == 3);
  // And the other way: written by every rank, read by rank 0 alone as one box.
  State s = make_state(world, my_box(world), 21);
  write_checkpoint(world, dir, to_data(s, 8));
  if (rank == 0) {
    CheckpointReader one(MPI_COMM_SELF, dir + "/checkpoint_0000000008.h5");
    std::vector<double> pops(static_cast<std::size_t>(kGrid.num_cells() * 3));
    one.read_field("pops", LocalBox::whole(kGrid), pops.data());
    CHECK(pops == test::make_interleaved(LocalBox::whole(kGrid), 3, 21));
  }
  MPI_Barrier(world);
}

TEST_CASE("checkpoint: keep the last N, list newest first", "[io][checkpoint]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "ckpt_keep");
  State s = make_state(comm, my_box(comm), 1);
  CheckpointOptions opt;
  opt.keep_last = 2;
  for (int64_t step : {10, 20, 30, 40}) write_checkpoint(comm, dir, to_data(s, step), opt);
  auto list = list_checkpoints(dir);
  REQUIRE(list.size() == 2);
  CHECK(list[0].step == 40);
  CHECK(list[1].step == 30);
  CHECK(find_latest_valid_checkpoint(dir).value() == list[0].path);
}

TEST_CASE("checkpoint: a different case is refused with what differs, unless forced", "[io][checkpoint]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "ckpt_case");
  State s = make_state(comm, my_box(comm), 1);
  const std::string path = write_checkpoint(comm, dir, to_data(s, 5));
  LoadOptions lo{"case-xyz", "lbm:\n  tau: 0.7\n  nx: 9\n", false};
  std::string msg = expect_error([&] { CheckpointReader r(comm, path, lo); });
  CHECK(msg.find("case-abc") != std::string::npos);
  CHECK(msg.find("line 2") != std::string::npos);
  CHECK(msg.find("tau: 0.7") != std::string::npos);
  CHECK(msg.find("force") != std::string::npos);
  lo.force = true;
  CheckpointReader r(comm, path, lo);
  check_fields(r, comm, 1);
}

TEST_CASE("checkpoint: a writer stopped before the rename leaves the previous one intact", "[io][checkpoint]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "ckpt_hook");
  State good = make_state(comm, my_box(comm), 4);
  const std::string first = write_checkpoint(comm, dir, to_data(good, 100));
  State newer = make_state(comm, my_box(comm), 5);
  CheckpointOptions crash;
  crash.fail_before_rename = true;
  CHECK_THROWS_AS(write_checkpoint(comm, dir, to_data(newer, 200), crash), tessera::Error);
  CHECK(std::filesystem::exists(dir + "/.checkpoint_0000000200.h5.tmp"));
  auto list = list_checkpoints(dir);
  REQUIRE(list.size() == 1);
  CHECK(find_latest_valid_checkpoint(dir).value() == first);
  CheckpointReader r(comm, first);
  check_fields(r, comm, 4);
  // The next attempt replaces the leftover temporary.
  write_checkpoint(comm, dir, to_data(newer, 200));
  CHECK(!std::filesystem::exists(dir + "/.checkpoint_0000000200.h5.tmp"));
  CHECK(list_checkpoints(dir).size() == 2);
}

TEST_CASE("checkpoint: truncated and bit-flipped files are refused, naming the previous valid one", "[io][checkpoint]") {
  MPI_Comm comm = MPI_COMM_WORLD;
  const std::string dir = test::scratch_dir(comm, "ckpt_corrupt");
  State s = make_state(comm, my_box(comm), 6);
  const std::string good = write_checkpoint(comm, dir, to_data(s, 100), CheckpointOptions{0});
  const std::string flipped = dir + "/checkpoint_0000000300.h5";
  const std::string truncated = dir + "/checkpoint_0000000400.h5";
  if (tessera::test::mpi_rank() == 0) {
    // A copy of the good file with one bit flipped inside the "marker" data, and a half file.
    std::ifstream is(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
    std::string pattern(reinterpret_cast<const char*>(&kMarker), sizeof kMarker);
    const std::size_t at = bytes.find(pattern);
    REQUIRE(at != std::string::npos);
    std::string bad = bytes;
    bad[at + 3] ^= 0x04;
    std::ofstream(flipped, std::ios::binary) << bad;
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  MPI_Barrier(comm);
  CHECK(verify_checkpoint(good).empty());
  const std::string why_flip = verify_checkpoint(flipped);
  CHECK(why_flip.find("corrupted") != std::string::npos);
  CHECK(!verify_checkpoint(truncated).empty());
  CHECK(find_latest_valid_checkpoint(dir).value() == good);
  for (const std::string& p : {flipped, truncated}) {
    std::string msg = expect_error([&] { CheckpointReader r(comm, p); });
    INFO(msg);
    CHECK(msg.find("checkpoint_0000000100.h5") != std::string::npos);
    CHECK(msg.find("--restart") != std::string::npos);
  }
}
