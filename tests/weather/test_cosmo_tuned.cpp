// The tuned CUDA COSMO stencils (hdiff whole-strip warps with and without programmatic dependent launch,
// vadv twisted, register and staged forms) against the portable forms: bit for bit on the device, to rounding against the host (FMA contraction on the device), on
// random inputs, partial warps and strips, every ghost-fill kind (periodic, walls on x, y or both), with a
// coefficient field and a constant coefficient, and columns from 1 level to more than fit on chip
// (the portable fallback). On the host: the portable hdiff against the staged reference for every
// ghost-fill kind, and the tuned hdiff's wide forms (hdiff_wide_lane.hpp) on an emulated warp against the
// portable hdiff, bit for bit.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/hdiff.hpp"
#include "tessera/weather/vadv.hpp"
#include "weather_test_util.hpp"

// The wide forms' lane code, compiled for the host against an emulated warp (tests/warp_emulation.hpp).
#include "warp_emulation.hpp"
struct double2 {
  double x, y;
};
inline double2 make_double2(double a, double b) { return {a, b}; }
#include "../../kernels/weather/src/hdiff_wide_lane.hpp"

using namespace tessera;
using namespace tessera::weather;
using namespace tessera::weather::test;
using tessera::test::ScopedEnv;

namespace {

SwParams boundary_kind(int kind) {
  SwParams p;
  p.wall_x = kind & 1;
  p.wall_y = kind & 2;
  return p;
}

// Largest |a - b| over the interior of every level.
double max_diff(const Grid& gr, const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0;
  for (int64_t k = 0; k < gr.nz; ++k)
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) {
        const size_t n = size_t(gr.idx(i, j, k));
        err = std::max(err, std::abs(a[n] - b[n]));
      }
  return err;
}

// Random field with its ghosts filled for the given boundary kind (on the host).
std::vector<double> random_with_ghosts(const Grid& gr, int kind, unsigned seed) {
  const exec::Exec host(exec::Space::Host);
  Buffer<double> a(size_t(gr.size3()), MemKind::Host);
  const auto r = random_field(a.size(), -1.0, 1.0, seed);
  std::copy(r.begin(), r.end(), a.begin());
  scalar_fill_ghosts_local(host, gr, boundary_kind(kind), a.data());
  return std::vector<double>(a.begin(), a.end());
}

}  // namespace

TEST_CASE("hdiff portable path matches the staged reference for every boundary kind", "[weather][hdiff]") {
  const int kind = GENERATE(0, 1, 2, 3);
  const Grid gr = make_grid(37, 19, 1.0, 1.0, 2, 3);
  const exec::Exec host(exec::Space::Host);
  const auto in = random_with_ghosts(gr, kind, 100 + kind);
  const size_t n3 = in.size();
  Buffer<double> a(n3, MemKind::Host), o1(n3, MemKind::Host), o2(n3, MemKind::Host);
  upload(a, in);
  hdiff_fused(host, gr, a.data(), nullptr, 0.012, o1.data());
  HdiffScratch w(gr, MemKind::Host);
  hdiff_reference(host, gr, a.data(), nullptr, 0.012, w, o2.data());
  INFO("boundary kind " << kind);
  CHECK(max_diff(gr, download(o1), download(o2)) == 0.0);
}

// The wide forms' launch (hdiff_cuda.cpp's launch_wide) on the host: every block and warp of every level,
// each warp's lanes as threads.
template <int R, int kWarps, bool Split>
void emulated_hdiff_wide(const Grid& gr, const double* in, const double* coeff, double coeff0, double* out) {
  using tessera::weather::detail::hdiff_wide_lane;
  const int64_t blocks = (tessera::weather::detail::hdiff_wide_warps(gr, R) + kWarps - 1) / kWarps;
  for (int level = 0; level < int(gr.nz); ++level)
    for (int block = 0; block < int(blocks); ++block)
      for (int warp = 0; warp < kWarps; ++warp)
        tessera::test::emu::run_warp([&](unsigned lane) {
          if (Split && !coeff)  // the split forms take the constant as a template argument
            hdiff_wide_lane<R, kWarps, Split, false>(gr, in, coeff, coeff0, out, int(lane), warp, block, level, [] {});
          else
            hdiff_wide_lane<R, kWarps, Split, true>(gr, in, coeff, coeff0, out, int(lane), warp, block, level, [] {});
        });
}

