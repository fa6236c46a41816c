// Checkpoint and restart of the md engine through io/checkpoint.hpp (see simulation.hpp).
//
// Bit-identical continuation needs every input of the next step, exactly:
//  - particle arrays in their MEMORY order (the order fixes the neighbour-list order and hence the
//    floating-point summation order of forces): positions, velocities, forces (velocity Verlet's first
//    half kick uses the forces of the previous step), images, types, ids, MSD references;
//  - the neighbour list. Storing the list itself would be large; instead we store the positions it was
//    built from (its rebuild reference) and rebuild it from them on restart: the build is a
//    deterministic function of (reference positions, memory order, box), so the list -- and the skin/2
//    rebuild test against the same reference -- are those of the uninterrupted run. (Forcing a rebuild at
//    every checkpoint would also be exact, but would make the trajectory depend on the checkpoint cadence
//    and on when a signal arrived.)
//  - the re-sort counter (particles are permuted every neighbor.sort_every builds);
//  - the Nose-Hoover chain (xi_k, v_k); Langevin noise is Philox keyed by (seed, id, step): the step is
//    its whole state, and the seed is part of the case (checked through the case hash);
//  - NPT: the box, the box of the last list build, v_eps and the barostat's chain; per-atom energies and
//    virials (the first barostat half kick of the next step uses the virial of the last force call);
//  - step and time.
// Layout: /local/<array> per particle (this rank's rows), /global/md_state = [format, n, ntypes,
// builds_since_sort, integrator, chain length, msd, have_energies], /global/nhc_xi, /global/nhc_v,
// /global/box and /global/list_box = lo, L; /global/barostat = [v_eps], /global/baro_xi, /global/baro_v.
#include <fmt/format.h>

#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/md/msd.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
constexpr int64_t kFormat = 2;

template <class T>
std::vector<T> to_host(const Buffer<T>& b, int64_t n) {
  std::vector<T> h(static_cast<std::size_t>(n));
  if (n > 0) copy_n(h.data(), MemKind::Host, b.data(), b.kind(), h.size());
  return h;
}
template <class T>
void from_host(Buffer<T>& b, const std::vector<T>& h) {
  TESSERA_REQUIRE(b.size() >= h.size(), "checkpoint array longer than the particle buffer");
  if (!h.empty()) copy_n(b.data(), b.kind(), h.data(), MemKind::Host, h.size());
}
}  // namespace

std::string Simulation::write_checkpoint(MPI_Comm comm, const std::string& dir, io::CheckpointMeta meta,
                                         const io::CheckpointOptions& opt) {
  exec::fence(ex_);
  const int64_t n = particles_.size();
  Particles& p = particles_;
  // Host copies must outlive write_checkpoint (CheckpointData holds pointers).
  std::vector<std::vector<double>> d;
  std::vector<std::vector<int>> i32;
  io::CheckpointData cd;
  auto add_d = [&](const char* name, const Buffer<double>& b) {
    d.push_back(to_host(b, n));
    cd.add_local(name, d.back().data(), n);
  };
  auto add_i = [&](const char* name, const Buffer<int>& b) {
    i32.push_back(to_host(b, n));
    cd.add_local(name, i32.back().data(), n);
  };
  d.reserve(16), i32.reserve(4);
  add_d("x", p.x), add_d("y", p.y), add_d("z", p.z);
  add_d("vx", p.vx), add_d("vy", p.vy), add_d("vz", p.vz);
  add_d("fx", p.fx), add_d("fy", p.fy), add_d("fz", p.fz), add_d("pe", p.pe), add_d("vir", p.vir);
  add_d("x0", nl_.reference_x()), add_d("y0", nl_.reference_y()), add_d("z0", nl_.reference_z());
  if (cfg_.msd) add_d("rx0", p.rx0), add_d("ry0", p.ry0), add_d("rz0", p.rz0);
  add_i("type", p.type), add_i("ix", p.ix), add_i("iy", p.iy), add_i("iz", p.iz);
  const std::vector<int64_t> ids = to_host(p.id, n);
  cd.add_local("id", ids.data(), n);
  const std::vector<int64_t> state{kFormat, natoms_, int64_t(p.ntypes()), builds_since_sort_, int64_t(cfg_.integrator),
                                   int64_t(nhc_.length()), cfg_.msd ? 1 : 0, have_energies_ ? 1 : 0};
  cd.add_global("md_state", state.data(), int64_t(state.size()));
  const std::vector<double> box{box_.lo[0], box_.lo[1], box_.lo[2], box_.L[0], box_.L[1], box_.L[2]};
  cd.add_global("box", box.data(), 6);
  const std::vector<double> lbox{list_box_.lo[0], list_box_.lo[1], list_box_.lo[2],
                                 list_box_.L[0],  list_box_.L[1],  list_box_.L[2]};
  cd.add_global("list_box", lbox.data(), 6);
  const double v_eps = baro_.v_eps();
  if (cfg_.integrator == Integrator::npt) {
    cd.add_global("barostat", &v_eps, 1);
    cd.add_global("baro_xi", baro_.chain().xi().data(), baro_.chain().length());
    cd.add_global("baro_v", baro_.chain().v().data(), baro_.chain().length());
  }
  if (nhc_.length() > 0) {
    cd.add_global("nhc_xi", nhc_.xi().data(), nhc_.length());
    cd.add_global("nhc_v", nhc_.v().data(), nhc_.length());
  }
  meta.step = step_;
  meta.time = time_;
  if (meta.solver.empty()) meta.solver = "md";
  cd.meta = std::move(meta);
  return io::write_checkpoint(comm, dir, cd, opt);
}

