// The path a solver takes to write a field: compute it on its execution space, copy it to a pinned
// staging Buffer, hand the host pointer to the writer. The GPU case computes the field on the device
// and must produce the same file contents as the host back end (bit for bit: the formula is exact).
#include <cstdint>

#include "catch_compat.hpp"
#include "io_test_util.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/io/field_file.hpp"

using namespace tessera;
using namespace tessera::io;

namespace {
const GridGeometry kGrid{{24, 10, 7}, {0, 0, 0}, {0.5, 0.5, 0.5}};

// Fills a 3-component planar field on `space` with values exact in float64 (small integers / 8).
Buffer<double> compute(exec::Space space, const LocalBox& box) {
  const int64_t n = box.num_cells();
  Buffer<double> d(static_cast<std::size_t>(3 * n), default_memkind(space), "io_test::field");
  double* p = d.data();
  const int64_t nx = box.cells[0], ny = box.cells[1], ox = box.offset[0], oy = box.offset[1], oz = box.offset[2];
  exec::parallel_for(exec::Exec(space), "io_test::fill", exec::Range3{box.cells[0], box.cells[1], box.cells[2]},
                     TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {
                       const int64_t c = (k * ny + j) * nx + i;
                       const int64_t gi = ox + i, gj = oy + j, gk = oz + k;
                       p[c] = static_cast<double>((gi * 7 + gj * 13 + gk * 31) % 97) * 0.125;
                       p[n + c] = static_cast<double>(gi - gj) * 0.5;
                       p[2 * n + c] = static_cast<double>(gk * gk) / 8.0;
                     });
  exec::fence(exec::Exec(space));
  return d;
}

// Stage to pinned memory and write; returns the values read back from the file.
std::vector<double> write_staged(exec::Space space, const std::string& path) {
  const LocalBox box = io::test::box_of(kGrid, io::test::proc_grid(MPI_COMM_WORLD), tessera::test::mpi_rank());
  Buffer<double> field = compute(space, box);
  Buffer<double> staging(field.size(), MemKind::Pinned, "io_test::staging");
  copy(staging, field);
  FieldView f[] = {FieldView::vector("u", staging.data(), 3, Layout::Planar, "m/s")};
  FieldFileOptions opt;
  opt.precision = Precision::Float64;
  write_field_file(MPI_COMM_WORLD, path, kGrid, box, f, FieldStepInfo{1, 0.5}, opt);
  return read_field(path, "u");
}

double expected(int64_t i, int64_t j, int64_t k, int c) {
  if (c == 0) return static_cast<double>((i * 7 + j * 13 + k * 31) % 97) * 0.125;
  if (c == 1) return static_cast<double>(i - j) * 0.5;
  return static_cast<double>(k * k) / 8.0;
}
}  // namespace

TEST_CASE("staging: host field -> pinned buffer -> file has the exact values", "[io][staging]") {
  const std::string dir = io::test::scratch_dir(MPI_COMM_WORLD, "staging_host");
  std::vector<double> v = write_staged(exec::Space::Host, dir + "/u.h5");
  int64_t bad = 0, o = 0;
  for (int64_t k = 0; k < kGrid.global_cells[2]; ++k)
    for (int64_t j = 0; j < kGrid.global_cells[1]; ++j)
      for (int64_t i = 0; i < kGrid.global_cells[0]; ++i)
        for (int c = 0; c < 3; ++c) bad += v[o++] != expected(i, j, k, c);
  CHECK(bad == 0);
}

TEST_CASE("staging: a device-computed field writes the same file contents as the host one", "[io][staging][gpu]") {
  TESSERA_GPU_TEST();
  const std::string dir = io::test::scratch_dir(MPI_COMM_WORLD, "staging_gpu");
  std::vector<double> dev = write_staged(exec::Space::Device, dir + "/u_gpu.h5");
  std::vector<double> host = write_staged(exec::Space::Host, dir + "/u_host.h5");
  REQUIRE(dev.size() == host.size());
  CHECK(dev == host);
}
