// A distributed field as one global host array on a root rank, and back.
//
// Global layout: component-major, x fastest: value(i,j,k,c) at i + nx*(j + ny*(k + nz*c)). Ghost
// cells are not part of it. For tests (1 rank vs N ranks bit for bit), small outputs and fallbacks:
// the root holds the whole field, so this does not scale to the largest runs.
#pragma once
#include <vector>

#include "tessera/domain/decomposition.hpp"
#include "tessera/domain/field.hpp"

namespace tessera::domain {

// Collective. Returns the global array on `root`, an empty vector on the other ranks.
template <class T>
std::vector<T> gather_to_root(const Decomposition& d, const Field<T>& f, int root = 0);

// Collective. `global` (significant on `root` only) is written into every rank's interior cells;
// ghost cells are left as they were.
template <class T>
void scatter_from_root(const Decomposition& d, Field<T>& f, const std::vector<T>& global, int root = 0);

}  // namespace tessera::domain
