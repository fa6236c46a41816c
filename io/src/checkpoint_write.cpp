// Writing a checkpoint: temporary file -> checksum -> fsync -> rename -> fsync(dir) -> prune.
#include <fmt/format.h>

#include <filesystem>
#include <numeric>

#include "checkpoint_internal.hpp"
#include "dist_writer.hpp"
#include "mpi_util.hpp"
#include "tessera/core/log.hpp"
#include "tessera/core/version.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/io/hash64.hpp"

namespace tessera::io {
namespace {
using Entry = CheckpointData::Entry;

// All ranks must pass the same entries in the same order (names, kinds, types, ncomp).
void check_same_entries(MPI_Comm comm, const CheckpointData& data) {
  Hash64 h;
  for (const Entry& e : data.entries()) {
    h.update(e.name);
    h.update_value(static_cast<int>(e.kind));
    h.update_value(static_cast<int>(e.type));
    h.update_value(e.ncomp);
  }
  const auto mine = static_cast<int64_t>(h.digest() & 0x7fffffffffffffffLL);
  int64_t lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT64_T, MPI_MAX, comm);
  if (lo != hi)
    TESSERA_THROW("write_checkpoint: ranks passed different lists of arrays (names, kinds, types or ncomp differ); "
                  "every rank must add the same arrays in the same order");
}

void write_entry(detail::DistWriter& w, MPI_Comm comm, const Entry& e) {
  const hid_t type = h5::native_type(e.type);
  std::vector<hsize_t> dims, off, cnt;
  std::string path;
  std::vector<int64_t> counts;
  if (e.kind == Entry::Field) {
    path = "fields/" + e.name;
    dims = {hsize_t(e.global_cells[2]), hsize_t(e.global_cells[1]), hsize_t(e.global_cells[0])};
    off = {hsize_t(e.box.offset[2]), hsize_t(e.box.offset[1]), hsize_t(e.box.offset[0])};
    cnt = {hsize_t(e.box.cells[2]), hsize_t(e.box.cells[1]), hsize_t(e.box.cells[0])};
  } else if (e.kind == Entry::Local) {
    path = "local/" + e.name;
    counts = mpi::allgather(comm, e.n);
    const int r = mpi::rank(comm);
    const int64_t before = std::accumulate(counts.begin(), counts.begin() + r, int64_t{0});
    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    dims = {hsize_t(total)};
    off = {hsize_t(before)};
    cnt = {hsize_t(e.n)};
  } else {
    path = "global/" + e.name;
    int64_t n = e.n;
    mpi::bcast(comm, n);
    dims = {hsize_t(n)};
    off = {0};
    cnt = {hsize_t(mpi::rank(comm) == 0 ? n : 0)};
  }
  if (e.ncomp > 1) {
    dims.push_back(hsize_t(e.ncomp));
    off.push_back(0);
    cnt.push_back(hsize_t(e.ncomp));
  }
  h5::Hid d = w.create_dataset(path, type, dims);
  if (d.valid()) {
    h5::write_attr(d, "ncomp", int64_t{e.ncomp});
    if (e.kind == Entry::Field) h5::write_attr(d, "cells", std::vector<int64_t>(e.global_cells.begin(), e.global_cells.end()));
    if (e.kind == Entry::Local) h5::write_attr(d, "rank_counts", counts);
  }
  w.write_block(d, type, off, cnt, e.data);
}
}  // namespace

std::string write_checkpoint(MPI_Comm comm, const std::string& dir, const CheckpointData& data,
                             const CheckpointOptions& opt) {
  const int rank = mpi::rank(comm);
  CheckpointMeta meta = data.meta;
  mpi::bcast(comm, meta.step);
  mpi::bcast(comm, meta.time);
  mpi::bcast(comm, meta.case_hash);
  mpi::bcast(comm, meta.case_text);
  mpi::bcast(comm, meta.solver);
  check_same_entries(comm, data);

  const std::string final_path = fmt::format("{}/{}_{:010d}.h5", dir, opt.prefix, meta.step);
  const std::string tmp = fmt::format("{}/.{}_{:010d}.h5.tmp", dir, opt.prefix, meta.step);
  bool ok = true;
  std::string err;
  if (rank == 0) {
    try {
      make_dirs(dir);
      std::filesystem::remove(tmp);  // a leftover from a crashed writer
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm, ok, err);

  {
    // Object headers of the 1.8+ format carry checksums, so damaged metadata is detected on open.
    detail::DistWriter w(comm, tmp, opt.mode, /*latest_format=*/true);
    if (w.has_file()) {
      hid_t f = w.file();
      h5::write_attr(f, "format", std::string(detail::checkpoint_format()));
      h5::write_attr(f, "format_version", int64_t{1});
      h5::write_attr(f, "step", meta.step);
      h5::write_attr(f, "time", meta.time);
      h5::write_attr(f, "case_hash", meta.case_hash);
      h5::write_attr(f, "case_text", meta.case_text);
      h5::write_attr(f, "solver", meta.solver);
      h5::write_attr(f, "tessera_version", std::string(tessera::version()));
      h5::write_attr(f, "nranks", int64_t{mpi::size(comm)});
      for (const char* g : {"fields", "local", "global"}) h5::create_group(f, g, tmp);
    }
    for (const Entry& e : data.entries()) write_entry(w, comm, e);
    w.close();
  }

  if (rank == 0) {
    try {
      {
        h5::Hid f(h5::check(H5Fopen(tmp.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "reopening to checksum", tmp));
        const uint64_t sum = detail::checkpoint_payload_hash(f, tmp);
        h5::write_attr(f, "checksum", "xxh64:" + to_hex(sum));
        h5::check_status(H5Fclose(f.release()), "closing", tmp);
      }
      fsync_path(tmp);
      if (opt.fail_before_rename)
        TESSERA_THROW("checkpoint test hook: stopping after writing '" + tmp + "' and before renaming it");
      rename_durable(tmp, final_path);
      if (opt.keep_last > 0) {
        auto all = list_checkpoints(dir, opt.prefix);
        for (std::size_t i = static_cast<std::size_t>(opt.keep_last); i < all.size(); ++i)
          std::filesystem::remove(all[i].path);
      }
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm, ok, err);
  log::info("checkpoint written: {} (step {})", final_path, meta.step);
  return final_path;
}

}  // namespace tessera::io