void Simulation::restore(const io::CheckpointReader& r) {
  const std::string& path = r.path();
  const auto state = r.read_global<int64_t>("md_state");
  if (state.size() != 8 || state[0] != kFormat)
    TESSERA_THROW(path + ": /global/md_state is not an md checkpoint of format " + std::to_string(kFormat) +
                  ": restart with the Tessera version that wrote it, or start from scratch");
  const int64_t n = natoms_;
  if (state[1] != n || state[2] != particles_.ntypes())
    TESSERA_THROW(fmt::format("{}: the checkpoint holds {} atoms of {} types, this case builds {} of {}: restart with "
                              "the case that wrote it", path, state[1], state[2], n, particles_.ntypes()));
  if (state[4] != int64_t(cfg_.integrator) || state[5] != int64_t(nhc_.length()) || (state[6] != 0) != cfg_.msd)
    TESSERA_THROW(path + ": run.integrator, thermostat.chain or output.msd_every differ from the run that wrote the "
                         "checkpoint: restart with its case");
  const auto box = r.read_global<double>("box"), lbox = r.read_global<double>("list_box");
  TESSERA_REQUIRE(box.size() == 6 && lbox.size() == 6, path + ": /global/box and /global/list_box need 6 values");
  const bool npt = cfg_.integrator == Integrator::npt;
  for (int a = 0; a < 3; ++a)
    if (!npt && (box[std::size_t(a)] != box_.lo[a] || box[std::size_t(3 + a)] != box_.L[a]))
      TESSERA_THROW(path + ": the checkpoint's box differs from this case's box: restart with the case that wrote it");
  Box list_box = box_;
  for (int a = 0; a < 3; ++a) {
    box_.lo[a] = box[std::size_t(a)], box_.L[a] = box[std::size_t(3 + a)];
    list_box.lo[a] = lbox[std::size_t(a)], list_box.L[a] = lbox[std::size_t(3 + a)];
  }
  if (dd_) {
    list_box_ = list_box;
    restore_decomposed(r);
  } else {
    restore_particles(r, list_box);
  }
  restore_state(r, state);
}

