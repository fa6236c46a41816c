// Private: one HDF5 file written by all ranks of a communicator, collectively (parallel HDF5) or
// through rank 0 (any HDF5). Every method is collective and must be called in the same order on all
// ranks; h5 handles exist only on ranks where has_file() is true.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "h5_util.hpp"
#include "tessera/io/write_mode.hpp"

namespace tessera::io::detail {

WriteMode resolve_mode(WriteMode m, MPI_Comm comm);

class DistWriter {
 public:
  // Creates (truncates) `path`. latest_format: HDF5 1.8+ object headers, which carry checksums.
  DistWriter(MPI_Comm comm, std::string path, WriteMode mode, bool latest_format = false);
  ~DistWriter();
  DistWriter(const DistWriter&) = delete;
  DistWriter& operator=(const DistWriter&) = delete;

  bool has_file() const { return file_.valid(); }
  hid_t file() const { return file_.get(); }
  WriteMode mode() const { return mode_; }
  const std::string& path() const { return path_; }

  // Creates a dataset (C-order dims). deflate > 0 compresses with gzip in chunks.
  h5::Hid create_dataset(const std::string& name, hid_t type, const std::vector<hsize_t>& dims, int deflate = 0);
  // Writes this rank's block: offset/count per dimension; data holds prod(count) elements of memtype
  // contiguously. Ranks with nothing to write pass zero counts.
  void write_block(hid_t dset, hid_t memtype, const std::vector<hsize_t>& offset,
                   const std::vector<hsize_t>& count, const void* data);
  void close();

 private:
  MPI_Comm comm_;
  std::string path_;
  WriteMode mode_;
  int rank_ = 0, size_ = 1;
  h5::Hid file_;
};

}  // namespace tessera::io::detail
