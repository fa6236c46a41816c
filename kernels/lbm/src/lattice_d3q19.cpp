// Instantiates the portable LBM kernels for D3Q19 (see lattice_impl.hpp).
#include "lattice_impl.hpp"

namespace tessera::lbm::detail {
const LatticeOps& ops_d3q19() { return Impl<D3Q19>::table(); }
}  // namespace tessera::lbm::detail
