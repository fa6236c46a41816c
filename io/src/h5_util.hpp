// Private HDF5 helpers: RAII handles, error text from the HDF5 error stack, attributes.
#pragma once
#include <hdf5.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/grid.hpp"

namespace tessera::io::h5 {

// Silences HDF5's automatic error printing (we report errors ourselves). Idempotent.
void init();
// The HDF5 error stack as one line (innermost messages), then clears it.
std::string error_text();

// Owns one hid_t and closes it with the right H5*close.
class Hid {
 public:
  Hid() = default;
  explicit Hid(hid_t id) : id_(id) {}
  ~Hid() { reset(); }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& o) noexcept : id_(o.id_) { o.id_ = -1; }
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      o.id_ = -1;
    }
    return *this;
  }
  void reset();
  hid_t release() {
    hid_t id = id_;
    id_ = -1;
    return id;
  }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
};

// Throws tessera::Error "<what> (<file>): <HDF5 error stack>" when id < 0 / status < 0.
hid_t check(hid_t id, const std::string& what, const std::string& file);
void check_status(herr_t st, const std::string& what, const std::string& file);

// Opens an existing file read-only, with a message that says what to do when it cannot be opened.
Hid open_read(const std::string& path);
// Opens an object (group or dataset) below loc; throws naming the path and the file.
Hid open_dataset(hid_t loc, const std::string& name, const std::string& file);
Hid open_group(hid_t loc, const std::string& name, const std::string& file);
Hid create_group(hid_t loc, const std::string& name, const std::string& file);
bool exists(hid_t loc, const std::string& name);

// Memory/file type of an element type.
hid_t native_type(ArrayType t);
hid_t native_type(Precision p);
ArrayType array_type_of_dataset(hid_t dset, const std::string& what);

// Attributes (on a file, group or dataset).
void write_attr(hid_t obj, const std::string& name, int64_t v);
void write_attr(hid_t obj, const std::string& name, double v);
void write_attr(hid_t obj, const std::string& name, const std::string& v);
void write_attr(hid_t obj, const std::string& name, const std::vector<int64_t>& v);
void write_attr(hid_t obj, const std::string& name, const std::vector<double>& v);
void write_attr(hid_t obj, const std::string& name, const std::vector<std::string>& v);
void write_attr_int32(hid_t obj, const std::string& name, const std::vector<int32_t>& v);
bool has_attr(hid_t obj, const std::string& name);
int64_t read_attr_int(hid_t obj, const std::string& name, const std::string& file);
double read_attr_double(hid_t obj, const std::string& name, const std::string& file);
std::string read_attr_string(hid_t obj, const std::string& name, const std::string& file);
std::vector<int64_t> read_attr_ints(hid_t obj, const std::string& name, const std::string& file);
std::vector<double> read_attr_doubles(hid_t obj, const std::string& name, const std::string& file);

// Dimensions of a dataset.
std::vector<hsize_t> dims(hid_t dset);
// Names of the links in a group, sorted.
std::vector<std::string> list_group(hid_t group);

}  // namespace tessera::io::h5
