// COSMO stencils and tracer advection: analytic Fourier damping, limiter monotonicity, the fused
// diffusion against the staged reference, the Thomas solve against dense elimination, exact column
// and horizontal conservation, and the GPU against the host on random inputs.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "catch_compat.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/hdiff.hpp"
#include "tessera/weather/tracer_advection.hpp"
#include "tessera/weather/vadv.hpp"
#include "weather_test_util.hpp"

using namespace tessera;
using namespace tessera::weather;
using namespace tessera::weather::test;

namespace {
const exec::Exec host(exec::Space::Host);
SwParams periodic() { return SwParams{}; }

std::vector<double> run_hdiff(const Grid& gr, const std::vector<double>& in, double coeff) {
  Buffer<double> a(in.size(), MemKind::Host), o(in.size(), MemKind::Host);
  std::copy(in.begin(), in.end(), a.begin());
  o.zero();
  scalar_fill_ghosts_local(host, gr, periodic(), a.data());
  hdiff_fused(host, gr, a.data(), nullptr, coeff, o.data());
  return std::vector<double>(o.begin(), o.end());
}

// Dense Gaussian elimination of the vadv system of one column (independent of the Thomas code).
std::vector<double> dense_column(const std::vector<double>& phi, const std::vector<double>& w, const VadvParams& vp) {
  const size_t n = phi.size();
  const double r = vp.dt / vp.dz, be = vp.beta;
  std::vector<std::vector<double>> A(n, std::vector<double>(n + 1, 0.0));
  for (size_t k = 0; k < n; ++k) {
    const double wm = k > 0 ? w[k - 1] : 0.0, wp = k + 1 < n ? w[k] : 0.0;
    const double pm = k > 0 ? phi[k - 1] : 0.0, pp = k + 1 < n ? phi[k + 1] : 0.0;
    if (k > 0) A[k][k - 1] = -0.5 * be * r * wm;
    if (k + 1 < n) A[k][k + 1] = 0.5 * be * r * wp;
    A[k][k] = 1.0 + 0.5 * be * r * (wp - wm);
    A[k][n] = phi[k] - (1 - be) * r * 0.5 * (wp * (phi[k] + pp) - wm * (pm + phi[k]));
  }
  for (size_t c = 0; c < n; ++c) {  // partial pivoting
    size_t piv = c;
    for (size_t rr = c + 1; rr < n; ++rr)
      if (std::abs(A[rr][c]) > std::abs(A[piv][c])) piv = rr;
    std::swap(A[c], A[piv]);
    for (size_t rr = c + 1; rr < n; ++rr) {
      const double f = A[rr][c] / A[c][c];
      for (size_t q = c; q <= n; ++q) A[rr][q] -= f * A[c][q];
    }
  }
  std::vector<double> x(n);
  for (size_t c = n; c-- > 0;) {
    double s = A[c][n];
    for (size_t q = c + 1; q < n; ++q) s -= A[c][q] * x[q];
    x[c] = s / A[c][c];
  }
  return x;
}
}  // namespace

TEST_CASE("hdiff damps a Fourier mode by 1 - coeff s^2", "[weather][hdiff]") {
  const int m = GENERATE(1, 3, 8);
  Grid gr = make_grid(32, 6, 1.0, 1.0, 2, 3);
  std::vector<double> in(size_t(gr.size3()), 0.0);
  const double kx = 2 * std::numbers::pi * m / double(gr.nx);
  for (int64_t k = 0; k < gr.nz; ++k)
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) in[size_t(gr.idx(i, j, k))] = 5.0 + (1.0 + k) * std::sin(kx * double(i) + 0.3);
  const double coeff = 0.01;
  const auto out = run_hdiff(gr, in, coeff);
  const double s = 4 * std::pow(std::sin(0.5 * kx), 2);
  const double amp = 1.0 - coeff * s * s;
  double err = 0;
  for (int64_t k = 0; k < gr.nz; ++k)
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) {
        const size_t n = size_t(gr.idx(i, j, k));
        err = std::max(err, std::abs(out[n] - (5.0 + amp * (in[n] - 5.0))));
      }
  CHECK(err < 1e-13);
}

