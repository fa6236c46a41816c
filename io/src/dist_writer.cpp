#include "dist_writer.hpp"

#include <algorithm>
#include <cstring>

#include "mpi_util.hpp"

namespace tessera::io {

const char* to_string(WriteMode m) {
  switch (m) {
    case WriteMode::Auto: return "auto";
    case WriteMode::Collective: return "collective";
    case WriteMode::Gather: return "gather";
  }
  return "?";
}
WriteMode parse_write_mode(const std::string& s) {
  if (s == "auto") return WriteMode::Auto;
  if (s == "collective") return WriteMode::Collective;
  if (s == "gather") return WriteMode::Gather;
  TESSERA_THROW("unknown HDF5 write mode '" + s + "': use auto, collective or gather");
}
bool hdf5_is_parallel() {
#ifdef TESSERA_HDF5_PARALLEL
  return true;
#else
  return false;
#endif
}
std::string hdf5_version() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

namespace detail {

WriteMode resolve_mode(WriteMode m, MPI_Comm comm) {
  if (m == WriteMode::Collective && !hdf5_is_parallel())
    TESSERA_THROW("HDF5 write mode 'collective' needs a parallel HDF5, but this build links serial HDF5 " +
                  hdf5_version() + ": use mode 'auto' or 'gather', or rebuild against libhdf5-openmpi-dev");
  if (m == WriteMode::Auto) return (hdf5_is_parallel() && mpi::size(comm) > 1) ? WriteMode::Collective : WriteMode::Gather;
  return m;
}

DistWriter::DistWriter(MPI_Comm comm, std::string path, WriteMode mode, bool latest_format)
    : comm_(comm), path_(std::move(path)), mode_(resolve_mode(mode, comm)) {
  h5::init();
  rank_ = mpi::rank(comm);
  size_ = mpi::size(comm);
  bool ok = true;
  std::string err;
  if (mode_ == WriteMode::Collective || rank_ == 0) {
    h5::Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
#ifdef TESSERA_HDF5_PARALLEL
    if (mode_ == WriteMode::Collective) {
      H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
      H5Pset_all_coll_metadata_ops(fapl, true);
      H5Pset_coll_metadata_write(fapl, true);
    }
#endif
    if (latest_format) H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
      ok = false;
      err = "cannot create HDF5 file '" + path_ + "': " + h5::error_text() +
            ". Check that the directory exists and is writable and the disk is not full";
    } else {
      file_ = h5::Hid(f);
    }
  }
  mpi::agree(comm_, ok, err);
}

DistWriter::~DistWriter() {
  // Destructors must not throw or block in a collective: only release the handle (on error paths).
  file_.reset();
}

h5::Hid DistWriter::create_dataset(const std::string& name, hid_t type, const std::vector<hsize_t>& dims, int deflate) {
  if (!has_file()) return h5::Hid();
  h5::Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  bool nonempty = std::all_of(dims.begin(), dims.end(), [](hsize_t d) { return d > 0; });
  if (deflate > 0 && nonempty) {
    // Chunks of at most 64 cells per spatial axis (~1 MiB for float32 vectors); components whole.
    std::vector<hsize_t> chunk(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) chunk[d] = std::min<hsize_t>(dims[d], dims.size() == 1 ? 65536 : 64);
    H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
    H5Pset_deflate(dcpl, static_cast<unsigned>(std::min(deflate, 9)));
  }
  hid_t d = H5Dcreate2(file_, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  return h5::Hid(h5::check(d, "creating dataset " + name, path_));
}

void DistWriter::write_block(hid_t dset, hid_t memtype, const std::vector<hsize_t>& offset,
                             const std::vector<hsize_t>& count, const void* data) {
  const std::size_t nd = count.size();
  const std::size_t esize = H5Tget_size(memtype);
  auto write_one = [&](const std::vector<hsize_t>& off, const std::vector<hsize_t>& cnt, const void* p,
                       bool collective) {
    hsize_t n = 1;
    for (auto c : cnt) n *= c;
    h5::Hid fspace(H5Dget_space(dset));
    h5::Hid mspace;
    if (n > 0) {
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
      mspace = h5::Hid(H5Screate_simple(static_cast<int>(nd), cnt.data(), nullptr));
    } else {  // nothing from this rank, but a collective write still needs its participation
      hsize_t one = 1;
      mspace = h5::Hid(H5Screate_simple(1, &one, nullptr));
      H5Sselect_none(mspace);
      H5Sselect_none(fspace);
    }
    h5::Hid dxpl(H5Pcreate(H5P_DATASET_XFER));
#ifdef TESSERA_HDF5_PARALLEL
    if (collective) H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
#else
    (void)collective;
#endif
    static const double dummy = 0;
    return H5Dwrite(dset, memtype, mspace, fspace, dxpl, n > 0 ? p : &dummy) >= 0;
  };

  if (mode_ == WriteMode::Collective) {
    bool ok = write_one(offset, count, data, true);
    mpi::agree(comm_, ok, "writing a block of '" + path_ + "' failed: " + (ok ? "" : h5::error_text()));
    return;
  }
  // Gather: rank 0 writes its own block, then each other rank's in turn (one block in memory at a time).
  const int tag = 7301;
  bool ok = true;
  std::string err;
  if (rank_ == 0) {
    ok = write_one(offset, count, data, false);
    if (!ok) err = h5::error_text();
    std::vector<char> buf;
    for (int r = 1; r < size_; ++r) {
      std::vector<hsize_t> hdr(2 * nd);
      mpi::recv_bytes(comm_, hdr.data(), hdr.size() * sizeof(hsize_t), r, tag);
      std::vector<hsize_t> off(hdr.begin(), hdr.begin() + nd), cnt(hdr.begin() + nd, hdr.end());
      hsize_t n = 1;
      for (auto c : cnt) n *= c;
      buf.resize(n * esize);
      if (n > 0) mpi::recv_bytes(comm_, buf.data(), buf.size(), r, tag + 1);
      if (ok && !write_one(off, cnt, buf.data(), false)) {
        ok = false;
        err = h5::error_text();
      }
    }
  } else {
    std::vector<hsize_t> hdr(offset);
    hdr.insert(hdr.end(), count.begin(), count.end());
    mpi::send_bytes(comm_, hdr.data(), hdr.size() * sizeof(hsize_t), 0, tag);
    hsize_t n = 1;
    for (auto c : count) n *= c;
    if (n > 0) mpi::send_bytes(comm_, data, n * esize, 0, tag + 1);
  }
  mpi::agree(comm_, ok, "writing '" + path_ + "' failed: " + err + ". Is the disk full?");
}

void DistWriter::close() {
  bool ok = true;
  std::string err;
  if (file_.valid()) {
    // Close flushes everything; every dataset/group handle must be closed before (MPI-IO needs that).
    ok = H5Fclose(file_.release()) >= 0;
    if (!ok) err = "closing '" + path_ + "' failed (data may not be on disk): " + h5::error_text();
  }
  mpi::agree(comm_, ok, err);
}

}  // namespace detail
}  // namespace tessera::io
