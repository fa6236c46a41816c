// Helpers for the io tests: a reference value per cell, an uneven decomposition, scratch directories.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tessera/io/grid.hpp"
#include "tessera/io/hash64.hpp"

namespace tessera::io::test {

// A reproducible "random" value for component c of global cell (i,j,k): every rank computes the same
// value for the same cell, so any rank can check any part of a file. Spans many magnitudes and signs.
inline double cell_value(int64_t i, int64_t j, int64_t k, int c, uint64_t seed = 1) {
  const int64_t key[5] = {i, j, k, c, static_cast<int64_t>(seed)};
  const uint64_t h = hash64(key, sizeof key);
  const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0,1)
  return (u - 0.5) * (1.0 + static_cast<double>(h % 7) * 100.0);
}

// Uneven split of n cells into p parts: the last n % p parts get one cell more (so the first ranks
// get fewer cells, which catches code that assumes equal pieces or that rank 0 is the largest).
inline void split(int64_t n, int p, int r, int64_t& off, int64_t& cnt) {
  const int64_t base = n / p, extra = n % p;
  off = 0;
  for (int q = 0; q < r; ++q) off += base + (q >= p - extra ? 1 : 0);
  cnt = base + (r >= p - extra ? 1 : 0);
}

// This rank's box in a dims[0] x dims[1] x dims[2] process grid (rank = (pz*dy + py)*dx + px).
inline LocalBox box_of(const GridGeometry& g, const std::array<int, 3>& dims, int rank) {
  LocalBox b;
  int coord[3] = {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
  for (int d = 0; d < 3; ++d) split(g.global_cells[d], dims[d], coord[d], b.offset[d], b.cells[d]);
  return b;
}

inline std::array<int, 3> proc_grid(MPI_Comm c) {
  int size = 1;
  MPI_Comm_size(c, &size);
  int d[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, d);
  return {d[2], d[1], d[0]};  // more ranks along z first
}

// Planar (component arrays) data of a box: data[c * ncells + cell].
inline std::vector<double> make_planar(const LocalBox& b, int ncomp, uint64_t seed = 1) {
  const int64_t n = b.num_cells();
  std::vector<double> v(static_cast<std::size_t>(n * ncomp));
  for (int c = 0; c < ncomp; ++c)
    for (int64_t k = 0; k < b.cells[2]; ++k)
      for (int64_t j = 0; j < b.cells[1]; ++j)
        for (int64_t i = 0; i < b.cells[0]; ++i)
          v[c * n + (k * b.cells[1] + j) * b.cells[0] + i] =
              cell_value(b.offset[0] + i, b.offset[1] + j, b.offset[2] + k, c, seed);
  return v;
}
// Interleaved data of a box: data[cell * ncomp + c].
inline std::vector<double> make_interleaved(const LocalBox& b, int ncomp, uint64_t seed = 1) {
  std::vector<double> v(static_cast<std::size_t>(b.num_cells() * ncomp));
  std::size_t o = 0;
  for (int64_t k = 0; k < b.cells[2]; ++k)
    for (int64_t j = 0; j < b.cells[1]; ++j)
      for (int64_t i = 0; i < b.cells[0]; ++i)
        for (int c = 0; c < ncomp; ++c) v[o++] = cell_value(b.offset[0] + i, b.offset[1] + j, b.offset[2] + k, c, seed);
  return v;
}

// A fresh scratch directory per test and rank count (created by rank 0, emptied first).
inline std::string scratch_dir(MPI_Comm c, const std::string& name) {
  int size = 1, rank = 0;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  const std::string dir = "io_scratch/" + name + "_np" + std::to_string(size);
  MPI_Barrier(c);  // nobody may still be reading a file of a previous use of this directory
  if (rank == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(c);
  return dir;
}

}  // namespace tessera::io::test
