// Nose-Hoover chain half step (see nose_hoover.hpp). Host scalars; the particles only see a scale.
#include "tessera/md/nose_hoover.hpp"

#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::md {

NoseHooverChain::NoseHooverChain(int length, double kT, double tau, double nf)
    : kT_(kT), nf_(nf), xi_(std::size_t(length), 0.0), v_(std::size_t(length), 0.0), q_(std::size_t(length), kT * tau * tau) {
  TESSERA_REQUIRE(length >= 1, "Nose-Hoover chain length must be >= 1");
  TESSERA_REQUIRE(kT > 0 && tau > 0 && nf > 0, "Nose-Hoover needs positive temperature, tau and degrees of freedom");
  q_[0] = nf * kT * tau * tau;
}

double NoseHooverChain::half_step(double ke2, double dt) {
  const int m = length();
  const double dt2 = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  auto force = [&](int k, double kin2) {  // G_k
    return k == 0 ? (kin2 - nf_ * kT_) / q_[0] : (q_[std::size_t(k - 1)] * v_[std::size_t(k - 1)] * v_[std::size_t(k - 1)] - kT_) / q_[std::size_t(k)];
  };
  // Chain velocities from the end to the first link (quarter step each).
  for (int k = m - 1; k >= 0; --k) {
    if (k < m - 1) v_[std::size_t(k)] *= std::exp(-dt8 * v_[std::size_t(k + 1)]);
    v_[std::size_t(k)] += dt4 * force(k, ke2);
    if (k < m - 1) v_[std::size_t(k)] *= std::exp(-dt8 * v_[std::size_t(k + 1)]);
  }
  const double s = std::exp(-dt2 * v_[0]);
  ke2 *= s * s;
  for (int k = 0; k < m; ++k) xi_[std::size_t(k)] += dt2 * v_[std::size_t(k)];
  // And back from the first link to the end with the scaled kinetic energy.
  for (int k = 0; k < m; ++k) {
    if (k < m - 1) v_[std::size_t(k)] *= std::exp(-dt8 * v_[std::size_t(k + 1)]);
    v_[std::size_t(k)] += dt4 * force(k, ke2);
    if (k < m - 1) v_[std::size_t(k)] *= std::exp(-dt8 * v_[std::size_t(k + 1)]);
  }
  return s;
}

double NoseHooverChain::energy() const {
  double e = 0;
  for (int k = 0; k < length(); ++k) {
    e += 0.5 * q_[std::size_t(k)] * v_[std::size_t(k)] * v_[std::size_t(k)];
    e += (k == 0 ? nf_ : 1.0) * kT_ * xi_[std::size_t(k)];
  }
  return e;
}

}  // namespace tessera::md
