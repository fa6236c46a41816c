// Grid field round trips on 1 and 4 ranks: write, read back, compare every value (exactly, after the
// conversion to the output precision), for both precisions, every write mode, sub-box, stride, slice
// and compression; a box read for restart on another decomposition.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch_compat.hpp"
#include "io_test_util.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/field_file.hpp"
#include "tessera/io/grid_output.hpp"

using namespace tessera::io;
using tessera::io::test::cell_value;

namespace {
GridGeometry test_grid() { return GridGeometry{{13, 11, 7}, {-1.0, 0.5, 2.0}, {0.1, 0.2, 0.25}}; }

std::vector<WriteMode> modes() {
  std::vector<WriteMode> m{WriteMode::Auto, WriteMode::Gather};
  if (hdf5_is_parallel()) m.push_back(WriteMode::Collective);
  return m;
}

struct RankData {
  LocalBox box;
  std::vector<double> rho;     // planar scalar
  std::vector<double> vel;     // interleaved 3-vector
  std::vector<float> temp32;   // float source
  std::vector<double> tensor;  // planar, 6 components
};

RankData make_rank_data(const GridGeometry& g) {
  RankData d;
  d.box = test::box_of(g, test::proc_grid(MPI_COMM_WORLD), tessera::test::mpi_rank());
  d.rho = test::make_planar(d.box, 1, 11);
  d.vel = test::make_interleaved(d.box, 3, 12);
  auto t = test::make_planar(d.box, 1, 13);
  d.temp32.assign(t.begin(), t.end());
  d.tensor = test::make_planar(d.box, 6, 14);
  return d;
}

std::vector<FieldView> views(const RankData& d) {
  return {FieldView::scalar("density", d.rho.data(), "kg/m^3"),
          FieldView::vector("velocity", d.vel.data(), 3, Layout::Interleaved, "m/s"),
          FieldView::scalar("temperature", d.temp32.data(), "K"),
          FieldView::vector("stress", d.tensor.data(), 6, Layout::Planar, "Pa")};
}

// Expected value in the file at output cell (i,j,k) for a field of `seed`, after precision conversion.
double expected(const ResolvedSelection& s, int64_t i, int64_t j, int64_t k, int c, uint64_t seed, Precision p,
                bool source_float) {
  double v = cell_value(s.lo[0] + i * s.stride[0], s.lo[1] + j * s.stride[1], s.lo[2] + k * s.stride[2], c, seed);
  if (source_float) v = static_cast<float>(v);
  return p == Precision::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
}

// Reads every field back (whole datasets, on every rank) and compares every value exactly.
void check_file(const std::string& path, const GridGeometry& g, const Selection& sel, Precision p) {
  const ResolvedSelection s = resolve(sel, g);
  FieldFileInfo info = read_field_file_info(path);
  CHECK(info.step == 42);
  CHECK(info.time == 1.25);
  CHECK(info.case_text == "lbm:\n  tau: 0.6\n");
  CHECK(!info.tessera_version.empty());
  for (int d = 0; d < 3; ++d) {
    CHECK(info.grid.global_cells[d] == s.out_cells[d]);
    CHECK(info.grid.origin[d] == s.out_origin[d]);
    CHECK(info.grid.spacing[d] == s.out_spacing[d]);
    CHECK(info.source_grid.global_cells[d] == g.global_cells[d]);
  }
  REQUIRE(info.fields.size() == 4);
  CHECK(info.field("density").units == "kg/m^3");
  CHECK(info.field("velocity").ncomp == 3);
  CHECK(info.field("stress").ncomp == 6);
  CHECK(info.field("temperature").precision == p);
  struct F {
    const char* name;
    int nc;
    uint64_t seed;
    bool f32;
  };
  for (F f : {F{"density", 1, 11, false}, F{"velocity", 3, 12, false}, F{"temperature", 1, 13, true},
              F{"stress", 6, 14, false}}) {
    std::vector<double> v = read_field(path, f.name);
    REQUIRE(v.size() == static_cast<std::size_t>(s.out_num_cells() * f.nc));
    int64_t bad = 0, o = 0;
    for (int64_t k = 0; k < s.out_cells[2]; ++k)
      for (int64_t j = 0; j < s.out_cells[1]; ++j)
        for (int64_t i = 0; i < s.out_cells[0]; ++i)
          for (int c = 0; c < f.nc; ++c)
            if (v[o++] != expected(s, i, j, k, c, f.seed, p, f.f32)) ++bad;
    INFO("field " << f.name << " in " << path);
    CHECK(bad == 0);
  }
}

void write_and_check(const std::string& tag, const Selection& sel, Precision p, WriteMode m, int deflate) {
  const GridGeometry g = test_grid();
  RankData d = make_rank_data(g);
  auto v = views(d);
  const std::string dir = test::scratch_dir(MPI_COMM_WORLD, tag);
  const std::string path = dir + "/f_" + to_string(p) + "_" + to_string(m) + ".h5";
  FieldFileOptions opt;
  opt.precision = p;
  opt.selection = sel;
  opt.mode = m;
  opt.deflate_level = deflate;
  opt.case_text = "lbm:\n  tau: 0.6\n";
  write_field_file(MPI_COMM_WORLD, path, g, d.box, v, FieldStepInfo{42, 1.25}, opt);
  check_file(path, g, sel, p);
}
}  // namespace

