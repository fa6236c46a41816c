// XDMF3 light data. Dimensions are listed slowest first (z y x), as XDMF and HDF5 both expect; for a
// 3DCoRectMesh the ORIGIN_DXDYDZ values are therefore given in (z, y, x) order too.
#include "tessera/io/xdmf.hpp"

#include <fmt/format.h>

namespace tessera::io {
namespace {
const char* attribute_type(int ncomp) {
  switch (ncomp) {
    case 1: return "Scalar";
    case 3: return "Vector";
    case 6: return "Tensor6";
    case 9: return "Tensor";
    default: return "Matrix";
  }
}
const char* header() {
  return "<?xml version=\"1.0\" ?>\n"
         "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
         "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"3.0\">\n"
         "  <Domain>\n";
}
const char* footer() { return "    </Grid>\n  </Domain>\n</Xdmf>\n"; }
}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string xdmf_grid_series(const std::vector<XdmfGridStep>& steps) {
  std::string x = header();
  x += "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfGridStep& s : steps) {
    const auto& c = s.grid.global_cells;
    const auto& o = s.grid.origin;
    const auto& h = s.grid.spacing;
    x += fmt::format("      <Grid Name=\"step_{:08d}\" GridType=\"Uniform\">\n", s.step);
    x += fmt::format("        <Time Value=\"{:.17g}\"/>\n", s.time);
    // Points are the cell corners: cells + 1 per axis; the data sit on the cells (Center="Cell").
    x += fmt::format("        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n", c[2] + 1,
                     c[1] + 1, c[0] + 1);
    x += "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
    x += fmt::format("          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                     "Format=\"XML\">{:.17g} {:.17g} {:.17g}</DataItem>\n", o[2], o[1], o[0]);
    x += fmt::format("          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                     "Format=\"XML\">{:.17g} {:.17g} {:.17g}</DataItem>\n", h[2], h[1], h[0]);
    x += "        </Geometry>\n";
    for (const FieldInfo& f : s.fields) {
      std::string dims = fmt::format("{} {} {}", c[2], c[1], c[0]);
      if (f.ncomp > 1) dims += fmt::format(" {}", f.ncomp);
      x += fmt::format("        <Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"Cell\">\n", xml_escape(f.name),
                       attribute_type(f.ncomp));
      x += fmt::format("          <DataItem Dimensions=\"{}\" NumberType=\"Float\" Precision=\"{}\" Format=\"HDF\">"
                       "{}:/fields/{}</DataItem>\n", dims, f.precision == Precision::Float32 ? 4 : 8,
                       xml_escape(s.h5_file), xml_escape(f.name));
      x += "        </Attribute>\n";
    }
    x += "      </Grid>\n";
  }
  return x + footer();
}

namespace {
// Frame `frame` of a [frames][N](...) dataset. Xdmf3's HDF reference may carry a hyperslab as
// "file:/path|start:stride:count:dataspace" (XdmfCoreItemFactory); ParaView's Xdmf3 readers follow it.
// (The older ItemType="HyperSlab" wrapper is not read by ParaView 5.11's Xdmf3 reader.)
std::string frame_slab(const std::string& ref, int64_t frame, int64_t frames, int64_t n, int ncomp, bool integer,
                       int bytes, const std::string& indent) {
  const bool vec = ncomp > 1;
  const std::string dims = vec ? fmt::format("{} {}", n, ncomp) : fmt::format("{}", n);
  const std::string slab = vec ? fmt::format("{} 0 0:1 1 1:1 {} {}:{} {} {}", frame, n, ncomp, frames, n, ncomp)
                               : fmt::format("{} 0:1 1:1 {}:{} {}", frame, n, frames, n);
  return indent + fmt::format("<DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" Format=\"HDF\">{}|{}</DataItem>\n",
                              dims, integer ? "Int" : "Float", bytes, ref, slab);
}
}  // namespace

std::string xdmf_particle_series(const std::string& h5_file, const std::string& group, int64_t n,
                                 int64_t frames_in_file, int position_bytes,
                                 const std::vector<XdmfParticleArray>& arrays,
                                 const std::vector<XdmfParticleFrame>& frames) {
  const std::string base = xml_escape(h5_file) + ":/particles/" + xml_escape(group) + "/";
  std::string x = header();
  x += "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfParticleFrame& fr : frames) {
    x += fmt::format("      <Grid Name=\"step_{:08d}\" GridType=\"Uniform\">\n", fr.step);
    x += fmt::format("        <Time Value=\"{:.17g}\"/>\n", fr.time);
    x += fmt::format("        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"{}\" NodesPerElement=\"1\"/>\n", n);
    x += "        <Geometry GeometryType=\"XYZ\">\n";
    x += frame_slab(base + "position/value", fr.frame, frames_in_file, n, 3, false, position_bytes, "          ");
    x += "        </Geometry>\n";
    for (const XdmfParticleArray& a : arrays) {
      x += fmt::format("        <Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"Node\">\n", xml_escape(a.name),
                       attribute_type(a.ncomp));
      x += frame_slab(base + xml_escape(a.name) + "/value", fr.frame, frames_in_file, n, a.ncomp, a.is_integer,
                      a.bytes, "          ");
      x += "        </Attribute>\n";
    }
    x += "      </Grid>\n";
  }
  return x + footer();
}

}  // namespace tessera::io
