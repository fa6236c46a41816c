// H5MD 1.1 writer: particles of all ranks gathered to rank 0, ordered by id, appended as one frame.
// The file is closed after every frame, so it is complete (and readable by others) between frames.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "h5_util.hpp"
#include "mpi_util.hpp"
#include "tessera/core/version.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/h5md.hpp"
#include "tessera/io/xdmf.hpp"

namespace tessera::io {

struct H5mdWriter::Impl {
  std::vector<XdmfParticleFrame> frames;
};

namespace {
// A time-dependent H5MD element: group with step[*], time[*], value[*][inner...], extendable.
void create_element(hid_t parent, const std::string& name, hid_t type, const std::vector<hsize_t>& inner,
                    const std::string& file) {
  h5::Hid g = h5::create_group(parent, name, file);
  auto make = [&](const char* dname, hid_t t, std::vector<hsize_t> in) {
    std::vector<hsize_t> dims{0}, maxd{H5S_UNLIMITED}, chunk{in.empty() ? hsize_t(256) : hsize_t(1)};
    for (hsize_t d : in) {
      dims.push_back(d);
      maxd.push_back(d);
      chunk.push_back(std::max<hsize_t>(1, std::min<hsize_t>(d, 1 << 20)));
    }
    h5::Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxd.data()));
    h5::Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
    h5::Hid d(h5::check(H5Dcreate2(g, dname, t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                        std::string("creating ") + name + "/" + dname, file));
  };
  make("step", H5T_NATIVE_INT64, {});
  make("time", H5T_NATIVE_DOUBLE, {});
  make("value", type, inner);
}

// Appends one row (frame) to dataset `name` (extends the first dimension by one).
void append_row(hid_t file, const std::string& name, hid_t memtype, int64_t frame, const void* data,
                const std::string& path) {
  h5::Hid d = h5::open_dataset(file, name, path);
  std::vector<hsize_t> dims = h5::dims(d);
  dims[0] = hsize_t(frame + 1);
  h5::check_status(H5Dset_extent(d, dims.data()), "extending " + name, path);
  h5::Hid fspace(H5Dget_space(d));
  std::vector<hsize_t> off(dims.size(), 0), cnt(dims);
  off[0] = hsize_t(frame);
  cnt[0] = 1;
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off.data(), nullptr, cnt.data(), nullptr);
  h5::Hid mspace(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr));
  h5::check_status(H5Dwrite(d, memtype, mspace, fspace, H5P_DEFAULT, data), "writing " + name, path);
}

template <class T>
std::vector<T> gather_rows(MPI_Comm comm, const T* p, int64_t n, int width, const std::vector<int64_t>& counts) {
  const int size = mpi::size(comm);
  std::vector<int> rc(size), displ(size);
  int64_t total = 0;
  for (int r = 0; r < size; ++r) {
    rc[r] = static_cast<int>(counts[r] * width * int64_t(sizeof(T)));
    displ[r] = static_cast<int>(total * width * int64_t(sizeof(T)));
    total += counts[r];
  }
  std::vector<T> all(mpi::rank(comm) == 0 ? static_cast<std::size_t>(total * width) : 0);
  MPI_Gatherv(p, static_cast<int>(n * width * int64_t(sizeof(T))), MPI_BYTE, all.data(), rc.data(), displ.data(),
              MPI_BYTE, 0, comm);
  return all;
}

template <class T>
std::vector<T> permute(const std::vector<T>& v, const std::vector<int64_t>& order, int width) {
  std::vector<T> o(v.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int c = 0; c < width; ++c) o[i * width + c] = v[static_cast<std::size_t>(order[i]) * width + c];
  return o;
}
}  // namespace

H5mdWriter::H5mdWriter(MPI_Comm comm, std::string path, H5mdOptions opt)
    : comm_(comm), path_(std::move(path)), opt_(std::move(opt)) {
  h5::init();
  rank_ = mpi::rank(comm_);
  if (rank_ == 0) impl_ = new Impl;
}

H5mdWriter::~H5mdWriter() { delete impl_; }

std::string H5mdWriter::xdmf_path() const {
  std::string p = path_;
  if (p.size() > 3 && p.substr(p.size() - 3) == ".h5") p.resize(p.size() - 3);
  return p + ".xdmf";
}

