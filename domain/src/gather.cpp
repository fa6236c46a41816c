#include "tessera/domain/gather.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>

#include "tessera/core/error.hpp"

namespace tessera::domain {

namespace {
// Interior of a host copy of the field (ghosts included) <-> a contiguous [c][k][j][i] block.
template <class T>
std::vector<T> interior_of(const Field<T>& f) {
  const std::vector<T> all = f.to_host();
  FieldView<const T> v{all.data(), f.extent(), f.ghost(), f.view().sy, f.view().sz, f.view().sc, f.ncomp()};
  std::vector<T> out(size_t(v.n.product() * f.ncomp()));
  size_t m = 0;
  for (int c = 0; c < f.ncomp(); ++c)
    for_each_cell(v.interior(), [&](Int3 p) { out[m++] = v(p, c); });
  return out;
}

int checked_bytes(int64_t elems, size_t elem_size, const char* what) {
  const int64_t b = elems * int64_t(elem_size);
  if (b > int64_t(INT_MAX))
    TESSERA_THROW(fmt::format("{}: {} bytes per rank exceed MPI's int count; gather a smaller field or write "
                              "it with parallel output instead",
                              what, b));
  return int(b);
}

// Copy block `src` (the interior of box b, [c][k][j][i]) into / out of the global array.
template <class T, class F>
void map_block(const Box3& b, Int3 global, int ncomp, F&& f) {
  int64_t m = 0;
  for (int c = 0; c < ncomp; ++c)
    for_each_cell(b, [&](Int3 p) { f(m++, p.x + global.x * (p.y + global.y * (p.z + global.z * int64_t(c)))); });
}
}  // namespace

template <class T>
std::vector<T> gather_to_root(const Decomposition& d, const Field<T>& f, int root) {
  TESSERA_REQUIRE(f.box() == d.local_box(), "gather_to_root: field '" + f.name() + "' is not over this rank's box");
  const std::vector<T> mine = interior_of(f);
  const int nb = checked_bytes(int64_t(mine.size()), sizeof(T), "gather_to_root");
  const bool is_root = d.rank() == root;
  std::vector<int> counts, displs;
  std::vector<T> all;
  if (is_root) {
    counts.resize(size_t(d.size()));
    displs.resize(size_t(d.size()));
    int64_t off = 0;
    for (int r = 0; r < d.size(); ++r) {
      counts[size_t(r)] = checked_bytes(d.box_of(r).volume() * f.ncomp(), sizeof(T), "gather_to_root");
      displs[size_t(r)] = checked_bytes(off, 1, "gather_to_root");
      off += counts[size_t(r)];
    }
    all.resize(size_t(d.global_box().volume() * f.ncomp()));
  }
  std::vector<T> packed(is_root ? all.size() : 0);
  MPI_Gatherv(mine.data(), nb, MPI_BYTE, packed.data(), counts.data(), displs.data(), MPI_BYTE, root, d.comm());
  if (is_root) {
    for (int r = 0; r < d.size(); ++r) {
      const T* blk = packed.data() + displs[size_t(r)] / int(sizeof(T));
      map_block<T>(d.box_of(r), d.global(), f.ncomp(), [&](int64_t m, int64_t g) { all[size_t(g)] = blk[m]; });
    }
  }
  return all;
}

template <class T>
void scatter_from_root(const Decomposition& d, Field<T>& f, const std::vector<T>& global, int root) {
  TESSERA_REQUIRE(f.box() == d.local_box(), "scatter_from_root: field '" + f.name() + "' is not over this rank's box");
  const bool is_root = d.rank() == root;
  std::vector<int> counts, displs;
  std::vector<T> packed;
  // Agree on the size first, so that a wrong array on the root fails on every rank instead of
  // leaving the others waiting in MPI_Scatterv.
  const size_t want = size_t(d.global_box().volume() * f.ncomp());
  int64_t root_size = is_root ? int64_t(global.size()) : 0;
  MPI_Bcast(&root_size, 1, MPI_INT64_T, root, d.comm());
  if (is_root) {
    if (global.size() != want)
      TESSERA_THROW(fmt::format("scatter_from_root: global array for field '{}' has {} values, expected {} ({} cells x "
                                "{} components)",
                                f.name(), global.size(), want, d.global_box().volume(), f.ncomp()));
    packed.resize(want);
    counts.resize(size_t(d.size()));
    displs.resize(size_t(d.size()));
    int64_t off = 0;
    for (int r = 0; r < d.size(); ++r) {
      T* blk = packed.data() + off;
      map_block<T>(d.box_of(r), d.global(), f.ncomp(), [&](int64_t m, int64_t g) { blk[m] = global[size_t(g)]; });
      counts[size_t(r)] = checked_bytes(d.box_of(r).volume() * f.ncomp(), sizeof(T), "scatter_from_root");
      displs[size_t(r)] = checked_bytes(off, sizeof(T), "scatter_from_root");
      off += d.box_of(r).volume() * f.ncomp();
    }
  }
  if (size_t(root_size) != want)
    TESSERA_THROW(fmt::format("scatter_from_root: the root's global array for field '{}' has {} values, expected {}",
                              f.name(), root_size, want));
  std::vector<T> mine(size_t(f.box().volume() * f.ncomp()));
  MPI_Scatterv(packed.data(), counts.data(), displs.data(), MPI_BYTE, mine.data(),
               checked_bytes(int64_t(mine.size()), sizeof(T), "scatter_from_root"), MPI_BYTE, root, d.comm());
  std::vector<T> all = f.to_host();  // keep ghost cells as they were
  FieldView<T> v{all.data(), f.extent(), f.ghost(), f.view().sy, f.view().sz, f.view().sc, f.ncomp()};
  size_t m = 0;
  for (int c = 0; c < f.ncomp(); ++c)
    for_each_cell(v.interior(), [&](Int3 p) { v(p, c) = mine[m++]; });
  f.from_host(all);
}

#define TESSERA_INSTANTIATE_GATHER(T)                                                 \
  template std::vector<T> gather_to_root(const Decomposition&, const Field<T>&, int); \
  template void scatter_from_root(const Decomposition&, Field<T>&, const std::vector<T>&, int);
TESSERA_INSTANTIATE_GATHER(float)
TESSERA_INSTANTIATE_GATHER(double)
TESSERA_INSTANTIATE_GATHER(int32_t)
TESSERA_INSTANTIATE_GATHER(int64_t)
TESSERA_INSTANTIATE_GATHER(uint8_t)
TESSERA_INSTANTIATE_GATHER(uint16_t)

}  // namespace tessera::domain
