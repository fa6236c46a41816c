#include "h5_util.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace tessera::io::h5 {

void init() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

namespace {
herr_t walk_cb(unsigned n, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (n < 3 && e->desc && *e->desc) {  // the innermost few entries say what went wrong
    if (!out->empty()) *out += "; ";
    *out += e->desc;
  }
  return 0;
}
}  // namespace

std::string error_text() {
  std::string out;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &out);
  H5Eclear2(H5E_DEFAULT);
  return out.empty() ? "no HDF5 error message" : out;
}

void Hid::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE: H5Fclose(id_); break;
    case H5I_GROUP: H5Gclose(id_); break;
    case H5I_DATASET: H5Dclose(id_); break;
    case H5I_DATASPACE: H5Sclose(id_); break;
    case H5I_DATATYPE: H5Tclose(id_); break;
    case H5I_ATTR: H5Aclose(id_); break;
    case H5I_GENPROP_LST: H5Pclose(id_); break;
    default: break;
  }
  id_ = -1;
}

hid_t check(hid_t id, const std::string& what, const std::string& file) {
  if (id < 0) TESSERA_THROW("HDF5: " + what + " failed for '" + file + "': " + error_text());
  return id;
}
void check_status(herr_t st, const std::string& what, const std::string& file) {
  if (st < 0) TESSERA_THROW("HDF5: " + what + " failed for '" + file + "': " + error_text());
}

Hid open_read(const std::string& path) {
  init();
  if (!std::filesystem::exists(path))
    TESSERA_THROW("file '" + path + "' does not exist: check the path (relative paths start in the working directory)");
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    TESSERA_THROW("cannot open '" + path + "' as HDF5 (" + error_text() +
                  "): the file is truncated, corrupted, still being written, or not an HDF5 file. "
                  "If another process holds it, or the file system has no locks, set HDF5_USE_FILE_LOCKING=FALSE");
  return Hid(f);
}

