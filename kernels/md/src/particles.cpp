// Particles: allocation, host<->space transfers and the permutation used for spatial sorting.
#include "tessera/md/particles.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::md {

void HostParticles::resize(int64_t n) {
  const auto s = std::size_t(n);
  for (auto* v : {&x, &y, &z, &vx, &vy, &vz}) v->resize(s, 0.0);
  for (auto* v : {&type, &ix, &iy, &iz}) v->resize(s, 0);
  id.resize(s, 0);
}

Particles::Particles(exec::Space space, int64_t n, const std::vector<double>& mass_per_type)
    : space_(space), n_(n), h_mass_(mass_per_type) {
  TESSERA_REQUIRE(n >= 0 && n < (int64_t(1) << 31), "particle count per rank must fit a 32-bit index");
  TESSERA_REQUIRE(!mass_per_type.empty(), "at least one particle type (with its mass) is needed");
  const MemKind mk = default_memkind(space);
  const auto s = std::size_t(n);
  for (auto* b : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &vir}) *b = Buffer<double>(s, mk, "md::particles");
  for (auto* b : {&type, &ix, &iy, &iz}) *b = Buffer<int>(s, mk, "md::particles");
  id = Buffer<int64_t>(s, mk, "md::id");
  std::vector<double> inv(mass_per_type.size());
  for (std::size_t t = 0; t < inv.size(); ++t) {
    TESSERA_REQUIRE(mass_per_type[t] > 0, "every particle type needs a positive mass");
    inv[t] = 1.0 / mass_per_type[t];
  }
  d_inv_mass_ = Buffer<double>(inv.size(), mk, "md::inv_mass");
  copy_n(d_inv_mass_.data(), mk, inv.data(), MemKind::Host, inv.size());
  for (auto* b : {&fx, &fy, &fz, &pe, &vir}) b->zero();
}

void Particles::reset(int64_t n, int64_t g) {
  TESSERA_REQUIRE(n >= 0 && g >= 0 && n + g < (int64_t(1) << 31), "particle count per rank must fit a 32-bit index");
  const MemKind mk = default_memkind(space_);
  const auto s = std::size_t(n + g);
  n_ = n;
  nghost_ = g;
  for (auto* b : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &vir}) *b = Buffer<double>(s, mk, "md::particles");
  for (auto* b : {&type, &ix, &iy, &iz}) *b = Buffer<int>(s, mk, "md::particles");
  id = Buffer<int64_t>(s, mk, "md::id");
  for (auto* b : {&fx, &fy, &fz, &pe, &vir}) b->zero();
}

namespace {
template <class T>
void grow_keep(Buffer<T>& b, std::size_t cap, std::size_t keep) {
  Buffer<T> nb(cap, b.kind(), "md::particles");
  if (keep > 0) copy_n(nb.data(), nb.kind(), b.data(), b.kind(), keep);
  b = std::move(nb);
}
}  // namespace

void Particles::set_counts(int64_t n, int64_t g) {
  TESSERA_REQUIRE(n >= 0 && g >= 0 && n + g < (int64_t(1) << 31), "particle count per rank must fit a 32-bit index");
  if (n + g > capacity()) {
    const auto cap = std::size_t(std::min<int64_t>(n + g + (n + g) / 4 + 64, (int64_t(1) << 31) - 1));
    const auto keep = std::size_t(std::min<int64_t>(total(), capacity()));
    for (auto* b : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &vir}) grow_keep(*b, cap, keep);
    for (auto* b : {&type, &ix, &iy, &iz}) grow_keep(*b, cap, keep);
    grow_keep(id, cap, keep);
  }
  n_ = n;
  nghost_ = g;
}

ParticleView Particles::view() {
  return ParticleView{n_,        x.data(),  y.data(),  z.data(),    vx.data(), vy.data(), vz.data(),
                      fx.data(), fy.data(), fz.data(), pe.data(),   vir.data(), type.data(), id.data(),
                      ix.data(), iy.data(), iz.data(), d_inv_mass_.data()};
}

namespace {
template <class T>
void put(Buffer<T>& d, const std::vector<T>& h) {
  TESSERA_REQUIRE(h.size() == d.size(), "host particle array has the wrong length");
  copy_n(d.data(), d.kind(), h.data(), MemKind::Host, h.size());
}
// The first n entries (the owned particles; ghosts follow them in a decomposed run).
template <class T>
void get(std::vector<T>& h, const Buffer<T>& d, int64_t n) {
  h.resize(std::size_t(n));
  if (n > 0) copy_n(h.data(), MemKind::Host, d.data(), d.kind(), std::size_t(n));
}
}  // namespace

