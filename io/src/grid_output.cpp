// A run's grid output series: HDF5 per step, the XDMF time series, optional VTK XML + .pvd.
#include "tessera/io/grid_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "mpi_util.hpp"
#include "tessera/core/log.hpp"
#include "tessera/io/atomic_file.hpp"
#include "tessera/io/vtk_xml.hpp"

namespace tessera::io {

GridOutput::GridOutput(MPI_Comm comm, std::string dir, std::string base, GridGeometry grid, GridOutputOptions opt)
    : comm_(comm), dir_(std::move(dir)), base_(std::move(base)), grid_(grid), opt_(std::move(opt)) {
  rank_ = mpi::rank(comm_);
  size_ = mpi::size(comm_);
  xdmf_path_ = dir_ + "/" + base_ + ".xdmf";
  resolve(opt_.file.selection, grid_);  // reject a bad selection before the run starts
  bool ok = true;
  std::string err;
  if (rank_ == 0) {
    try {
      make_dirs(dir_);
      if (opt_.vtk_xml && size_ > 1) make_dirs(dir_ + "/vtk");
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm_, ok, err);
}

std::string GridOutput::step_path(int64_t step) const { return fmt::format("{}/{}_{:08d}.h5", dir_, base_, step); }
std::string GridOutput::pvd_path() const { return dir_ + "/" + base_ + ".pvd"; }

void GridOutput::adopt_existing(int64_t first_new_step) {
  adopted_ = true;
  if (rank_ != 0 || !opt_.append_existing) return;
  const std::regex pat(base_ + "_([0-9]{8})\\.h5");
  std::vector<std::pair<int64_t, std::string>> found;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, m, pat)) {
      int64_t s = std::stoll(m[1].str());
      if (s < first_new_step) found.emplace_back(s, name);
    }
  }
  std::sort(found.begin(), found.end());
  for (auto& [s, name] : found) {
    try {
      FieldFileInfo info = read_field_file_info(dir_ + "/" + name);
      steps_.push_back({info.step, info.time, name, info.grid, info.fields});
      for (const char* ext : {".pvti", ".vti"}) {
        std::string v = fmt::format("{}_{:08d}{}", base_, s, ext);
        if (std::filesystem::exists(dir_ + "/" + v)) {
          pvd_.emplace_back(info.time, v);
          break;
        }
      }
    } catch (const std::exception& e) {
      log::warn("output series: skipping unreadable earlier file {}: {}", name, e.what());
    }
  }
  if (!found.empty()) log::info("output series {}: continuing after {} earlier steps", xdmf_path_, steps_.size());
}

std::string GridOutput::write(int64_t step, double time, const LocalBox& box, std::span<const FieldView> fields) {
  if (!adopted_) adopt_existing(step);
  const std::string path = step_path(step);
  FieldStepInfo when{step, time};
  write_field_file(comm_, path, grid_, box, fields, when, opt_.file);

  const ResolvedSelection sel = resolve(opt_.file.selection, grid_);
  if (opt_.vtk_xml) {
    const OutputBlock blk = output_block(sel, box);
    bool ok = true;
    std::string err;
    const std::string single = fmt::format("{}_{:08d}.vti", base_, step);
    const std::string piece = fmt::format("vtk/{}_{:08d}_r{:05d}.vti", base_, step, rank_);
    try {
      if (size_ == 1) write_vti_piece(dir_ + "/" + single, sel, box, blk, fields, opt_.file.precision);
      else if (blk.num_cells() > 0) write_vti_piece(dir_ + "/" + piece, sel, box, blk, fields, opt_.file.precision);
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
    mpi::agree(comm_, ok, err);
    std::vector<int64_t> mine{blk.out_offset[0], blk.out_offset[1], blk.out_offset[2],
                              blk.out_count[0],  blk.out_count[1],  blk.out_count[2]};
    std::vector<int64_t> all(6 * static_cast<std::size_t>(size_));
    MPI_Gather(mine.data(), 6, MPI_INT64_T, all.data(), 6, MPI_INT64_T, 0, comm_);
    if (rank_ == 0) {
      std::string listed = single;
      if (size_ > 1) {
        std::vector<std::string> files;
        std::vector<OutputBlock> blocks;
        for (int r = 0; r < size_; ++r) {
          OutputBlock b;
          for (int d = 0; d < 3; ++d) {
            b.out_offset[d] = all[6 * r + d];
            b.out_count[d] = all[6 * r + 3 + d];
          }
          if (b.num_cells() == 0) continue;
          files.push_back(fmt::format("vtk/{}_{:08d}_r{:05d}.vti", base_, step, r));
          blocks.push_back(b);
        }
        listed = fmt::format("{}_{:08d}.pvti", base_, step);
        write_pvti(dir_ + "/" + listed, sel, fields, opt_.file.precision, files, blocks);
      }
      std::erase_if(pvd_, [&](const auto& e) { return e.first >= time; });
      pvd_.emplace_back(time, listed);
      write_pvd(pvd_path(), pvd_);
    }
  }

  if (rank_ == 0) {
    XdmfGridStep s;
    s.step = step;
    s.time = time;
    s.h5_file = base_name(path);
    s.grid.global_cells = sel.out_cells;
    s.grid.origin = sel.out_origin;
    s.grid.spacing = sel.out_spacing;
    for (const FieldView& f : fields) s.fields.push_back({f.name, f.units, f.ncomp, opt_.file.precision});
    // A step written again (after a restart from an earlier checkpoint) replaces what followed it.
    std::erase_if(steps_, [&](const XdmfGridStep& e) { return e.step >= step; });
    steps_.push_back(std::move(s));
  }
  bool ok = true;
  std::string err;
  if (rank_ == 0) {
    try {
      write_file_atomic(xdmf_path_, xdmf_grid_series(steps_));
    } catch (const std::exception& e) {
      ok = false;
      err = e.what();
    }
  }
  mpi::agree(comm_, ok, err);
  return path;
}

}  // namespace tessera::io
