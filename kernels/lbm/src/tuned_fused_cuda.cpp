// Two AA steps in one pass over memory: the even step and the odd step after it in one launch, the odd
// step of each plane running as soon as the even step has finished the planes it reads, while those are
// still in the L2 ("fused steps"; issue 5, docs/performance.md LBM item 36; measurement and opt-in:
// lbm::stream_collide_two, bench_lbm --kernel tuned-fused).
//
// Why: a step reads and writes every population once (153 B per D3Q19 cell in fp32); the two steps of an AA
// pair read and write the same slots, so if the odd step of a plane finds the even step's results in the L2
// the pair moves each byte to and from DRAM once instead of twice. Each cell's arithmetic is the pair
// kernel's (tuned_pair_kernel.hpp: the same pair_update, the same collide), so the values are those of two
// tuned steps bit for bit (tests/lbm/test_lbm_fused.cpp).
//
// Order: the box is cut into slabs of rows along y (FusedPlan::rows: as many rows as keep the planes in
// flight within the L2, fused_rows), and each slab into planes; the work items are (slab, plane, step)
// and every item is blocks of the pair kernel's shape (FusedPlan::te, to per even and odd item: the same
// count, unless the even items run the quad step, fused_even_quad). Blocks take tickets from a counter in
// launch order (not blockIdx), so that an item is only ever waited for by items with later tickets,
// which are held by blocks that are already running: no deadlock whatever the hardware's block order.
// Within a slab the items run E(0) .. E(lag - 1), then O(0), E(lag), O(1), E(lag + 1), ..., the odd
// planes `lag` behind the even ones. The odd step of plane k reads (and writes, in place) planes k - 1 ..
// k + 1, so it waits until the even step has finished them (per-(slab, plane) counters of finished
// blocks). A slab's odd items cover the rows [y0 - 1, y1 - 1) (the last slab's up to ny), so that the rows
// they read, y0 - 2 .. y1 - 1, have had their even step in this slab or the one before it; no other pair of
// items touches the same slot (AA: each slot is read and written by one cell in a step), so items run
// concurrently otherwise. Loads are L2-only (cache mode 4): another multiprocessor's writes earlier in the
// launch are in the L2, and an L1 line of this multiprocessor could be stale.
//
// Several pairs in one launch (stream_collide_pairs with TESSERA_LBM_FUSED_PAIRS > 1; measurement): the
// items of pair p + 1 follow those of pair p in the ticket order, and the even item E(p + 1, slab, k), which
// rewrites the slots that pair p's odd step read and wrote around it, first waits until pair p's odd items
// of planes k - 1 .. k + 1 of its slab and of the slab after it (whose odd rows start one row back, in this
// slab) have finished (a second set of counters). So the next pair's first slabs run while this pair's last
// ones finish, and the launch's ramp and tail (blocks idle at the end of each launch, more of the time at
// 256^3 than at 512^3) and the launch gap are paid once per launch, not once per pair; but every odd item
// but the last pair's then signals (a barrier, a fence, an atomic) and every even item but the first pair's
// waits (six acquire loads, in flight together since 2026-12-06), which on an H100 cost more than the tail
// (5-10 %, LBM items 39 and 40), hence not the default. The counters grow over the pairs of a launch (pair p's
// items are done at (p + 1) te or to blocks), since no item of pair p + 1 can finish before the items of pair p it
// depends on.
//
// Periodic axes (one rank whose ghost layer is its own image, FusedPlan::per; one pair per launch): the
// even items write the forward exchange themselves (pair_update's PER form, image_put: every cell on a
// periodic side stores its slots into its ghost images), and the caller runs the reverse exchange after the
// launch. The odd step of a plane or row then reads images that the even step of the box's other end
// writes: along x within the same item; along z the odd planes run one later, O(1) .. O(nz - 1) and O(0)
// last (after E(nz - 1), whose images are the ghost plane -1), and they wait for planes k - 1 .. k + 1 mod
// nz; along y the first slab's odd items leave row 0 to the last slab's (after E of row ny - 1, whose images
// are the ghost row -1), which also wait for the first slab's even items. Row 0 and plane 0 are then read
// late, from DRAM (a row per plane and a plane per slab).
//
// Limits (checked by stream_collide_two): BGK without any force, the pair kernel's layout
// (tuned_pair_applicable), no halo exchange between the two steps (one rank whose ghosts need none, such as
// a closed box, or one with periodic axes as above; bench_lbm's periodic box is timed without its exchange),
// no staged wall links (the pair kernel bounces the wall links itself, the face cells from their own flags
// as the default odd step does).
#include "lattice_impl.hpp"
#include "lattice_ops.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/knob.hpp"
#include "tessera/lbm/lattice_state.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#if TESSERA_CUDA_COMPILER
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "tessera/core/cuda_check.hpp"
#include "tuned_pair_kernel.hpp"
#include "tuned_quad_kernel.hpp"
#include "tuned_slot.hpp"
#endif

