#include <cstdint>
#include <cstdio>
#include <fstream>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/app.hpp"

namespace tessera::lbm {

void write_vti(const std::string& path, const std::array<int64_t, 3>& n, double dx, const std::vector<float>& rho,
               const std::vector<float>& u, const std::vector<uint8_t>& solid) {
  const uint64_t N = uint64_t(n[0] * n[1] * n[2]);
  const std::string tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary);
  if (!f) TESSERA_THROW("cannot write " + path + ": check that the output directory exists and is writable");
  const uint64_t b_rho = N * 4, b_u = N * 12, b_s = N;
  f << "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" "
       "header_type=\"UInt64\">\n";
  f << "<ImageData WholeExtent=\"0 " << n[0] << " 0 " << n[1] << " 0 " << n[2] << "\" Origin=\"0 0 0\" Spacing=\""
    << dx << " " << dx << " " << dx << "\">\n<Piece Extent=\"0 " << n[0] << " 0 " << n[1] << " 0 " << n[2]
    << "\">\n<CellData Scalars=\"density\" Vectors=\"velocity\">\n";
  f << "<DataArray type=\"Float32\" Name=\"density\" format=\"appended\" offset=\"0\"/>\n";
  f << "<DataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"appended\" offset=\""
    << 8 + b_rho << "\"/>\n";
  f << "<DataArray type=\"UInt8\" Name=\"solid\" format=\"appended\" offset=\"" << 16 + b_rho + b_u << "\"/>\n";
  f << "</CellData>\n</Piece>\n</ImageData>\n<AppendedData encoding=\"raw\">\n_";
  f.write(reinterpret_cast<const char*>(&b_rho), 8);
  f.write(reinterpret_cast<const char*>(rho.data()), std::streamsize(b_rho));
  f.write(reinterpret_cast<const char*>(&b_u), 8);
  std::vector<float> v(3 * N);  // interleave the SoA velocity
  for (uint64_t c = 0; c < N; ++c)
    for (int a = 0; a < 3; ++a) v[3 * c + uint64_t(a)] = u[uint64_t(a) * N + c];
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(b_u));
  f.write(reinterpret_cast<const char*>(&b_s), 8);
  f.write(reinterpret_cast<const char*>(solid.data()), std::streamsize(b_s));
  f << "\n</AppendedData>\n</VTKFile>\n";
  f.close();
  if (!f) TESSERA_THROW("writing " + path + " failed (disk full?)");
  std::rename(tmp.c_str(), path.c_str());
}

void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& entries) {
  std::ofstream f(path);
  f << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n";
  for (const auto& [t, file] : entries) f << "  <DataSet timestep=\"" << t << "\" file=\"" << file << "\"/>\n";
  f << "</Collection>\n</VTKFile>\n";
}

}  // namespace tessera::lbm