TEST_CASE("the tuned hdiff's wide forms, emulated on the host, give the portable path's bits", "[weather][hdiff]") {
  // The auto shapes (4 rows in 8 warps, 6 in 8, 12 in 4) in the wide and the split form; grids whose nx
  // and ghost width are even (the wide forms' condition): 74 x 37 (warps straddling band rows of 78
  // positions, the last strip partial, so the split forms' bounds-tested body runs beside the whole-strip
  // one), 62 x 29 with ghost width 4 (lanes off the grid at i = nx + 2), 120 x 48 (every strip whole for 4
  // and 6 rows); every boundary kind of the ghosts, a coefficient field and a constant.
  const int kind = GENERATE(0, 3);
  const bool field = GENERATE(true, false);
  for (const Grid& gr : {make_grid(74, 37, 1.0, 1.0, 2, 2), make_grid(62, 29, 1.0, 1.0, 4, 2),
                         make_grid(120, 48, 1.0, 1.0, 2, 1)}) {
    const size_t n3 = size_t(gr.size3());
    const auto in = random_with_ghosts(gr, kind, 500 + kind);
    const auto cf = random_field(n3, 0.0, 0.015, 600);
    const double* cp = field ? cf.data() : nullptr;
    std::vector<double> ref(n3, 0.0);
    hdiff_portable(exec::Exec(exec::Space::Host), gr, in.data(), cp, 0.0137, ref.data());
    auto check = [&](const char* shape, auto run) {
      std::vector<double> out(n3, 0.0);
      run(out.data());
      INFO("shape " << shape << ", nx " << gr.nx << ", ghost width " << gr.g << ", boundary kind " << kind
                    << ", coefficient field " << field);
      CHECK(out == ref);  // every element, ghosts (never written) included
    };
    check("strip4w8", [&](double* o) { emulated_hdiff_wide<4, 8, false>(gr, in.data(), cp, 0.0137, o); });
    check("strip4w8s", [&](double* o) { emulated_hdiff_wide<4, 8, true>(gr, in.data(), cp, 0.0137, o); });
    check("strip6w8", [&](double* o) { emulated_hdiff_wide<6, 8, false>(gr, in.data(), cp, 0.0137, o); });
    check("strip6w8s", [&](double* o) { emulated_hdiff_wide<6, 8, true>(gr, in.data(), cp, 0.0137, o); });
    check("strip12w4", [&](double* o) { emulated_hdiff_wide<12, 4, false>(gr, in.data(), cp, 0.0137, o); });
    check("strip12w4s", [&](double* o) { emulated_hdiff_wide<12, 4, true>(gr, in.data(), cp, 0.0137, o); });
  }
}

