// Instantiates the portable LBM kernels for D2Q9 (see lattice_impl.hpp).
#include "lattice_impl.hpp"

namespace tessera::lbm::detail {
const LatticeOps& ops_d2q9() { return Impl<D2Q9>::table(); }
}  // namespace tessera::lbm::detail
