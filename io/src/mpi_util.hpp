// Private MPI helpers for the writers: broadcasts and large point-to-point byte transfers.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::io::mpi {

inline int rank(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int size(MPI_Comm c) {
  int s = 1;
  MPI_Comm_size(c, &s);
  return s;
}
void bcast(MPI_Comm c, std::string& s, int root = 0);
void bcast(MPI_Comm c, int64_t& v, int root = 0);
void bcast(MPI_Comm c, double& v, int root = 0);
// Sends/receives any number of bytes (MPI counts are int: split into pieces of 1 GiB).
void send_bytes(MPI_Comm c, const void* data, std::size_t bytes, int dest, int tag);
void recv_bytes(MPI_Comm c, void* data, std::size_t bytes, int src, int tag);
// Every rank's value, on every rank.
std::vector<int64_t> allgather(MPI_Comm c, int64_t v);
// Agrees on success: if any rank failed (ok == false), every rank throws with the first failing rank's
// message (so a collective caller never deadlocks on one rank's exception).
void agree(MPI_Comm c, bool ok, const std::string& msg);

}  // namespace tessera::io::mpi