TEST_CASE("tuned CUDA hdiff equals the portable path bit for bit", "[weather][hdiff][gpu]") {
  TESSERA_GPU_TEST();
  const int kind = GENERATE(0, 1, 2, 3);
  const bool field = GENERATE(true, false);
  // Every shape: strips of 8 and 16 rows by x chunks, strips of 5 to 16 rows over the band rows (f) with
  // 4 and 8 warps per block, the two-point forms (w) of 3 to 12 rows, and their split forms (ws: the
  // whole-strip path and the bounds-tested one, the coefficient field and the constant as template
  // arguments); "auto" picks by size (strip4w8 for these grids where nx and the ghost width are even, else
  // strip5f8).
  const std::string kernel = GENERATE(std::string("auto"), std::string("strip8"), std::string("strip16"),
                                      std::string("strip5f8"), std::string("strip6f8"), std::string("strip8f"),
                                      std::string("strip8f8"), std::string("strip12f"), std::string("strip16f"),
                                      std::string("strip3w8"), std::string("strip4w4"), std::string("strip4w8"),
                                      std::string("strip5w4"), std::string("strip5w8"), std::string("strip6w4"),
                                      std::string("strip6w8"), std::string("strip12w4"), std::string("strip4w8s"),
                                      std::string("strip6w8s"), std::string("strip12w4s"));
  const ScopedEnv kv("TESSERA_HDIFF_KERNEL", kernel);
  const bool pdl = GENERATE(false, true);  // programmatic dependent launch after the uploads
  const ScopedEnv pv("TESSERA_HDIFF_PDL", pdl ? "1" : "0");
  // 75 x 37: partial warps in x (28 columns) and strips in y (37 = 2 x 16 + 5 = 4 x 8 + 5; blocks of four
  // strips with idle warps); 256 x 64: whole strips and blocks; 61 x 29 with ghost width 3 (the flat
  // forms' warps straddle band rows of 67 positions). The wide forms (two columns per lane, w) need an
  // even nx and ghost width: 74 x 37 and 62 x 29 with ghost width 4 (warps of 60 outputs straddling band
  // rows of 78 and 70 positions, partial strips) and 256 x 64 run them; on 75 x 37 and 61 x 29 they take
  // the one-column flat form of the same shape.
  for (const Grid& gr : {make_grid(75, 37, 1.0, 1.0, 2, 5), make_grid(256, 64, 1.0, 1.0, 2, 3),
                         make_grid(61, 29, 1.0, 1.0, 3, 4), make_grid(74, 37, 1.0, 1.0, 2, 5),
                         make_grid(62, 29, 1.0, 1.0, 4, 3)}) {
    const size_t n3 = size_t(gr.size3());
    const auto in = random_with_ghosts(gr, kind, 200 + kind);
    const auto cf = random_field(n3, 0.0, 0.015, 300);
    std::vector<double> res[3];
    for (int path = 0; path < 3; ++path) {  // 0: host, 1: device portable, 2: device tuned (entry point)
      const exec::Exec ex(path ? exec::Space::Device : exec::Space::Host);
      const MemKind mk = default_memkind(ex.space);
      Buffer<double> a(n3, mk), c(n3, mk), o(n3, mk);
      upload(a, in);
      upload(c, cf);
      o.zero();
      const double* cp = field ? c.data() : nullptr;
      if (path == 1) hdiff_portable(ex, gr, a.data(), cp, 0.0137, o.data());
      else hdiff_fused(ex, gr, a.data(), cp, 0.0137, o.data());
      exec::fence(ex);
      res[path] = download(o);
    }
    INFO("boundary kind " << kind << ", coefficient field " << field << ", nx " << gr.nx << ", kernel " << kernel << ", PDL " << pdl);
    // The form that ran: the wide shapes (w, and auto at these sizes) where nx and the ghost width are even
    // (the buffers start on 256 bytes), else the one-column flat form of the same shape.
    const bool even = gr.nx % 2 == 0 && gr.g % 2 == 0;
    const bool wide = kernel == "auto" || kernel.find('w') != std::string::npos;
    const bool split = kernel.back() == 's';
    const std::string ran = kernel == "strip8" || kernel == "strip16" ? "chunk"
                            : wide && even                            ? (split ? "wide-split" : "wide")
                                                                      : "flat";
    CHECK(std::string(hdiff_last_form()) == ran);
    CHECK(max_diff(gr, res[2], res[1]) == 0.0);  // same formulas, same order (HdiffPoint)
    CHECK(max_diff(gr, res[2], res[0]) < 1e-12);  // FMA contraction on the device: a few ulp of O(1)
    // Ghosts are not written.
    CHECK(res[2][size_t(gr.idx(-1, 0, 0))] == 0.0);
    CHECK(res[2][size_t(gr.idx(gr.nx, gr.ny - 1, gr.nz - 1))] == 0.0);
    CHECK(res[2][size_t(gr.idx(gr.nx + 1, 0, 0))] == 0.0);
    CHECK(res[2][size_t(gr.idx(0, gr.ny, gr.nz - 1))] == 0.0);
    CHECK(res[2][size_t(gr.idx(gr.nx - 1, -1, 0))] == 0.0);
  }
}