// One rank: the checkpoint's rows (all ranks' rows in rank order, when several ranks wrote it) become the
// memory order; the list is rebuilt from the reference positions.
void Simulation::restore_particles(const io::CheckpointReader& r, const Box& list_box) {
  const std::string& path = r.path();
  const int64_t n = natoms_;
  auto rd = [&](const char* name) {
    auto v = r.read_local_all<double>(name);
    TESSERA_REQUIRE(int64_t(v.size()) == n, path + ": /local/" + name + " has the wrong length");
    return v;
  };
  auto ri = [&](const char* name) {
    auto v = r.read_local_all<int32_t>(name);
    TESSERA_REQUIRE(int64_t(v.size()) == n, path + ": /local/" + name + " has the wrong length");
    return std::vector<int>(v.begin(), v.end());
  };
  HostParticles h;
  h.x = rd("x"), h.y = rd("y"), h.z = rd("z"), h.vx = rd("vx"), h.vy = rd("vy"), h.vz = rd("vz");
  h.type = ri("type"), h.ix = ri("ix"), h.iy = ri("iy"), h.iz = ri("iz");
  h.id = r.read_local_all<int64_t>("id");
  TESSERA_REQUIRE(int64_t(h.id.size()) == n, path + ": /local/id has the wrong length");
  h.mass = particles_.mass();

  // Bonds are stored per atom in the current memory order: follow the checkpoint's order.
  // order[i] = index (in the freshly built system) of the particle that sits at i in the checkpoint.
  {
    const std::vector<int64_t> ids0 = to_host(particles_.id, n);
    std::unordered_map<int64_t, int> index;
    index.reserve(std::size_t(n));
    for (int64_t i = 0; i < n; ++i) index.emplace(ids0[std::size_t(i)], int(i));
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto it = index.find(h.id[std::size_t(i)]);
      if (it == index.end())
        TESSERA_THROW(fmt::format("{}: atom id {} is not in this case's system: restart with the case that wrote it",
                                  path, h.id[std::size_t(i)]));
      order[std::size_t(i)] = it->second;
    }
    Buffer<int> d_order(std::size_t(n), default_memkind(ex_.space), "md::restore_order");
    from_host(d_order, order);
    Buffer<int64_t> d_ids(std::size_t(n), default_memkind(ex_.space), "md::restore_ids");
    from_host(d_ids, h.id);
    bonds_.permute(ex_, d_order.data(), d_ids.data(), n);
  }

  // Rebuild the neighbour list from its reference positions (already wrapped: wrapping is the identity
  // and the images are untouched), then put the current positions in place.
  HostParticles ref = h;
  ref.x = rd("x0"), ref.y = rd("y0"), ref.z = rd("z0");
  particles_.upload(ref);
  list_box_ = list_box;
  nl_.build(ex_, particles_, list_box_);
  if (graph_step()) nl_.build_async(ex_, particles_, list_box_, false, false);  // as the graph built it (simulation.cpp)
  particles_.upload(h);
  from_host(particles_.fx, rd("fx"));
  from_host(particles_.fy, rd("fy"));
  from_host(particles_.fz, rd("fz"));
  from_host(particles_.pe, rd("pe"));
  from_host(particles_.vir, rd("vir"));
  if (cfg_.msd) {
    set_msd_reference(ex_, particles_, box_);  // allocates; overwritten by the stored references
    from_host(particles_.rx0, rd("rx0"));
    from_host(particles_.ry0, rd("ry0"));
    from_host(particles_.rz0, rd("rz0"));
  }
}

void Simulation::restore_state(const io::CheckpointReader& r, const std::vector<int64_t>& state) {
  const std::string& path = r.path();
  const bool npt = cfg_.integrator == Integrator::npt;
  builds_since_sort_ = state[3];
  if (nhc_.length() > 0) {
    const auto xi = r.read_global<double>("nhc_xi"), v = r.read_global<double>("nhc_v");
    TESSERA_REQUIRE(int(xi.size()) == nhc_.length() && int(v.size()) == nhc_.length(),
                    path + ": Nose-Hoover chain state has the wrong length");
    nhc_.xi() = xi;
    nhc_.v() = v;
  }
  if (npt) {
    const auto ve = r.read_global<double>("barostat");
    const auto xi = r.read_global<double>("baro_xi"), v = r.read_global<double>("baro_v");
    TESSERA_REQUIRE(ve.size() == 1 && int(xi.size()) == baro_.chain().length() && int(v.size()) == baro_.chain().length(),
                    path + ": barostat state has the wrong length");
    baro_.v_eps_ref() = ve[0];
    baro_.chain().xi() = xi;
    baro_.chain().v() = v;
  }
  step_ = r.meta().step;
  time_ = r.meta().time;
  have_energies_ = state[7] != 0;
  exec::fence(ex_);
}

}  // namespace tessera::md
