#include "tessera/domain/decomposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "tessera/core/error.hpp"

namespace tessera::domain {

namespace {
constexpr const char* kAxis[3] = {"x", "y", "z"};

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    TESSERA_THROW(fmt::format("{} failed: {}", call, std::string(msg, size_t(len))));
  }
}
}  // namespace

Span split_axis(int64_t n, int parts, int part) {
  const int64_t base = n / parts, rem = n % parts;
  return {part * base + std::min<int64_t>(part, rem), base + (part < rem ? 1 : 0)};
}

int part_of(int64_t n, int parts, int64_t i) {
  const int64_t base = n / parts, rem = n % parts;
  const int64_t big = rem * (base + 1);  // cells held by the first `rem` (larger) parts
  return int(i < big ? i / (base + 1) : rem + (i - big) / base);
}

std::array<int, 3> choose_rank_grid(int nranks, Int3 global, std::array<int, 3> fixed) {
  std::array<int, 3> dims{};
  int fixed_product = 1;
  for (int a = 0; a < 3; ++a) {
    dims[size_t(a)] = fixed[size_t(a)] > 0 ? fixed[size_t(a)] : (global[a] == 1 ? 1 : 0);
    if (dims[size_t(a)] > 0) fixed_product *= dims[size_t(a)];
  }
  if (nranks % fixed_product != 0)
    TESSERA_THROW(fmt::format("domain decomposition: the fixed part of the rank grid ({}x{}x{}, 0 = free) does not "
                              "divide the {} ranks; give a rank grid whose product is {}",
                              fixed[0], fixed[1], fixed[2], nranks, nranks));
  check_mpi(MPI_Dims_create(nranks, 3, dims.data()), "MPI_Dims_create");
  // MPI_Dims_create returns the free factors in non-increasing order whatever the extents; give the
  // largest factors to the longest free axes so that blocks are as cubic as possible.
  std::vector<int> free_axes, factors;
  for (int a = 0; a < 3; ++a)
    if (fixed[size_t(a)] <= 0 && global[a] > 1) {
      free_axes.push_back(a);
      factors.push_back(dims[size_t(a)]);
    }
  std::stable_sort(free_axes.begin(), free_axes.end(), [&](int a, int b) { return global[a] > global[b]; });
  std::sort(factors.begin(), factors.end(), std::greater<>());
  for (size_t m = 0; m < free_axes.size(); ++m) dims[size_t(free_axes[m])] = factors[m];
  return dims;
}

Decomposition::Decomposition(MPI_Comm comm, const DecompositionSpec& spec)
    : periodic_(spec.periodic), global_(spec.global), ghost_(spec.ghost) {
  for (int a = 0; a < 3; ++a)
    if (global_[a] < 1)
      TESSERA_THROW(fmt::format("domain decomposition: the grid has {} cells along {}; every axis needs at least 1 "
                                "(2-D problems use nz = 1)",
                                global_[a], kAxis[a]));
  if (ghost_ < 0) TESSERA_THROW(fmt::format("domain decomposition: ghost width {} is negative", ghost_));
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);

  const bool given = spec.dims[0] > 0 && spec.dims[1] > 0 && spec.dims[2] > 0;
  if (given) {
    dims_ = spec.dims;
    if (dims_[0] * dims_[1] * dims_[2] != nranks)
      TESSERA_THROW(fmt::format("domain decomposition: rank grid {}x{}x{} has {} ranks but the run has {}; give a "
                                "rank grid whose product is {}, or 0 for axes to choose automatically",
                                dims_[0], dims_[1], dims_[2], dims_[0] * dims_[1] * dims_[2], nranks, nranks));
  } else {
    dims_ = choose_rank_grid(nranks, global_, spec.dims);
  }

  for (int a = 0; a < 3; ++a) {
    const int p = dims_[size_t(a)];
    const int64_t smallest = global_[a] / p;
    if (smallest < 1)
      TESSERA_THROW(fmt::format("domain decomposition: {} cells along {} cannot be split over {} ranks; use at most "
                                "{} ranks along {} (set the rank grid) or a larger grid",
                                global_[a], kAxis[a], p, global_[a], kAxis[a]));
    if (axis_active(a) && smallest < ghost_)
      TESSERA_THROW(fmt::format(
          "domain decomposition: {} cells along {} over {} rank(s) leave {} cell(s) on some rank, fewer than the "
          "ghost width {}, so a ghost layer would reach past its neighbour. Use fewer ranks along {} (at most {}), "
          "give a rank grid that splits other axes instead, or use a larger grid",
          global_[a], kAxis[a], p, smallest, ghost_, kAxis[a], std::max<int64_t>(1, global_[a] / std::max(1, ghost_))));
  }

  const int periods[3] = {periodic_[0], periodic_[1], periodic_[2]};
  // MPI orders Cartesian ranks with the last dimension fastest; we pass dims as given (x first) and
  // keep the parent's rank order (reorder = 0) so that rank numbers mean the same in both.
  check_mpi(MPI_Cart_create(comm, 3, dims_.data(), periods, 0, &comm_), "MPI_Cart_create");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  coords_ = coords_of(rank_);
  local_box_ = box_of(rank_);

  for (int n = 0; n < kNumDirIndices; ++n) {
    const Int3 d = dir_offset(n);
    std::array<int, 3> c{};
    bool wall = false;
    for (int a = 0; a < 3; ++a) {
      int v = coords_[size_t(a)] + int(d[a]);
      if (v < 0 || v >= dims_[size_t(a)]) {
        if (!periodic_[size_t(a)]) wall = true;
        v = (v + dims_[size_t(a)]) % dims_[size_t(a)];
      }
      c[size_t(a)] = v;
    }
    neighbors_[size_t(n)] = (n == kCentre) ? rank_ : (wall ? MPI_PROC_NULL : rank_of(c));
  }
}

