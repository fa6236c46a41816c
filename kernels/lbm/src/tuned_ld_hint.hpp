// Internal: loads of population storage with the L2 128-byte prefetch-size hint (ld.global.L2::128B,
// sm_80+: on a miss the L2 fetches the whole aligned 128-byte line, not only the sectors asked for), for
// the tuned LBM kernels with fp16 storage and D3Q27 (l2hint_wanted below; docs/performance.md, LBM items
// 19-20). The same
// hint made the COSMO vadv kernel 2-3 % faster (kernels/weather/src/ld_hint.hpp). Plain loads where the
// code is compiled for the host (test_lbm_tuned's warp emulation). Each asm carries a "memory" clobber, so
// the compiler keeps it before the kernel's later stores to the same cells, as for a plain load.
#pragma once
#include <cstdint>

#include "tessera/core/knob.hpp"
#include "tessera/lbm/half.hpp"

namespace tessera::lbm::detail {

template <class T>
__device__ inline T ld_l2_128(const T* p);

template <>
__device__ inline float ld_l2_128<float>(const float* p) {
#if defined(__CUDA_ARCH__)
  float v;
  asm volatile("ld.global.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
  return v;
#else
  return *p;
#endif
}
template <>
__device__ inline half_t ld_l2_128<half_t>(const half_t* p) {
#if defined(__CUDA_ARCH__)
  unsigned short b;
  asm volatile("ld.global.L2::128B.u16 %0, [%1];" : "=h"(b) : "l"(p) : "memory");
  return half_t{uint16_t(b)};
#else
  return *p;
#endif
}
template <>
__device__ inline float4 ld_l2_128<float4>(const float4* p) {
#if defined(__CUDA_ARCH__)
  float4 v;
  asm volatile("ld.global.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
#else
  return *p;
#endif
}
template <>
__device__ inline uint2 ld_l2_128<uint2>(const uint2* p) {
#if defined(__CUDA_ARCH__)
  uint2 v;
  asm volatile("ld.global.L2::128B.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p) : "memory");
  return v;
#else
  return *p;
#endif
}

// A load of *p, hinted when H.
template <bool H, class T>
__device__ inline T ld_pop(const T* p) {
  if constexpr (H) return ld_l2_128(p);
  else return *p;
}

// Whether the quad kernel's even steps and the 32-bit one-cell kernel (both steps) load with the hint, for
// the force-free BGK collision (read per launch: benchmarks and tests switch it). TESSERA_LBM_L2HINT: "on" /
// "1", "off" / "0", or unset / "auto": `automatic`, which the callers set for fp16 storage and for D3Q27
// (fp32 too). Measured on an H200 (docs/performance.md, LBM items 19-20): fp16
// +2 % D3Q19 / +4 % D3Q27 in the periodic box and +8-11 % / +4-5 % with walls at 256^3 and 512^3 (e29c996);
// D3Q27 fp32 +2.6 % on the 32-bit one-cell kernel (f8575bd) and +3 % more on the quad kernel's even steps
// (dac0264); D3Q19 fp32 (its quad even steps) -0.7 %.
inline bool l2hint_wanted(bool automatic) {
  const int v = knob_choice("TESSERA_LBM_L2HINT", {"on|1", "off|0", "auto"}, "auto", "auto, on for fp16 storage and D3Q27");
  return v == 2 ? automatic : v == 0;
}

// Whether the force-free BGK kernels issue their population loads before the cells' flags have arrived
// (the SP forms: the hinted one-cell kernel, the quad kernel's even steps in both forms, the pair kernel;
// docs/performance.md, LBM item 32). TESSERA_LBM_SPECULATE (read per launch: benchmarks and tests switch
// it): "on" / "1" every SP form; "odd" the kernels of the odd steps only (the one-cell and the pair
// kernel); "patch" none, but the one-cell kernel's odd step loads every fluid cell's streamed values and
// then replaces a wall-adjacent cell's links from walls (its SP form's wall path, after the flag); "off" /
// "0" none; unset or "auto": `automatic`, which the one-cell kernel's launcher sets to patch for D3Q27
// with fp16 storage (measured: walled box +6.5-15 %, periodic level; D3Q19 fp16 and D3Q27 fp32 lost up to
// 2-4 % with it) and the others leave off.
enum class Speculate { Off, On, Odd, Patch };
inline Speculate speculate_mode(Speculate automatic = Speculate::Off) {
  static constexpr Speculate kModes[] = {Speculate::On, Speculate::Odd, Speculate::Patch, Speculate::Off};
  const int v = knob_choice("TESSERA_LBM_SPECULATE", {"on|1", "odd", "patch", "off|0", "auto"}, "auto",
                            "auto, patch for D3Q27 with fp16 storage, off elsewhere");
  return v == 4 ? automatic : kModes[v];
}
// Whether the quad kernel's even steps (both forms) speculate.
inline bool speculate_wanted() { return speculate_mode() == Speculate::On; }
// Whether the odd steps' pair kernel speculates.
inline bool speculate_odd_wanted() {
  const Speculate m = speculate_mode();
  return m == Speculate::On || m == Speculate::Odd;
}

}  // namespace tessera::lbm::detail
