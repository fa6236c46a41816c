// Checkpoints: the complete state of a run in one HDF5 file, crash-safe and verified on load.
//
// Writing: all ranks write "<dir>/.<prefix>_<step>.h5.tmp" (fields in GLOBAL layout, each rank its box,
// so a restart may use another rank count; per-rank arrays concatenated in rank order); rank 0 then
// reads the payload back, computes a 64-bit XXH64 checksum over it and stores it as the root attribute
// "checksum", fsyncs the file, renames it to "<dir>/<prefix>_<step:010>.h5", fsyncs the directory, and
// deletes all but the newest `keep_last` checkpoints. A crash at any point leaves the previous
// checkpoint untouched (a leftover .tmp is ignored and removed by the next write).
//
// Layout: / attrs format="tessera-checkpoint", format_version, step, time, case_hash, case_text,
//           solver, tessera_version, nranks, checksum ("xxh64:<16 hex>")
//         /fields/<name>  [nz][ny][nx]([ncomp]) attrs ncomp, cells[3]
//         /local/<name>   [total]([ncomp]) attr rank_counts[nranks]    (particles, per-rank RNG state)
//         /global/<name>  [n]([ncomp]) written by rank 0 (replicated state)
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/io/grid.hpp"
#include "tessera/io/write_mode.hpp"

namespace tessera::io {

enum class ArrayType { F64, F32, I64, I32, U8 };
template <class T> constexpr ArrayType array_type_of();
template <> constexpr ArrayType array_type_of<double>() { return ArrayType::F64; }
template <> constexpr ArrayType array_type_of<float>() { return ArrayType::F32; }
template <> constexpr ArrayType array_type_of<int64_t>() { return ArrayType::I64; }
template <> constexpr ArrayType array_type_of<int32_t>() { return ArrayType::I32; }
template <> constexpr ArrayType array_type_of<uint8_t>() { return ArrayType::U8; }
std::size_t array_type_size(ArrayType t);

struct CheckpointMeta {
  int64_t step = 0;
  double time = 0.0;
  std::string case_hash;  // a hash of the resolved case (the solver decides what it covers)
  std::string case_text;
  std::string solver;     // "lbm", "md", "weather"
};

// What to put into a checkpoint. Pointers must stay valid until write_checkpoint returns.
class CheckpointData {
 public:
  CheckpointMeta meta;
  // A grid field: this rank's box of a global array (interleaved components).
  template <class T>
  void add_field(const std::string& name, const Index3& global_cells, const LocalBox& box, const T* data, int ncomp = 1);
  // A per-rank array of n rows of ncomp values (particles, RNG state bytes); concatenated in rank order.
  template <class T>
  void add_local(const std::string& name, const T* data, int64_t n, int ncomp = 1);
  // Replicated state, the same on every rank: rank 0's copy is written.
  template <class T>
  void add_global(const std::string& name, const T* data, int64_t n, int ncomp = 1);

  struct Entry {
    enum Kind { Field, Local, Global } kind;
    std::string name;
    ArrayType type;
    const void* data;
    int64_t n;  // rows (local/global)
    int ncomp;
    Index3 global_cells;
    LocalBox box;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

struct CheckpointOptions {
  int keep_last = 3;                 // checkpoints to keep (older ones are deleted); 0 = keep all
  std::string prefix = "checkpoint";
  WriteMode mode = WriteMode::Auto;
  // Test hook: throw after the temporary file is complete and before the rename (simulates a crash).
  bool fail_before_rename = false;
};

// Collective. Returns the final path.
std::string write_checkpoint(MPI_Comm comm, const std::string& dir, const CheckpointData& data,
                             const CheckpointOptions& opt = {});

// ---- Files ----
struct CheckpointFile {
  std::string path;
  int64_t step;
};
// Checkpoints in `dir` named <prefix>_<digits>.h5, newest (highest step) first. No verification.
std::vector<CheckpointFile> list_checkpoints(const std::string& dir, const std::string& prefix = "checkpoint");
// Verifies structure and checksum. Returns an empty string if valid, else the reason.
std::string verify_checkpoint(const std::string& path);
// The newest checkpoint that verifies (for --restart auto); nullopt if none.
std::optional<std::string> find_latest_valid_checkpoint(const std::string& dir,
                                                        const std::string& prefix = "checkpoint");
// The checkpoint a --restart value names: "" (none) for "", the path itself, or for "auto" the newest valid
// checkpoint in dir ("" with a log line when there is none: the run starts from its initial state).
std::string resolve_restart(const std::string& restart, const std::string& dir, const std::string& solver);

// ---- Loading ----
struct LoadOptions {
  std::string expected_case_hash;  // empty = don't check
  std::string expected_case_text;  // used to say which line differs
  bool force = false;              // accept a case-hash mismatch (warns)
};

class CheckpointReader {
 public:
  // Collective. Rank 0 verifies the checksum, the case hash is checked; throws a clear tessera::Error
  // on any problem (naming the newest older valid checkpoint, if any).
  CheckpointReader(MPI_Comm comm, std::string path, const LoadOptions& opt = {});

  const CheckpointMeta& meta() const { return meta_; }
  int nranks_written() const { return nranks_; }
  const std::string& path() const { return path_; }
  std::vector<std::string> names(const std::string& kind) const;  // kind: "fields" | "local" | "global"

  // Reads this rank's box of a global field (any rank count). out holds box cells * ncomp values.
  template <class T>
  void read_field(const std::string& name, const LocalBox& box, T* out) const;
  // This rank's rows of a per-rank array; requires the same rank count as when written.
  template <class T>
  std::vector<T> read_local(const std::string& name) const;
  // All ranks' rows of a per-rank array, in rank order (e.g. to redistribute particles).
  template <class T>
  std::vector<T> read_local_all(const std::string& name) const;
  template <class T>
  std::vector<T> read_global(const std::string& name) const;

 private:
  MPI_Comm comm_;
  std::string path_;
  CheckpointMeta meta_;
  int nranks_ = 1;
};

template <class T>
void CheckpointData::add_field(const std::string& name, const Index3& global_cells, const LocalBox& box,
                               const T* data, int ncomp) {
  entries_.push_back({Entry::Field, name, array_type_of<T>(), data, box.num_cells(), ncomp, global_cells, box});
}
template <class T>
void CheckpointData::add_local(const std::string& name, const T* data, int64_t n, int ncomp) {
  entries_.push_back({Entry::Local, name, array_type_of<T>(), data, n, ncomp, {}, {}});
}
template <class T>
void CheckpointData::add_global(const std::string& name, const T* data, int64_t n, int ncomp) {
  entries_.push_back({Entry::Global, name, array_type_of<T>(), data, n, ncomp, {}, {}});
}

}  // namespace tessera::io