TEST_CASE("fields: whole grid round trip, both precisions, every write mode", "[io][fields]") {
  for (Precision p : {Precision::Float32, Precision::Float64})
    for (WriteMode m : modes()) write_and_check("whole", Selection::all(), p, m, 0);
}

TEST_CASE("fields: sub-box, stride, slice and compression", "[io][fields]") {
  for (WriteMode m : modes()) {
    write_and_check("subbox", Selection::sub_box({2, 1, 1}, {11, 9, 6}), Precision::Float64, m, 0);
    write_and_check("stride", Selection{{1, 0, 0}, {0, 0, 0}, {2, 3, 2}}, Precision::Float32, m, 0);
    write_and_check("every", Selection::every(3), Precision::Float64, m, 0);
    write_and_check("slice_y", Selection::slice(1, 4), Precision::Float64, m, 0);
    write_and_check("slice_z", Selection::slice(2, 6), Precision::Float32, m, 0);
    write_and_check("deflate", Selection::all(), Precision::Float64, m, 4);
    write_and_check("deflate_sub", Selection{{1, 2, 0}, {12, 0, 7}, {1, 2, 1}}, Precision::Float32, m, 6);
  }
}

TEST_CASE("fields: compression makes smooth data smaller", "[io][fields]") {
  const GridGeometry g{{32, 32, 16}, {0, 0, 0}, {1, 1, 1}};
  const LocalBox box = test::box_of(g, test::proc_grid(MPI_COMM_WORLD), tessera::test::mpi_rank());
  std::vector<double> smooth(static_cast<std::size_t>(box.num_cells()));
  for (int64_t k = 0, o = 0; k < box.cells[2]; ++k)
    for (int64_t j = 0; j < box.cells[1]; ++j)
      for (int64_t i = 0; i < box.cells[0]; ++i) smooth[o++] = static_cast<double>((box.offset[2] + k) / 4);
  FieldView f[] = {FieldView::scalar("layer", smooth.data())};
  const std::string dir = test::scratch_dir(MPI_COMM_WORLD, "deflate_size");
  FieldFileOptions plain, packed;
  plain.precision = packed.precision = Precision::Float64;
  packed.deflate_level = 6;
  write_field_file(MPI_COMM_WORLD, dir + "/plain.h5", g, box, f, {}, plain);
  write_field_file(MPI_COMM_WORLD, dir + "/packed.h5", g, box, f, {}, packed);
  CHECK(std::filesystem::file_size(dir + "/packed.h5") * 4 < std::filesystem::file_size(dir + "/plain.h5"));
  std::vector<double> a = read_field(dir + "/packed.h5", "layer");
  for (std::size_t n = 0; n < a.size(); ++n) REQUIRE(a[n] == static_cast<double>(n / (32 * 32) / 4));
}

