// Loading a checkpoint: verify (rank 0), check the case, read fields by box and per-rank arrays.
#include <fmt/format.h>

#include <numeric>
#include <regex>
#include <sstream>

#include "checkpoint_internal.hpp"
#include "h5_util.hpp"
#include "mpi_util.hpp"
#include "tessera/core/log.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/checkpoint.hpp"

namespace tessera::io {
namespace {
// The newest checkpoint older than `path` (same directory and prefix) that verifies.
std::string previous_valid(const std::string& path) {
  std::smatch m;
  const std::string name = base_name(path);
  if (!std::regex_match(name, m, std::regex("(.*)_([0-9]+)\\.h5"))) return "";
  const int64_t step = std::stoll(m[2].str());
  for (const CheckpointFile& c : list_checkpoints(parent_dir(path), m[1].str()))
    if (c.step < step && verify_checkpoint(c.path).empty()) return c.path;
  return "";
}

std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = static_cast<bool>(std::getline(sa, la)), gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return "the case texts are identical (the hash covers more than the text)";
    if (!ga) la = "(end of file)";
    if (!gb) lb = "(end of file)";
    if (la != lb || ga != gb)
      return fmt::format("first difference at line {}: checkpoint has \"{}\", the current case has \"{}\"", line, la, lb);
  }
}

template <class T>
hid_t mem_type() { return h5::native_type(array_type_of<T>()); }
}  // namespace

CheckpointReader::CheckpointReader(MPI_Comm comm, std::string path, const LoadOptions& opt)
    : comm_(comm), path_(std::move(path)) {
  std::string reason;
  if (mpi::rank(comm_) == 0) {
    reason = verify_checkpoint(path_);
    if (!reason.empty()) {
      const std::string prev = previous_valid(path_);
      reason = "cannot restart from checkpoint: " + reason + ". " +
               (prev.empty() ? "No older valid checkpoint exists in '" + parent_dir(path_) + "'."
                             : "The newest older valid checkpoint is '" + prev + "': restart with --restart " + prev +
                                   " (or --restart auto, which picks it).");
    }
  }
  mpi::agree(comm_, reason.empty(), reason);

  h5::Hid f = h5::open_read(path_);
  meta_.step = h5::read_attr_int(f, "step", path_);
  meta_.time = h5::read_attr_double(f, "time", path_);
  meta_.case_hash = h5::read_attr_string(f, "case_hash", path_);
  meta_.case_text = h5::read_attr_string(f, "case_text", path_);
  meta_.solver = h5::read_attr_string(f, "solver", path_);
  nranks_ = static_cast<int>(h5::read_attr_int(f, "nranks", path_));

  if (!opt.expected_case_hash.empty() && opt.expected_case_hash != meta_.case_hash) {
    std::string msg = "checkpoint '" + path_ + "' was written for a different case: its case hash is " +
                      meta_.case_hash + ", the current case hashes to " + opt.expected_case_hash;
    if (!opt.expected_case_text.empty()) msg += "; " + first_difference(meta_.case_text, opt.expected_case_text);
    if (!opt.force)
      TESSERA_THROW(msg + ". Restart with the case the checkpoint was written with, or force the restart "
                          "(--restart-force / LoadOptions::force) if the change is intended");
    if (mpi::rank(comm_) == 0) log::warn("{} (loading anyway: forced)", msg);
  }
}

std::vector<std::string> CheckpointReader::names(const std::string& kind) const {
  h5::Hid f = h5::open_read(path_);
  if (!h5::exists(f, kind)) return {};
  return h5::list_group(h5::open_group(f, kind, path_));
}

