// Force / torque time series of the solid bodies (forces.hpp).
#include "tessera/lbm/solver/forces.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/app.hpp"
#include "tessera/lbm/solver/geometry.hpp"

namespace tessera::lbm {

namespace {
const char* kFaceNames[6] = {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};
constexpr const char* kHeader = "step,time,body,fx,fy,fz,tx,ty,tz,cd,cl";

std::array<double, 3> unit(std::array<double, 3> v) {
  const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {v[0] / n, v[1] / n, v[2] / n};
}
}  // namespace

void add_force_keys(Schema& s) {
  s.section("forces", "Force and torque on the obstacles by momentum exchange (forces.csv, forces.h5)");
  s.add_int("forces.every").default_value(0).min(0).describe("Sample every N steps (0: off)");
  s.add_bool("forces.faces").default_value(false).describe("Also report the walls of the box faces (x_min, ...)");
  s.add_float("forces.reference_velocity").default_value(0.0).min(0).unit("m/s")
      .describe("U in C = 2 F / (rho U^2 A) (0: no coefficients)");
  s.add_float("forces.reference_area").default_value(0.0).min(0).unit("m^2 (m in 2-D)")
      .describe("A in C = 2 F / (rho U^2 A): an area in 3-D, a length in 2-D (0: no coefficients)");
  s.add_float_array("forces.drag_direction", 3).default_array({1, 0, 0}).describe("Drag direction (normalised)");
  s.add_float_array("forces.lift_direction", 3).default_array({0, 1, 0}).describe("Lift direction (normalised)");
}

ForceSeries::ForceSeries(Simulation& sim, const Units& u, const Case& c, const std::string& dir, int64_t restart_step) {
  every_ = c.get<int64_t>("forces.every");
  rank_ = sim.partition().rank;
  two_d_ = lattice_dim(sim.spec().lattice) == 2;
  dx_ = u.dx;
  rho_ = c.get<double>("physics.density");
  f_scale_ = rho_ * std::pow(u.dx, two_d_ ? 3 : 4) / (u.dt * u.dt);
  m_scale_ = f_scale_ * u.dx;
  const double U = c.get<double>("forces.reference_velocity"), A = c.get<double>("forces.reference_area");
  coeffs_ = U > 0 && A > 0;
  q_ref_ = 0.5 * rho_ * U * U * A;
  e_drag_ = unit(c.get<std::array<double, 3>>("forces.drag_direction"));
  e_lift_ = unit(c.get<std::array<double, 3>>("forces.lift_direction"));
  csv_ = (std::filesystem::path(dir) / "forces.csv").string();
  h5_ = (std::filesystem::path(dir) / "forces.h5").string();
  if (every_ <= 0) return;

  const std::vector<BodyInfo> bodies = body_infos_from_case(c);
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    ids_.push_back(kBodyWallId0 + int(b));
    names_.push_back(bodies[b].name);
    const auto& cc = bodies[b].center;
    ref_.push_back({cc[0] / u.dx, cc[1] / u.dx, two_d_ ? 0.5 : cc[2] / u.dx});
  }
  // Bodies without a reference point: the centroid of their solid cells (collective).
  {
    const auto fl = read_flags(sim.state());
    const GridLayout& g = sim.state().grid();
    const auto& lo = sim.partition().lo;
    std::vector<double> loc(4 * bodies.size(), 0.0), all(loc.size());
    for (int64_t k = 0; k < g.nz; ++k)
      for (int64_t j = 0; j < g.ny; ++j)
        for (int64_t i = 0; i < g.nx; ++i) {
          const uint8_t f = fl[std::size_t(g.cell(i, j, k))];
          if (flag_kind(f) != kWall || flag_wall_id(f) < kBodyWallId0) continue;
          const std::size_t b = std::size_t(flag_wall_id(f) - kBodyWallId0);
          if (b >= bodies.size()) continue;
          loc[4 * b] += 1;
          loc[4 * b + 1] += double(lo[0] + i) + 0.5;
          loc[4 * b + 2] += double(lo[1] + j) + 0.5;
          loc[4 * b + 3] += double(lo[2] + k) + 0.5;
        }
    MPI_Allreduce(loc.data(), all.data(), int(loc.size()), MPI_DOUBLE, MPI_SUM, sim.partition().comm);
    for (std::size_t b = 0; b < bodies.size(); ++b)
      if (!bodies[b].has_center && all[4 * b] > 0)
        ref_[b] = {all[4 * b + 1] / all[4 * b], all[4 * b + 2] / all[4 * b], all[4 * b + 3] / all[4 * b]};
  }
  if (c.get<bool>("forces.faces"))
    for (int f = 0; f < 6; ++f) {
      if (sim.spec().faces[size_t(f)].kind != FaceBC::Wall || (two_d_ && f >= 4)) continue;
      ids_.push_back(kFaceWallId0 + f);
      names_.push_back(kFaceNames[f]);
      ref_.push_back({0, 0, 0});
    }
  if (rank_ != 0) return;
  // Restart: keep the rows up to the restart step (the checkpoint's state), drop the rest.
  if (restart_step >= 0 && std::filesystem::exists(csv_)) {
    std::ifstream in(csv_);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string tok;
      std::vector<std::string> t;
      while (std::getline(ls, tok, ',')) t.push_back(tok);
      if (t.size() < 11) continue;
      Row r;
      r.step = std::stoll(t[0]);
      if (r.step > restart_step) continue;
      r.time = std::stod(t[1]);
      r.body = -1;
      for (std::size_t b = 0; b < names_.size(); ++b)
        if (names_[b] == t[2]) r.body = int(b);
      if (r.body < 0) continue;
      for (int a = 0; a < 3; ++a) r.force[size_t(a)] = std::stod(t[size_t(3 + a)]), r.torque[size_t(a)] = std::stod(t[size_t(6 + a)]);
      r.cd = t[9].empty() ? NAN : std::stod(t[9]);
      r.cl = t[10].empty() ? NAN : std::stod(t[10]);
      rows_.push_back(r);
    }
  }
  std::ofstream out(csv_, std::ios::trunc);
  if (!out) TESSERA_THROW(fmt::format("forces: cannot write {}", csv_));
  out << kHeader << "\n";
  for (const Row& r : rows_)
    out << fmt::format("{},{:.9g},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{}\n", r.step, r.time, names_[size_t(r.body)],
                       r.force[0], r.force[1], r.force[2], r.torque[0], r.torque[1], r.torque[2],
                       coeffs_ ? fmt::format("{:.9g}", r.cd) : "", coeffs_ ? fmt::format("{:.9g}", r.cl) : "");
}