TEST_CASE("an unknown TESSERA_VADV_KERNEL is refused with the names that exist", "[weather][vadv][gpu]") {
  TESSERA_GPU_TEST();
  const Grid gr = make_grid(40, 30, 1.0, 1.0, 2, 4);
  const exec::Exec ex(exec::Space::Device);
  const size_t n3 = size_t(gr.size3());
  Buffer<double> a(n3, MemKind::Device), ww(n3, MemKind::Device), sc(n3, MemKind::Device), o(n3, MemKind::Device);
  a.zero();
  ww.zero();
  check_knob_refused("TESSERA_VADV_KERNEL", "twist7",
                     [&] { vadv_columns(ex, gr, VadvParams{}, a.data(), ww.data(), sc.data(), o.data()); },
                     {"twistq4", "regf", "auto"});
}

TEST_CASE("TESSERA_VADV_BLOCKS caps the twisted forms' blocks per multiprocessor without changing a bit",
          "[weather][vadv][gpu]") {
  TESSERA_GPU_TEST();
  // Enough columns for several waves of blocks at every cap (1, 2, 3 blocks per multiprocessor and none).
  const Grid gr = make_grid(200, 180, 1.0, 1.0, 2, 80);
  const size_t n3 = size_t(gr.size3());
  const auto phi = random_field(n3, 0.0, 1.0, 410);
  const auto w = random_field(n3, -1.0, 1.0, 411);
  const VadvParams vp{10.0, 50.0, 0.6};
  const exec::Exec ex(exec::Space::Device);
  Buffer<double> a(n3, MemKind::Device), ww(n3, MemKind::Device), sc(n3, MemKind::Device), o(n3, MemKind::Device);
  upload(a, phi);
  upload(ww, w);
  o.zero();
  vadv_columns_portable_twisted(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data());
  exec::fence(ex);
  const auto ref = download(o);
  const std::string kernel = GENERATE(std::string("auto"), std::string("twistd16"), std::string("twistbd16"));
  const std::string blocks = GENERATE(std::string("1"), std::string("2"), std::string("3"), std::string());
  const ScopedEnv kv("TESSERA_VADV_KERNEL", kernel);
  const ScopedEnv kb("TESSERA_VADV_BLOCKS", blocks);
  o.zero();
  vadv_columns(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data());
  exec::fence(ex);
  INFO("kernel " << kernel << ", blocks '" << blocks << "'");
  CHECK(max_diff(gr, download(o), ref) == 0.0);
  check_knob_refused("TESSERA_VADV_BLOCKS", "0",
                     [&] { vadv_columns(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data()); }, {"1 or more"});
}

TEST_CASE("an unknown TESSERA_HDIFF_KERNEL is refused with the names that exist", "[weather][hdiff][gpu]") {
  TESSERA_GPU_TEST();
  const Grid gr = make_grid(40, 30, 1.0, 1.0, 2, 2);
  const exec::Exec ex(exec::Space::Device);
  Buffer<double> a(size_t(gr.size3()), MemKind::Device), o(size_t(gr.size3()), MemKind::Device);
  a.zero();
  check_knob_refused("TESSERA_HDIFF_KERNEL", "strip7f", [&] { hdiff_fused(ex, gr, a.data(), nullptr, 0.01, o.data()); },
                     {"strip5f8", "auto"});
}

