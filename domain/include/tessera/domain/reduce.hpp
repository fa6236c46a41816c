// Reductions of one scalar over the ranks of a decomposition (after a local exec:: reduction).
//
//   double mass = domain::sum_over_ranks(decomp, exec::reduce_sum<double>(ex, "mass", ...));
//
// MPI_Allreduce: every rank gets the result. Sums of floating-point values depend on MPI's
// combination order; for bit-identical results across rank counts gather first.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#include "tessera/domain/decomposition.hpp"

namespace tessera::domain {

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, int32_t>) return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, uint32_t>) return MPI_UINT32_T;
  else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

template <class T>
T allreduce(const Decomposition& d, T local, MPI_Op op) {
  T r{};
  MPI_Allreduce(&local, &r, 1, mpi_type<T>(), op, d.comm());
  return r;
}
template <class T>
T sum_over_ranks(const Decomposition& d, T local) { return allreduce(d, local, MPI_SUM); }
template <class T>
T min_over_ranks(const Decomposition& d, T local) { return allreduce(d, local, MPI_MIN); }
template <class T>
T max_over_ranks(const Decomposition& d, T local) { return allreduce(d, local, MPI_MAX); }

}  // namespace tessera::domain