void H5mdWriter::append(int64_t step, double time, const std::array<double, 3>& edges, const ParticleFrameView& local) {
  const std::vector<int64_t> counts = mpi::allgather(comm_, local.n);
  const int64_t n = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  int has_vel = local.velocity != nullptr || local.n == 0 ? 1 : 0, all_vel = 0, any_vel = 0;
  int mine_vel = local.velocity != nullptr ? 1 : 0;
  MPI_Allreduce(&has_vel, &all_vel, 1, MPI_INT, MPI_MIN, comm_);
  MPI_Allreduce(&mine_vel, &any_vel, 1, MPI_INT, MPI_MAX, comm_);
  if (frames_ == 0) {
    if (n == 0) TESSERA_THROW("H5MD file '" + path_ + "': the first frame has no particles; nothing to write");
    n_ = n;
    has_velocity_ = all_vel && any_vel;
  }
  if (n != n_)
    TESSERA_THROW(fmt::format("H5MD file '{}' holds {} particles per frame, but frame {} (step {}) has {}: H5MD "
                              "needs a fixed particle count per file; start a new file after adding/removing particles",
                              path_, n_, frames_, step, n));

  std::vector<int32_t> zeros;
  const int32_t* species = local.species;
  if (!species) {
    zeros.assign(static_cast<std::size_t>(local.n), 0);
    species = zeros.data();
  }
  auto ids = gather_rows(comm_, local.id, local.n, 1, counts);
  auto spc = gather_rows(comm_, species, local.n, 1, counts);
  auto pos = gather_rows(comm_, local.position, local.n, 3, counts);
  std::vector<double> vel;
  if (has_velocity_) vel = gather_rows(comm_, local.velocity, local.n, 3, counts);

  bool ok = true;
  std::string err;
  if (rank_ == 0) {
    try {
      std::vector<int64_t> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return ids[a] < ids[b]; });
      ids = permute(ids, order, 1);
      spc = permute(spc, order, 1);
      pos = permute(pos, order, 3);
      if (has_velocity_) vel = permute(vel, order, 3);
      const hid_t ptype = opt_.position_float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      const std::string grp = "particles/" + opt_.group;

      h5::Hid f;
      if (frames_ == 0) {
        f = h5::Hid(h5::check(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "creating file", path_));
        h5::Hid h5md = h5::create_group(f, "h5md", path_);
        h5::write_attr_int32(h5md, "version", {1, 1});
        h5::Hid author = h5::create_group(h5md, "author", path_);
        h5::write_attr(author, "name", opt_.author);
        h5::Hid creator = h5::create_group(h5md, "creator", path_);
        h5::write_attr(creator, "name", std::string("Tessera"));
        h5::write_attr(creator, "version", std::string(tessera::version()));
        h5::Hid params = h5::create_group(f, "parameters", path_);
        h5::write_attr(params, "case_text", opt_.case_text);
        h5::Hid parts = h5::create_group(f, "particles", path_);
        h5::Hid g = h5::create_group(parts, opt_.group, path_);
        h5::Hid box = h5::create_group(g, "box", path_);
        h5::write_attr(box, "dimension", int64_t(3));  // H5MD 1.1: an integer scalar
        std::vector<std::string> bnd;
        for (bool p : opt_.periodic) bnd.push_back(p ? "periodic" : "none");
        h5::write_attr(box, "boundary", bnd);
        create_element(box, "edges", H5T_NATIVE_DOUBLE, {3}, path_);
        create_element(g, "position", ptype, {hsize_t(n), 3}, path_);
        if (has_velocity_) create_element(g, "velocity", ptype, {hsize_t(n), 3}, path_);
        create_element(g, "id", H5T_NATIVE_INT64, {hsize_t(n)}, path_);
        create_element(g, "species", H5T_NATIVE_INT32, {hsize_t(n)}, path_);
      } else {
        f = h5::Hid(h5::check(H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "reopening to append", path_));
      }
      std::vector<std::string> elements{grp + "/box/edges", grp + "/position", grp + "/id", grp + "/species"};
      if (has_velocity_) elements.push_back(grp + "/velocity");
      for (const std::string& e : elements) {
        append_row(f, e + "/step", H5T_NATIVE_INT64, frames_, &step, path_);
        append_row(f, e + "/time", H5T_NATIVE_DOUBLE, frames_, &time, path_);
      }
      append_row(f, grp + "/box/edges/value", H5T_NATIVE_DOUBLE, frames_, edges.data(), path_);
      append_row(f, grp + "/position/value", H5T_NATIVE_DOUBLE, frames_, pos.data(), path_);
      if (has_velocity_) append_row(f, grp + "/velocity/value", H5T_NATIVE_DOUBLE, frames_, vel.data(), path_);
      append_row(f, grp + "/id/value", H5T_NATIVE_INT64, frames_, ids.data(), path_);
      append_row(f, grp + "/species/value", H5T_NATIVE_INT32, frames_, spc.data(), path_);
      h5::check_status(H5Fclose(f.release()), "closing", path_);

      impl_->frames.push_back({step, time, frames_});
      if (opt_.xdmf_sidecar) {
        std::vector<XdmfParticleArray> arrays;
        const int pb = opt_.position_float32 ? 4 : 8;
        if (has_velocity_) arrays.push_back({"velocity", 3, false, pb});
        arrays.push_back({"id", 1, true, 8});
        arrays.push_back({"species", 1, true, 4});
        write_file_atomic(xdmf_path(), xdmf_particle_series(base_name(path_), opt_.group, n, frames_ + 1, pb, arrays,
                                                            impl_->frames));
      }
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm_, ok, err);
  ++frames_;
}

}  // namespace tessera::io