TEST_CASE("fields: each rank reads its box of another decomposition (restart on other rank counts)", "[io][fields]") {
  const GridGeometry g = test_grid();
  RankData d = make_rank_data(g);
  auto v = views(d);
  const std::string dir = test::scratch_dir(MPI_COMM_WORLD, "rebox");
  FieldFileOptions opt;
  opt.precision = Precision::Float64;
  write_field_file(MPI_COMM_WORLD, dir + "/f.h5", g, d.box, v, {}, opt);
  // Another decomposition: slabs along x in reverse rank order.
  const int size = tessera::test::mpi_size(), rank = tessera::test::mpi_rank();
  const LocalBox other = test::box_of(g, {size, 1, 1}, size - 1 - rank);
  std::vector<double> planar(static_cast<std::size_t>(other.num_cells() * 3));
  read_field_box(dir + "/f.h5", "velocity", other, planar.data(), Layout::Planar);
  CHECK(planar == test::make_planar(other, 3, 12));
  std::vector<float> rho32(static_cast<std::size_t>(other.num_cells()));
  read_field_box(dir + "/f.h5", "density", other, rho32.data());
  std::vector<double> want = test::make_planar(other, 1, 11);
  for (std::size_t n = 0; n < rho32.size(); ++n) REQUIRE(rho32[n] == static_cast<float>(want[n]));
}

TEST_CASE("fields: clear errors", "[io][fields]") {
  const GridGeometry g = test_grid();
  RankData d = make_rank_data(g);
  auto v = views(d);
  FieldFileOptions opt;
  opt.selection = Selection::sub_box({0, 0, 5}, {13, 11, 9});
  try {
    write_field_file(MPI_COMM_WORLD, "io_scratch/never.h5", g, d.box, v, {}, opt);
    FAIL("a selection outside the grid must be refused");
  } catch (const tessera::Error& e) {
    CHECK(std::string(e.what()).find("axis z") != std::string::npos);
  }
  const std::string dir = test::scratch_dir(MPI_COMM_WORLD, "errors");
  write_field_file(MPI_COMM_WORLD, dir + "/f.h5", g, d.box, v, {}, FieldFileOptions{});
  try {
    read_field(dir + "/f.h5", "pressure");
    FAIL("a missing field must be refused");
  } catch (const tessera::Error& e) {
    CHECK(std::string(e.what()).find("density, stress, temperature, velocity") != std::string::npos);
  }
  CHECK_THROWS_AS(read_field_file_info(dir + "/missing.h5"), tessera::Error);
  if (!hdf5_is_parallel()) {
    opt = FieldFileOptions{};
    opt.mode = WriteMode::Collective;
    CHECK_THROWS_AS(write_field_file(MPI_COMM_WORLD, dir + "/c.h5", g, d.box, v, {}, opt), tessera::Error);
  }
}

TEST_CASE("grid output: XDMF series over steps, continued after a restart", "[io][fields][series]") {
  const GridGeometry g = test_grid();
  RankData d = make_rank_data(g);
  auto v = views(d);
  const std::string dir = test::scratch_dir(MPI_COMM_WORLD, "series");
  GridOutputOptions opt;
  opt.vtk_xml = true;
  {
    GridOutput out(MPI_COMM_WORLD, dir, "run", g, opt);
    for (int s = 0; s < 3; ++s) out.write(10 * s, 0.1 * s, d.box, v);
  }
  auto read = [](const std::string& p) {
    std::ifstream is(p);
    std::stringstream ss;
    ss << is.rdbuf();
    return ss.str();
  };
  auto count = [](const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(read(dir + "/run.xdmf"), "<Time Value=") == 3);
  CHECK(count(read(dir + "/run.pvd"), "<DataSet") == 3);
  // A restart from step 10 rewrites step 20 and continues: steps 0, 10 kept, 20 and 30 new.
  {
    GridOutput out(MPI_COMM_WORLD, dir, "run", g, opt);
    out.write(20, 0.2, d.box, v);
    out.write(30, 0.3, d.box, v);
    if (tessera::test::mpi_rank() == 0) CHECK(out.steps().size() == 4);
  }
  const std::string x = read(dir + "/run.xdmf");
  CHECK(count(x, "<Time Value=") == 4);
  CHECK(x.find("run_00000030.h5:/fields/velocity") != std::string::npos);
  CHECK(count(read(dir + "/run.pvd"), "<DataSet") == 4);
  CHECK(read_field_file_info(dir + "/run_00000030.h5").step == 30);
}