TEST_CASE("hdiff limiter keeps a step monotone where the unlimited stencil overshoots", "[weather][hdiff]") {
  Grid gr = make_grid(24, 24, 1.0, 1.0, 2, 1);
  std::vector<double> in(size_t(gr.size3()), 0.0);
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) in[size_t(gr.idx(i, j))] = (i >= 6 && i < 14 && j >= 5 && j < 17) ? 1.0 : 0.0;
  const double coeff = 0.015;
  const auto out = run_hdiff(gr, in, coeff);
  double mn = 1e9, mx = -1e9, sum_in = 0, sum_out = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) {
      const size_t n = size_t(gr.idx(i, j));
      mn = std::min(mn, out[n]);
      mx = std::max(mx, out[n]);
      sum_in += in[n];
      sum_out += out[n];
    }
  CHECK(mn >= 0.0);
  CHECK(mx <= 1.0);
  CHECK(sum_out == Approx(sum_in).epsilon(1e-14));  // flux form: conservative
  CHECK(out[size_t(gr.idx(5, 10))] > 0.01);         // and it does diffuse across the step
  // the unlimited bi-Laplacian undershoots two cells outside the step: -coeff at (4, 10)
  Buffer<double> a(in.size(), MemKind::Host);
  std::copy(in.begin(), in.end(), a.begin());
  scalar_fill_ghosts_local(host, gr, periodic(), a.data());
  const HdiffPoint P{gr, a.data()};
  const double lc = P.lap(4, 10, 0), le = P.lap(5, 10, 0), lw = P.lap(3, 10, 0);
  const double unlimited = in[size_t(gr.idx(4, 10))] - coeff * ((le - lc) - (lc - lw) + (P.lap(4, 11, 0) - lc) - (lc - P.lap(4, 9, 0)));
  CHECK(unlimited == Approx(-coeff).epsilon(1e-12));  // an undershoot the limiter removes
  CHECK(out[size_t(gr.idx(4, 10))] == 0.0);
}

TEST_CASE("hdiff fused path matches the staged reference on random inputs", "[weather][hdiff]") {
  Grid gr = make_grid(29, 21, 1.0, 1.0, 2, 7);
  const auto in = random_field(size_t(gr.size3()), -1.0, 1.0, 7);
  const auto cf = random_field(size_t(gr.size3()), 0.0, 0.015, 8);
  Buffer<double> a(in.size(), MemKind::Host), c(in.size(), MemKind::Host), o1(in.size(), MemKind::Host),
      o2(in.size(), MemKind::Host);
  std::copy(in.begin(), in.end(), a.begin());
  std::copy(cf.begin(), cf.end(), c.begin());
  hdiff_fused(host, gr, a.data(), c.data(), 0.0, o1.data());
  HdiffScratch w(gr, MemKind::Host);
  hdiff_reference(host, gr, a.data(), c.data(), 0.0, w, o2.data());
  double err = 0;
  for (int64_t k = 0; k < gr.nz; ++k)
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) err = std::max(err, std::abs(o1[size_t(gr.idx(i, j, k))] - o2[size_t(gr.idx(i, j, k))]));
  CHECK(err == 0.0);  // identical arithmetic in the same order
}

TEST_CASE("vadv Thomas and twisted solves match dense elimination and conserve the column", "[weather][vadv]") {
  const double beta = GENERATE(0.5, 0.6, 1.0);
  // 1 to 3 levels (the twisted halves empty or one level each), odd and even depths.
  const int64_t nz = GENERATE(1, 2, 3, 40, 41);
  const bool twisted = GENERATE(false, true);
  INFO("beta " << beta << ", nz " << nz << (twisted ? ", twisted" : ", Thomas"));
  Grid gr = make_grid(5, 4, 1.0, 1.0, 2, nz);
  VadvParams vp{20.0, 100.0, beta};
  const auto phi = random_field(size_t(gr.size3()), 0.0, 1.0, 17);
  const auto w = random_field(size_t(gr.size3()), -1.0, 1.0, 18);  // Courant <= 0.2
  Buffer<double> a(phi.size(), MemKind::Host), ww(phi.size(), MemKind::Host), sc(phi.size(), MemKind::Host),
      o(phi.size(), MemKind::Host);
  std::copy(phi.begin(), phi.end(), a.begin());
  std::copy(w.begin(), w.end(), ww.begin());
  if (twisted) vadv_columns_portable_twisted(host, gr, vp, a.data(), ww.data(), sc.data(), o.data());
  else vadv_columns(host, gr, vp, a.data(), ww.data(), sc.data(), o.data());
  CHECK(vadv_max_courant(host, gr, vp, ww.data()) <= 0.2);
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) {
      std::vector<double> col(size_t(gr.nz)), wc(size_t(gr.nz));
      double s_in = 0, s_out = 0;
      for (int64_t k = 0; k < gr.nz; ++k) {
        col[size_t(k)] = phi[size_t(gr.idx(i, j, k))];
        wc[size_t(k)] = w[size_t(gr.idx(i, j, k))];
        s_in += col[size_t(k)];
        s_out += o[size_t(gr.idx(i, j, k))];
      }
      const auto x = dense_column(col, wc, vp);
      double err = 0;
      for (int64_t k = 0; k < gr.nz; ++k) err = std::max(err, std::abs(x[size_t(k)] - o[size_t(gr.idx(i, j, k))]));
      CHECK(err < 1e-13);
      CHECK(s_out == Approx(s_in).epsilon(1e-14));
    }
}

