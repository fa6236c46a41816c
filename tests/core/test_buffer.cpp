// Buffer<T>: RAII, move-only, copies between every pair of kinds, managed-memory guard, CUDA errors.
#include <numeric>
#include <random>
#include <type_traits>

#include "catch_compat.hpp"
#include "tessera/core/buffer.hpp"
#include "tessera/core/cuda_check.hpp"
#include "tessera/core/device.hpp"

using namespace tessera;

static_assert(!std::is_copy_constructible_v<Buffer<float>>);
static_assert(std::is_nothrow_move_constructible_v<Buffer<float>>);

namespace {
void round_trip(MemKind mid) {
  const std::size_t n = 1 << 20;
  Buffer<float> src(n, MemKind::Host), back(n, MemKind::Host);
  std::mt19937 g(unsigned(mid) + 3);
  std::uniform_real_distribution<float> d(-5.f, 5.f);
  for (auto& x : src) x = d(g);
  for (auto& x : back) x = -99.f;  // poison
  Buffer<float> a(n, mid, "a"), b(n, mid, "b");
  copy(a, src);
  copy(b, a);  // same-kind copy
  Buffer<float> pinned(n, MemKind::Pinned);
  copy(pinned, b);  // kind -> pinned
  copy(back, pinned);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += back[i] != src[i];
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("host and pinned buffers copy and move", "[buffer]") {
  round_trip(MemKind::Host);
  round_trip(MemKind::Pinned);
  Buffer<int> a(10, MemKind::Host);
  std::iota(a.begin(), a.end(), 0);
  Buffer<int> b(std::move(a));
  CHECK(a.data() == nullptr);
  CHECK(a.size() == 0);
  REQUIRE(b.size() == 10);
  CHECK(b[9] == 9);
  Buffer<int> c;
  c = std::move(b);
  CHECK(c[3] == 3);
  c.zero();
  CHECK(std::accumulate(c.begin(), c.end(), 0) == 0);
}

TEST_CASE("copy refuses a destination that is too small", "[buffer]") {
  Buffer<double> a(10, MemKind::Host), b(5, MemKind::Host);
  CHECK_THROWS_AS(copy(b, a), tessera::Error);
}

TEST_CASE("memory kinds parse and report accessibility", "[buffer]") {
  CHECK(parse_memkind("managed") == MemKind::Managed);
  CHECK_THROWS_AS(parse_memkind("texture"), tessera::Error);
  CHECK(accessible_from(MemKind::Device, exec::Space::Device));
  CHECK_FALSE(accessible_from(MemKind::Device, exec::Space::Host));
  CHECK(accessible_from(MemKind::Managed, exec::Space::Host));
}

TEST_CASE("device memory in a host-only build is refused clearly", "[buffer]") {
  if (exec::cuda_enabled()) return;
  try {
    Buffer<float> d(16, MemKind::Device, "rho");
    FAIL("expected an exception");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("rho") != std::string::npos);
    CHECK(m.find("--device cpu") != std::string::npos);
  }
}

TEST_CASE("device and managed buffers round-trip through every kind", "[gpu][buffer]") {
  TESSERA_GPU_TEST();
  round_trip(MemKind::Device);
  round_trip(MemKind::Managed);
  // managed with prefetch and advice, then read on the host
  Buffer<double> m(1 << 16, MemKind::Managed, "m");
  m.advise(MemAdvice::PreferDevice);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = double(i);
  m.prefetch(exec::Space::Device);
  m.prefetch(exec::Space::Host);
  device::synchronize();
  CHECK(m[12345] == 12345.0);
}

TEST_CASE("managed allocation beyond free GPU memory is refused", "[gpu][buffer]") {
  TESSERA_GPU_TEST();
  const auto [fr, tot] = device::mem_info();
  REQUIRE(tot > 0);
  try {
    Buffer<char> big(fr + (std::size_t(1) << 30), MemKind::Managed, "too_big");
    FAIL("managed allocation beyond free memory was accepted");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("refusing managed allocation") != std::string::npos);
    CHECK(m.find("too_big") != std::string::npos);
  }
}

#if TESSERA_HAVE_CUDA
TEST_CASE("a failing CUDA call throws with the call, file and line", "[gpu][errors]") {
  TESSERA_GPU_TEST();
  try {
    TESSERA_CUDA_CHECK(cudaSetDevice(12345));
    FAIL("expected an exception");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("cudaSetDevice(12345)") != std::string::npos);
    CHECK(m.find("test_buffer.cpp:") != std::string::npos);
    CHECK(m.find("cudaErrorInvalidDevice") != std::string::npos);
  }
}
#endif

TEST_CASE("TESSERA_REQUIRE names the condition, file and line", "[errors]") {
  try {
    TESSERA_REQUIRE(1 + 1 == 3, "arithmetic is broken");
    FAIL("expected an exception");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("1 + 1 == 3") != std::string::npos);
    CHECK(m.find("arithmetic is broken") != std::string::npos);
    CHECK(m.find("test_buffer.cpp:") != std::string::npos);
  }
}
