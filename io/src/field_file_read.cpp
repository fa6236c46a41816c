// Reading grid fields back: file info, a box of a dataset (restart on any rank count), a whole dataset.
#include <algorithm>

#include "h5_util.hpp"
#include "tessera/io/field_file.hpp"

namespace tessera::io {
namespace {
Index3 i3(const std::vector<int64_t>& v, const std::string& what, const std::string& file) {
  if (v.size() != 3) TESSERA_THROW("'" + file + "': attribute " + what + " must have 3 values");
  return {v[0], v[1], v[2]};
}
std::array<double, 3> d3(const std::vector<double>& v, const std::string& what, const std::string& file) {
  if (v.size() != 3) TESSERA_THROW("'" + file + "': attribute " + what + " must have 3 values");
  return {v[0], v[1], v[2]};
}
}  // namespace

const FieldInfo& FieldFileInfo::field(const std::string& name) const {
  for (auto& f : fields)
    if (f.name == name) return f;
  std::string have;
  for (auto& f : fields) have += (have.empty() ? "" : ", ") + f.name;
  TESSERA_THROW("no field '" + name + "' in this file; it has: " + (have.empty() ? "(none)" : have));
}

FieldFileInfo read_field_file_info(const std::string& path) {
  h5::Hid f = h5::open_read(path);
  FieldFileInfo info;
  std::string fmt = h5::read_attr_string(f, "format", path);
  if (fmt != "tessera-fields")
    TESSERA_THROW("'" + path + "' is a '" + fmt + "' file, not Tessera grid output (format tessera-fields)");
  info.step = h5::read_attr_int(f, "step", path);
  info.time = h5::read_attr_double(f, "time", path);
  info.grid.global_cells = i3(h5::read_attr_ints(f, "cells", path), "cells", path);
  info.grid.origin = d3(h5::read_attr_doubles(f, "origin", path), "origin", path);
  info.grid.spacing = d3(h5::read_attr_doubles(f, "spacing", path), "spacing", path);
  info.source_grid.global_cells = i3(h5::read_attr_ints(f, "grid_cells", path), "grid_cells", path);
  info.source_grid.origin = d3(h5::read_attr_doubles(f, "grid_origin", path), "grid_origin", path);
  info.source_grid.spacing = d3(h5::read_attr_doubles(f, "grid_spacing", path), "grid_spacing", path);
  info.selection.lo = i3(h5::read_attr_ints(f, "selection_lo", path), "selection_lo", path);
  info.selection.hi = i3(h5::read_attr_ints(f, "selection_hi", path), "selection_hi", path);
  info.selection.stride = i3(h5::read_attr_ints(f, "selection_stride", path), "selection_stride", path);
  info.tessera_version = h5::read_attr_string(f, "tessera_version", path);
  info.case_text = h5::read_attr_string(f, "case_text", path);
  info.title = h5::read_attr_string(f, "title", path);
  h5::Hid g = h5::open_group(f, "fields", path);
  for (const std::string& name : h5::list_group(g)) {
    h5::Hid d = h5::open_dataset(g, name, path);
    FieldInfo fi;
    fi.name = name;
    fi.units = h5::read_attr_string(d, "units", path);
    fi.ncomp = static_cast<int>(h5::read_attr_int(d, "ncomp", path));
    fi.precision = h5::array_type_of_dataset(d, name) == ArrayType::F32 ? Precision::Float32 : Precision::Float64;
    info.fields.push_back(fi);
  }
  return info;
}

namespace {
template <class T>
void read_box_typed(const std::string& path, const std::string& name, const LocalBox& box, T* out, Layout layout) {
  h5::Hid f = h5::open_read(path);
  h5::Hid d = h5::open_dataset(f, "fields/" + name, path);
  std::vector<hsize_t> dims = h5::dims(d);
  if (dims.size() != 3 && dims.size() != 4)
    TESSERA_THROW("'" + path + "': fields/" + name + " has rank " + std::to_string(dims.size()) + ", expected 3 or 4");
  const int nc = dims.size() == 4 ? static_cast<int>(dims[3]) : 1;
  for (int a = 0; a < 3; ++a) {
    const hsize_t n = dims[2 - a];
    if (box.offset[a] < 0 || box.cells[a] < 0 || hsize_t(box.offset[a] + box.cells[a]) > n)
      TESSERA_THROW("'" + path + "': box [" + std::to_string(box.offset[a]) + ", " +
                    std::to_string(box.offset[a] + box.cells[a]) + ") on axis " + "xyz"[a] +
                    " lies outside fields/" + name + " (" + std::to_string(n) + " cells)");
  }
  const std::size_t ncell = static_cast<std::size_t>(box.num_cells());
  if (ncell == 0) return;
  std::vector<hsize_t> off{hsize_t(box.offset[2]), hsize_t(box.offset[1]), hsize_t(box.offset[0])};
  std::vector<hsize_t> cnt{hsize_t(box.cells[2]), hsize_t(box.cells[1]), hsize_t(box.cells[0])};
  if (nc > 1) {
    off.push_back(0);
    cnt.push_back(hsize_t(nc));
  }
  h5::Hid fspace(H5Dget_space(d));
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
  h5::Hid mspace(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
  const hid_t mt = std::is_same_v<T, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (layout == Layout::Interleaved || nc == 1) {
    h5::check_status(H5Dread(d, mt, mspace, fspace, H5P_DEFAULT, out), "reading fields/" + name, path);
    return;
  }
  std::vector<T> tmp(ncell * nc);
  h5::check_status(H5Dread(d, mt, mspace, fspace, H5P_DEFAULT, tmp.data()), "reading fields/" + name, path);
  for (std::size_t c = 0; c < ncell; ++c)
    for (int k = 0; k < nc; ++k) out[k * ncell + c] = tmp[c * nc + k];
}
}  // namespace

void read_field_box(const std::string& path, const std::string& name, const LocalBox& box, double* out, Layout l) {
  read_box_typed(path, name, box, out, l);
}
void read_field_box(const std::string& path, const std::string& name, const LocalBox& box, float* out, Layout l) {
  read_box_typed(path, name, box, out, l);
}

std::vector<double> read_field(const std::string& path, const std::string& name) {
  FieldFileInfo info = read_field_file_info(path);
  const FieldInfo& fi = info.field(name);
  LocalBox all = LocalBox::whole(info.grid);
  std::vector<double> v(static_cast<std::size_t>(all.num_cells()) * fi.ncomp);
  read_field_box(path, name, all, v.data(), Layout::Interleaved);
  return v;
}

}  // namespace tessera::io