TEST_CASE("tracer advection is conservative and monotone, and keeps a constant", "[weather][tracer]") {
  Grid gr = make_grid(40, 30, 1.0, 1.0, 2, 2);
  const size_t n3 = size_t(gr.size3()), n2 = size_t(gr.size2());
  Buffer<double> u(n2, MemKind::Host), v(n2, MemKind::Host);
  for (size_t n = 0; n < n2; ++n) {
    u[n] = 0.7;
    v[n] = -0.4;
  }
  Buffer<double> c0(n3, MemKind::Host), c1(n3, MemKind::Host), c2(n3, MemKind::Host);
  for (int64_t k = 0; k < gr.nz; ++k)
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i)
        c0[size_t(gr.idx(i, j, k))] = k == 0 ? ((i > 10 && i < 22 && j > 8 && j < 20) ? 2.0 : 1.0) : 3.25;
  auto sum_level = [&](const Buffer<double>& c, int64_t k) {
    double s = 0;
    for (int64_t j = 0; j < gr.ny; ++j)
      for (int64_t i = 0; i < gr.nx; ++i) s += c[size_t(gr.idx(i, j, k))];
    return s;
  };
  const double s0 = sum_level(c0, 0);
  const double dt = 0.4 / 0.7 / 2;  // Courant 0.2 per direction
  const SwParams per;
  for (int step = 0; step < 60; ++step) {
    scalar_fill_ghosts_local(host, gr, per, c0.data());
    tracer_stage(host, gr, c0.data(), c0.data(), u.data(), v.data(), c1.data(), 0.0, 1.0, dt);
    scalar_fill_ghosts_local(host, gr, per, c1.data());
    tracer_stage(host, gr, c0.data(), c1.data(), u.data(), v.data(), c2.data(), 0.75, 0.25, dt);
    scalar_fill_ghosts_local(host, gr, per, c2.data());
    tracer_stage(host, gr, c0.data(), c2.data(), u.data(), v.data(), c0.data(), 1.0 / 3.0, 2.0 / 3.0, dt);
  }
  double mn = 1e9, mx = -1e9, err1 = 0;
  for (int64_t j = 0; j < gr.ny; ++j)
    for (int64_t i = 0; i < gr.nx; ++i) {
      mn = std::min(mn, c0[size_t(gr.idx(i, j, 0))]);
      mx = std::max(mx, c0[size_t(gr.idx(i, j, 0))]);
      err1 = std::max(err1, std::abs(c0[size_t(gr.idx(i, j, 1))] - 3.25));
    }
  CHECK(mn >= 1.0 - 1e-12);
  CHECK(mx <= 2.0 + 1e-12);
  CHECK(mx > 1.5);  // not simply smeared away
  CHECK(sum_level(c0, 0) == Approx(s0).epsilon(1e-13));
  CHECK(err1 < 1e-13);
}

TEST_CASE("GPU COSMO stencils and tracer stage match the host", "[weather][hdiff][vadv][gpu]") {
  TESSERA_GPU_TEST();
  Grid gr = make_grid(260, 70, 1.0, 1.0, 2, 12);
  const size_t n3 = size_t(gr.size3());
  const auto in = random_field(n3, -1.0, 1.0, 71);
  const auto cf = random_field(n3, 0.0, 0.015, 72);
  const auto w = random_field(n3, -1.0, 1.0, 73);
  const auto uv = random_field(n3, -1.0, 1.0, 74);
  std::vector<double> res[2][4];
  for (int dev = 0; dev < 2; ++dev) {
    const exec::Exec ex(dev ? exec::Space::Device : exec::Space::Host);
    const MemKind mk = default_memkind(ex.space);
    Buffer<double> a(n3, mk), c(n3, mk), ww(n3, mk), u(n3, mk), o(n3, mk), o2(n3, mk), sc(n3, mk);
    upload(a, in);
    upload(c, cf);
    upload(ww, w);
    upload(u, uv);
    hdiff_fused(ex, gr, a.data(), c.data(), 0.0, o.data());
    exec::fence(ex);
    res[dev][0] = download(o);
    HdiffScratch hs(gr, mk);
    hdiff_reference(ex, gr, a.data(), c.data(), 0.0, hs, o.data());
    exec::fence(ex);
    res[dev][1] = download(o);
    vadv_columns(ex, gr, VadvParams{10.0, 50.0, 0.6}, a.data(), ww.data(), sc.data(), o2.data());
    exec::fence(ex);
    res[dev][2] = download(o2);
    tracer_stage(ex, gr, a.data(), a.data(), u.data(), u.data() + gr.size2(), o.data(), 0.5, 0.5, 0.2);
    exec::fence(ex);
    res[dev][3] = download(o);
  }
  for (int f = 0; f < 4; ++f) {
    double err = 0;
    for (int64_t k = 0; k < gr.nz; ++k)
      for (int64_t j = 0; j < gr.ny; ++j)
        for (int64_t i = 0; i < gr.nx; ++i) {
          const size_t n = size_t(gr.idx(i, j, k));
          err = std::max(err, std::abs(res[0][f][n] - res[1][f][n]));
        }
    INFO("field " << f);
    CHECK(err < 1e-12);  // FMA contraction on the device: a few ulp of O(1) values
  }
}