namespace tessera::lbm::detail {

namespace {
// TESSERA_LBM_FUSED_LAG (planes the even step runs ahead of the odd one within a slab, >= 2; default 6, and
// 16 for boxes periodic along z: fused_lag), TESSERA_LBM_FUSED_ROWS (rows per slab, >= 2; unset or 0: from
// the window) and TESSERA_LBM_FUSED_MB (the window: MB of planes in flight per slab, default 12), read per
// call (measurement).
int fused_knob(const char* var, int fallback, int lo) {
  return int(std::min<long>(knob_integer(var, fallback, lo, "an integer >= " + std::to_string(lo) + " (unset: the default)"),
                            1L << 20));
}
}  // namespace

// Rows per slab: the planes in flight in a slab (lag + 3: the even planes ahead, the three an odd plane
// reads, the one being written back) in the window, as equal slabs. The window is 12 MB by default, a
// fifth of the H200's L2 (60 MB, half of it in each partition): at 512^3 on an H100, 24 MB was 4-11 %
// slower (D3Q19 / D3Q27 fp32; docs/performance.md, LBM item 36).
int fused_rows(const LatticeState& s, int lag) {
  const int want = fused_knob("TESSERA_LBM_FUSED_ROWS", 0, 0);
  TESSERA_REQUIRE(want != 1, "TESSERA_LBM_FUSED_ROWS='1': a slab needs at least 2 rows (0 or unset: from the window)");
  const GridLayout& g = s.grid();
  if (want >= 2) return int(std::min<int64_t>(want, g.ny));
  const double row_bytes = double(g.px()) * double(s.bytes_per_cell());
  const double window = 1e6 * double(fused_knob("TESSERA_LBM_FUSED_MB", 12, 1));
  const int64_t fit = std::max<int64_t>(2, int64_t(window / (double(lag + 3) * row_bytes)));
  const int64_t slabs = (g.ny + fit - 1) / fit;
  return int(std::max<int64_t>(2, (g.ny + slabs - 1) / slabs));
}
// The lag (at most nz). 6 by default: on an H100 (2026-12-06, c4db465) 2.2-7.3 % faster than 4 in all eight
// fp32 cases of bench_lbm (D3Q19 / D3Q27, periodic / walled, 256^3 / 512^3) and faster than 8 in six of them;
// 4 had been 4-5 % faster than 3 on an H200 before the one-fence signal and the parallel waits (LBM items 36,
// 39, 40), and 6 is not yet measured there. With z periodic (per bit 4: the odd planes run one later, so O(1)
// needs the even step 3 planes on) 16 unless the knob is set (then at least 3): the solver's Taylor-Green box
// on an H100, D3Q19 / D3Q27 fp32 256^3 fused, 16,995 / 10,419 MLUPs/s at lag 4, 18,401 / 11,250 at 6,
// 19,331 / 11,866 at 12, 19,495 / 12,053 at 16 (docs/performance.md, LBM item 43). The gain needs the
// longer lead and the thinner slabs that come with it together (lag 6 with 32-row slabs, or lag 16 with
// 64-row ones, 14 % slower; item 44, which reads it as the odd item's distance in tickets to the even item
// it waits for, 2 lag - 5 here and 2 lag - 3 closed, against the items the resident blocks hold).
int fused_lag(const LatticeState& s, unsigned per) {
  if (per & 4u) return int(std::min<int64_t>(std::max(fused_knob("TESSERA_LBM_FUSED_LAG", 16, 2), 3), s.grid().nz));
  return int(std::min<int64_t>(fused_knob("TESSERA_LBM_FUSED_LAG", 6, 2), s.grid().nz));
}

// TESSERA_LBM_FUSED_PAIRS (read per call; measurement): the most step pairs one launch takes (default 1: a
// launch per pair; on an H100 10 pairs per launch were 8-18 % slower: docs/performance.md, LBM item 39).
int fused_pairs_per_launch() { return fused_knob("TESSERA_LBM_FUSED_PAIRS", 1, 1); }

// TESSERA_LBM_FUSED_FENCE (read per call; measurement): how a block makes its writes visible before it
// counts an item done: "one" (default: the barrier, then thread 0's fence and atomic, the pattern of the
// cooperative groups' grid barrier: PTX's fences are cumulative over the writes the barrier ordered before
// them; on an H100 0.8-2.5 % faster in all eight fp32 cases, LBM item 39) or "all" (every thread's fence,
// then the barrier: the form before 2026-12-06). Returns 0 or 1. (Thread 0's red.release.gpu instead of
// its __threadfence and atomic, MEMBAR.ALL.GPU instead of MEMBAR.SC.GPU, ran at the same speed: item 40.)
int fused_signal_form() { return knob_choice("TESSERA_LBM_FUSED_FENCE", {"one", "all"}, "one", "one"); }

// TESSERA_LBM_FUSED_XFACE (read per call; measurement): where the odd items' cells on a face normal to x
// load their links from the wall (with the face cells, face_cells_flagged): "early" (default: with the pair
// loads, pair_update's XE form; on an H100 the walled box +0.9-2.6 % D3Q19, +6.3-8.0 % D3Q27 fp32 over
// "late", LBM item 40, despite 10 / 46 bytes of spills in those two instantiations) or "late" (after the
// pair loads are unpacked, as every other wall cell: the form before 2026-12-06).
bool fused_xface_early() { return knob_choice("TESSERA_LBM_FUSED_XFACE", {"early", "late"}, "early", "early") == 0; }

// TESSERA_LBM_FUSED_EVEN (read per call; measurement): the even items' step: "quad" (default since
// 2026-12-07: the quad kernel's, quad_even_at: four cells per thread, 8-byte accesses in fp16, so 256-byte
// warp requests where the pair's are 128, which load the link between the L2's partitions less per byte:
// docs/performance.md, LBM items 15-16; not staged through shared memory, which item 38's staged form paid for
// in every block; on an H100 the fused launch in fp16 was 10-20 % faster with it in all four target cases,
// LBM item 47) or "pair" (the pair kernel's, two cells per thread, 4-byte accesses in fp16: the form
// before). "quad" takes effect with fp16 storage (in fp32 the quad's 19 or 27 float4 values do not fit the
// launch's 102 or 128 registers), no periodic axes (the quad step writes no ghost images) and a slot stride
// of a multiple of 4 (tuned_quad_applicable); elsewhere the even items keep the pair step. Returns whether
// "quad".
bool fused_even_quad() {
  return knob_choice("TESSERA_LBM_FUSED_EVEN", {"pair", "quad"}, "quad", "quad, where fp16 storage allows it") == 1;
}
// TESSERA_LBM_FUSED_BLOCKS (read per call): the minimum resident blocks per multiprocessor in the launch bounds
// of the D3Q19 launch with the quad even step (fp16 storage): 5 (the pair kernel's: 96 registers, no spills,
// 20 warps per multiprocessor), 6 (the default since 2026-12-07: 80 registers, 24 warps; ptxas spills 4 bytes in
// the closed and walled forms) or 7 (72 registers, 28 warps; 24-48 bytes of spills). On an H200 the launch at 5
// ran with 27-29 % of its warps active, the link between the L2's partitions at 73-80 % and DRAM at 28-32 %,
// i.e. it waits (docs/performance.md, LBM item 53); on an H100 (LBM item 54) 6 was 2.9-3.5 % faster than 5 in
// the walled box at 256^3 and 512^3 and level in the periodic one, 7 between them walled and 1.9-3.5 %
// slower periodic. Returns 5, 6 or 7.
int fused_blocks() { return 5 + knob_choice("TESSERA_LBM_FUSED_BLOCKS", {"5", "6", "7"}, "6", "6"); }

bool fused_even_quad_used(const LatticeState& s, unsigned per) {
  return s.precision() == Precision::FP16 && per == 0u && fused_even_quad() && tuned_quad_applicable(s);
}

bool tuned_fused_applicable(const LatticeState& s, const CollisionParams& p) {
  return tuned_available(s.lattice(), s.precision()) && tuned_pair_applicable(s) && p.kind == CollisionKind::BGK &&
         !tuned_force_terms(s, p) && s.grid().ny >= 2;
}

#if TESSERA_CUDA_COMPILER
namespace {

__constant__ WallTable c_fused_walls;

struct FusedPlan {
  uint32_t nz, ny;
  uint32_t rows;   // rows per slab (>= 2)
  uint32_t slabs;
  uint32_t te, to;  // blocks per even and per odd item (fewer per even item with the quad step)
  uint32_t lag;    // 2 <= lag <= nz
  uint32_t pairs;  // step pairs in this launch
  uint32_t signal;  // fused_signal_form(): thread 0's fence after the barrier (0), every thread's before it (1)
  uint32_t per;     // periodic axes (bits x = 1, y = 2, z = 4; one pair per launch): see "Periodic axes" above
};
struct FusedItem {
  uint32_t pair, slab, k;
  uint32_t tile;  // the block's place within its item
  bool odd;
};

// The item of ticket `ticket` and the block's place in it: the items in the order of the header comment,
// each item's blocks in a row, P.to per item (QE false: as many per even item) or P.te per even and P.to per
// odd item (QE: the quad even step, fewer per even item).
template <bool QE>
__device__ inline FusedItem fused_item(const FusedPlan& P, uint32_t ticket) {
  const uint32_t rest = P.nz - P.lag;
  FusedItem it{0u, 0u, 0u, 0u, false};
  if constexpr (!QE) {  // items of equal size
    const uint32_t pos0 = ticket / P.to, per = 2u * P.nz;
    it.tile = ticket - pos0 * P.to;
    it.pair = pos0 / (per * P.slabs);
    const uint32_t pos = pos0 - it.pair * per * P.slabs;
    it.slab = pos / per;
    const uint32_t r = pos - it.slab * per;
    if (r < P.lag) {
      it.k = r;
      return it;
    }
    const uint32_t q = r - P.lag;
    if (q < 2u * rest) {
      it.odd = (q & 1u) == 0u;
      it.k = it.odd ? q / 2u : q / 2u + P.lag;
    } else {
      it.odd = true;
      it.k = rest + (q - 2u * rest);
    }
  } else {
    const uint32_t both = P.te + P.to, per_slab = P.nz * both, per_pair = per_slab * P.slabs;
    it.pair = ticket / per_pair;
    uint32_t r = ticket - it.pair * per_pair;
    it.slab = r / per_slab;
    r -= it.slab * per_slab;
    if (r < P.lag * P.te) {  // E(0) .. E(lag - 1)
      it.k = r / P.te;
      it.tile = r - it.k * P.te;
      return it;
    }
    r -= P.lag * P.te;
    if (r < rest * both) {  // O(q), E(q + lag)
      const uint32_t q = r / both, w = r - q * both;
      it.odd = w < P.to;
      it.k = it.odd ? q : q + P.lag;
      it.tile = it.odd ? w : w - P.to;
    } else {  // the last odd items
      r -= rest * both;
      it.odd = true;
      it.k = rest + r / P.to;
      it.tile = r - (r / P.to) * P.to;
    }
  }
  if (it.odd && (P.per & 4u)) it.k = it.k + 1u == P.nz ? 0u : it.k + 1u;  // z periodic: O(1) .. O(nz - 1), O(0)
  return it;
}

__device__ inline unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Thread `lane` (0 .. 8) of a block until `need` tickets of plane k - 1 + lane % 3 of slab s0 + lane / 3
// have finished (counters `done`, one per (slab, plane)), clamped to planes k - 1 .. k + 1 and slabs s0 ..
// s1 (lanes past the range wait for its last counter again, which is harmless). So the nine loads are in
// flight together rather than one after the other (2026-12-06: the same speed with one pair per launch,
// 6-8 % faster with ten on an H100); the barrier after the wait orders them before every thread's loads.
// With z periodic the planes wrap (k - 1 and k + 1 mod nz); lanes 6 .. 8 wait for slab s2's planes (the
// first slab, for the last slab's odd items with y periodic; else s2 = s1).
__device__ inline void wait_plane(const FusedPlan& P, const unsigned* done, uint32_t s0, uint32_t s1, uint32_t s2,
                                  uint32_t k, unsigned need, uint32_t lane) {
  uint32_t kk;
  if (P.per & 4u) {
    kk = k + P.nz - 1u + lane % 3u;
    kk = kk >= P.nz ? kk - P.nz : kk;
    kk = kk >= P.nz ? kk - P.nz : kk;
  } else {
    const uint32_t klo = k == 0u ? 0u : k - 1u, khi = min(k + 1u, P.nz - 1u);
    kk = min(klo + lane % 3u, khi);
  }
  const uint32_t sl = lane >= 6u ? s2 : min(s0 + lane / 3u, s1);
  while (ld_acquire(done + sl * P.nz + kk) < need) __nanosleep(32);
}
// Whether item `it` waits for others (the same answer for every thread of its block).
__device__ inline bool fused_waits(const FusedItem& it) { return it.odd || it.pair > 0u; }
// Before item `it` (called by every thread of its block, lane = threadIdx.x; threads 0 .. 8 wait): an odd
// item until the even step of its pair has finished planes k - 1 .. k + 1 of its slab and of the slab
// before it; an even item of a later pair until the previous pair's odd step has finished planes k - 1 ..
// k + 1 of its slab and of the slab after it. done: the even counters, then the odd ones (slabs nz each).
__device__ inline void fused_wait(const FusedPlan& P, const unsigned* done, const FusedItem& it, uint32_t lane) {
  if (lane >= 9u) return;
  if (it.odd) {
    // y periodic: the last slab's odd items also read the first slab's rows 0 and 1 (store_images' ghost row
    // ny, and the row-0 pass of odd_rows)
    const uint32_t s2 = (P.per & 2u) && it.slab + 1u == P.slabs ? 0u : it.slab;
    wait_plane(P, done, it.slab == 0u ? 0u : it.slab - 1u, it.slab, s2, it.k, (it.pair + 1u) * P.te, lane);
  } else {
    const uint32_t s1 = min(it.slab + 1u, P.slabs - 1u);
    wait_plane(P, done + P.slabs * P.nz, it.slab, s1, s1, it.k, it.pair * P.to, lane);
  }
}
// The counter a finished item counts in: every even item's; an odd item's only if a later pair of the
// launch waits for it (else nullptr: no fence needed).
__device__ inline unsigned* fused_signal(const FusedPlan& P, unsigned* done, const FusedItem& it) {
  if (!it.odd) return done + it.slab * P.nz + it.k;
  return it.pair + 1u < P.pairs ? done + (P.slabs + it.slab) * P.nz + it.k : nullptr;
}
// The rows an odd item of the slab [y0, y1) updates: [y0 - 1, y1 - 1), the last slab's up to ny. With y
// periodic row 0 reads the ghost row -1, the image of row ny - 1, which the last slab's even items write:
// the first slab's odd items start at row 1 and the last slab's take row 0 after their own rows.
__device__ inline PairRows odd_rows(const FusedPlan& P, uint32_t y0, uint32_t y1) {
  return PairRows{y0 == 0u ? ((P.per & 2u) && P.ny > 1u ? 1u : 0u) : y0 - 1u, y1 == P.ny ? P.ny : y1 - 1u};
}

// ctr[0]: the ticket counter; ctr[1 + slab nz + k]: finished blocks of the even items E(., slab, k);
// ctr[1 + (slabs + slab) nz + k]: of the odd items. Zeroed before each launch. QE: the even items run the quad
// step (fused_even_quad; never with PER), its quads from the slab's first cell rounded down to a multiple of 4
// (a quad across two slabs' boundary is loaded by both even items, each updating its own cells).
template <class L, class S, int BX, int MB, bool FC, bool XE, bool PER, bool QE = false>
__global__ void __launch_bounds__(BX, MB) stream_collide_fused(S* __restrict__ f, const uint8_t* __restrict__ flags,
                                                               StepArgs<float> ae, StepArgs<float> ao, PairGeom g,
                                                               QuadGeom qg, FusedPlan P, SlotPtrs<S> sp, unsigned* ctr) {
  static_assert(!(QE && PER), "the quad even step writes no ghost images");
  __shared__ unsigned s_ticket;
  if (threadIdx.x == 0) s_ticket = atomicAdd(ctr, 1u);
  __syncthreads();
  const FusedItem it = fused_item<QE>(P, s_ticket);
  unsigned* done = ctr + 1;
  const uint32_t y0 = it.slab * P.rows, y1 = min(y0 + P.rows, P.ny);
  const uint32_t t = it.tile * uint32_t(BX) + threadIdx.x;
  if (fused_waits(it)) {
    fused_wait(P, done, it, threadIdx.x);
    __syncthreads();
  }
  if (!it.odd) {
    if constexpr (QE) {
      const uint32_t plane = qg.pxy * (it.k + 1u);
      const uint32_t lo = plane + qg.px * (1u + y0), end = plane + qg.px * (1u + y1);
      quad_even_at<L, S, CollisionKind::BGK, false, false, false, true>(sp, flags, ae, qg, (lo & ~3u) + 4u * t, it.k,
                                                                       lo, end);
    } else {
      pair_update<L, S, CollisionKind::BGK, 4, false, false, false, false, PER>(f, sp, flags, ae, g, c_fused_walls, t,
                                                                                it.k, threadIdx.x & 31u, PairRows{y0, y1});
    }
  } else {
    pair_update<L, S, CollisionKind::BGK, 4, false, false, FC, XE>(f, sp, flags, ao, g, c_fused_walls, t, it.k,
                                                               threadIdx.x & 31u, odd_rows(P, y0, y1));
    if constexpr (PER)  // y periodic: the last slab's odd items take row 0 too (odd_rows)
      if ((P.per & 2u) && P.ny > 1u && y1 == P.ny)
        pair_update<L, S, CollisionKind::BGK, 4, false, false, FC, XE>(f, sp, flags, ao, g, c_fused_walls, t, it.k,
                                                                   threadIdx.x & 31u, PairRows{0u, 1u});
  }
  // The item again from the ticket in shared memory (a volatile load: nothing of it kept live across the
  // update, which at 96 registers spilled otherwise).
  const FusedItem done_it = fused_item<QE>(P, *static_cast<volatile unsigned*>(&s_ticket));
  if (unsigned* sig = fused_signal(P, done, done_it)) {
    if (P.signal == 1u) {  // every thread's fence, then the barrier (TESSERA_LBM_FUSED_FENCE=all)
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) atomicAdd(sig, 1u);
    } else {  // the barrier, then thread 0's fence (cumulative over the block's writes the barrier ordered)
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(sig, 1u);
      }
    }
  }
}

