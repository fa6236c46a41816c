// GPU against host, and the tuned CUDA kernel against the portable reference, on random populations
// with random walls, for every lattice, precision and collision model.
//
// Tolerances (absolute, on f): the device compiles a*b+c into fused multiply-adds, the host does not,
// so results differ by rounding: fp64 1e-14, fp32 1e-6, fp16 one storage step (2^-11 |f - w| < 2e-5)
// plus fp32 rounding. The tuned kernel runs the same functor as the reference on the same device.
#include "catch_compat.hpp"
#include "lbm_test_util.hpp"

using namespace tessera;
using namespace tessera::lbm;
using namespace tessera::lbm::test;

namespace {

std::vector<double> run(LatticeKind k, Precision pr, CollisionKind ck, exec::Space sp, KernelPath path, int steps,
                        std::vector<float>* rho_out = nullptr) {
  const GridLayout g = grid_for(k, 37, 13, 9);
  const std::vector<uint8_t> fl = random_flags(g, 21);
  std::vector<double> f0;
  switch (k) {
    case LatticeKind::D2Q9: f0 = random_pops<D2Q9>(g, 22); break;
    case LatticeKind::D3Q19: f0 = random_pops<D3Q19>(g, 22); break;
    case LatticeKind::D3Q27: f0 = random_pops<D3Q27>(g, 22); break;
  }
  LatticeState s(k, pr, g, sp);
  write_flags(s, fl);
  write_slots(s, f0);
  const CollisionParams p = test_params(ck, ck == CollisionKind::Regularized ? 0.15 : 0.0);
  const exec::Exec ex(sp);
  for (int t = 0; t < steps; ++t) stream_collide(ex, s, p, path);
  if (rho_out) {
    const std::size_t n = std::size_t(g.cells());
    Buffer<float> rho(n, s.memkind()), u(3 * n, s.memkind()), h(n, MemKind::Host);
    compute_moments(ex, s, p, rho.data(), u.data());
    exec::fence(ex);
    copy(h, rho);
    rho_out->assign(h.begin(), h.end());
    // Moments of wall and ghost cells are not defined (their slots are never written): compare fluid only.
    for (std::size_t c = 0; c < fl.size() && c < rho_out->size(); ++c)
      if (!is_fluid(fl[c])) (*rho_out)[c] = 0.f;
  }
  exec::fence(ex);
  std::vector<double> f = read_slots(s);
  for (std::size_t c = 0; c < fl.size(); ++c)  // compare fluid cells only: wall slots are never defined
    if (!is_fluid(fl[c]))
      for (int q = 0; q < lattice_q(k); ++q) f[std::size_t(q) * fl.size() + c] = 0.0;
  return f;
}

double tol(Precision p) { return p == Precision::FP64 ? 1e-14 : (p == Precision::FP32 ? 1e-6 : 4e-5); }

const LatticeKind kLattices[] = {LatticeKind::D2Q9, LatticeKind::D3Q19, LatticeKind::D3Q27};
const Precision kPrecisions[] = {Precision::FP64, Precision::FP32, Precision::FP16};
const CollisionKind kCollisions[] = {CollisionKind::BGK, CollisionKind::TRT, CollisionKind::Regularized};

}  // namespace

TEST_CASE("GPU reference path matches the host on random lattices", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : kLattices)
    for (Precision pr : kPrecisions)
      for (CollisionKind ck : kCollisions) {
        INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck));
        std::vector<float> rh, rd;
        const auto h = run(k, pr, ck, exec::Space::Host, KernelPath::Reference, 5, &rh);
        const auto d = run(k, pr, ck, exec::Space::Device, KernelPath::Reference, 5, &rd);
        REQUIRE(max_diff(h, d) < tol(pr));
        double m = 0;
        for (std::size_t i = 0; i < rh.size(); ++i) m = std::max(m, double(std::abs(rh[i] - rd[i])));
        REQUIRE(m < 1e-5);
      }
}

TEST_CASE("tuned CUDA kernel matches the portable reference on the GPU", "[lbm][gpu]") {
  TESSERA_GPU_TEST();
  for (LatticeKind k : {LatticeKind::D3Q19, LatticeKind::D3Q27})
    for (Precision pr : {Precision::FP32, Precision::FP16})
      for (CollisionKind ck : kCollisions) {
        INFO(to_string(k) << " " << to_string(pr) << " " << to_string(ck));
        REQUIRE(tuned_available(k, pr));
        const auto ref = run(k, pr, ck, exec::Space::Device, KernelPath::Reference, 6);
        const auto tun = run(k, pr, ck, exec::Space::Device, KernelPath::Tuned, 6);
        REQUIRE(max_diff(ref, tun) < tol(pr));
      }
}
