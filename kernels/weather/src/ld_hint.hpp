// Read-only global loads with an L2 prefetch-size or L1 allocation hint, for the tuned vadv kernel (CUDA
// builds only). The LBM kernels' population loads have their own (kernels/lbm/src/tuned_ld_hint.hpp: not
// .nc, since those kernels write the arrays they read, and for float / half storage).
// ld.global.nc.L2::128B (sm_80+): on a miss the L2 fetches the whole aligned 128-byte line around the
// access instead of the sectors asked for. Measured on an H200 (docs/performance.md, "COSMO stencils"):
// the twisted vadv kernel 0.786 / 0.866-0.871 / 0.913-0.915 of copy at 256^2 / 512^2 / 1024^2 x 80 against
// 0.771-0.773 / 0.845 / 0.885-0.889 with __ldg, same run (e24ecf6); the 256-byte hint 0.779-0.782 /
// 0.860-0.862 / 0.913-0.914; loads that skip L1 (L1::no_allocate) 0.73 / 0.75 / 0.77. The hdiff strips with
// the 128-byte hint measured the same as with __ldg (5e636e7: within 0.01 at every shape and size), so
// hdiff keeps __ldg.
#pragma once

namespace tessera::weather::detail {

__device__ __forceinline__ double ldg_l2_128(const double* p) {
  double v;
  asm volatile("ld.global.nc.L2::128B.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ double ldg_l2_256(const double* p) {
  double v;
  asm volatile("ld.global.nc.L2::256B.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

// The read-only load without allocating in L1 (ld.global.nc.L1::no_allocate; vadv's `twistq8gna`, measured
// 5-13 % slower, kept for measurement).
__device__ __forceinline__ double ldg_l1_no_allocate(const double* p) {
  double v;
  asm volatile("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

}  // namespace tessera::weather::detail
