// VTK XML ImageData / PImageData / Collection writers. Data are cell data: a piece of cells [o, o+c)
// has the point extent o .. o+c, so neighbouring pieces share their boundary points and leave no gap.
#include "tessera/io/vtk_xml.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>

#include "pack.hpp"
#include "tessera/core/error.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/xdmf.hpp"

namespace tessera::io {

std::string base64_encode(const void* data, std::size_t bytes) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto p = static_cast<const unsigned char*>(data);
  std::string o;
  o.reserve((bytes + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes; i += 3) {
    uint32_t v = (uint32_t(p[i]) << 16) | (uint32_t(p[i + 1]) << 8) | p[i + 2];
    o += tbl[(v >> 18) & 63];
    o += tbl[(v >> 12) & 63];
    o += tbl[(v >> 6) & 63];
    o += tbl[v & 63];
  }
  if (i < bytes) {
    uint32_t v = uint32_t(p[i]) << 16;
    if (i + 1 < bytes) v |= uint32_t(p[i + 1]) << 8;
    o += tbl[(v >> 18) & 63];
    o += tbl[(v >> 12) & 63];
    o += (i + 1 < bytes) ? tbl[(v >> 6) & 63] : '=';
    o += '=';
  }
  return o;
}

namespace {
const char* vtk_type(Precision p) { return p == Precision::Float32 ? "Float32" : "Float64"; }

std::string extent(const Index3& off, const Index3& cnt) {
  return fmt::format("{} {} {} {} {} {}", off[0], off[0] + cnt[0], off[1], off[1] + cnt[1], off[2], off[2] + cnt[2]);
}
std::string triple(const std::array<double, 3>& a) { return fmt::format("{:.17g} {:.17g} {:.17g}", a[0], a[1], a[2]); }

std::string scalars_attr(std::span<const FieldView> fields) {
  for (auto& f : fields)
    if (f.ncomp == 1) return " Scalars=\"" + xml_escape(f.name) + "\"";
  return "";
}
std::string vectors_attr(std::span<const FieldView> fields) {
  for (auto& f : fields)
    if (f.ncomp == 3) return " Vectors=\"" + xml_escape(f.name) + "\"";
  return "";
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) TESSERA_THROW("cannot create '" + path + "': check that the directory exists and is writable");
  os << text;
  if (!os) TESSERA_THROW("writing '" + path + "' failed: the disk may be full");
}
}  // namespace

void write_vti_piece(const std::string& path, const ResolvedSelection& sel, const LocalBox& box,
                     const OutputBlock& blk, std::span<const FieldView> fields, Precision precision) {
  std::string x = "<?xml version=\"1.0\"?>\n"
                  "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n";
  x += fmt::format("  <ImageData WholeExtent=\"{}\" Origin=\"{}\" Spacing=\"{}\">\n",
                   extent({0, 0, 0}, sel.out_cells), triple(sel.out_origin), triple(sel.out_spacing));
  x += fmt::format("    <Piece Extent=\"{}\">\n", extent(blk.out_offset, blk.out_count));
  x += "      <CellData" + scalars_attr(fields) + vectors_attr(fields) + ">\n";
  for (const FieldView& f : fields) {
    std::vector<char> bytes = detail::pack_block(f, box, sel, blk, precision);
    // Inline binary: base64 of the UInt64 byte count, then base64 of the data (as VTK's writer does).
    const uint64_t n = bytes.size();
    x += fmt::format("        <DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" format=\"binary\">\n",
                     vtk_type(precision), xml_escape(f.name), f.ncomp);
    x += "          " + base64_encode(&n, sizeof n) + base64_encode(bytes.data(), bytes.size()) + "\n";
    x += "        </DataArray>\n";
  }
  x += "      </CellData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n";
  write_text(path, x);
}

void write_pvti(const std::string& path, const ResolvedSelection& sel, std::span<const FieldView> fields,
                Precision precision, const std::vector<std::string>& piece_files,
                const std::vector<OutputBlock>& piece_blocks) {
  std::string x = "<?xml version=\"1.0\"?>\n"
                  "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n";
  x += fmt::format("  <PImageData WholeExtent=\"{}\" GhostLevel=\"0\" Origin=\"{}\" Spacing=\"{}\">\n",
                   extent({0, 0, 0}, sel.out_cells), triple(sel.out_origin), triple(sel.out_spacing));
  x += "    <PCellData" + scalars_attr(fields) + vectors_attr(fields) + ">\n";
  for (const FieldView& f : fields)
    x += fmt::format("      <PDataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\"/>\n", vtk_type(precision),
                     xml_escape(f.name), f.ncomp);
  x += "    </PCellData>\n";
  for (std::size_t p = 0; p < piece_files.size(); ++p)
    x += fmt::format("    <Piece Extent=\"{}\" Source=\"{}\"/>\n",
                     extent(piece_blocks[p].out_offset, piece_blocks[p].out_count), xml_escape(piece_files[p]));
  x += "  </PImageData>\n</VTKFile>\n";
  write_text(path, x);
}

void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& entries) {
  std::string x = "<?xml version=\"1.0\"?>\n"
                  "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n";
  for (auto& [t, file] : entries)
    x += fmt::format("    <DataSet timestep=\"{:.17g}\" group=\"\" part=\"0\" file=\"{}\"/>\n", t, xml_escape(file));
  x += "  </Collection>\n</VTKFile>\n";
  write_file_atomic(path, x);
}

}  // namespace tessera::io