Decomposition::~Decomposition() { release(); }

void Decomposition::release() noexcept {
  if (comm_ != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }
}

Decomposition::Decomposition(Decomposition&& o) noexcept { *this = std::move(o); }

Decomposition& Decomposition::operator=(Decomposition&& o) noexcept {
  if (this != &o) {
    release();
    comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    rank_ = o.rank_;
    size_ = o.size_;
    dims_ = o.dims_;
    coords_ = o.coords_;
    periodic_ = o.periodic_;
    global_ = o.global_;
    ghost_ = o.ghost_;
    local_box_ = o.local_box_;
    neighbors_ = o.neighbors_;
  }
  return *this;
}

std::array<int, 3> Decomposition::coords_of(int rank) const {
  TESSERA_REQUIRE(rank >= 0 && rank < size_, fmt::format("rank {} is outside 0..{}", rank, size_ - 1));
  std::array<int, 3> c{};
  check_mpi(MPI_Cart_coords(comm_, rank, 3, c.data()), "MPI_Cart_coords");
  return c;
}

int Decomposition::rank_of(std::array<int, 3> c) const {
  int r = 0;
  check_mpi(MPI_Cart_rank(comm_, c.data(), &r), "MPI_Cart_rank");
  return r;
}

Int3 Decomposition::ghost_extent(int g) const {
  TESSERA_REQUIRE(g >= 0 && g <= ghost_,
                  fmt::format("ghost width {} exceeds the width {} this decomposition was built for", g, ghost_));
  return {axis_active(0) ? g : 0, axis_active(1) ? g : 0, axis_active(2) ? g : 0};
}

Box3 Decomposition::box_of(int rank) const {
  const auto c = coords_of(rank);
  Box3 b;
  for (int a = 0; a < 3; ++a) {
    const Span s = split_axis(global_[a], dims_[size_t(a)], c[size_t(a)]);
    b.lo[a] = s.offset;
    b.hi[a] = s.offset + s.size;
  }
  return b;
}

int Decomposition::owner(Int3 cell) const {
  if (!global_box().contains(cell))
    TESSERA_THROW(fmt::format("owner(): cell {} lies outside the global grid {}", to_string(cell),
                              to_string(global_box())));
  std::array<int, 3> c{};
  for (int a = 0; a < 3; ++a) c[size_t(a)] = part_of(global_[a], dims_[size_t(a)], cell[a]);
  return rank_of(c);
}

std::string Decomposition::describe() const {
  std::string per;
  for (int a = 0; a < 3; ++a)
    if (periodic_[size_t(a)]) {
      if (!per.empty()) per += ',';
      per += kAxis[a];
    }
  return fmt::format("{}x{}x{} cells over {}x{}x{} ranks, periodic {}, ghost {}", global_.x, global_.y, global_.z,
                     dims_[0], dims_[1], dims_[2], per.empty() ? "none" : per, ghost_);
}

}  // namespace tessera::domain
