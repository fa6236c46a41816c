// Building an md Simulation from case-file text, as the `md` executable does (tests of the solver layer).
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tessera/md/case_config.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/system_builder.hpp"

namespace mdcase {
using namespace tessera;
using namespace tessera::md;

inline Case make_case(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return Case::from_string(yaml, schema(), "<test case>", overrides);
}

inline std::unique_ptr<Simulation> make_sim(exec::Space s, const Case& c) {
  const CaseConfig k = read_config(c);
  const InitialSystem init = build_initial(k, k.sim.units);
  return std::make_unique<Simulation>(s, k.sim, init.box, init.particles, build_potential(s, k, int(k.mass.size())),
                                      init.bonds, build_bond_params(k));
}

// Advances to step `to` with energies on the thermo steps, like run.cpp does.
inline void advance(Simulation& sim, int64_t to, int64_t thermo_every) {
  while (sim.step_count() < to) sim.step((sim.step_count() + 1) % thermo_every == 0);
}

template <class T>
std::vector<T> host(const Buffer<T>& b, std::size_t n = std::size_t(-1)) {
  std::vector<T> h(std::min(n, b.size()));
  if (!h.empty()) copy_n(h.data(), MemKind::Host, b.data(), b.kind(), h.size());
  return h;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Every particle array in memory order, bit for bit (owned + ghosts: the arrays may hold more entries).
inline bool same_state(Simulation& a, Simulation& b) {
  Particles& p = a.particles();
  Particles& q = b.particles();
  if (p.size() != q.size() || p.total() != q.total()) return false;
  const auto n = std::size_t(p.total());
  bool ok = true;
  for (auto m : {&Particles::x, &Particles::y, &Particles::z, &Particles::vx, &Particles::vy, &Particles::vz,
                 &Particles::fx, &Particles::fy, &Particles::fz})
    ok = ok && same_bits(host(p.*m, n), host(q.*m, n));
  for (auto m : {&Particles::ix, &Particles::iy, &Particles::iz, &Particles::type})
    ok = ok && same_bits(host(p.*m, n), host(q.*m, n));
  return ok && same_bits(host(p.id, n), host(q.id, n)) && a.step_count() == b.step_count() && a.time() == b.time();
}

}  // namespace mdcase
