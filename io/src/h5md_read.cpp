// Reading frames back from an H5MD file (ours, or any H5MD 1.x file with the same elements).
#include "h5_util.hpp"
#include "tessera/io/h5md.hpp"

namespace tessera::io {
namespace {
// Reads row `frame` of dataset `name` ([frames][...]) into out (resized to the row size).
template <class T>
void read_row(hid_t f, const std::string& name, int64_t frame, hid_t memtype, std::vector<T>& out,
              const std::string& path) {
  h5::Hid d = h5::open_dataset(f, name, path);
  std::vector<hsize_t> dims = h5::dims(d);
  if (dims.empty() || int64_t(dims[0]) <= frame)
    TESSERA_THROW("'" + path + "': " + name + " has " + std::to_string(dims.empty() ? 0 : dims[0]) +
                  " frames; frame " + std::to_string(frame) + " does not exist");
  std::vector<hsize_t> off(dims.size(), 0), cnt(dims);
  off[0] = hsize_t(frame);
  cnt[0] = 1;
  hsize_t n = 1;
  for (std::size_t i = 1; i < cnt.size(); ++i) n *= cnt[i];
  out.resize(n);
  h5::Hid fspace(H5Dget_space(d));
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
  h5::Hid mspace(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
  h5::check_status(H5Dread(d, memtype, mspace, fspace, H5P_DEFAULT, out.data()), "reading " + name, path);
}
}  // namespace

int64_t h5md_frame_count(const std::string& path, const std::string& group) {
  h5::Hid f = h5::open_read(path);
  h5::Hid d = h5::open_dataset(f, "particles/" + group + "/position/value", path);
  return static_cast<int64_t>(h5::dims(d)[0]);
}

ParticleFrame read_h5md_frame(const std::string& path, int64_t frame, const std::string& group) {
  h5::Hid f = h5::open_read(path);
  if (!h5::exists(f, "h5md")) TESSERA_THROW("'" + path + "' is not an H5MD file (no /h5md group)");
  const std::string g = "particles/" + group + "/";
  if (!h5::exists(f, g + "position"))
    TESSERA_THROW("'" + path + "' has no particle group '" + group + "' with positions (/particles/" + group + "/position)");
  const int64_t frames = static_cast<int64_t>(h5::dims(h5::open_dataset(f, g + "position/value", path))[0]);
  if (frame < 0) frame += frames;
  ParticleFrame pf;
  std::vector<int64_t> step;
  std::vector<double> time, edges;
  read_row(f, g + "position/step", frame, H5T_NATIVE_INT64, step, path);
  read_row(f, g + "position/time", frame, H5T_NATIVE_DOUBLE, time, path);
  pf.step = step.at(0);
  pf.time = time.at(0);
  read_row(f, g + "position/value", frame, H5T_NATIVE_DOUBLE, pf.position, path);
  read_row(f, g + "id/value", frame, H5T_NATIVE_INT64, pf.id, path);
  if (h5::exists(f, g + "species")) read_row(f, g + "species/value", frame, H5T_NATIVE_INT32, pf.species, path);
  else pf.species.assign(pf.id.size(), 0);
  if (h5::exists(f, g + "velocity")) read_row(f, g + "velocity/value", frame, H5T_NATIVE_DOUBLE, pf.velocity, path);
  if (h5::exists(f, g + "box/edges/value")) {
    read_row(f, g + "box/edges/value", frame, H5T_NATIVE_DOUBLE, edges, path);
    for (int d = 0; d < 3 && d < int(edges.size()); ++d) pf.box_edges[d] = edges[d];
  }
  return pf;
}

}  // namespace tessera::io
