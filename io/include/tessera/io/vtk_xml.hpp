// VTK XML ImageData for small runs ("VTK File Formats", VTK User's Guide, section XML formats):
// one .vti per rank piece with cell data (inline base64 binary, UInt64 headers), a .pvti that lists
// the pieces, and a .pvd collection with the time of each step.
#pragma once
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tessera/io/grid.hpp"

namespace tessera::io {

// Writes this rank's block (output indices `blk` of the output grid `sel`) as a .vti piece. The
// values are the selected cells of `box` (same rules as the HDF5 writer). Precision as asked.
void write_vti_piece(const std::string& path, const ResolvedSelection& sel, const LocalBox& box,
                     const OutputBlock& blk, std::span<const FieldView> fields, Precision precision);

// The .pvti that joins the pieces (rank 0). piece_files are relative to the .pvti; extents per rank.
void write_pvti(const std::string& path, const ResolvedSelection& sel, std::span<const FieldView> fields,
                Precision precision, const std::vector<std::string>& piece_files,
                const std::vector<OutputBlock>& piece_blocks);

// The .pvd collection (atomically replaced). entries: (time, file relative to the .pvd).
void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& entries);

// Base64 (RFC 4648) of raw bytes.
std::string base64_encode(const void* data, std::size_t bytes);

}  // namespace tessera::io
