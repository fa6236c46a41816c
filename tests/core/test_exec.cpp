// parallel_for and reductions: host back end against a serial loop, GPU against host, random inputs.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "catch_compat.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/exec.hpp"
#include "tessera/core/stream.hpp"

#if TESSERA_CUDA_COMPILER
#include <cuda_runtime.h>
#endif

using namespace tessera;
using exec::Range2;
using exec::Range3;

namespace {
struct FillConst {
  double* p;
  double v;
  TESSERA_HD void operator()(int64_t i) const { p[i] = v; }
};

std::vector<double> random_vec(std::size_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Runs the same kernels in the given space; data lives in the memory kind that space uses.
struct Results {
  std::vector<double> out1, out2, out3;
  double sum = 0, mn = 0, mx = 0;
  std::array<double, 3> sums{};
  double sum3 = 0;
};

Results run_kernels(exec::Space space, const std::vector<double>& in, int64_t nx, int64_t ny, int64_t nz) {
  const exec::Exec ex(space);
  const MemKind mk = default_memkind(space);
  const std::size_t n = in.size();
  Buffer<double> h_in(n, MemKind::Host), d_in(n, mk), d_out(n, mk);
  std::copy(in.begin(), in.end(), h_in.begin());
  copy(d_in, h_in);
  const double* a = d_in.data();
  double* o = d_out.data();
  Results r;
  Buffer<double> h_out(n, MemKind::Host);

  exec::parallel_for(ex, "test::axpy", int64_t(n), TESSERA_LAMBDA(int64_t i) { o[i] = 2.0 * a[i] + 1.0; });
  exec::fence(ex);
  copy(h_out, d_out);
  r.out1.assign(h_out.begin(), h_out.end());

  const int64_t nxy = nx * ny;
  exec::parallel_for(ex, "test::2d", Range2{nx, ny * nz}, TESSERA_LAMBDA(int64_t i, int64_t j) {
    const int64_t idx = i + nx * j;
    o[idx] = a[idx] * double(i + 1) - double(j);
  });
  exec::fence(ex);
  copy(h_out, d_out);
  r.out2.assign(h_out.begin(), h_out.end());

  exec::parallel_for(ex, "test::3d", Range3{nx, ny, nz}, TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {
    const int64_t idx = i + nx * j + nxy * k;
    // a stencil-like read of neighbours with periodic wrap
    const int64_t ip = (i + 1) % nx, jm = (j + ny - 1) % ny, kp = (k + 1) % nz;
    o[idx] = a[ip + nx * j + nxy * k] + a[i + nx * jm + nxy * k] + a[i + nx * j + nxy * kp] - 3.0 * a[idx];
  });
  exec::fence(ex);
  copy(h_out, d_out);
  r.out3.assign(h_out.begin(), h_out.end());

  r.sum = exec::reduce_sum<double>(ex, "test::sum", int64_t(n), TESSERA_LAMBDA(int64_t i) { return a[i]; });
  r.mn = exec::reduce_min<double>(ex, "test::min", int64_t(n), TESSERA_LAMBDA(int64_t i) { return a[i]; });
  r.mx = exec::reduce_max<double>(ex, "test::max", int64_t(n), TESSERA_LAMBDA(int64_t i) { return a[i]; });
  r.sums = exec::reduce_sums<double, 3>(ex, "test::sums", int64_t(n), TESSERA_LAMBDA(int64_t i) {
    exec::Vec<double, 3> v;
    v[0] = a[i];
    v[1] = a[i] * a[i];
    v[2] = a[i] > 0 ? 1.0 : 0.0;
    return v;
  });
  r.sum3 = exec::reduce_sum<double>(ex, "test::sum3", Range3{nx, ny, nz},
                                    TESSERA_LAMBDA(int64_t i, int64_t j, int64_t k) {
                                      return a[i + nx * j + nxy * k] * double(i + 2 * j + 3 * k);
                                    });
  return r;
}

// exact: host back end (same operations, no FMA contraction). Otherwise (GPU) nvcc contracts a*b+c into
// fused multiply-adds, so each result may differ by rounding: |x - ref| <= 4 eps * (sum of |terms|).
void check_against_serial(const Results& r, const std::vector<double>& in, int64_t nx, int64_t ny, int64_t nz,
                          bool exact) {
  const double eps = exact ? 0.0 : 4.0 * 2.220446049250313e-16;
  auto differs = [&](double x, double ref, double scale) { return std::abs(x - ref) > eps * scale; };
  const int64_t n = int64_t(in.size()), nxy = nx * ny;
  int64_t bad1 = 0, bad2 = 0, bad3 = 0;
  double sum = 0, mn = 1e300, mx = -1e300, sq = 0, pos = 0, s3 = 0;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t idx = i + nx * j + nxy * k;
        const double a = in[size_t(idx)];
        bad1 += r.out1[size_t(idx)] != 2.0 * a + 1.0;
        bad2 += differs(r.out2[size_t(idx)], a * double(i + 1) - double(j + ny * k),
                        std::abs(a) * double(i + 1) + double(j + ny * k));
        const int64_t ip = (i + 1) % nx, jm = (j + ny - 1) % ny, kp = (k + 1) % nz;
        const double st = in[size_t(ip + nx * j + nxy * k)] + in[size_t(i + nx * jm + nxy * k)] +
                          in[size_t(i + nx * j + nxy * kp)] - 3.0 * a;
        bad3 += differs(r.out3[size_t(idx)], st,
                        std::abs(in[size_t(ip + nx * j + nxy * k)]) + std::abs(in[size_t(i + nx * jm + nxy * k)]) +
                            std::abs(in[size_t(i + nx * j + nxy * kp)]) + 3.0 * std::abs(a));
        sum += a;
        sq += a * a;
        pos += a > 0;
        mn = std::min(mn, a);
        mx = std::max(mx, a);
        s3 += a * double(i + 2 * j + 3 * k);
      }
  (void)n;
  CHECK(bad1 == 0);
  CHECK(bad2 == 0);
  CHECK(bad3 == 0);
  const double tol = 1e-12 * double(n);
  CHECK(std::abs(r.sum - sum) <= tol);
  CHECK(r.mn == mn);
  CHECK(r.mx == mx);
  CHECK(std::abs(r.sums[0] - sum) <= tol);
  CHECK(std::abs(r.sums[1] - sq) <= tol);
  CHECK(r.sums[2] == pos);
  CHECK(std::abs(r.sum3 - s3) <= 1e-12 * double(n) * double(nx + ny + nz) * 3);
}
}  // namespace

