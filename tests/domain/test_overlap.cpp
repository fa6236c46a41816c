// A solver-shaped use of the exchange: a stencil updates the interior while the halo moves
// (start / interior / finish / boundary shell), several steps, on 1-6 ranks.
// Oracles: the N-rank result is bit-identical to a 1-rank run (MPI_COMM_SELF) of the same code on the
// same back end, and agrees with a plain serial loop over the global array to 1e-13 (the GPU may
// contract a*b+c into FMA, so exact equality is only demanded between runs of the same kernel).
#include <mpi.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/device.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/domain/gather.hpp"
#include "tessera/domain/halo_exchange.hpp"
#include "transports.hpp"

using namespace tessera;
using namespace tessera::domain;

namespace {

struct Stencil {
  int n = 0;
  Int3 off[27];
  double w[27];
};

// Full 3x3x3 box: needs edges and corners. Weights differ per direction so mix-ups show.
Stencil box27() {
  Stencil s;
  for (int m = 0; m < 27; ++m) {
    s.off[m] = dir_offset(m);
    s.w[m] = double(m + 1) / 378.0;
  }
  s.n = 27;
  return s;
}
// Radius-2 star (centre and +-1, +-2 along each axis): needs faces only, ghost width 2.
Stencil star13() {
  Stencil s;
  s.off[s.n++] = Int3{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (int r : {-2, -1, 1, 2}) {
      Int3 o{0, 0, 0};
      o[a] = r;
      s.off[s.n++] = o;
    }
  for (int m = 0; m < s.n; ++m) s.w[m] = double(m + 1) / 91.0;
  return s;
}

// v = stencil(u) over the cells of `region` that are not in `skip` (local indices).
struct Apply {
  FieldView<const double> u;
  FieldView<double> v;
  Stencil st;
  Box3 region, skip;
  TESSERA_HD void operator()(int64_t i, int64_t j, int64_t k) const {
    const Int3 p{region.lo.x + i, region.lo.y + j, region.lo.z + k};
    if (skip.contains(p)) return;
    for (int c = 0; c < u.ncomp; ++c) {
      double s = 0.0;
      for (int m = 0; m < st.n; ++m) s += st.w[m] * u(p + st.off[m], c);
      v(p, c) = s;
    }
  }
};

struct Setup {
  DecompositionSpec spec;
  Stencil st;
  bool faces_only;
  int ncomp = 2;
  int steps = 3;
};

// Runs the stencil on decomposition d; returns the global result on d's rank 0.
std::vector<double> run(MPI_Comm comm, const Setup& s, const std::vector<double>& init, exec::Space space,
                        MemKind kind, Transport tr) {
  const Decomposition d(comm, s.spec);
  const exec::Exec ex(space);
  Field<double> u(d, s.ncomp, kind, -1, "u"), v(d, s.ncomp, kind, -1, "v");
  u.buffer().zero();  // ghosts beyond walls stay 0: the boundary condition
  v.buffer().zero();
  scatter_from_root(d, u, init);
  HaloOptions opt;
  opt.transport = tr;
  opt.faces_only = s.faces_only;
  opt.exec = ex;
  HaloExchange<double> halo(d, {&u}, opt);
  const Int3 n = u.extent();
  const Box3 all{Int3{0, 0, 0}, n};
  const Box3 inner = all.grow(-int64_t(s.spec.ghost));  // reads no ghost cell
  const Int3 in = inner.size();
  for (int step = 0; step < s.steps; ++step) {
    halo.start();
    if (!inner.empty())
      exec::parallel_for(ex, "test::interior", exec::Range3{in.x, in.y, in.z},
                         Apply{u.view(), v.view(), s.st, inner, Box3{}});
    halo.finish();
    exec::parallel_for(ex, "test::shell", exec::Range3{n.x, n.y, n.z}, Apply{u.view(), v.view(), s.st, all, inner});
    exec::fence(ex);
    std::swap(u, v);  // the exchange holds &u, which now owns the new values
  }
  return gather_to_root(d, u);
}

// The same computation as a plain loop over the global array.
std::vector<double> reference(const Setup& s, std::vector<double> u) {
  const Int3 N = s.spec.global;
  std::vector<double> v(u.size());
  auto at = [&](const std::vector<double>& a, Int3 p, int c) {
    for (int ax = 0; ax < 3; ++ax) {
      if (p[ax] >= 0 && p[ax] < N[ax]) continue;
      if (!s.spec.periodic[size_t(ax)]) return 0.0;
      p[ax] = (p[ax] % N[ax] + N[ax]) % N[ax];
    }
    return a[size_t(p.x + N.x * (p.y + N.y * (p.z + N.z * int64_t(c))))];
  };
  for (int step = 0; step < s.steps; ++step) {
    for (int c = 0; c < s.ncomp; ++c)
      for_each_cell(Box3{Int3{0, 0, 0}, N}, [&](Int3 p) {
        double sum = 0.0;
        for (int m = 0; m < s.st.n; ++m) sum += s.st.w[m] * at(u, p + s.st.off[m], c);
        v[size_t(p.x + N.x * (p.y + N.y * (p.z + N.z * int64_t(c))))] = sum;
      });
    std::swap(u, v);
  }
  return u;
}

void check_setup(const Setup& s, exec::Space space, MemKind kind, Transport tr) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> init(size_t(s.spec.global.product() * s.ncomp));
  for (double& x : init) x = dist(gen);

  const std::vector<double> many = run(MPI_COMM_WORLD, s, init, space, kind, tr);
  const std::vector<double> one = run(MPI_COMM_SELF, s, init, space, kind, tr);
  if (tessera::test::mpi_rank() != 0) return;
  const std::vector<double> ref = reference(s, init);
  REQUIRE(many.size() == ref.size());
  REQUIRE(one.size() == ref.size());
  int64_t differ = 0, off = 0;
  double worst = 0.0;
  for (size_t m = 0; m < ref.size(); ++m) {
    differ += many[m] != one[m];  // bit for bit (no NaNs here)
    const double e = std::abs(many[m] - ref[m]);
    worst = std::max(worst, e);
    off += e > 1e-13 + 1e-13 * std::abs(ref[m]);
  }
  INFO(tessera::test::mpi_size() << " ranks, " << exec::to_string(space) << ", " << to_string(kind) << ", "
                                 << to_string(tr) << ", worst |N ranks - serial| = " << worst);
  CHECK(differ == 0);
  CHECK(off == 0);
}

const Setup kBox{{{29, 23, 17}, {true, false, true}, 1}, box27(), false};
const Setup kStar{{{26, 21, 18}, {true, true, false}, 2}, star13(), true};

}  // namespace

TEST_CASE("stencil overlapping the exchange: N ranks = 1 rank bit for bit, = serial loop", "[halo][mpi]") {
  check_setup(kBox, exec::Space::Host, MemKind::Host, Transport::HostStaged);
  check_setup(kStar, exec::Space::Host, MemKind::Host, Transport::HostStaged);
}

TEST_CASE("stencil overlapping the exchange on the GPU, every transport", "[halo][mpi][gpu]") {
  TESSERA_GPU_TEST();
  device::select_for_local_rank(node_local_rank(MPI_COMM_WORLD));
  for (Transport tr : available_transports()) {
    check_setup(kBox, exec::Space::Device, MemKind::Device, tr);
    check_setup(kStar, exec::Space::Device, MemKind::Device, tr);
  }
  check_setup(kBox, exec::Space::Device, MemKind::Managed, Transport::HostStaged);
}
