// Helper of check_checkpoint_kill.py: a real process that is SIGKILLed while it writes a checkpoint.
//   io_ckpt_crash good DIR    writes checkpoint step 1 (small, known values)
//   io_ckpt_crash big DIR     writes checkpoint step 2 (about 128 MB): the driver kills it mid-write
//   io_ckpt_crash verify DIR  exit 0 if the newest valid checkpoint is step 1 and it loads with the
//                             values written, the killed one left no final file, and a load of the
//                             leftover temporary is refused
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "tessera/io/checkpoint.hpp"

using namespace tessera::io;

namespace {
std::vector<double> values(int64_t n, double scale) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = scale * static_cast<double>(i) + 0.25;
  return v;
}

int run(const std::string& mode, const std::string& dir) {
  const GridGeometry g{{16, 8, 4}, {0, 0, 0}, {1, 1, 1}};
  if (mode == "good") {
    auto f = values(g.num_cells(), 1.5);
    CheckpointData d;
    d.meta = {1, 0.5, "hash-1", "case: 1\n", "test"};
    d.add_field("f", g.global_cells, LocalBox::whole(g), f.data());
    write_checkpoint(MPI_COMM_SELF, dir, d, CheckpointOptions{0});
    return 0;
  }
  if (mode == "big") {
    std::vector<std::vector<double>> arrays;
    CheckpointData d;
    d.meta = {2, 1.0, "hash-1", "case: 1\n", "test"};
    for (int a = 0; a < 16; ++a) {
      arrays.push_back(values(int64_t(1) << 20, a + 1.0));
      d.add_global("a" + std::to_string(a), arrays.back().data(), int64_t(arrays.back().size()));
    }
    std::printf("writing\n");
    std::fflush(stdout);
    write_checkpoint(MPI_COMM_SELF, dir, d, CheckpointOptions{0});
    return 0;
  }
  if (mode == "verify") {
    auto list = list_checkpoints(dir);
    if (list.size() != 1 || list[0].step != 1) {
      std::fprintf(stderr, "expected only checkpoint step 1, found %zu checkpoints\n", list.size());
      return 1;
    }
    auto latest = find_latest_valid_checkpoint(dir);
    if (!latest || *latest != list[0].path) return std::fprintf(stderr, "step 1 does not verify\n"), 1;
    CheckpointReader r(MPI_COMM_SELF, *latest, LoadOptions{"hash-1", "", false});
    std::vector<double> f(static_cast<std::size_t>(g.num_cells()));
    r.read_field("f", LocalBox::whole(g), f.data());
    if (f != values(g.num_cells(), 1.5)) return std::fprintf(stderr, "step 1 values differ\n"), 1;
    const std::string tmp = dir + "/.checkpoint_0000000002.h5.tmp";
    if (std::filesystem::exists(tmp)) {
      std::string why = verify_checkpoint(tmp);
      if (why.empty()) return std::fprintf(stderr, "the killed writer's temporary verifies?!\n"), 1;
      std::printf("leftover temporary refused: %s\n", why.c_str());
    }
    std::printf("previous checkpoint intact: %s\n", latest->c_str());
    return 0;
  }
  std::fprintf(stderr, "usage: io_ckpt_crash good|big|verify DIR\n");
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  try {
    if (argc == 3) rc = run(argv[1], argv[2]);
    else std::fprintf(stderr, "usage: io_ckpt_crash good|big|verify DIR\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "io_ckpt_crash: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
