// Host emulation of a CUDA warp, for the tests that run a tuned kernel's device code on the host (the LBM
// pair and quad kernels in tests/lbm/test_tuned.cpp, the COSMO hdiff wide forms in
// tests/weather/test_hdiff_emulated.cpp): a warp's 32 lanes are 32 threads that meet at a barrier at every
// shuffle and vote, so a host-only build checks the kernels' lane logic (index arithmetic, shuffles,
// masks) against the portable code. Include it in a host translation unit (not one nvcc compiles), before
// the kernel header: it defines __device__, __ldg and the warp intrinsics the kernels use.
#pragma once
#if defined(__CUDACC__)
#error "warp_emulation.hpp is for host translation units"
#endif
#include <barrier>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace tessera::test::emu {
struct Warp {
  std::barrier<>* bar;
  uint64_t slot[32];
};
inline thread_local Warp* tw = nullptr;
inline thread_local unsigned tlane = 0;

// The value of lane + d (the lane's own value where that lane does not exist, as __shfl_up/down_sync give).
template <class T>
T exchange(T v, int d) {
  static_assert(sizeof(T) <= sizeof(uint64_t));
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  tw->slot[tlane] = u;
  tw->bar->arrive_and_wait();
  const int src = (int(tlane) + d < 0 || int(tlane) + d > 31) ? int(tlane) : int(tlane) + d;
  const uint64_t w = tw->slot[src];
  tw->bar->arrive_and_wait();
  T r;
  std::memcpy(&r, &w, sizeof(T));
  return r;
}

// Runs body(lane) for the 32 lanes of one warp, as 32 threads whose shuffles and votes meet.
template <class Body>
void run_warp(Body body) {
  std::barrier<> bar(32);
  Warp w{&bar, {}};
  std::vector<std::thread> lanes;
  for (unsigned l = 0; l < 32; ++l)
    lanes.emplace_back([&, l] {
      tw = &w;
      tlane = l;
      body(l);
    });
  for (std::thread& t : lanes) t.join();
}
}  // namespace tessera::test::emu

#define __device__
template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T __shfl_up_sync(unsigned, T v, int) {
  return tessera::test::emu::exchange(v, -1);
}
template <class T>
T __shfl_down_sync(unsigned, T v, int) {
  return tessera::test::emu::exchange(v, +1);
}
inline uint32_t __ballot_sync(unsigned, bool p) {
  using namespace tessera::test::emu;
  tw->slot[tlane] = p;
  tw->bar->arrive_and_wait();
  uint32_t m = 0;
  for (unsigned i = 0; i < 32; ++i)
    if (tw->slot[i]) m |= 1u << i;
  tw->bar->arrive_and_wait();
  return m;
}
inline bool __any_sync(unsigned, bool p) { return __ballot_sync(0, p) != 0; }
inline bool __all_sync(unsigned, bool p) { return __ballot_sync(0, p) == 0xffffffffu; }
