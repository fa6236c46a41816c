#include "tessera/lbm/solver/simulation.hpp"

#include "tessera/core/error.hpp"

namespace tessera::lbm {

namespace {
int64_t wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }
}  // namespace

Simulation::Simulation(MPI_Comm comm, exec::Space space, SimulationSpec spec) : spec_(std::move(spec)), ex_(space) {
  const bool is2d = lattice_dim(spec_.lattice) == 2;
  if (is2d) {
    TESSERA_REQUIRE(spec_.global[2] == 1, "a D2Q9 lattice has one cell along z");
    spec_.faces[4].kind = spec_.faces[5].kind = FaceBC::Wall;  // never used: no z ghosts in 2-D
  }
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) {
    const bool lo = spec_.faces[size_t(2 * a)].kind == FaceBC::Periodic;
    const bool hi = spec_.faces[size_t(2 * a + 1)].kind == FaceBC::Periodic;
    TESSERA_REQUIRE(lo == hi, "a periodic axis needs both faces periodic");
    periodic[size_t(a)] = lo && !(is2d && a == 2);
  }
  // Wall ids: 0 at rest, 1 + face for moving faces.
  for (int f = 0; f < 6; ++f)
    for (int a = 0; a < 3; ++a) spec_.collision.walls.u[1 + f][a] = float(spec_.faces[size_t(f)].u[size_t(a)]);
  for (int a = 0; a < 3; ++a) spec_.collision.walls.u[0][a] = 0.0f;

  part_ = Partition::make(comm, spec_.global, periodic, spec_.rank_dims);
  GridLayout g;
  g.nx = part_.size[0];
  g.ny = part_.size[1];
  g.nz = part_.size[2];
  g.gz = is2d ? 0 : 1;
  state_ = std::make_unique<LatticeState>(spec_.lattice, spec_.precision, g, space);

  // Flags and initial moments for every padded cell, from global coordinates (ghosts included, so no
  // flag exchange is needed).
  const int64_t n = g.cells();
  std::vector<uint8_t> flags(static_cast<std::size_t>(n), kFluid);
  std::vector<float> h_rho(static_cast<std::size_t>(n), 1.0f), h_u(static_cast<std::size_t>(3 * n), 0.0f);
  for (int64_t k = 0; k < g.pz(); ++k)
    for (int64_t j = 0; j < g.py(); ++j)
      for (int64_t i = 0; i < g.px(); ++i) {
        const int64_t c = i + g.px() * (j + g.py() * k);
        int64_t x[3] = {part_.lo[0] + i - 1, part_.lo[1] + j - 1, part_.lo[2] + k - g.gz};
        int wall_face = -1;
        for (int a = 0; a < 3; ++a) {
          if (x[a] >= 0 && x[a] < spec_.global[size_t(a)]) continue;
          if (periodic[size_t(a)]) {
            x[a] = wrap(x[a], spec_.global[size_t(a)]);
          } else if (wall_face < 0) {
            wall_face = 2 * a + (x[a] < 0 ? 0 : 1);
          }
        }
        if (wall_face >= 0) {
          const auto& u = spec_.faces[size_t(wall_face)].u;
          flags[std::size_t(c)] = make_wall(u[0] != 0 || u[1] != 0 || u[2] != 0 ? 1 + wall_face : 0);
          continue;
        }
        if (spec_.solid && spec_.solid(x[0], x[1], x[2])) {
          flags[std::size_t(c)] = make_wall(0);
          continue;
        }
        if (spec_.initial) {
          double rho = 1, u[3] = {0, 0, 0};
          spec_.initial(x[0], x[1], x[2], rho, u);
          h_rho[std::size_t(c)] = float(rho);
          for (int a = 0; a < 3; ++a) h_u[std::size_t(a * n + c)] = float(u[a]);
        }
      }
  write_flags(*state_, flags);
  Buffer<float> d_rho(std::size_t(n), state_->memkind(), "lbm::init_rho"), d_u(std::size_t(3 * n), state_->memkind(), "lbm::init_u");
  copy_n(d_rho.data(), d_rho.kind(), h_rho.data(), MemKind::Host, h_rho.size());
  copy_n(d_u.data(), d_u.kind(), h_u.data(), MemKind::Host, h_u.size());
  init_equilibrium(ex_, *state_, d_rho.data(), d_u.data());
  exec::fence(ex_);
  halo_ = std::make_unique<AAHalo>(part_, *state_);
}

