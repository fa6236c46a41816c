// Pair potential set-up: per-pair parameter tables, mixing rules, tail corrections.
#include "tessera/md/potential.hpp"

#include <cmath>
#include <numbers>

#include "tessera/core/error.hpp"

namespace tessera::md {

PairStyle parse_pair_style(const std::string& s) {
  if (s == "lj" || s == "wca") return PairStyle::lj;
  if (s == "morse") return PairStyle::morse;
  if (s == "table") return PairStyle::table;
  TESSERA_THROW("unknown pair style '" + s + "': expected lj, wca, morse or table");
}

Mixing parse_mixing(const std::string& s) {
  if (s == "lorentz_berthelot" || s == "arithmetic") return Mixing::lorentz_berthelot;
  if (s == "geometric") return Mixing::geometric;
  TESSERA_THROW("unknown mixing rule '" + s + "': expected lorentz_berthelot or geometric");
}

void mix(Mixing m, double eps_a, double sig_a, double eps_b, double sig_b, double& eps, double& sig) {
  eps = std::sqrt(eps_a * eps_b);
  sig = m == Mixing::lorentz_berthelot ? 0.5 * (sig_a + sig_b) : std::sqrt(sig_a * sig_b);
}

PairPotential::PairPotential(exec::Space space, PairStyle style, int ntypes)
    : space_(space), style_(style), ntypes_(ntypes) {
  TESSERA_REQUIRE(ntypes >= 1, "at least one atom type");
  const auto nn = std::size_t(ntypes) * std::size_t(ntypes);
  h_lj_.resize(nn);
  h_morse_.resize(nn);
  h_table_.resize(nn);
  h_table_data_.resize(nn);
}

double PairPotential::rc_max() const {
  double r = 0;
  for (std::size_t k = 0; k < h_lj_.size(); ++k) {
    if (style_ == PairStyle::lj) r = std::max(r, h_lj_[k].rc);
    if (style_ == PairStyle::morse) r = std::max(r, h_morse_[k].rc);
    if (style_ == PairStyle::table) r = std::max(r, std::sqrt(h_table_[k].rc2));
  }
  return r;
}

void PairPotential::set_lj(int a, int b, const LJParam& p) {
  TESSERA_REQUIRE(a >= 0 && b >= 0 && a < ntypes_ && b < ntypes_, "pair type out of range");
  h_lj_[std::size_t(a * ntypes_ + b)] = h_lj_[std::size_t(b * ntypes_ + a)] = p;
}

void PairPotential::set_morse(int a, int b, const MorseParam& p) {
  TESSERA_REQUIRE(a >= 0 && b >= 0 && a < ntypes_ && b < ntypes_, "pair type out of range");
  h_morse_[std::size_t(a * ntypes_ + b)] = h_morse_[std::size_t(b * ntypes_ + a)] = p;
}

void PairPotential::set_table(int a, int b, double rmin, double dr, const std::vector<double>& u,
                              const std::vector<double>& f) {
  TESSERA_REQUIRE(a >= 0 && b >= 0 && a < ntypes_ && b < ntypes_, "pair type out of range");
  TESSERA_REQUIRE(u.size() == f.size() && u.size() >= 2, "a table needs >= 2 knots with U and F each");
  TESSERA_REQUIRE(dr > 0 && rmin >= 0, "table spacing must be positive");
  std::vector<double> d(2 * u.size());
  for (std::size_t k = 0; k < u.size(); ++k) d[2 * k] = u[k], d[2 * k + 1] = f[k];
  const double rc = rmin + dr * double(u.size() - 1);
  TableParam p{nullptr, rmin, dr, rc * rc, int(u.size())};
  for (auto k : {std::size_t(a * ntypes_ + b), std::size_t(b * ntypes_ + a)}) {
    h_table_[k] = p;
    h_table_data_[k] = d;
  }
}

std::vector<TableParam> PairPotential::host_table() const {
  std::vector<TableParam> t = h_table_;
  for (std::size_t k = 0; k < t.size(); ++k) t[k].data = h_table_data_[k].data();
  return t;
}

void PairPotential::upload() {
  const MemKind mk = default_memkind(space_);
  const std::size_t nn = h_lj_.size();
  d_lj_ = Buffer<LJParam>(nn, mk, "md::lj_params");
  copy_n(d_lj_.data(), mk, h_lj_.data(), MemKind::Host, nn);
  d_morse_ = Buffer<MorseParam>(nn, mk, "md::morse_params");
  copy_n(d_morse_.data(), mk, h_morse_.data(), MemKind::Host, nn);
  // All tables in one array; each pair's TableParam points at its slice in the space's memory.
  std::size_t total = 0;
  for (const auto& d : h_table_data_) total += d.size();
  d_table_data_ = Buffer<double>(std::max<std::size_t>(total, 1), mk, "md::table_data");
  std::vector<TableParam> t = h_table_;
  std::size_t off = 0;
  for (std::size_t k = 0; k < nn; ++k) {
    if (h_table_data_[k].empty()) continue;
    copy_n(d_table_data_.data() + off, mk, h_table_data_[k].data(), MemKind::Host, h_table_data_[k].size());
    t[k].data = d_table_data_.data() + off;
    off += h_table_data_[k].size();
  }
  d_table_ = Buffer<TableParam>(nn, mk, "md::table_params");
  copy_n(d_table_.data(), mk, t.data(), MemKind::Host, nn);
}

namespace {
// sum_ab N_a N_b 4 eps sigma^3 [c9 s^9 - c3 s^3] over LJ pairs.
double lj_tail_sum(const std::vector<LJParam>& lj, int nt, const std::vector<int64_t>& counts, double c9, double c3) {
  TESSERA_REQUIRE(int(counts.size()) == nt, "tail correction needs one count per type");
  double s = 0;
  for (int a = 0; a < nt; ++a)
    for (int b = 0; b < nt; ++b) {
      const LJParam& p = lj[std::size_t(a * nt + b)];
      if (p.eps == 0) continue;
      const double x3 = std::pow(p.sigma / p.rc, 3);
      s += double(counts[std::size_t(a)]) * double(counts[std::size_t(b)]) * 4 * p.eps * std::pow(p.sigma, 3) *
           (c9 * x3 * x3 * x3 - c3 * x3);
    }
  return s;
}
}  // namespace

double PairPotential::tail_energy(const std::vector<int64_t>& counts, double volume) const {
  if (style_ != PairStyle::lj) return 0;
  return 2 * std::numbers::pi / volume * lj_tail_sum(h_lj_, ntypes_, counts, 1.0 / 9.0, 1.0 / 3.0);
}

double PairPotential::tail_pressure(const std::vector<int64_t>& counts, double volume) const {
  if (style_ != PairStyle::lj) return 0;
  return 2 * std::numbers::pi / (3 * volume * volume) * lj_tail_sum(h_lj_, ntypes_, counts, 4.0 / 3.0, 2.0);
}

}  // namespace tessera::md
