// Private: copy the selected cells of a FieldView into a contiguous interleaved [z][y][x][c] block.
#pragma once
#include <vector>

#include "tessera/io/grid.hpp"

namespace tessera::io::detail {

// Bytes of the packed block: blk.num_cells() * ncomp values of the output precision.
std::vector<char> pack_block(const FieldView& f, const LocalBox& box, const ResolvedSelection& sel,
                             const OutputBlock& blk, Precision out);

}  // namespace tessera::io::detail
