#include "mpi_util.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::io::mpi {

void bcast(MPI_Comm c, std::string& s, int root) {
  int64_t n = static_cast<int64_t>(s.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, root, c);
  s.resize(static_cast<std::size_t>(n));
  std::size_t off = 0;
  while (off < s.size()) {
    int piece = static_cast<int>(std::min<std::size_t>(s.size() - off, std::size_t(1) << 30));
    MPI_Bcast(s.data() + off, piece, MPI_CHAR, root, c);
    off += static_cast<std::size_t>(piece);
  }
}
void bcast(MPI_Comm c, int64_t& v, int root) { MPI_Bcast(&v, 1, MPI_INT64_T, root, c); }
void bcast(MPI_Comm c, double& v, int root) { MPI_Bcast(&v, 1, MPI_DOUBLE, root, c); }

void send_bytes(MPI_Comm c, const void* data, std::size_t bytes, int dest, int tag) {
  auto p = static_cast<const char*>(data);
  do {
    int piece = static_cast<int>(std::min<std::size_t>(bytes, std::size_t(1) << 30));
    MPI_Send(p, piece, MPI_BYTE, dest, tag, c);
    p += piece;
    bytes -= static_cast<std::size_t>(piece);
  } while (bytes > 0);
}
void recv_bytes(MPI_Comm c, void* data, std::size_t bytes, int src, int tag) {
  auto p = static_cast<char*>(data);
  do {
    int piece = static_cast<int>(std::min<std::size_t>(bytes, std::size_t(1) << 30));
    MPI_Recv(p, piece, MPI_BYTE, src, tag, c, MPI_STATUS_IGNORE);
    p += piece;
    bytes -= static_cast<std::size_t>(piece);
  } while (bytes > 0);
}

std::vector<int64_t> allgather(MPI_Comm c, int64_t v) {
  std::vector<int64_t> all(static_cast<std::size_t>(size(c)));
  MPI_Allgather(&v, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, c);
  return all;
}

void agree(MPI_Comm c, bool ok, const std::string& msg) {
  int bad = ok ? size(c) : rank(c);
  int first_bad = 0;
  MPI_Allreduce(&bad, &first_bad, 1, MPI_INT, MPI_MIN, c);
  if (first_bad == size(c)) return;
  std::string m = msg;
  bcast(c, m, first_bad);
  throw Error(first_bad == rank(c) ? m : "rank " + std::to_string(first_bad) + " failed: " + m);
}

}  // namespace tessera::io::mpi