TEST_CASE("chained tuned hdiff launches see each other's output (programmatic dependent launch)",
          "[weather][hdiff][gpu]") {
  TESSERA_GPU_TEST();
  // Eight launches, each reading the previous one's output, with the PDL attribute on and off: directly
  // back to back (hdiff after hdiff) and with a ghost refresh in between (every other step); a launch
  // that read before its predecessor finished would differ from the portable chain.
  const bool pdl = GENERATE(false, true);
  const ScopedEnv pv("TESSERA_HDIFF_PDL", pdl ? "1" : "0");
  const Grid gr = make_grid(300, 200, 1.0, 1.0, 2, 6);
  const size_t n3 = size_t(gr.size3());
  const auto in = random_with_ghosts(gr, 0, 500);
  std::vector<double> res[2];
  for (int path = 0; path < 2; ++path) {  // 0: device portable, 1: device tuned
    const exec::Exec ex(exec::Space::Device);
    Buffer<double> a(n3, MemKind::Device), b(n3, MemKind::Device);
    upload(a, in);
    b.zero();
    for (int step = 0; step < 8; ++step) {
      if (path == 0) hdiff_portable(ex, gr, a.data(), nullptr, 0.014, b.data());
      else hdiff_fused(ex, gr, a.data(), nullptr, 0.014, b.data());
      if (step % 2) scalar_fill_ghosts_local(ex, gr, boundary_kind(0), b.data());
      std::swap(a, b);
    }
    exec::fence(ex);
    res[path] = download(a);
  }
  INFO("PDL " << pdl);
  CHECK(max_diff(gr, res[1], res[0]) == 0.0);
}

TEST_CASE("chained tuned vadv launches see each other's output (programmatic dependent launch)",
          "[weather][vadv][gpu]") {
  TESSERA_GPU_TEST();
  // Eight launches of the default (twisted) form, each advecting the previous one's output, with the PDL
  // attribute on and off; a launch that read before its predecessor finished would differ from the
  // portable twisted chain.
  const bool pdl = GENERATE(false, true);
  const ScopedEnv pv("TESSERA_VADV_PDL", pdl ? "1" : "0");
  const Grid gr = make_grid(300, 200, 1.0, 1.0, 2, 40);
  const size_t n3 = size_t(gr.size3());
  const auto phi = random_field(n3, 0.0, 1.0, 510);
  const auto w = random_field(n3, -1.0, 1.0, 511);
  const VadvParams vp{10.0, 50.0, 0.6};
  std::vector<double> res[2];
  for (int path = 0; path < 2; ++path) {  // 0: device portable twisted, 1: device tuned
    const exec::Exec ex(exec::Space::Device);
    Buffer<double> a(n3, MemKind::Device), b(n3, MemKind::Device), ww(n3, MemKind::Device), sc(n3, MemKind::Device);
    upload(a, phi);
    upload(ww, w);
    b.zero();
    for (int step = 0; step < 8; ++step) {
      if (path == 0) vadv_columns_portable_twisted(ex, gr, vp, a.data(), ww.data(), sc.data(), b.data());
      else vadv_columns(ex, gr, vp, a.data(), ww.data(), sc.data(), b.data());
      std::swap(a, b);
    }
    exec::fence(ex);
    res[path] = download(a);
  }
  INFO("PDL " << pdl);
  CHECK(max_diff(gr, res[1], res[0]) == 0.0);
}

