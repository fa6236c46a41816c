// Internal: the slot arrays of the tuned LBM kernels' fields (populations, force components).
#pragma once
#include <cstdint>

namespace tessera::lbm::detail {

// The tuned kernels (the one-cell kernel's 32-bit form, the pair and quad kernels) index cells within one
// slot array in 32 bits, which needs fewer than 2^32 padded cells (tuned_index32_fits), and take each slot
// array's base from here, so that Q x cells may exceed 2^32 (the billion-cell runs: 1.5 G cells in fp32,
// 3 G in fp16 on one H200). Before, one base and 32-bit element indices q n + c limited them to Q x cells
// < 2^32 (D3Q19 up to ~600^3, D3Q27 ~540^3) and larger grids ran the 64-bit one-cell kernel.
//
// SlotPtrs: the Q bases as a kernel argument. With q known at compile time (unrolled loops) sp.p[q] + c is
// one wide multiply-add from the parameter bank: no registers held for the bases and the same register
// counts as the one-base form (ptxas, sm_90; forming f + q n in 64 bits per access instead cost the
// one-cell kernel 6-16 registers and a block per SM).
template <class S>
struct SlotPtrs {
  S* p[27];
};
template <class S>
inline SlotPtrs<S> make_slot_ptrs(S* f, int q, int64_t n) {
  SlotPtrs<S> r{};
  for (int i = 0; i < q; ++i) r.p[i] = f + i * n;
  return r;
}

// Cells before a slot array's start that a load may address: the pair and quad kernels' lanes before a
// plane's first row (bases rounded down to 2-256 cells) compute odd-step loads at c - (c_y px + c_z px py)
// up to this many cells before the array (their values are never used; the memory is the previous slot
// array's). slot_back keeps that difference from wrapping in 32 bits.
constexpr uint32_t kSlotReach = 256;

// Slot array p's element c - d, where c + kSlotReach >= d (in 32-bit arithmetic: d may be a negative
// offset's two's complement); the constant folds into the load's immediate offset.
template <class S>
__device__ inline S* slot_back(S* p, uint32_t c, uint32_t d) {
  return p + (c + kSlotReach - d) - kSlotReach;
}

// Slot array q of a field with n padded cells per slot, for q known only at run time (an index into
// SlotPtrs would copy the array to local memory) and for the force components: f + q n in 64 bits.
template <class T>
__device__ inline T* slot(T* f, uint32_t q, uint32_t n) {
  return f + uint64_t(q) * uint64_t(n);
}

}  // namespace tessera::lbm::detail
