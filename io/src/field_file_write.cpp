// Writing one step of grid fields to HDF5 (layout in field_file.hpp and docs/output.md).
#include <vector>

#include "dist_writer.hpp"
#include "mpi_util.hpp"
#include "pack.hpp"
#include "tessera/core/version.hpp"
#include "tessera/io/field_file.hpp"

namespace tessera::io {
namespace {
std::vector<int64_t> v3(const Index3& a) { return {a[0], a[1], a[2]}; }
std::vector<double> v3(const std::array<double, 3>& a) { return {a[0], a[1], a[2]}; }
}  // namespace

void write_field_file(MPI_Comm comm, const std::string& path, const GridGeometry& grid, const LocalBox& box,
                      std::span<const FieldView> fields, const FieldStepInfo& when, const FieldFileOptions& opt) {
  const ResolvedSelection sel = resolve(opt.selection, grid);
  const OutputBlock blk = output_block(sel, box);
  // Metadata must be identical on every rank for collective attribute writes: take rank 0's.
  std::string case_text = opt.case_text, title = opt.title;
  int64_t step = when.step;
  double time = when.time;
  mpi::bcast(comm, case_text);
  mpi::bcast(comm, title);
  mpi::bcast(comm, step);
  mpi::bcast(comm, time);

  detail::DistWriter w(comm, path, opt.mode);
  if (w.has_file()) {
    hid_t f = w.file();
    h5::write_attr(f, "format", std::string("tessera-fields"));
    h5::write_attr(f, "format_version", int64_t{1});
    h5::write_attr(f, "step", step);
    h5::write_attr(f, "time", time);
    h5::write_attr(f, "origin", v3(sel.out_origin));
    h5::write_attr(f, "spacing", v3(sel.out_spacing));
    h5::write_attr(f, "cells", v3(sel.out_cells));
    h5::write_attr(f, "grid_cells", v3(grid.global_cells));
    h5::write_attr(f, "grid_origin", v3(grid.origin));
    h5::write_attr(f, "grid_spacing", v3(grid.spacing));
    h5::write_attr(f, "selection_lo", v3(sel.lo));
    h5::write_attr(f, "selection_hi", v3(sel.hi));
    h5::write_attr(f, "selection_stride", v3(sel.stride));
    h5::write_attr(f, "tessera_version", std::string(tessera::version()));
    h5::write_attr(f, "case_text", case_text);
    h5::write_attr(f, "title", title);
    h5::create_group(f, "fields", path);
  }
  const hid_t ftype = h5::native_type(opt.precision);
  for (const FieldView& fv : fields) {
    // [nz][ny][nx] for scalars, [nz][ny][nx][ncomp] otherwise; the block likewise.
    std::vector<hsize_t> dims{hsize_t(sel.out_cells[2]), hsize_t(sel.out_cells[1]), hsize_t(sel.out_cells[0])};
    std::vector<hsize_t> off{hsize_t(blk.out_offset[2]), hsize_t(blk.out_offset[1]), hsize_t(blk.out_offset[0])};
    std::vector<hsize_t> cnt{hsize_t(blk.out_count[2]), hsize_t(blk.out_count[1]), hsize_t(blk.out_count[0])};
    if (fv.ncomp > 1) {
      dims.push_back(hsize_t(fv.ncomp));
      off.push_back(0);
      cnt.push_back(hsize_t(fv.ncomp));
    }
    std::vector<char> packed = detail::pack_block(fv, box, sel, blk, opt.precision);
    h5::Hid d = w.create_dataset("fields/" + fv.name, ftype, dims, opt.deflate_level);
    if (d.valid()) {
      h5::write_attr(d, "units", fv.units);
      h5::write_attr(d, "ncomp", int64_t{fv.ncomp});
    }
    w.write_block(d, ftype, off, cnt, packed.data());
  }
  w.close();
}

}  // namespace tessera::io
