#include "tessera/lbm/solver/partition.hpp"

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::lbm {

// The rank grid for the entries of d that are 0: of all factorisations of n that keep the fixed entries,
// the one with the fewest halo cells per rank, where a face normal to x counts twice (its cells are
// strided in the x-fastest layout: the thin boundary-shell kernel and the pack read one cell per row);
// ties go to splitting z, then y. MPI_Dims_create would split x first (for 2 ranks on 256 x 256 x 512:
// 128 x 256 x 512 per rank and strided x faces instead of 256^3 and contiguous z faces). Falls back to
// MPI_Dims_create when no factorisation fits the grid (the caller then reports the axis).
namespace {
void choose_dims(int n, const std::array<int64_t, 3>& global, int d[3]) {
  double best = -1;
  int pick[3] = {0, 0, 0};
  for (int a = 1; a <= n; ++a)
    for (int b = 1; a * b <= n; ++b) {
      if (n % (a * b) != 0) continue;
      const int c = n / (a * b);
      const int t[3] = {a, b, c};
      bool ok = true;
      for (int k = 0; k < 3; ++k) ok = ok && (d[k] == 0 || d[k] == t[k]) && global[size_t(k)] >= t[k];
      if (!ok) continue;
      const double sx = double(global[0]) / a, sy = double(global[1]) / b, sz = double(global[2]) / c;
      // halo cells per rank (both sides of every split axis), x faces weighted 2; the small
      // preference for z, then y, then x breaks ties between equal surfaces
      const double cost = (a > 1 ? 4.0 * sy * sz * 1.002 : 0.0) + (b > 1 ? 2.0 * sx * sz * 1.001 : 0.0) +
                          (c > 1 ? 2.0 * sx * sy : 0.0) + 1e-9 * (a + 0.5 * b);
      if (best < 0 || cost < best) best = cost, pick[0] = a, pick[1] = b, pick[2] = c;
    }
  if (best < 0) {
    MPI_Dims_create(n, 3, d);
    return;
  }
  for (int k = 0; k < 3; ++k) d[k] = pick[k];
}
}  // namespace

Partition Partition::make(MPI_Comm comm, std::array<int64_t, 3> global, std::array<bool, 3> periodic,
                          std::array<int, 3> dims) {
  Partition p;
  p.global = global;
  p.periodic = periodic;
  MPI_Comm_size(comm, &p.nranks);
  int d[3] = {dims[0], dims[1], global[2] == 1 ? 1 : dims[2]};
  choose_dims(p.nranks, global, d);
  for (int a = 0; a < 3; ++a) {
    p.dims[size_t(a)] = d[a];
    if (global[size_t(a)] < d[a])
      TESSERA_THROW("lbm: " + std::to_string(global[size_t(a)]) + " cells along axis " + std::to_string(a) +
                    " cannot be split over " + std::to_string(d[a]) + " ranks: use fewer ranks or a larger grid");
  }
  int per[3] = {periodic[0], periodic[1], periodic[2]};
  MPI_Cart_create(comm, 3, d, per, 0, &p.comm);
  MPI_Comm_rank(p.comm, &p.rank);
  int c[3];
  MPI_Cart_coords(p.comm, p.rank, 3, c);
  for (int a = 0; a < 3; ++a) {
    p.coords[size_t(a)] = c[a];
    const int64_t n = global[size_t(a)], parts = d[a], base = n / parts, extra = n % parts;
    p.size[size_t(a)] = base + (c[a] < extra ? 1 : 0);
    p.lo[size_t(a)] = c[a] * base + (c[a] < extra ? c[a] : extra);
  }
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int off[3] = {dx, dy, dz};
        int nc[3];
        bool ok = true;
        for (int a = 0; a < 3; ++a) {
          nc[a] = c[a] + off[a];
          if (nc[a] < 0 || nc[a] >= d[a]) {
            if (!periodic[size_t(a)]) ok = false;
            nc[a] = (nc[a] + d[a]) % d[a];
          }
        }
        int r = MPI_PROC_NULL;
        if (ok) MPI_Cart_rank(p.comm, nc, &r);
        p.neighbor[size_t(dir_index3(dx, dy, dz))] = r;
      }
  return p;
}

}  // namespace tessera::lbm
