// Pair potential of a run: one style, parameters for every pair of types, in the memory of the
// execution space. Builders apply mixing rules; explicit pair coefficients override mixed ones.
//
// Mixing (for LJ/WCA eps and sigma):
//   Lorentz-Berthelot: sigma_ab = (sigma_a + sigma_b)/2,  eps_ab = sqrt(eps_a eps_b)
//   geometric:         sigma_ab = sqrt(sigma_a sigma_b),   eps_ab = sqrt(eps_a eps_b)
// Tail corrections (Allen & Tildesley, 2nd ed., eq. 2.144-2.145), for LJ beyond rc with g(r) = 1:
//   E_tail = (2 pi / V) sum_ab N_a N_b  4 eps sigma^3 [ (sigma/rc)^9 / 9 - (sigma/rc)^3 / 3 ]
//   P_tail = (2 pi / (3 V^2)) sum_ab N_a N_b  4 eps sigma^3 [ 4 (sigma/rc)^9 / 3 - 2 (sigma/rc)^3 ]
// which for one type reduce to (8/3) pi rho eps sigma^3 [(1/3) s^9 - s^3] per atom and
// (16/3) pi rho^2 eps sigma^3 [(2/3) s^9 - s^3].
#pragma once
#include <string>
#include <vector>

#include "tessera/core/buffer.hpp"
#include "tessera/md/pair_lj.hpp"
#include "tessera/md/pair_morse.hpp"
#include "tessera/md/pair_table.hpp"

namespace tessera::md {

enum class PairStyle { lj, morse, table };
enum class Mixing { lorentz_berthelot, geometric };
PairStyle parse_pair_style(const std::string& s);
Mixing parse_mixing(const std::string& s);
void mix(Mixing m, double eps_a, double sig_a, double eps_b, double sig_b, double& eps, double& sig);

class PairPotential {
 public:
  PairPotential(exec::Space space, PairStyle style, int ntypes);
  PairStyle style() const { return style_; }
  int ntypes() const { return ntypes_; }
  double rc_max() const;  // largest cut-off over all pairs (sets the neighbour range)

  // Symmetric setters (a,b and b,a). Call upload() after the last one.
  void set_lj(int a, int b, const LJParam& p);
  void set_morse(int a, int b, const MorseParam& p);
  // u[k], f[k] at r = rmin + k dr; rc = the last knot.
  void set_table(int a, int b, double rmin, double dr, const std::vector<double>& u, const std::vector<double>& f);
  void upload();

  const LJParam* lj() const { return d_lj_.data(); }
  const MorseParam* morse() const { return d_morse_.data(); }
  const TableParam* table() const { return d_table_.data(); }
  // Host copies (tables point at host data) for reference computations.
  const std::vector<LJParam>& host_lj() const { return h_lj_; }
  const std::vector<MorseParam>& host_morse() const { return h_morse_; }
  std::vector<TableParam> host_table() const;

  // Analytic LJ tail corrections (zero for other styles) for counts[type] atoms in volume V.
  double tail_energy(const std::vector<int64_t>& counts, double volume) const;
  double tail_pressure(const std::vector<int64_t>& counts, double volume) const;

 private:
  exec::Space space_;
  PairStyle style_;
  int ntypes_;
  std::vector<LJParam> h_lj_;
  std::vector<MorseParam> h_morse_;
  std::vector<TableParam> h_table_;
  std::vector<std::vector<double>> h_table_data_;
  Buffer<LJParam> d_lj_;
  Buffer<MorseParam> d_morse_;
  Buffer<TableParam> d_table_;
  Buffer<double> d_table_data_;
};

}  // namespace tessera::md
