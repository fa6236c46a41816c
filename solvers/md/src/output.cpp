// Time series of an md run (see output.hpp).
#include "tessera/md/output.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "tessera/core/error.hpp"
#include "tessera/core/log.hpp"
#include "tessera/io/atomic_file.hpp"

namespace tessera::md {

int64_t truncate_csv_after(const std::string& path, int64_t last_step) {
  std::ifstream in(path);
  if (!in) return 0;
  std::ostringstream out;
  std::string line;
  bool header = false;
  int64_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#' || !header) {  // comments and the column header
      header = header || line[0] != '#';
      out << line << '\n';
      continue;
    }
    long long step = 0;
    if (std::sscanf(line.c_str(), "%lld", &step) != 1)
      TESSERA_THROW(path + ": a row that does not start with a step number: '" + line +
                    "'; fix or remove the file before --restart");
    if (step > last_step) continue;
    out << line << '\n';
    ++rows;
  }
  in.close();
  io::write_file_atomic(path, out.str());
  return rows;
}

namespace {
// One H5MD frame: particles ordered by id by the writer; positions wrapped into the box.
void write_frame(io::H5mdWriter& w, Simulation& sim) {
  HostParticles h;
  sim.particles().download(h);
  const auto n = std::size_t(h.size());
  std::vector<double> pos(3 * n), vel(3 * n);
  std::vector<int32_t> species(h.type.begin(), h.type.end());
  const Box& b = sim.box();
  for (std::size_t i = 0; i < n; ++i) {
    double x[3] = {h.x[i], h.y[i], h.z[i]};
    for (int a = 0; a < 3; ++a) b.wrap(x[a], a);
    pos[3 * i] = x[0], pos[3 * i + 1] = x[1], pos[3 * i + 2] = x[2];
    vel[3 * i] = h.vx[i], vel[3 * i + 1] = h.vy[i], vel[3 * i + 2] = h.vz[i];
  }
  w.append(sim.step_count(), sim.time(), {b.L[0], b.L[1], b.L[2]},
           io::ParticleFrameView{int64_t(n), h.id.data(), species.data(), pos.data(), vel.data()});
}
}  // namespace

RunOutput::RunOutput(const Runtime& rt, const Case& c, const CaseConfig& k, const Simulation& sim,
                     const std::string& dir, int64_t resume_step)
    : units_(k.sim.units), rank_(rt.rank()), dir_(dir) {
  const std::string thermo_header =
      fmt::format("# units {}; per-atom energies; conserved = the integrator's conserved quantity per atom\n"
                  "step,time,temperature,ke,pe,etotal,pressure,conserved,volume\n", units_.name);
  if (k.thermo_csv) thermo_ = open_csv("thermo.csv", thermo_header.c_str(), resume_step);
  if (k.msd_every > 0)
    msd_ = open_csv("msd.csv",
                    "# mean-square displacement of unwrapped positions since step 0 (length^2); msd = x + y + z\n"
                    "step,time,msd,msd_x,msd_y,msd_z\n",
                    resume_step);
  if (k.trajectory_every > 0) {
    io::H5mdOptions ho;
    ho.case_text = c.yaml();
    for (int a = 0; a < 3; ++a) ho.periodic[std::size_t(a)] = sim.box().periodic[a];
    traj_ = std::make_unique<io::H5mdWriter>(rt.comm(), (std::filesystem::path(dir) / "trajectory.h5").string(), ho);
    if (resume_step >= 0) {
      const int64_t kept = traj_->resume(resume_step);
      log::info("md: trajectory {}: continuing after {} frames", traj_->path(), kept);
    }
  }
}

RunOutput::~RunOutput() {
  if (thermo_) std::fclose(thermo_);
  if (msd_) std::fclose(msd_);
}

std::FILE* RunOutput::open_csv(const std::string& name, const char* header, int64_t resume_step) {
  if (rank_ != 0) return nullptr;
  const std::string path = (std::filesystem::path(dir_) / name).string();
  const bool append = resume_step >= 0 && std::filesystem::exists(path);
  if (append) truncate_csv_after(path, resume_step);
  std::FILE* f = std::fopen(path.c_str(), append ? "a" : "w");
  if (!f) TESSERA_THROW("cannot write " + path + ": check the output directory (-o)");
  if (!append) std::fputs(header, f);
  std::fflush(f);
  return f;
}

void RunOutput::thermo_header() const {
  log::info("{:>10} {:>12} {:>10} {:>12} {:>12} {:>12} {:>12} {:>14}", "step", "time", "temp", "ke/N", "pe/N",
            "etot/N", "press", "conserved/N");
}

void RunOutput::thermo(const Thermo& t) {
  log::info("{:>10} {:>12.5f} {:>10.5f} {:>12.6f} {:>12.6f} {:>12.6f} {:>12.6f} {:>14.8f}", t.step, t.time,
            t.temperature, t.ke, t.pe, t.etotal, t.pressure, t.conserved);
  if (!thermo_) return;
  std::fprintf(thermo_, "%lld,%.10g,%.10g,%.12g,%.12g,%.12g,%.10g,%.12g,%.12g\n", static_cast<long long>(t.step),
               t.time, t.temperature, t.ke, t.pe, t.etotal, t.pressure, t.conserved, t.volume);
  std::fflush(thermo_);
}

void RunOutput::frame(Simulation& sim) {
  if (traj_) write_frame(*traj_, sim);
}

void RunOutput::msd(Simulation& sim) {
  const auto m = sim.msd();
  if (!msd_) return;
  std::fprintf(msd_, "%lld,%.10g,%.12g,%.12g,%.12g,%.12g\n", static_cast<long long>(sim.step_count()), sim.time(),
               m[0] + m[1] + m[2], m[0], m[1], m[2]);
  std::fflush(msd_);
}

}  // namespace tessera::md
