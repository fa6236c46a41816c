// Voxel masks in HDF5 (geometry.hpp): one integer dataset [nz][ny][nx], nonzero = solid.
#include <hdf5.h>

#include <filesystem>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/geometry.hpp"

namespace tessera::lbm {

namespace {
struct H {  // closes an HDF5 handle
  hid_t id;
  herr_t (*close)(hid_t);
  ~H() {
    if (id >= 0) close(id);
  }
};
}  // namespace

VoxelMask read_voxel_mask(const std::string& path, const std::string& dataset) {
  if (!std::filesystem::exists(path))
    TESSERA_THROW(fmt::format("mask file {}: does not exist (check the path; it is relative to the case file)", path));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) TESSERA_THROW(fmt::format("mask file {}: not an HDF5 file (or unreadable)", path));
  if (H5Lexists(file.id, dataset.c_str(), H5P_DEFAULT) <= 0)
    TESSERA_THROW(fmt::format("mask file {}: no dataset '{}' (set obstacles[].dataset)", path, dataset));
  H ds{H5Dopen2(file.id, dataset.c_str(), H5P_DEFAULT), H5Dclose};
  if (ds.id < 0) TESSERA_THROW(fmt::format("mask file {}: '{}' is not a dataset", path, dataset));
  H type{H5Dget_type(ds.id), H5Tclose};
  if (H5Tget_class(type.id) != H5T_INTEGER)
    TESSERA_THROW(fmt::format("mask file {}: dataset '{}' must hold integers (0 fluid, nonzero solid)", path, dataset));
  H space{H5Dget_space(ds.id), H5Sclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank != 3 && rank != 2)
    TESSERA_THROW(fmt::format("mask file {}: dataset '{}' has {} dimensions; expected [nz][ny][nx] (or [ny][nx] in 2-D)",
                              path, dataset, rank));
  hsize_t dims[3] = {1, 1, 1};
  H5Sget_simple_extent_dims(space.id, rank == 3 ? dims : dims + 1, nullptr);
  VoxelMask m;
  m.n = {int64_t(dims[2]), int64_t(dims[1]), int64_t(dims[0])};
  m.solid.resize(std::size_t(dims[0] * dims[1] * dims[2]));
  if (m.solid.empty()) TESSERA_THROW(fmt::format("mask file {}: dataset '{}' is empty", path, dataset));
  if (H5Dread(ds.id, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.solid.data()) < 0)
    TESSERA_THROW(fmt::format("mask file {}: reading dataset '{}' failed", path, dataset));
  for (auto& v : m.solid) v = v ? 1 : 0;
  return m;
}

void write_voxel_mask(const std::string& path, const std::string& dataset, const VoxelMask& m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) TESSERA_THROW(fmt::format("mask file {}: cannot create it", path));
  const hsize_t dims[3] = {hsize_t(m.n[2]), hsize_t(m.n[1]), hsize_t(m.n[0])};
  H space{H5Screate_simple(3, dims, nullptr), H5Sclose};
  H ds{H5Dcreate2(file.id, dataset.c_str(), H5T_STD_U8LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (ds.id < 0 || H5Dwrite(ds.id, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.solid.data()) < 0)
    TESSERA_THROW(fmt::format("mask file {}: writing dataset '{}' failed", path, dataset));
}

}  // namespace tessera::lbm