template <class T>
void CheckpointReader::read_field(const std::string& name, const LocalBox& box, T* out) const {
  h5::Hid f = h5::open_read(path_);
  h5::Hid d = h5::open_dataset(f, "fields/" + name, path_);
  std::vector<hsize_t> dims = h5::dims(d);
  for (int a = 0; a < 3; ++a)
    if (box.offset[a] < 0 || hsize_t(box.offset[a] + box.cells[a]) > dims[2 - a])
      TESSERA_THROW(fmt::format("checkpoint '{}': box [{}, {}) on axis {} lies outside fields/{} ({} cells): the "
                                "restart grid must match the checkpoint's", path_, box.offset[a],
                                box.offset[a] + box.cells[a], "xyz"[a], name, dims[2 - a]));
  if (box.num_cells() == 0) return;
  std::vector<hsize_t> off{hsize_t(box.offset[2]), hsize_t(box.offset[1]), hsize_t(box.offset[0])};
  std::vector<hsize_t> cnt{hsize_t(box.cells[2]), hsize_t(box.cells[1]), hsize_t(box.cells[0])};
  if (dims.size() == 4) {
    off.push_back(0);
    cnt.push_back(dims[3]);
  }
  h5::Hid fs(H5Dget_space(d));
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
  h5::Hid ms(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
  h5::check_status(H5Dread(d, mem_type<T>(), ms, fs, H5P_DEFAULT, out), "reading fields/" + name, path_);
}

template <class T>
std::vector<T> CheckpointReader::read_local(const std::string& name) const {
  if (nranks_ != mpi::size(comm_))
    TESSERA_THROW(fmt::format("checkpoint '{}' was written by {} ranks, this run has {}: per-rank array '{}' can only "
                              "be read back per rank with the same count; use read_local_all and redistribute",
                              path_, nranks_, mpi::size(comm_), name));
  h5::Hid f = h5::open_read(path_);
  h5::Hid d = h5::open_dataset(f, "local/" + name, path_);
  std::vector<int64_t> counts = h5::read_attr_ints(d, "rank_counts", path_);
  const int r = mpi::rank(comm_);
  const int64_t before = std::accumulate(counts.begin(), counts.begin() + r, int64_t{0});
  std::vector<hsize_t> dims = h5::dims(d);
  std::vector<hsize_t> off{hsize_t(before)}, cnt{hsize_t(counts[r])};
  std::size_t width = 1;
  if (dims.size() == 2) {
    off.push_back(0);
    cnt.push_back(dims[1]);
    width = dims[1];
  }
  std::vector<T> out(static_cast<std::size_t>(counts[r]) * width);
  if (out.empty()) return out;
  h5::Hid fs(H5Dget_space(d));
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
  h5::Hid ms(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
  h5::check_status(H5Dread(d, mem_type<T>(), ms, fs, H5P_DEFAULT, out.data()), "reading local/" + name, path_);
  return out;
}

namespace {
template <class T>
std::vector<T> read_whole(const std::string& path, const std::string& dset) {
  h5::Hid f = h5::open_read(path);
  h5::Hid d = h5::open_dataset(f, dset, path);
  std::vector<hsize_t> dims = h5::dims(d);
  std::size_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<T> out(n);
  if (n > 0)
    h5::check_status(H5Dread(d, mem_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "reading " + dset, path);
  return out;
}
}  // namespace

template <class T>
std::vector<T> CheckpointReader::read_local_all(const std::string& name) const {
  return read_whole<T>(path_, "local/" + name);
}
template <class T>
std::vector<T> CheckpointReader::read_global(const std::string& name) const {
  return read_whole<T>(path_, "global/" + name);
}

#define TESSERA_CKPT_INSTANTIATE(T)                                                                   \
  template void CheckpointReader::read_field<T>(const std::string&, const LocalBox&, T*) const;      \
  template std::vector<T> CheckpointReader::read_local<T>(const std::string&) const;                 \
  template std::vector<T> CheckpointReader::read_local_all<T>(const std::string&) const;             \
  template std::vector<T> CheckpointReader::read_global<T>(const std::string&) const;
TESSERA_CKPT_INSTANTIATE(double)
TESSERA_CKPT_INSTANTIATE(float)
TESSERA_CKPT_INSTANTIATE(int64_t)
TESSERA_CKPT_INSTANTIATE(int32_t)
TESSERA_CKPT_INSTANTIATE(uint8_t)
#undef TESSERA_CKPT_INSTANTIATE

}  // namespace tessera::io
