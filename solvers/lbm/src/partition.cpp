#include "tessera/lbm/solver/partition.hpp"

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::lbm {

Partition Partition::make(MPI_Comm comm, std::array<int64_t, 3> global, std::array<bool, 3> periodic,
                          std::array<int, 3> dims) {
  Partition p;
  p.global = global;
  p.periodic = periodic;
  MPI_Comm_size(comm, &p.nranks);
  int d[3] = {dims[0], dims[1], global[2] == 1 ? 1 : dims[2]};
  MPI_Dims_create(p.nranks, 3, d);
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