// The state's counters, zeroed on the stream before the launch.
unsigned* fused_counters(LatticeState& s, std::size_t n, cudaStream_t st) {
  Buffer<unsigned>& buf = s.fused_counters();
  if (buf.size() < n) buf = Buffer<unsigned>(n, MemKind::Device, "lbm::fused_counters");
  TESSERA_CUDA_CHECK(cudaMemsetAsync(buf.data(), 0, n * sizeof(unsigned), st));
  return buf.data();
}

template <class L, class S>
void go_fused(cudaStream_t st, LatticeState& s, const CollisionParams& p, int64_t pairs, unsigned per) {
  constexpr int BX = 128, MB = L::Q <= 19 ? 5 : 4;  // the pair kernel's launch bounds (pair_launch)
  const GridLayout& g = s.grid();
  PairGeom pg = make_pair_geom(g, 2);
  const int lag = fused_lag(s, per);
  FusedPlan P;
  P.per = per;
  pg.per = per;
  P.nz = uint32_t(g.nz);
  P.ny = uint32_t(g.ny);
  P.rows = uint32_t(fused_rows(s, lag));
  P.slabs = (P.ny + P.rows - 1u) / P.rows;
  P.lag = uint32_t(lag);
  P.signal = uint32_t(fused_signal_form());
  // An item spans at most rows + 1 rows (the last slab's odd items), from a base up to align - 1 cells early.
  const uint64_t cell_pairs = (uint64_t(pg.px) * (P.rows + 1u) + pg.align + 1u) / 2u;
  P.to = uint32_t((cell_pairs + BX - 1) / BX);  // blocks per odd item
  // The even items' quad step (fused_even_quad): an even item spans at most rows rows, from a quad up to 3
  // cells early.
  const bool quad_even = fused_even_quad_used(s, per);
  const QuadGeom qg = make_quad_geom(g);
  P.te = quad_even ? uint32_t(((uint64_t(pg.px) * P.rows + 6u) / 4u + BX - 1) / BX) : P.to;
  const uint64_t per_pair = uint64_t(P.te + P.to) * P.nz * P.slabs;  // blocks
  TESSERA_REQUIRE(per_pair < (uint64_t(1) << 31), "fused LBM steps: too many blocks (tickets) for one launch");
  // With periodic axes every pair ends with the caller's reverse exchange: one pair per launch.
  const int64_t fit = int64_t(((uint64_t(1) << 31) - 1) / per_pair);
  const int64_t cap = per != 0u ? 1 : std::min<int64_t>(fused_pairs_per_launch(), fit);
  StepArgs<float> ae = make_step_args<float>(s, p), ao = ae;
  ae.odd = false;
  ao.odd = true;
  TESSERA_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_fused_walls, &p.walls, sizeof(WallTable), 0, cudaMemcpyHostToDevice, st));
  S* f = static_cast<S*>(s.pops());
  const SlotPtrs<S> sp = make_slot_ptrs(f, L::Q, g.cells());
  // The odd items' face cells take their walls from their own flags (the pair kernel's face form, FC) for
  // D3Q27 as for D3Q19 (2026-12-06; the default kernels stream D3Q27's face cells without a face form).
  const bool face = face_cells_flagged(s);
  const bool early = fused_xface_early();
  const int blocks_min = fused_blocks();
  for (int64_t left = pairs; left > 0; left -= P.pairs) {
    P.pairs = uint32_t(std::min(left, cap));
    unsigned* ctr = fused_counters(s, 1u + 2u * std::size_t(P.slabs) * P.nz, st);
    const auto launch = [&](auto fc, auto xe) {
      constexpr bool FC = decltype(fc)::value, XE = decltype(xe)::value;
      const unsigned blocks = unsigned(per_pair * P.pairs);
      if (per != 0u) {
        stream_collide_fused<L, S, BX, MB, FC, XE, true><<<blocks, BX, 0, st>>>(f, s.flags(), ae, ao, pg, qg, P, sp, ctr);
        return;
      }
      if constexpr (std::is_same_v<S, half_t>) {  // (the quad even step with fp16 storage only)
        if (quad_even) {
          const auto quad = [&](auto mb) {
            stream_collide_fused<L, S, BX, decltype(mb)::value, FC, XE, false, true>
                <<<blocks, BX, 0, st>>>(f, s.flags(), ae, ao, pg, qg, P, sp, ctr);
          };
          if constexpr (L::Q == 19) {  // TESSERA_LBM_FUSED_BLOCKS: the launch bounds' blocks per multiprocessor
            if (blocks_min == 5) quad(std::integral_constant<int, 5>{});
            else if (blocks_min == 7) quad(std::integral_constant<int, 7>{});
            else quad(std::integral_constant<int, 6>{});
          } else {
            quad(std::integral_constant<int, MB>{});
          }
          return;
        }
      }
      stream_collide_fused<L, S, BX, MB, FC, XE, false><<<blocks, BX, 0, st>>>(f, s.flags(), ae, ao, pg, qg, P, sp, ctr);
    };
    if (face && early) launch(std::true_type{}, std::true_type{});
    else if (face) launch(std::true_type{}, std::false_type{});
    else launch(std::false_type{}, std::false_type{});
    TESSERA_CUDA_CHECK_LAUNCH("lbm::stream_collide_fused");
  }
}

}  // namespace
#endif