void Particles::upload(const HostParticles& h) {
  TESSERA_REQUIRE(h.size() == n_, "HostParticles size differs from the device particle count");
  put(x, h.x), put(y, h.y), put(z, h.z), put(vx, h.vx), put(vy, h.vy), put(vz, h.vz);
  put(type, h.type), put(ix, h.ix), put(iy, h.iy), put(iz, h.iz), put(id, h.id);
  for (int t : h.type) TESSERA_REQUIRE(t >= 0 && t < ntypes(), "particle type out of range (types are 0-based)");
}

void Particles::download(HostParticles& h) const {
  get(h.x, x, n_), get(h.y, y, n_), get(h.z, z, n_), get(h.vx, vx, n_), get(h.vy, vy, n_), get(h.vz, vz, n_);
  get(h.type, type, n_), get(h.ix, ix, n_), get(h.iy, iy, n_), get(h.iz, iz, n_), get(h.id, id, n_);
  h.mass = h_mass_;
}

namespace {
template <class T>
struct Gather {
  const T* src;
  T* dst;
  const int* order;
  TESSERA_HD void operator()(int64_t i) const { dst[i] = src[order[i]]; }
};
template <class T>
void permute_one(const exec::Exec& ex, Buffer<T>& b, const int* order, int64_t n) {
  Buffer<T> tmp(b.size(), b.kind(), "md::permute");
  exec::parallel_for(ex, "md::permute", n, Gather<T>{b.data(), tmp.data(), order});
  exec::fence(ex);
  b = std::move(tmp);
}
}  // namespace

void Particles::permute(const exec::Exec& ex, const int* order) {
  for (auto* b : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &vir}) permute_one(ex, *b, order, n_);
  for (auto* b : {&type, &ix, &iy, &iz}) permute_one(ex, *b, order, n_);
  permute_one(ex, id, order, n_);
  if (has_reference())
    for (auto* b : {&rx0, &ry0, &rz0}) permute_one(ex, *b, order, n_);
}

namespace {
// Reordering in place through scratch: PermuteOut gathers into the scratch arrays, PermuteBack copies them
// back. Doubles: x, y, z, vx, vy, vz and, with MSD references, rx0, ry0, rz0; ints: type, ix, iy, iz.
struct PermuteArrays {
  double* d[9];
  int* i[4];
  int64_t* id;
  int nd;
};
struct PermuteOut {
  PermuteArrays a;
  double* sd;
  int* si;
  int64_t* sl;
  const int* order;
  int64_t n;
  TESSERA_HD void operator()(int64_t k) const {
    const int o = order[k];
    for (int m = 0; m < a.nd; ++m) sd[m * n + k] = a.d[m][o];
    for (int m = 0; m < 4; ++m) si[m * n + k] = a.i[m][o];
    sl[k] = a.id[o];
  }
};
struct PermuteBack {
  PermuteArrays a;
  const double* sd;
  const int* si;
  const int64_t* sl;
  int64_t n;
  TESSERA_HD void operator()(int64_t k) const {
    for (int m = 0; m < a.nd; ++m) a.d[m][k] = sd[m * n + k];
    for (int m = 0; m < 4; ++m) a.i[m][k] = si[m * n + k];
    a.id[k] = sl[k];
  }
};
}  // namespace

void Particles::reserve_permute_scratch() {
  const MemKind mk = default_memkind(space_);
  const auto s = std::size_t(n_);
  if (scratch_d_.size() < 9 * s) scratch_d_ = Buffer<double>(9 * s, mk, "md::permute_scratch");
  if (scratch_i_.size() < 4 * s) scratch_i_ = Buffer<int>(4 * s, mk, "md::permute_scratch");
  if (scratch_l_.size() < s) scratch_l_ = Buffer<int64_t>(s, mk, "md::permute_scratch");
}

int* Particles::fixed_positions() {
  const auto want = 4 * std::size_t(total());
  if (fixed_.size() < want) fixed_ = Buffer<int>(want, default_memkind(space_), "md::fixed_positions");
  return fixed_.data();
}

void Particles::permute_in_place(const exec::Exec& ex, const int* order) {
  reserve_permute_scratch();
  PermuteArrays a{{x.data(), y.data(), z.data(), vx.data(), vy.data(), vz.data(), nullptr, nullptr, nullptr},
                  {type.data(), ix.data(), iy.data(), iz.data()},
                  id.data(),
                  6};
  if (has_reference()) {
    a.d[6] = rx0.data(), a.d[7] = ry0.data(), a.d[8] = rz0.data();
    a.nd = 9;
  }
  exec::parallel_for(ex, "md::permute_out", n_, PermuteOut{a, scratch_d_.data(), scratch_i_.data(), scratch_l_.data(), order, n_});
  exec::parallel_for(ex, "md::permute_back", n_, PermuteBack{a, scratch_d_.data(), scratch_i_.data(), scratch_l_.data(), n_});
}

}  // namespace tessera::md