void Simulation::advance(int64_t steps) {
  for (int64_t s = 0; s < steps; ++s) {
    stream_collide(ex_, *state_, spec_.collision, spec_.path);
    halo_->exchange(ex_, *state_);
  }
  exec::fence(ex_);
}

io::LocalBox Simulation::local_box() const {
  return io::LocalBox{{part_.lo[0], part_.lo[1], part_.lo[2]}, {part_.size[0], part_.size[1], part_.size[2]}};
}

void Simulation::local_moments(std::vector<float>& rho, std::vector<float>& u) {
  const GridLayout& g = state_->grid();
  const int64_t n = g.cells(), m = g.interior();
  Buffer<float> d_rho(static_cast<std::size_t>(n), state_->memkind()), d_u(static_cast<std::size_t>(3 * n), state_->memkind());
  compute_moments(ex_, *state_, spec_.collision, d_rho.data(), d_u.data());
  exec::fence(ex_);
  std::vector<float> h_rho(static_cast<std::size_t>(n)), h_u(static_cast<std::size_t>(3 * n));
  copy_n(h_rho.data(), MemKind::Host, d_rho.data(), d_rho.kind(), h_rho.size());
  copy_n(h_u.data(), MemKind::Host, d_u.data(), d_u.kind(), h_u.size());
  rho.assign(static_cast<std::size_t>(m), 0.0f);
  u.assign(static_cast<std::size_t>(3 * m), 0.0f);
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k), l = i + g.nx * (j + g.ny * k);
        rho[std::size_t(l)] = h_rho[std::size_t(c)];
        for (int a = 0; a < 3; ++a) u[std::size_t(a * m + l)] = h_u[std::size_t(a * n + c)];
      }
}

void Simulation::gather(std::vector<float>& rho, std::vector<float>& u) {
  const int64_t m = state_->grid().interior();
  std::vector<float> lr, lu;
  local_moments(lr, lu);
  // Interior values, 4 per cell (rho, ux, uy, uz), in local x-fastest order.
  std::vector<float> local(static_cast<std::size_t>(4 * m));
  for (int64_t l = 0; l < m; ++l) {
    local[std::size_t(4 * l)] = lr[std::size_t(l)];
    for (int a = 0; a < 3; ++a) local[std::size_t(4 * l + 1 + a)] = lu[std::size_t(a * m + l)];
  }
  const int nr = part_.nranks;
  std::vector<int> counts(static_cast<std::size_t>(nr)), displs(static_cast<std::size_t>(nr));
  int mine = int(4 * m);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, part_.comm);
  std::vector<float> all;
  if (part_.rank == 0) {
    int tot = 0;
    for (int r = 0; r < nr; ++r) displs[size_t(r)] = tot, tot += counts[size_t(r)];
    all.resize(std::size_t(tot));
  }
  MPI_Gatherv(local.data(), mine, MPI_FLOAT, all.data(), counts.data(), displs.data(), MPI_FLOAT, 0, part_.comm);
  rho.clear();
  u.clear();
  if (part_.rank != 0) return;
  const int64_t N = spec_.global[0] * spec_.global[1] * spec_.global[2];
  rho.assign(std::size_t(N), 0.0f);
  u.assign(std::size_t(3 * N), 0.0f);
  for (int r = 0; r < nr; ++r) {
    // Rebuild rank r's box (same arithmetic as Partition::make).
    int c[3];
    MPI_Cart_coords(part_.comm, r, 3, c);
    int64_t lo[3], sz[3];
    for (int a = 0; a < 3; ++a) {
      const int64_t nn = spec_.global[size_t(a)], parts = part_.dims[size_t(a)], base = nn / parts, extra = nn % parts;
      sz[a] = base + (c[a] < extra ? 1 : 0);
      lo[a] = c[a] * base + (c[a] < extra ? c[a] : extra);
    }
    const float* src = all.data() + displs[size_t(r)];
    for (int64_t k = 0; k < sz[2]; ++k)
      for (int64_t j = 0; j < sz[1]; ++j)
        for (int64_t i = 0; i < sz[0]; ++i) {
          const int64_t l = i + sz[0] * (j + sz[1] * k);
          const int64_t gidx = (lo[0] + i) + spec_.global[0] * ((lo[1] + j) + spec_.global[1] * (lo[2] + k));
          rho[std::size_t(gidx)] = src[4 * l];
          for (int a = 0; a < 3; ++a) u[std::size_t(a * N + gidx)] = src[4 * l + 1 + a];
        }
  }
}

}  // namespace tessera::lbm