Hid open_dataset(hid_t loc, const std::string& name, const std::string& file) {
  if (!exists(loc, name)) TESSERA_THROW("'" + file + "' has no dataset '" + name + "'");
  return Hid(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "opening dataset " + name, file));
}
Hid open_group(hid_t loc, const std::string& name, const std::string& file) {
  if (!exists(loc, name)) TESSERA_THROW("'" + file + "' has no group '" + name + "'");
  return Hid(check(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "opening group " + name, file));
}
Hid create_group(hid_t loc, const std::string& name, const std::string& file) {
  return Hid(check(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group " + name, file));
}

bool exists(hid_t loc, const std::string& name) {
  // Check every path component: H5Lexists fails on a missing intermediate group.
  std::string partial;
  std::size_t pos = 0;
  while (pos <= name.size()) {
    std::size_t next = name.find('/', pos);
    if (next == std::string::npos) next = name.size();
    if (next > pos) {
      partial = name.substr(0, next);
      if (H5Lexists(loc, partial.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    pos = next + 1;
  }
  return true;
}

hid_t native_type(ArrayType t) {
  switch (t) {
    case ArrayType::F64: return H5T_NATIVE_DOUBLE;
    case ArrayType::F32: return H5T_NATIVE_FLOAT;
    case ArrayType::I64: return H5T_NATIVE_INT64;
    case ArrayType::I32: return H5T_NATIVE_INT32;
    case ArrayType::U8: return H5T_NATIVE_UINT8;
  }
  return H5T_NATIVE_DOUBLE;
}
hid_t native_type(Precision p) { return p == Precision::Float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE; }

ArrayType array_type_of_dataset(hid_t dset, const std::string& what) {
  Hid t(H5Dget_type(dset));
  H5T_class_t c = H5Tget_class(t);
  std::size_t sz = H5Tget_size(t);
  if (c == H5T_FLOAT) return sz == 4 ? ArrayType::F32 : ArrayType::F64;
  if (c == H5T_INTEGER) {
    if (sz == 1) return ArrayType::U8;
    if (sz == 4) return ArrayType::I32;
    if (sz == 8) return ArrayType::I64;
  }
  TESSERA_THROW("dataset " + what + " has an element type Tessera does not read (class " + std::to_string(c) +
                ", " + std::to_string(sz) + " bytes)");
}

namespace {
void write_attr_raw(hid_t obj, const std::string& name, hid_t type, hid_t space, const void* data) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Hid a(check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "creating attribute " + name, "?"));
  check_status(H5Awrite(a, type, data), "writing attribute " + name, "?");
}
Hid simple_space(hsize_t n) { return Hid(H5Screate_simple(1, &n, nullptr)); }
}  // namespace

void write_attr(hid_t obj, const std::string& name, int64_t v) {
  Hid s(H5Screate(H5S_SCALAR));
  write_attr_raw(obj, name, H5T_NATIVE_INT64, s, &v);
}
void write_attr(hid_t obj, const std::string& name, double v) {
  Hid s(H5Screate(H5S_SCALAR));
  write_attr_raw(obj, name, H5T_NATIVE_DOUBLE, s, &v);
}
void write_attr(hid_t obj, const std::string& name, const std::string& v) {
  // Variable-length UTF-8 string: h5py returns it as str, HDF5 tools print it as text.
  Hid t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  Hid s(H5Screate(H5S_SCALAR));
  const char* p = v.c_str();
  write_attr_raw(obj, name, t, s, &p);
}
void write_attr(hid_t obj, const std::string& name, const std::vector<int64_t>& v) {
  Hid s = simple_space(v.size());
  write_attr_raw(obj, name, H5T_NATIVE_INT64, s, v.data());
}
void write_attr_int32(hid_t obj, const std::string& name, const std::vector<int32_t>& v) {
  Hid s = simple_space(v.size());
  write_attr_raw(obj, name, H5T_NATIVE_INT32, s, v.data());
}
void write_attr(hid_t obj, const std::string& name, const std::vector<double>& v) {
  Hid s = simple_space(v.size());
  write_attr_raw(obj, name, H5T_NATIVE_DOUBLE, s, v.data());
}
void write_attr(hid_t obj, const std::string& name, const std::vector<std::string>& v) {
  std::size_t len = 1;
  for (auto& x : v) len = std::max(len, x.size());
  std::string buf(len * v.size(), '\0');
  for (std::size_t i = 0; i < v.size(); ++i) std::copy(v[i].begin(), v[i].end(), buf.begin() + i * len);
  Hid t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t, len);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  Hid s = simple_space(v.size());
  write_attr_raw(obj, name, t, s, buf.data());
}

bool has_attr(hid_t obj, const std::string& name) { return H5Aexists(obj, name.c_str()) > 0; }

namespace {
Hid open_attr(hid_t obj, const std::string& name, const std::string& file) {
  if (!has_attr(obj, name))
    TESSERA_THROW("'" + file + "' lacks attribute '" + name + "': not a Tessera file of this kind, or written by an older version");
  return Hid(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "opening attribute " + name, file));
}
hssize_t attr_npoints(hid_t a) {
  Hid s(H5Aget_space(a));
  return H5Sget_simple_extent_npoints(s);
}
}  // namespace

int64_t read_attr_int(hid_t obj, const std::string& name, const std::string& file) {
  Hid a = open_attr(obj, name, file);
  int64_t v = 0;
  check_status(H5Aread(a, H5T_NATIVE_INT64, &v), "reading attribute " + name, file);
  return v;
}
double read_attr_double(hid_t obj, const std::string& name, const std::string& file) {
  Hid a = open_attr(obj, name, file);
  double v = 0;
  check_status(H5Aread(a, H5T_NATIVE_DOUBLE, &v), "reading attribute " + name, file);
  return v;
}
std::string read_attr_string(hid_t obj, const std::string& name, const std::string& file) {
  Hid a = open_attr(obj, name, file);
  Hid t(H5Aget_type(a));
  if (H5Tis_variable_str(t) > 0) {
    char* p = nullptr;  // read with the file's own string type (ASCII or UTF-8), no conversion
    check_status(H5Aread(a, t, &p), "reading attribute " + name, file);
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  std::size_t sz = H5Tget_size(t);
  std::string s(sz, '\0');
  check_status(H5Aread(a, t, s.data()), "reading attribute " + name, file);
  s.resize(std::min(s.size(), s.find('\0')));
  return s;
}
std::vector<int64_t> read_attr_ints(hid_t obj, const std::string& name, const std::string& file) {
  Hid a = open_attr(obj, name, file);
  std::vector<int64_t> v(static_cast<std::size_t>(attr_npoints(a)));
  check_status(H5Aread(a, H5T_NATIVE_INT64, v.data()), "reading attribute " + name, file);
  return v;
}
std::vector<double> read_attr_doubles(hid_t obj, const std::string& name, const std::string& file) {
  Hid a = open_attr(obj, name, file);
  std::vector<double> v(static_cast<std::size_t>(attr_npoints(a)));
  check_status(H5Aread(a, H5T_NATIVE_DOUBLE, v.data()), "reading attribute " + name, file);
  return v;
}

std::vector<hsize_t> dims(hid_t dset) {
  Hid s(H5Dget_space(dset));
  int nd = H5Sget_simple_extent_ndims(s);
  std::vector<hsize_t> d(static_cast<std::size_t>(std::max(nd, 0)));
  if (nd > 0) H5Sget_simple_extent_dims(s, d.data(), nullptr);
  return d;
}

namespace {
herr_t list_cb(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> list_group(hid_t group) {
  std::vector<std::string> names;
  H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, list_cb, &names);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tessera::io::h5
