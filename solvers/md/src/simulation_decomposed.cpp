// The parts of the md engine that differ on several ranks (see decomposition.hpp): global sums, the
// redistribution at a list rebuild (in the particles' space), and the restore of a checkpoint onto a
// rank grid.
#include <fmt/format.h>

#include <unordered_map>

#include "tessera/core/error.hpp"
#include "tessera/md/decomposition.hpp"
#include "tessera/md/migrate.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
template <class T>
void get_n(std::vector<T>& h, const Buffer<T>& d, int64_t n) {
  h.resize(std::size_t(n));
  if (n > 0) copy_n(h.data(), MemKind::Host, d.data(), d.kind(), std::size_t(n));
}
template <class T>
void put_n(Buffer<T>& d, const std::vector<T>& h) {
  if (!h.empty()) copy_n(d.data(), d.kind(), h.data(), MemKind::Host, h.size());
}
}  // namespace

ThermoSums Simulation::sums(bool energies) {
  ThermoSums s = thermo_sums(ex_, particles_, energies);
  if (!dd_) return s;
  const auto g = dd_->sum({s.ke, s.pe, s.virial, s.p[0], s.p[1], s.p[2]});
  s.ke = g[0], s.pe = g[1], s.virial = g[2], s.p[0] = g[3], s.p[1] = g[4], s.p[2] = g[5];
  return s;
}

double Simulation::kinetic() {
  const double ke = kinetic_energy(ex_, particles_);
  return dd_ ? dd_->sum({ke})[0] : ke;
}

Box Simulation::force_box() const { return dd_ ? dd_->list_box(box_) : box_; }

void Simulation::download_owned(HostAtoms& a) {
  exec::fence(ex_);
  const Particles& p = particles_;
  const int64_t n = p.size();
  a.clear();
  a.msd = cfg_.msd;
  get_n(a.x, p.x, n), get_n(a.y, p.y, n), get_n(a.z, p.z, n);
  get_n(a.vx, p.vx, n), get_n(a.vy, p.vy, n), get_n(a.vz, p.vz, n);
  get_n(a.fx, p.fx, n), get_n(a.fy, p.fy, n), get_n(a.fz, p.fz, n);
  get_n(a.pe, p.pe, n), get_n(a.vir, p.vir, n);
  get_n(a.type, p.type, n), get_n(a.ix, p.ix, n), get_n(a.iy, p.iy, n), get_n(a.iz, p.iz, n);
  get_n(a.id, p.id, n);
  if (cfg_.msd) get_n(a.rx0, p.rx0, n), get_n(a.ry0, p.ry0, n), get_n(a.rz0, p.rz0, n);
}

// Owned atoms (wrapped, in this rank's sub-box) from the host into particles_, without ghosts.
void Simulation::upload_owned(const HostAtoms& a) {
  const int64_t n = a.size();
  particles_.reset(n, 0);
  Particles& p = particles_;
  for (auto [d, h] : {std::pair{&p.x, &a.x}, {&p.y, &a.y}, {&p.z, &a.z}, {&p.vx, &a.vx}, {&p.vy, &a.vy},
                      {&p.vz, &a.vz}, {&p.fx, &a.fx}, {&p.fy, &a.fy}, {&p.fz, &a.fz}, {&p.pe, &a.pe}, {&p.vir, &a.vir}})
    put_n(*d, *h);
  for (auto [d, h] : {std::pair{&p.type, &a.type}, {&p.ix, &a.ix}, {&p.iy, &a.iy}, {&p.iz, &a.iz}}) put_n(*d, *h);
  put_n(p.id, a.id);
  if (cfg_.msd) {
    for (auto* b : {&p.rx0, &p.ry0, &p.rz0}) *b = Buffer<double>(std::size_t(n), default_memkind(ex_.space), "md::msd_reference");
    put_n(p.rx0, a.rx0), put_n(p.ry0, a.ry0), put_n(p.rz0, a.rz0);
  }
}