void ForceSeries::sample(Simulation& sim, double time, bool write_h5_now) {
  if (!active()) return;
  const auto fm = sim.wall_forces(ids_);
  if (rank_ != 0) return;
  std::ofstream out(csv_, std::ios::app);
  for (std::size_t b = 0; b < ids_.size(); ++b) {
    Row r;
    r.step = sim.step();
    r.time = time;
    r.body = int(b);
    const auto& x = ref_[b];
    const double F[3] = {fm[b][0], fm[b][1], fm[b][2]};
    // Torque about the reference point: M_origin - x_ref x F (lattice units, positions in cells).
    const double T[3] = {fm[b][3] - (x[1] * F[2] - x[2] * F[1]), fm[b][4] - (x[2] * F[0] - x[0] * F[2]),
                         fm[b][5] - (x[0] * F[1] - x[1] * F[0])};
    for (int a = 0; a < 3; ++a) r.force[size_t(a)] = F[a] * f_scale_, r.torque[size_t(a)] = T[a] * m_scale_;
    r.cd = coeffs_ ? (r.force[0] * e_drag_[0] + r.force[1] * e_drag_[1] + r.force[2] * e_drag_[2]) / q_ref_ : NAN;
    r.cl = coeffs_ ? (r.force[0] * e_lift_[0] + r.force[1] * e_lift_[1] + r.force[2] * e_lift_[2]) / q_ref_ : NAN;
    rows_.push_back(r);
    out << fmt::format("{},{:.9g},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{}\n", r.step, r.time, names_[b],
                       r.force[0], r.force[1], r.force[2], r.torque[0], r.torque[1], r.torque[2],
                       coeffs_ ? fmt::format("{:.9g}", r.cd) : "", coeffs_ ? fmt::format("{:.9g}", r.cl) : "");
  }
  if (!out) TESSERA_THROW(fmt::format("forces: cannot append to {}", csv_));
  if (write_h5_now) write_h5();
}

void ForceSeries::write_h5() const {
  if (rank_ != 0 || !active()) return;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string tmp = h5_ + ".tmp";
  const hid_t file = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) TESSERA_THROW(fmt::format("forces: cannot create {}", tmp));
  auto attr_str = [](hid_t obj, const char* name, const std::string& v) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, v.size() + 1);
    const hid_t sp = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, v.c_str());
    H5Aclose(a), H5Sclose(sp), H5Tclose(t);
  };
  auto dataset = [&](hid_t g, const char* name, hid_t mem, hid_t file_t, int ncomp, const void* data, std::size_t n,
                     const char* units) {
    const hsize_t dims[2] = {hsize_t(n), hsize_t(ncomp)};
    const hid_t sp = H5Screate_simple(ncomp > 1 ? 2 : 1, dims, nullptr);
    const hid_t d = H5Dcreate2(g, name, file_t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (n > 0) H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    attr_str(d, "units", units);
    H5Dclose(d), H5Sclose(sp);
  };
  attr_str(file, "format", "tessera-forces");
  const char* fu = two_d_ ? "N/m" : "N";
  const char* tu = two_d_ ? "N m/m" : "N m";
  for (std::size_t b = 0; b < names_.size(); ++b) {
    std::vector<int64_t> step;
    std::vector<double> time, force, torque, cd, cl;
    for (const Row& r : rows_) {
      if (r.body != int(b)) continue;
      step.push_back(r.step);
      time.push_back(r.time);
      for (int a = 0; a < 3; ++a) force.push_back(r.force[size_t(a)]), torque.push_back(r.torque[size_t(a)]);
      cd.push_back(r.cd);
      cl.push_back(r.cl);
    }
    const hid_t g = H5Gcreate2(file, names_[b].c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    dataset(g, "step", H5T_NATIVE_INT64, H5T_STD_I64LE, 1, step.data(), step.size(), "1");
    dataset(g, "time", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, time.data(), time.size(), "s");
    dataset(g, "force", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, force.data(), step.size(), fu);
    dataset(g, "torque", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 3, torque.data(), step.size(), tu);
    if (coeffs_) {
      dataset(g, "cd", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, cd.data(), cd.size(), "1");
      dataset(g, "cl", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 1, cl.data(), cl.size(), "1");
    }
    H5Gclose(g);
  }
  if (H5Fclose(file) < 0) TESSERA_THROW(fmt::format("forces: writing {} failed", tmp));
  std::filesystem::rename(tmp, h5_);
}

}  // namespace tessera::lbm