TEST_CASE("host back end matches a serial loop on random data", "[exec]") {
  const int64_t nx = 37, ny = 23, nz = 19;
  const auto in = random_vec(size_t(nx * ny * nz), 42);
  const auto r = run_kernels(exec::Space::Host, in, nx, ny, nz);
  check_against_serial(r, in, nx, ny, nz, true);
}

TEST_CASE("host reductions are deterministic", "[exec]") {
  const auto in = random_vec(100003, 7);
  const auto r1 = run_kernels(exec::Space::Host, in, 100003, 1, 1);
  const auto r2 = run_kernels(exec::Space::Host, in, 100003, 1, 1);
  CHECK(r1.sum == r2.sum);
  CHECK(r1.sums[1] == r2.sums[1]);
}

TEST_CASE("parse_space accepts cpu/gpu and rejects others", "[exec]") {
  CHECK(exec::parse_space("cpu") == exec::Space::Host);
  CHECK(exec::parse_space("GPU") == exec::Space::Device);
  CHECK_THROWS_AS(exec::parse_space("tpu"), tessera::Error);
}

TEST_CASE("device work in a host-only build fails with a clear message", "[exec]") {
  if (exec::cuda_enabled()) return;  // only meaningful without the CUDA back end
  try {
    exec::parallel_for(exec::Exec(exec::Space::Device), "test::nocuda", 10, TESSERA_LAMBDA(int64_t) {});
    FAIL("expected an exception");
  } catch (const tessera::Error& e) {
    CHECK(std::string(e.what()).find("--device cpu") != std::string::npos);
  }
}

TEST_CASE("GPU back end matches the host back end on random data", "[gpu][exec]") {
  TESSERA_GPU_TEST();
  for (auto [nx, ny, nz] : {std::array<int64_t, 3>{37, 23, 19}, std::array<int64_t, 3>{300, 70, 65}}) {
    const auto in = random_vec(size_t(nx * ny * nz), unsigned(nx));
    const auto rg = run_kernels(exec::Space::Device, in, nx, ny, nz);
    check_against_serial(rg, in, nx, ny, nz, false);
  }
}

TEST_CASE("a high-priority stream gets the device's greatest priority, a normal one its least", "[gpu][exec]") {
  TESSERA_GPU_TEST();
#if TESSERA_CUDA_COMPILER
  int least = 0, greatest = 0;
  REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
  REQUIRE(greatest < least);  // Hopper has several priority levels; without them the test would be void
  Stream hi(exec::Space::Device, Stream::Priority::High), lo(exec::Space::Device);
  int p_hi = 0, p_lo = 0;
  REQUIRE(cudaStreamGetPriority(static_cast<cudaStream_t>(hi.handle()), &p_hi) == cudaSuccess);
  REQUIRE(cudaStreamGetPriority(static_cast<cudaStream_t>(lo.handle()), &p_lo) == cudaSuccess);
  CHECK(p_hi == greatest);
  CHECK(p_lo == least);
  // Work on both still runs: a kernel on each stream.
  Buffer<double> a(64, MemKind::Device), b(64, MemKind::Device);
  exec::parallel_for(hi.exec(), "test::hi", 64, FillConst{a.data(), 1.0});
  exec::parallel_for(lo.exec(), "test::lo", 64, FillConst{b.data(), 2.0});
  hi.synchronize();
  lo.synchronize();
  std::vector<double> ha(64), hb(64);
  copy_n(ha.data(), MemKind::Host, a.data(), MemKind::Device, 64);
  copy_n(hb.data(), MemKind::Host, b.data(), MemKind::Device, 64);
  CHECK(ha[63] == 1.0);
  CHECK(hb[0] == 2.0);
#endif
}