TEST_CASE("tuned CUDA vadv equals the portable path bit for bit", "[weather][vadv][gpu]") {
  TESSERA_GPU_TEST();
  // 1 and 2 levels (edge cases of the sweep), 17 and 80 (partial and whole cp.async groups of 16),
  // 1000 (more than fits in shared memory: the entry point falls back to the portable path).
  const int64_t nz = GENERATE(1, 2, 17, 80, 1000);
  // Both kernels: the register one (d' in registers up to 80 levels; 1000 falls back) and the staged one
  // (17: a partial cp.async group, 1000: more than fits on chip, the portable fallback).
  // The ring form (the default from 2^18 columns: phi and w through a cp.async ring of 14 levels,
  // zero-filled above the column; 1, 2 and 17 levels end inside the first ring) as well.
  // The flat forms (ringf, regf: warps over the padded rows) too, and auto (regf on this grid).
  // The twisted forms (two threads per column; 32, 64 or 128 columns per block; auto takes them up to 80
  // levels) against the portable twisted solve (same VadvStep calls, bit for bit) where they run, else
  // against the Thomas path.
  const std::string kernel = GENERATE(std::string("auto"), std::string("ring"), std::string("reg"), std::string("smem"),
                                      std::string("ringf"), std::string("regf"), std::string("twistb4"),
                                      std::string("twistq4"), std::string("twistq6"), std::string("twistq8"),
                                      std::string("twisto4"), std::string("twistq6cs"), std::string("twistq8g"),
                                      std::string("twistq8gh"), std::string("twistq8gh128"), std::string("twistq8gna"),
                                      std::string("twistd12"), std::string("twistd16"), std::string("twistd20"),
                                      std::string("twistbd16"));
  const bool twisted = (kernel == "auto" || kernel.rfind("twist", 0) == 0) && nz <= 80;
  const ScopedEnv kv("TESSERA_VADV_KERNEL", kernel);
  // 7 rows on 7 blocks in y, or on 3 (each block loops over rows).
  const int grid_y = GENERATE(0, 3);
  const ScopedEnv gy("TESSERA_VADV_GRID_Y", grid_y ? std::to_string(grid_y) : std::string());
  const Grid gr = make_grid(45, 7, 1.0, 1.0, 2, nz);
  const size_t n3 = size_t(gr.size3());
  const auto phi = random_field(n3, 0.0, 1.0, 400);
  const auto w = random_field(n3, -1.0, 1.0, 401);
  const VadvParams vp{10.0, 50.0, 0.6};
  std::vector<double> res[3];
  for (int path = 0; path < 3; ++path) {
    const exec::Exec ex(path ? exec::Space::Device : exec::Space::Host);
    const MemKind mk = default_memkind(ex.space);
    Buffer<double> a(n3, mk), ww(n3, mk), sc(n3, mk), o(n3, mk);
    upload(a, phi);
    upload(ww, w);
    o.zero();
    if (path == 1 && twisted) vadv_columns_portable_twisted(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data());
    else if (path == 1) vadv_columns_portable(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data());
    else vadv_columns(ex, gr, vp, a.data(), ww.data(), sc.data(), o.data());
    exec::fence(ex);
    res[path] = download(o);
  }
  INFO("nz " << nz << ", kernel " << kernel << ", blocks in y " << (grid_y ? grid_y : 7));
  // The form that ran (a named form that does not fit falls back: past 80 levels the staged form, past what
  // fits in shared memory the portable path).
  const std::string ran = nz > 80 ? "portable"
                          : twisted ? "twist"
                          : kernel.rfind("ring", 0) == 0 ? "ring"
                          : kernel.rfind("reg", 0) == 0  ? "reg"
                                                         : "smem";
  CHECK(std::string(vadv_last_form()) == ran);
  CHECK(max_diff(gr, res[2], res[1]) == 0.0);  // same VadvStep arithmetic in the same order
  CHECK(max_diff(gr, res[2], res[0]) < 1e-12);
  CHECK(res[2][size_t(gr.idx(-1, 0, 0))] == 0.0);  // ghost columns and rows untouched
  CHECK(res[2][size_t(gr.idx(gr.nx, gr.ny - 1, gr.nz - 1))] == 0.0);
  CHECK(res[2][size_t(gr.idx(0, gr.ny, 0))] == 0.0);
  CHECK(res[2][size_t(gr.idx(gr.nx - 1, -1, gr.nz - 1))] == 0.0);
}