namespace tessera::io {

namespace {
// Shrinks the first (frame) dimension of dataset `name` to `frames`.
void truncate_rows(hid_t file, const std::string& name, int64_t frames, const std::string& path) {
  h5::Hid d = h5::open_dataset(file, name, path);
  std::vector<hsize_t> dims = h5::dims(d);
  if (dims.empty() || int64_t(dims[0]) <= frames) return;
  dims[0] = hsize_t(frames);
  h5::check_status(H5Dset_extent(d, dims.data()), "truncating " + name, path);
}
}  // namespace

int64_t H5mdWriter::resume(int64_t last_step) {
  TESSERA_REQUIRE(frames_ == 0, "H5mdWriter::resume must be called before the first append");
  int64_t kept = 0, n = -1, vel = 0;
  bool ok = true;
  std::string err;
  if (rank_ == 0 && std::filesystem::exists(path_)) {
    try {
      const std::string grp = "particles/" + opt_.group;
      h5::Hid f(h5::check(H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "reopening to resume", path_));
      h5::Hid ds = h5::open_dataset(f, grp + "/position/step", path_);
      const int64_t total = int64_t(h5::dims(ds)[0]);
      std::vector<int64_t> steps(static_cast<std::size_t>(total));
      std::vector<double> times(static_cast<std::size_t>(total));
      if (total > 0) {
        h5::check_status(H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()), "reading steps", path_);
        h5::Hid dt = h5::open_dataset(f, grp + "/position/time", path_);
        h5::check_status(H5Dread(dt, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times.data()), "reading times", path_);
      }
      while (kept < total && steps[std::size_t(kept)] <= last_step) ++kept;
      vel = h5::exists(f, grp + "/velocity") ? 1 : 0;
      n = int64_t(h5::dims(h5::open_dataset(f, grp + "/position/value", path_))[1]);
      std::vector<std::string> elements{grp + "/box/edges", grp + "/position", grp + "/id", grp + "/species"};
      if (vel) elements.push_back(grp + "/velocity");
      for (const std::string& e : elements)
        for (const char* part : {"/step", "/time", "/value"}) truncate_rows(f, e + part, kept, path_);
      h5::check_status(H5Fclose(f.release()), "closing", path_);
      for (int64_t k = 0; k < kept; ++k) impl_->frames.push_back({steps[std::size_t(k)], times[std::size_t(k)], k});
      if (opt_.xdmf_sidecar && kept > 0) {
        std::vector<XdmfParticleArray> arrays;
        const int pb = opt_.position_float32 ? 4 : 8;
        if (vel) arrays.push_back({"velocity", 3, false, pb});
        arrays.push_back({"id", 1, true, 8});
        arrays.push_back({"species", 1, true, 4});
        write_file_atomic(xdmf_path(), xdmf_particle_series(base_name(path_), opt_.group, n, kept, pb, arrays,
                                                            impl_->frames));
      }
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm_, ok, err);
  mpi::bcast(comm_, kept);
  mpi::bcast(comm_, n);
  mpi::bcast(comm_, vel);
  if (kept > 0) {
    frames_ = kept;
    n_ = n;
    has_velocity_ = vel != 0;
  } else if (rank_ == 0) {
    impl_->frames.clear();
  }
  return kept;
}

}  // namespace tessera::io
