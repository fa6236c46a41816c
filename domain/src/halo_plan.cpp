#include "tessera/domain/halo_plan.hpp"

#include <mpi.h>

#include "tessera/domain/direction.hpp"

namespace tessera::domain {

namespace {
// The interior cells adjacent to side d (the send box) or the ghost cells on side d (recv box).
Box3 side_box(Int3 n, Int3 w, Int3 d, bool ghost) {
  Box3 b;
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0) {
      b.lo[a] = 0;
      b.hi[a] = n[a];
    } else if (d[a] < 0) {
      b.lo[a] = ghost ? -w[a] : 0;
      b.hi[a] = ghost ? 0 : w[a];
    } else {
      b.lo[a] = ghost ? n[a] : n[a] - w[a];
      b.hi[a] = ghost ? n[a] + w[a] : n[a];
    }
  }
  return b;
}
}  // namespace

HaloPlan make_halo_plan(const Decomposition& d, Int3 extent, Int3 width, int ncomp_total, bool faces_only) {
  HaloPlan plan;
  for (int dir = 0; dir < kNumDirIndices; ++dir) {
    if (dir == kCentre || (faces_only && dir_order(dir) != 1)) continue;
    const Int3 off = dir_offset(dir);
    bool empty = false;  // a side along an axis without ghosts
    for (int a = 0; a < 3; ++a) empty |= (off[a] != 0 && width[a] == 0);
    const int peer = d.neighbor(dir);
    if (empty || peer == MPI_PROC_NULL) continue;

    HaloMessage m;
    m.dir = dir;
    m.peer = peer;
    m.recv_box = side_box(extent, width, off, true);
    m.send_box = side_box(extent, width, off, false);
    m.cells = m.recv_box.volume();
    // This rank is its own neighbour only along axes with one rank, where extent == global extent.
    m.self = (peer == d.rank());
    if (m.self) {
      m.src_box = m.recv_box.shift(Int3{0, 0, 0} - Int3{off.x * extent.x, off.y * extent.y, off.z * extent.z});
      plan.self.push_back(m);
    } else {
      m.send_offset = plan.send_elems;
      m.recv_offset = plan.recv_elems;
      plan.send_elems += m.send_box.volume() * ncomp_total;
      plan.recv_elems += m.cells * ncomp_total;
      plan.remote.push_back(m);
    }
  }
  return plan;
}

}  // namespace tessera::domain