void tuned_fused_steps(const exec::Exec& ex, LatticeState& s, const CollisionParams& p, int64_t pairs, unsigned per) {
  TESSERA_REQUIRE(ex.on_device(), "the fused LBM steps run on the GPU only");
  TESSERA_REQUIRE(s.parity == 0, "the fused LBM steps start at an even step (parity 0)");
  TESSERA_REQUIRE(tuned_fused_applicable(s, p),
                  "the fused LBM steps need D3Q19 or D3Q27 with fp32 or fp16 storage, BGK without any force, an even "
                  "nx and fewer than 2^32 padded cells (the pair kernel's layout)");
#if TESSERA_CUDA_COMPILER
  const auto st = static_cast<cudaStream_t>(ex.stream);
  const bool h = s.precision() == Precision::FP16;
  if (s.lattice() == LatticeKind::D3Q19)
    h ? go_fused<D3Q19, half_t>(st, s, p, pairs, per) : go_fused<D3Q19, float>(st, s, p, pairs, per);
  else
    h ? go_fused<D3Q27, half_t>(st, s, p, pairs, per) : go_fused<D3Q27, float>(st, s, p, pairs, per);
#else
  (void)pairs;  // (a host build refuses above: ex.on_device() is false there)
  (void)per;
#endif
}

}  // namespace tessera::lbm::detail
