#include "tessera/domain/halo_plan.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>

#include "tessera/core/error.hpp"

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

Int3 check_halo_fields(const Decomposition& d, const std::vector<FieldShape>& fields, int max_fields, int width,
                       exec::Space space) {
  if (fields.empty()) TESSERA_THROW("a halo exchange needs at least one field");
  if (int(fields.size()) > max_fields)
    TESSERA_THROW(fmt::format("a halo exchange takes at most {} fields, got {}: split them over two exchanges",
                              max_fields, fields.size()));
  const FieldShape& f0 = fields[0];
  for (const FieldShape& f : fields)
    if (f.box != d.local_box() || f.ghost != f0.ghost || f.kind != f0.kind)
      TESSERA_THROW(fmt::format("halo exchange: field '{}' (box {}, ghost {}, {} memory) differs from field '{}' (box "
                                "{}, ghost {}, {} memory) or from this rank's box {}; fields of one exchange must "
                                "share box, ghost width and memory kind",
                                f.name, to_string(f.box), to_string(f.ghost), to_string(f.kind), f0.name,
                                to_string(f0.box), to_string(f0.ghost), to_string(f0.kind), to_string(d.local_box())));
  if (!accessible_from(f0.kind, space))
    TESSERA_THROW(fmt::format("halo exchange: field '{}' lives in {} memory, which the {} cannot access; run the "
                              "exchange on the other space or allocate the field with default_memkind(space)",
                              f0.name, to_string(f0.kind), exec::to_string(space)));
  Int3 w = f0.ghost;
  if (width >= 0) {
    for (int a = 0; a < 3; ++a) {
      if (w[a] > 0 && width > w[a])
        TESSERA_THROW(fmt::format("halo exchange width {} exceeds the ghost width {} of field '{}'", width, w[a],
                                  f0.name));
      if (w[a] > 0) w[a] = width;
    }
  }
  return w;
}

int halo_message_bytes(int64_t elems, int64_t elem_size) {
  const int64_t b = elems * elem_size;
  if (b > int64_t(INT_MAX))
    TESSERA_THROW(fmt::format("halo message of {} bytes exceeds MPI's int count; use more ranks, fewer fields per "
                              "exchange, or a smaller ghost width",
                              b));
  return int(b);
}

void halo_check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    TESSERA_THROW(fmt::format("halo exchange: {} failed: {}", call, std::string(text, size_t(len))));
  }
}

}  // namespace tessera::domain
