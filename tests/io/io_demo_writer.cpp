// Writes a small run's output with analytic values into a directory, for the Python reader tests
// (VTK, ParaView's pvpython, h5py). Run under mpiexec with any rank count:  io_demo_writer DIR
//
//   flow.xdmf + flow_*.h5 (+ flow.pvd, .pvti/.vti): grid 12 x 10 x 6, origin (0.5, -1, 2), spacing
//     (0.25, 0.5, 1); steps 0, 10, 20 at t = 0, 0.5, 1; cell centre (x, y, z):
//       density  = 1 + 0.5 x + 0.25 y - 0.125 z + t          (float64)
//       velocity = (x, y * t, z)                              (float64)
//   slice.xdmf: density on the plane z-index 3, every 2nd cell in x and y, float32, deflate.
//   particles.h5 (H5MD) + particles.xdmf: 20 particles, steps 0 and 5 (t = 0, 0.25);
//       position(q, f) = (0.5 q, f, -0.25 q), velocity = (q, 2q, 3q), species = q % 2.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tessera/io/grid_output.hpp"
#include "tessera/io/h5md.hpp"

using namespace tessera::io;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 0;
  try {
    if (argc < 2) throw std::runtime_error("usage: io_demo_writer OUTDIR");
    const std::string dir = argv[1];
    const GridGeometry g{{12, 10, 6}, {0.5, -1.0, 2.0}, {0.25, 0.5, 1.0}};
    // Slabs along y, uneven.
    LocalBox box{{0, 0, 0}, g.global_cells};
    box.cells[1] = g.global_cells[1] / size + (rank < g.global_cells[1] % size ? 1 : 0);
    for (int r = 0; r < rank; ++r) box.offset[1] += g.global_cells[1] / size + (r < g.global_cells[1] % size ? 1 : 0);

    GridOutputOptions full;
    full.file.precision = Precision::Float64;
    full.file.case_text = "demo: true\n";
    full.vtk_xml = true;
    full.append_existing = false;
    GridOutput flow(MPI_COMM_WORLD, dir, "flow", g, full);
    GridOutputOptions sl;
    sl.file.precision = Precision::Float32;
    sl.file.selection = Selection::slice(2, 3);
    sl.file.selection.stride = {2, 2, 1};
    sl.file.deflate_level = 4;
    sl.append_existing = false;
    GridOutput slice(MPI_COMM_WORLD, dir, "slice", g, sl);

    for (int s = 0; s < 3; ++s) {
      const double t = 0.5 * s;
      const int64_t n = box.num_cells();
      std::vector<double> rho(n), vel(3 * n);
      for (int64_t k = 0, c = 0; k < box.cells[2]; ++k)
        for (int64_t j = 0; j < box.cells[1]; ++j)
          for (int64_t i = 0; i < box.cells[0]; ++i, ++c) {
            const double x = g.origin[0] + (box.offset[0] + i + 0.5) * g.spacing[0];
            const double y = g.origin[1] + (box.offset[1] + j + 0.5) * g.spacing[1];
            const double z = g.origin[2] + (box.offset[2] + k + 0.5) * g.spacing[2];
            rho[c] = 1 + 0.5 * x + 0.25 * y - 0.125 * z + t;
            vel[c] = x;  // planar layout: component arrays one after another
            vel[n + c] = y * t;
            vel[2 * n + c] = z;
          }
      FieldView f[] = {FieldView::scalar("density", rho.data(), "kg/m^3"),
                       FieldView::vector("velocity", vel.data(), 3, Layout::Planar, "m/s")};
      flow.write(10 * s, t, box, f);
      slice.write(10 * s, t, box, f);
    }

    H5mdOptions ho;
    ho.author = "io_demo_writer";
    H5mdWriter traj(MPI_COMM_WORLD, dir + "/particles.h5", ho);
    for (int fr = 0; fr < 2; ++fr) {
      std::vector<int64_t> id;
      std::vector<int32_t> sp;
      std::vector<double> pos, vel;
      for (int64_t q = rank; q < 20; q += size) {
        id.push_back(q);
        sp.push_back(static_cast<int32_t>(q % 2));
        pos.insert(pos.end(), {0.5 * q, double(fr), -0.25 * q});
        vel.insert(vel.end(), {double(q), 2.0 * q, 3.0 * q});
      }
      traj.append(5 * fr, 0.25 * fr, {10, 10, 10}, {int64_t(id.size()), id.data(), sp.data(), pos.data(), vel.data()});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "io_demo_writer (rank %d): %s\n", rank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
