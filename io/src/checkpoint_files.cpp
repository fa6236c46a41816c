// Checkpoint files on disk: payload checksum, verification, listing, finding the newest valid one.
#include <algorithm>
#include <filesystem>
#include <regex>

#include "checkpoint_internal.hpp"
#include "h5_util.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/core/log.hpp"
#include "tessera/io/hash64.hpp"

namespace tessera::io {

std::size_t array_type_size(ArrayType t) {
  switch (t) {
    case ArrayType::F64: case ArrayType::I64: return 8;
    case ArrayType::F32: case ArrayType::I32: return 4;
    case ArrayType::U8: return 1;
  }
  return 1;
}

namespace detail {
namespace {
void hash_dataset(Hash64& h, hid_t d, const std::string& name, const std::string& path) {
  h.update(name);
  std::vector<hsize_t> dims = h5::dims(d);
  h.update(dims.data(), dims.size() * sizeof(hsize_t));
  h5::Hid ftype(H5Dget_type(d));
  h5::Hid mtype(H5Tget_native_type(ftype, H5T_DIR_ASCEND));
  const std::size_t esize = H5Tget_size(mtype);
  h.update_value(static_cast<uint64_t>(esize));
  if (dims.empty()) return;
  hsize_t row = esize;
  for (std::size_t i = 1; i < dims.size(); ++i) row *= dims[i];
  // Read in slabs of whole rows of the first dimension, about 16 MiB at a time.
  const hsize_t rows_per = std::max<hsize_t>(1, (hsize_t(16) << 20) / std::max<hsize_t>(row, 1));
  std::vector<char> buf;
  h5::Hid fspace(H5Dget_space(d));
  for (hsize_t r0 = 0; r0 < dims[0]; r0 += rows_per) {
    std::vector<hsize_t> off(dims.size(), 0), cnt(dims);
    off[0] = r0;
    cnt[0] = std::min(rows_per, dims[0] - r0);
    buf.resize(cnt[0] * row);
    if (buf.empty()) continue;
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
    h5::Hid mspace(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
    h5::check_status(H5Dread(d, mtype, mspace, fspace, H5P_DEFAULT, buf.data()), "reading " + name, path);
    h.update(buf.data(), buf.size());
  }
}
}  // namespace

uint64_t checkpoint_payload_hash(hid_t f, const std::string& path) {
  Hash64 h;
  h.update_value(h5::read_attr_int(f, "step", path));
  h.update_value(h5::read_attr_double(f, "time", path));
  h.update(h5::read_attr_string(f, "case_hash", path));
  h.update(h5::read_attr_string(f, "case_text", path));
  h.update(h5::read_attr_string(f, "solver", path));
  h.update_value(h5::read_attr_int(f, "nranks", path));
  for (const char* grp : {"fields", "global", "local"}) {
    if (!h5::exists(f, grp)) continue;
    h5::Hid g = h5::open_group(f, grp, path);
    for (const std::string& name : h5::list_group(g)) {
      h5::Hid d = h5::open_dataset(g, name, path);
      hash_dataset(h, d, std::string(grp) + "/" + name, path);
      if (h5::has_attr(d, "rank_counts")) {
        std::vector<int64_t> rc = h5::read_attr_ints(d, "rank_counts", path);
        h.update(rc.data(), rc.size() * sizeof(int64_t));
      }
    }
  }
  return h.digest();
}

}  // namespace detail

std::vector<CheckpointFile> list_checkpoints(const std::string& dir, const std::string& prefix) {
  std::vector<CheckpointFile> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  const std::regex pat(prefix + "_([0-9]+)\\.h5");
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, m, pat)) out.push_back({e.path().string(), std::stoll(m[1].str())});
  }
  std::sort(out.begin(), out.end(), [](const CheckpointFile& a, const CheckpointFile& b) { return a.step > b.step; });
  return out;
}

std::string verify_checkpoint(const std::string& path) {
  try {
    h5::Hid f = h5::open_read(path);
    if (!h5::has_attr(f, "format") || h5::read_attr_string(f, "format", path) != detail::checkpoint_format())
      return "'" + path + "' is not a Tessera checkpoint (no format=\"tessera-checkpoint\" attribute)";
    if (!h5::has_attr(f, "checksum"))
      return "'" + path + "' has no checksum: its writer did not finish (crashed before the file was completed)";
    const std::string stored = h5::read_attr_string(f, "checksum", path);
    const std::string actual = "xxh64:" + to_hex(detail::checkpoint_payload_hash(f, path));
    if (stored != actual)
      return "'" + path + "' is corrupted: stored checksum " + stored + " but the data hash to " + actual;
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string resolve_restart(const std::string& restart, const std::string& dir, const std::string& solver) {
  if (restart != "auto") return restart;
  const auto p = find_latest_valid_checkpoint(dir);
  if (!p) log::info("{}: --restart auto: no valid checkpoint in {}, starting from the initial state", solver, dir);
  return p ? *p : "";
}

std::optional<std::string> find_latest_valid_checkpoint(const std::string& dir, const std::string& prefix) {
  for (const CheckpointFile& c : list_checkpoints(dir, prefix))
    if (verify_checkpoint(c.path).empty()) return c.path;
  return std::nullopt;
}

}  // namespace tessera::io
