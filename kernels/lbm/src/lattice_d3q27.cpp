// Instantiates the portable LBM kernels for D3Q27 (see lattice_impl.hpp).
#include "lattice_impl.hpp"

namespace tessera::lbm::detail {
const LatticeOps& ops_d3q27() { return Impl<D3Q27>::table(); }
}  // namespace tessera::lbm::detail