// Owned atoms in place (after migration or upload_owned) -> sorted, ghosts built (in the particles'
// space); bonds re-listed. order_out: the sort's permutation (restore applies it to the current positions).
void Simulation::distribute(const Box& box, Buffer<int>* order_out) {
  dd_->sort(particles_, box, nl_.rc() + nl_.skin(), order_out);
  dd_->build_ghosts(particles_, box);
  if (all_bonds_.empty()) return;
  // Each owned atom lists its bonds; the partner is found among owned atoms and ghosts by id. A partner
  // that is not there would silently drop a force: refuse instead. (Bonded runs re-list on the host: the
  // ids of owned atoms and ghosts come down once per rebuild.)
  const int64_t n = particles_.size(), ng = particles_.ghosts();
  std::vector<int64_t> id;
  exec::fence(ex_);  // the ghost unpacks are stream-ordered
  get_n(id, particles_.id, n + ng);
  std::unordered_map<int64_t, int> local;
  local.reserve(std::size_t(n + ng));
  for (int64_t i = n + ng - 1; i >= 0; --i) local[id[std::size_t(i)]] = int(i);
  std::vector<Bond> mine;
  for (const Bond& b : all_bonds_) {
    const auto ia = local.find(b.a), ib = local.find(b.b);
    const bool own_a = ia != local.end() && ia->second < n, own_b = ib != local.end() && ib->second < n;
    if (!own_a && !own_b) continue;
    if (ia == local.end() || ib == local.end())
      TESSERA_THROW(fmt::format("md: bond {}-{}: atom {} is neither owned nor a ghost on rank {} (ghost cut-off {:.4g}): "
                                "the bond is longer than the ghost cut-off; raise neighbor.skin or run on fewer ranks",
                                b.a, b.b, ia == local.end() ? b.a : b.b, dd_->rank(), dd_->ghost_cut()));
    mine.push_back(b);
  }
  HostParticles hp;
  hp.resize(n + ng);
  hp.id = id;
  bonds_ = BondList(ex_.space, mine, bonds_.params(), hp);
}

// Restore onto a rank grid (any rank count wrote the checkpoint): every rank reads all atoms, redoes the
// last list build from its reference positions (ownership, order and ghosts are functions of those), then
// puts the current positions in place and forwards the ghosts. At the writer's rank count this is the
// state of the uninterrupted run, bit for bit.
void Simulation::restore_decomposed(const io::CheckpointReader& r) {
  const std::string& path = r.path();
  auto rd = [&](const char* name) {
    auto v = r.read_local_all<double>(name);
    TESSERA_REQUIRE(int64_t(v.size()) == natoms_, path + ": /local/" + name + " has the wrong length");
    return v;
  };
  auto ri = [&](const char* name) {
    auto v = r.read_local_all<int32_t>(name);
    TESSERA_REQUIRE(int64_t(v.size()) == natoms_, path + ": /local/" + name + " has the wrong length");
    return std::vector<int>(v.begin(), v.end());
  };
  HostAtoms a;
  a.msd = cfg_.msd;
  a.x = rd("x0"), a.y = rd("y0"), a.z = rd("z0");   // positions of the last list build
  a.x0 = rd("x"), a.y0 = rd("y"), a.z0 = rd("z");   // current positions (carried along, put back below)
  a.vx = rd("vx"), a.vy = rd("vy"), a.vz = rd("vz");
  a.fx = rd("fx"), a.fy = rd("fy"), a.fz = rd("fz"), a.pe = rd("pe"), a.vir = rd("vir");
  if (cfg_.msd) a.rx0 = rd("rx0"), a.ry0 = rd("ry0"), a.rz0 = rd("rz0");
  a.type = ri("type"), a.ix = ri("ix"), a.iy = ri("iy"), a.iz = ri("iz");
  a.id = r.read_local_all<int64_t>("id");
  TESSERA_REQUIRE(int64_t(a.id.size()) == natoms_, path + ": /local/id has the wrong length");
  dd_->select(a, list_box_);
  upload_owned(a);
  const auto n = std::size_t(a.size());
  const MemKind mk = default_memkind(ex_.space);
  Buffer<double> cur[3];
  const std::vector<double>* now[3] = {&a.x0, &a.y0, &a.z0};
  for (int k = 0; k < 3; ++k) {
    cur[k] = Buffer<double>(std::max<std::size_t>(n, 1), mk, "md::restore_positions");
    put_n(cur[k], *now[k]);
  }
  Buffer<int> order;
  distribute(list_box_, &order);
  nl_.build(ex_, particles_, dd_->list_box(list_box_));
  Buffer<double>* pos[3] = {&particles_.x, &particles_.y, &particles_.z};
  for (int k = 0; k < 3; ++k) gather_values(ex_, cur[k].data(), order.data(), int64_t(n), pos[k]->data());
  dd_->forward(particles_, box_);
  exec::fence(ex_);
}

}  // namespace tessera::md
